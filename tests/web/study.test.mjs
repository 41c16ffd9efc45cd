// The study board (/study) in a real browser: the inventor's game pasted in his
// own Polish notation replays to his mate (the ply count and the last position
// from tests/data, never from korpd), the arrow keys step through it, a typed
// move plays a variation and an illegal one is refused with the rules' reason,
// and Glinski's fool's mate from his 1974 book replays to mate.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { REPO, startPostgres, startKorpd, launchChromium, person } from './harness.mjs';

const KORPD = process.env.KORPD || path.join(REPO, 'build', 'korpd', 'korpd');
const DATA = path.join(REPO, 'tests', 'data');
const TIMEOUT = 15000;

let pg, korpd, browser;

before(async () => {
  pg = await startPostgres();
  const env = {};
  if (process.env.KORP_WEB_DIR) env.KORP_WEB_DIR = process.env.KORP_WEB_DIR;
  korpd = await startKorpd(KORPD, pg.url, env);
  browser = await launchChromium();
});

after(async () => {
  await browser?.close().catch(() => {});
  await korpd?.close();
  pg?.close();
});

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
