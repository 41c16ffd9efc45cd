// The study board (/study) in a real browser: the inventor's game pasted in his
// own Polish notation replays to his mate (the ply count and the last position
// from tests/data, never from korpd), the arrow keys step through it, a typed
// move plays a variation and an illegal one is refused with the rules' reason,
// and Glinski's fool's mate from his 1974 book replays to mate.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, useStage, person } from './harness.mjs';

const DATA = path.join(REPO, 'tests', 'data');
const TIMEOUT = 15000;

let korpd, browser;
useStage(stage => ({ korpd, browser } = stage));

function inventorPlies() {
  return fs.readFileSync(path.join(DATA, 'inventor-sample.fens.tsv'), 'utf8').trim().split('\n').slice(1)
    .map(line => { const [ply, san, uci, fen] = line.split('\t'); return { ply: Number(ply), san, uci, fen }; });
}

async function status(page, text) {
  await page.locator(`#study-status:text("${text}")`).waitFor({ timeout: TIMEOUT });
}

test('the study board replays, steps, plays variations and refuses illegal moves', async () => {
  const p = await person(browser, korpd.base, 'student');
  const { page } = p;
  p.allow(/status of 422/);            // the refused move below
  await page.goto('/study');
  await status(page, 'Ply 0 of 0');

  // The inventor's game in his notation, as printed.
  const polish = fs.readFileSync(path.join(DATA, 'inventor-sample-polish.txt'), 'utf8')
    .split('\n').filter(l => !l.startsWith('#')).join('\n');
  const plies = inventorPlies();
  await page.fill('#study-text', polish);
  await page.click('#study-load');
  await status(page, 'Checkmate');
  assert.equal(await page.locator('#study-moves li').count(), plies.length);
  const shown = await page.locator('#study-moves li').allInnerTexts();
  assert.deepEqual(shown.map(t => t.split(' ')[0]), plies.map(x => x.san));

  // Arrow keys and Home step through it.
  await page.locator('body').click({ position: { x: 5, y: 5 } });
  await page.keyboard.press('ArrowLeft');
  await status(page, `Ply ${plies.length - 1} of ${plies.length}`);
  await page.keyboard.press('Home');
  await status(page, `Ply 0 of ${plies.length}`);
  await page.keyboard.press('ArrowRight');
  await status(page, `Ply 1 of ${plies.length}`);
  // The board shows the first drop: White's king on c3.
  await page.locator('[data-cell="c3"][aria-label="c3 white king"]').waitFor({ timeout: TIMEOUT });

  // A variation from ply 1: Black's king elsewhere; the rest of the line goes.
  await page.fill('#study-move', 'K@h8');
  await page.press('#study-move', 'Enter');
  await status(page, 'Ply 2 of 2');
  assert.equal(await page.locator('#study-back').isVisible(), true);
  // Kings may not stand side by side: refused with the rules' words.
  await page.fill('#study-move', 'K@c4');
  await page.press('#study-move', 'Enter');
  await page.locator('#study-message.message-error').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('#study-message').innerText(), /illegal|attack|adjacent|king/i);
  await status(page, 'Ply 2 of 2');
  // Back to the loaded game.
  await page.click('#study-back');
  assert.equal(await page.locator('#study-moves li').count(), plies.length);
  assert.equal(await page.locator('#study-back').isVisible(), false);

  // Glinski: the fool's mate, from the book.
  await page.selectOption('#study-variant', 'glinski');
  await page.fill('#study-text', fs.readFileSync(path.join(DATA, 'glinski', 'FoolsMate.pgn'), 'utf8'));
  await page.click('#study-load');
  await status(page, 'Checkmate');
  assert.equal(await page.locator('#study-moves li').count(), 7);

  await page.screenshot({ path: path.join(process.env.KORP_WEB_OUT || '/tmp', 'study.png') });
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

// Keyboard only: a drop from the reserve and a board move, by Tab, arrows and Enter;
// each move is said in words (the board's live region).
test('moves by keyboard alone, said in words', async () => {
  const p = await person(browser, korpd.base, 'keyboard');
  const { page } = p;
  await page.goto('/study');
  await status(page, 'Ply 0 of 0');
  const focused = () => page.evaluate(() => document.activeElement?.closest?.('[data-cell]')?.dataset.cell
    || document.activeElement?.dataset?.reserve || document.activeElement?.id || null);
  // From the white reserve's king, Shift+Tab reaches the board (one cell in the tab order).
  // (Each step waits for what it needs: the king droppable, the focus on a cell.)
  const onCell = () => page.waitForFunction(() => !!document.activeElement?.closest?.('[data-cell]'),
    null, { timeout: TIMEOUT });
  await page.locator('[data-reserve="white-k"]:not([disabled])').waitFor({ timeout: TIMEOUT });
  await page.focus('[data-reserve="white-k"]');
  await page.keyboard.press('Enter');
  await page.locator('[data-reserve="white-k"][aria-pressed="true"]').waitFor({ timeout: TIMEOUT });
  await page.keyboard.press('Shift+Tab');
  await onCell();
  let at = await focused();
  assert.match(at, /^[a-h][1-8]$/, `focus on a cell, not ${at}`);
  // Arrow keys to e4 (White at the bottom: right is up a file, up is up a rank).
  const files = 'abcdefgh';
  for (let guard = 0; guard < 20 && at !== 'e4'; guard++) {
    const df = files.indexOf('e') - files.indexOf(at[0]), dr = 4 - Number(at[1]);
    await page.keyboard.press(df > 0 ? 'ArrowRight' : df < 0 ? 'ArrowLeft' : dr > 0 ? 'ArrowUp' : 'ArrowDown');
    at = await focused();
  }
  assert.equal(at, 'e4');
  await page.keyboard.press('Enter');
  await status(page, 'Ply 1 of 1');
  await page.locator('.board-announce:text("White drops a king on e4")').waitFor({ timeout: TIMEOUT });
  // Black's king by keyboard too: the black reserve is above the board (Tab after it).
  await page.locator('[data-reserve="black-k"]:not([disabled])').waitFor({ timeout: TIMEOUT });
  await page.focus('[data-reserve="black-k"]');
  await page.keyboard.press('Enter');
  await page.locator('[data-reserve="black-k"][aria-pressed="true"]').waitFor({ timeout: TIMEOUT });
  await page.keyboard.press('Tab');
  await onCell();
  at = await focused();
  assert.match(String(at), /^[a-h][1-8]$/, `focus on a cell, not ${at}: ${await page.evaluate(() => document.activeElement?.outerHTML?.slice(0, 200))}`);
  for (let guard = 0; guard < 20 && at !== 'e8'; guard++) {
    const df = files.indexOf('e') - files.indexOf(at[0]), dr = 8 - Number(at[1]);
    await page.keyboard.press(df > 0 ? 'ArrowRight' : df < 0 ? 'ArrowLeft' : dr > 0 ? 'ArrowUp' : 'ArrowDown');
    at = await focused();
  }
  await page.keyboard.press('Enter');
  await status(page, 'Ply 2 of 2');
  await page.locator('.board-announce:text("Black drops a king on e8")').waitFor({ timeout: TIMEOUT });
  // A board move: the white king from e4 to e5, picked and put down with Enter.
  await page.locator('[data-cell="e4"]').focus();
  await page.keyboard.press('Enter');
  await page.keyboard.press('ArrowUp');
  assert.equal(await focused(), 'e5');
  await page.keyboard.press('Enter');
  await status(page, 'Ply 3 of 3');
  await page.locator('.board-announce:text("White king to e5")').waitFor({ timeout: TIMEOUT });
  assert.deepEqual(p.errors, []);
  await p.context.close();
});
