// Engine analysis in the browser: the panel on a finished game's
// page shows the engine's lines; it is not offered on a game the person is
// still playing; on the study board it finds the mate in one of a position
// analysed by hand (below), a click plays the line on the board, and the
// position of a game the person plays, pasted, is refused with korpd's words.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person, signedIn } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 20000;
// Korpalski, White to move, both reserves empty: 1. Ra8 is mate (the king on h8
// is shut in by its own pawns on g7 and h7, g8 is covered by the rook, and no
// black man can block the eighth rank or take the rook; nothing can be dropped).
const MATE_IN_ONE = '7k/6pp/8/8/8/8/8/R5K1[] w - - 0 40';

let korpd, browser, call;
const world = {};

// A game of theirs with both kings placed. (The two games below differ: korpd
// refuses analysis of any position of a game the asker is playing.)
async function game(white, black, kings) {
  const c = await call('POST', '/v1/challenges', white.token, { variant: 'korpalski', opponent: black.id, color: 'white' });
  const id = (await call('POST', `/v1/challenges/${c.id}/accept`, black.token)).game_id;
  await call('POST', `/v1/games/${id}/moves`, white.token, { move: kings[0], ply: 0 });
  await call('POST', `/v1/games/${id}/moves`, black.token, { move: kings[1], ply: 1 });
  return id;
}

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  world.ewa = await call('POST', '/v1/players', null, { name: 'ewa', password: PASSWORD });
  world.felek = await call('POST', '/v1/players', null, { name: 'felek', password: PASSWORD });
  world.active = await game(world.ewa, world.felek, ['K@e1', 'K@e8']);
  world.finished = await game(world.ewa, world.felek, ['K@d1', 'K@d8']);
  await call('POST', `/v1/games/${world.finished}/resign`, world.felek.token);
});

const signInAs = name => signedIn(browser, korpd.base, name, PASSWORD, { timeout: TIMEOUT });

const SCORE = /^(#-?\d+|[+-]?\d+\.\d\d)$/;

test('a finished game offers the engine; the asker\'s active game does not', async () => {
  const p = await signInAs('ewa');
  const { page } = p;
  await page.goto(`/games/${world.finished}`);
  await page.locator('#analysis-panel').waitFor({ timeout: TIMEOUT });
  // The positions offered are the game's, after each move; the last is chosen.
  assert.deepEqual(await page.locator('#analysis-ply option').allInnerTexts(), ['After 1. K@d1', 'After 1… K@d8']);
  await page.click('#analysis-run');
  await page.locator('#analysis-lines li').first().waitFor({ timeout: TIMEOUT });
  const lines = await page.locator('#analysis-lines li').count();
  assert.ok(lines >= 1 && lines <= 3, `${lines} lines`);
  const score = await page.locator('#analysis-lines li .analysis-score').first().innerText();
  assert.match(score, SCORE);
  // White to move after 1... K@e8: the line starts with White's second move.
  assert.match(await page.locator('#analysis-lines li .analysis-line').first().innerText(), /^2\. \S+/);
  assert.match(await page.locator('#analysis-info').innerText(), /Depth \d+/);

  // Her game in play: drawn and live, and no panel.
  await page.goto(`/games/${world.active}`);
  await page.locator('#board[data-ply="2"]').waitFor({ timeout: TIMEOUT });
  await page.locator('#live:text("live")').waitFor({ timeout: TIMEOUT });
  assert.equal(await page.locator('#analysis-panel').count(), 0);
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

test('the study board\'s panel finds the mate and plays it', async () => {
  const p = await signInAs('felek');
  const { page } = p;
  await page.goto('/study');
  await page.locator('#study-status:text("Ply 0 of 0")').waitFor({ timeout: TIMEOUT });
  await page.fill('#study-text', MATE_IN_ONE);
  await page.click('#study-load');
  await page.locator('#study-status:text("Ply 0 of 0: White to move")').waitFor({ timeout: TIMEOUT });
  await page.click('#analysis-run');
  const first = page.locator('#analysis-lines li').first();
  await first.waitFor({ timeout: TIMEOUT });
  assert.equal(await first.locator('.analysis-score').innerText(), '#1');
  assert.equal(await first.locator('.analysis-line').innerText(), '40. Ra8#');
  // A click plays the line: the rules say mate.
  await first.locator('button.analysis-line').click();
  await page.locator('#study-status:text("Checkmate")').waitFor({ timeout: TIMEOUT });
  assert.equal(await page.locator('#study-moves li').count(), 1);
  // The lines were for the position before: gone now.
  assert.equal(await page.locator('#analysis-lines li').count(), 0);
  // The position of his game in play, pasted: korpd refuses, the panel says why.
  p.allow(/status of 403/);
  const active = await call('GET', `/v1/games/${world.active}`);
  await page.fill('#study-text', active.fen);
  await page.click('#study-load');
  await page.locator('#study-status:text("Ply 0 of 0: White to move")').waitFor({ timeout: TIMEOUT });
  await page.click('#analysis-run');
  await page.locator('#analysis-message.message-error').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('#analysis-message').innerText(), /which you are playing/);
  assert.equal(await page.locator('#analysis-lines li').count(), 0);
  assert.deepEqual(p.errors, []);
  await p.context.close();
});

test('signed out, the panel asks people to sign in', async () => {
  const p = await person(browser, korpd.base, 'visitor');
  await p.page.goto('/study');
  await p.page.locator('#analysis-panel a[href^="/login"]').waitFor({ timeout: TIMEOUT });
  assert.equal(await p.page.locator('#analysis-run').count(), 0);
  assert.deepEqual(p.errors, []);
  await p.context.close();
});
