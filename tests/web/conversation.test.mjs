// The game page's conditional moves, messages and notes in a real
// browser (Chromium through playwright-core) against a real korpd and
// PostgreSQL: ewa types a tree of lines while her opponent is to move and
// saves it; the opponent's move is answered at once; the players exchange a
// message; notes are ewa's alone; a spectator sees the messages only once the
// game is over.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person, signedIn } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let korpd, browser, call;
const world = {};

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  world.ewa = await call('POST', '/v1/players', null, { name: 'ewa', password: PASSWORD });
  world.jan = await call('POST', '/v1/players', null, { name: 'jan' });   // a bot, by token
  const c = await call('POST', '/v1/challenges', world.ewa.token,
    { variant: 'korpalski', opponent: world.jan.id, color: 'white', days_per_move: null });
  world.game = (await call('POST', `/v1/challenges/${c.id}/accept`, world.jan.token)).game_id;
  // 1. K@a1 K@h8 2. N@b1 N@g8 3. Nc3: jan (Black) to move; his knight goes to e7, f6
  // or h6, ewa's on c3 back to b1 (by hand, from the rules).
  const opening = ['K@a1', 'K@h8', 'N@b1', 'N@g8', 'Nc3'];
  for (const [i, move] of opening.entries()) {
    await call('POST', `/v1/games/${world.game}/moves`, i % 2 ? world.jan.token : world.ewa.token, { move, ply: i });
  }
});

const signIn = name => signedIn(browser, korpd.base, name, PASSWORD, { timeout: TIMEOUT });

test('conditional moves, messages and notes on the game page', async () => {
  const ewa = await signIn('ewa');
  const page = ewa.page;
  await page.goto(`/games/${world.game}`);
  await page.locator('#board[data-ply="5"]').waitFor({ timeout: TIMEOUT });

  // A tree typed as lines: two answers to Nf6 share it, Nh6 has its own.
  await page.fill('#plan-input', 'Nf6 Nb1 Ng8 Nc3\nNf6 Nb1 Nd5 Nc3\nNh6 Nb5');
  await page.click('#plan-save');
  await page.locator('#plan .message-ok').waitFor({ timeout: TIMEOUT });
  const tree = await page.locator('#plan-tree').innerText();
  assert.match(tree, /if Nf6 → Nb1/);
  assert.match(tree, /if Ng8 → Nc3/);
  assert.match(tree, /if Nh6 → Nb5/);
  assert.equal((await page.locator('#plan-tree li').count()), 4, tree);
  const saved = await call('GET', `/v1/games/${world.game}/conditional-moves`, world.ewa.token);
  assert.deepEqual(saved.lines, [['Nf6', 'Nb1', 'Ng8', 'Nc3'], ['Nf6', 'Nb1', 'Nd5', 'Nc3'], ['Nh6', 'Nb5']]);

  // Plan mode: the same lines played out on the board (Black's knight g8-h6, White's
  // c3-b5), added to the text, saved.
  await page.fill('#plan-input', 'Nf6 Nb1 Ng8 Nc3\nNf6 Nb1 Nd5 Nc3');
  await page.click('#plan-start');
  await page.locator('#plan-line:text("Play their move")').waitFor({ timeout: TIMEOUT });
  const cell = c => page.locator(`[data-cell="${c}"]`);
  await cell('g8').click();
  await cell('h6').click();
  await page.locator('#plan-line:text("Line: Nh6")').waitFor({ timeout: TIMEOUT });
  await cell('c3').click();
  await cell('b5').click();
  await page.locator('#plan-line:text("Line: Nh6 Nb5")').waitFor({ timeout: TIMEOUT });
  await page.click('#plan-add');
  await page.click('#plan-done');
  await page.locator('#board[data-ply="5"]').waitFor({ timeout: TIMEOUT });
  assert.equal(await page.inputValue('#plan-input'), 'Nf6 Nb1 Ng8 Nc3\nNf6 Nb1 Nd5 Nc3\nNh6 Nb5');
  await page.click('#plan-save');
  await page.locator('#plan .message-ok').waitFor({ timeout: TIMEOUT });
  assert.deepEqual((await call('GET', `/v1/games/${world.game}/conditional-moves`, world.ewa.token)).lines,
    [['Nf6', 'Nb1', 'Ng8', 'Nc3'], ['Nf6', 'Nb1', 'Nd5', 'Nc3'], ['Nh6', 'Nb5']]);
  // After plan mode the board shows the game again: Black's knight still on g8.
  assert.match(await cell('g8').getAttribute('aria-label'), /^g8 black knight/);
  assert.match(await cell('h6').getAttribute('aria-label'), /^h6 empty/);

  // A conflicting set is refused with the line and the move named.
  ewa.allow(/status of 422/);
  await page.fill('#plan-input', 'Nf6 Nb1\nNf6 Na4');
  await page.click('#plan-save');
  await page.locator('#plan .message-error').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('#plan .message-error').innerText(), /line 2, move 2/);

  // jan answers Nf6 with a message: ewa's Nb1 is played in the same request.
  const g = await call('POST', `/v1/games/${world.game}/moves`, world.jan.token,
    { move: 'Nf6', ply: 5, message: 'Your knight again?' });
  assert.equal(g.ply, 7);
  await page.locator('#board[data-ply="7"]').waitFor({ timeout: TIMEOUT });
  await page.locator('#messages .msg-black').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('#messages').innerText(), /Black: Your knight again\?/);

  // ewa answers; notes stay hers.
  await page.fill('#message-input', 'Always!');
  await page.click('#message-form button[type=submit]');
  await page.locator('#messages .msg-white').waitFor({ timeout: TIMEOUT });
  await page.fill('#notes-input', 'He likes knights.');
  await page.click('#notes-form button[type=submit]');
  await page.locator('#notes-saved:text("Saved")').waitFor({ timeout: TIMEOUT });
  assert.equal((await call('GET', `/v1/games/${world.game}/notes`, world.ewa.token)).text, 'He likes knights.');
  assert.equal((await call('GET', `/v1/games/${world.game}/notes`, world.jan.token)).text, '');

  // A spectator reads the messages only once the game is over.
  const watcher = await person(browser, korpd.base, 'watcher');
  await watcher.page.goto(`/games/${world.game}`);
  await watcher.page.locator('#board[data-ply="7"]').waitFor({ timeout: TIMEOUT });
  assert.match(await watcher.page.locator('#messages').innerText(), /shown when the game is over/);
  assert.equal(await watcher.page.locator('#plan').isHidden(), true);
  await call('POST', `/v1/games/${world.game}/resign`, world.jan.token);
  await watcher.page.reload();
  await watcher.page.locator('#messages .msg-white').waitFor({ timeout: TIMEOUT });
  assert.match(await watcher.page.locator('#messages').innerText(), /Always!/);

  assert.deepEqual([...ewa.errors, ...watcher.errors], [], 'console errors, page errors or CSP violations');
  await ewa.context.close();
  await watcher.context.close();
});
