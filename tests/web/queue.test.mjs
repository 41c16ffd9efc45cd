// Your move, first: the home page opens with the games where it is my move,
// soonest deadline first; the game page's "next game" (and the key n) goes to
// the next of them; with the preference on, every move goes there at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, signedIn, axeViolations } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let korpd, browser, call;
const world = {};

async function game(white, black, days) {
  const c = await call('POST', '/v1/challenges', white.token, {
    variant: 'korpalski', opponent: black.id, color: 'white', days_per_move: days });
  return (await call('POST', `/v1/challenges/${c.id}/accept`, black.token)).game_id;
}

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  for (const name of ['ola', 'jan', 'kim'])
    world[name] = await call('POST', '/v1/players', null, { name, password: PASSWORD });
  // Ola is to move in two games (the one with three days made first) and waits in a third.
  world.later = await game(world.ola, world.kim, 3);
  world.sooner = await game(world.ola, world.jan, 1);
  world.theirs = await game(world.jan, world.ola, 2);
});

const ids = list => list.locator('[data-game]').evaluateAll(els => els.map(e => e.dataset.game));

test('the queue of my moves, next game, and going on after a move', async () => {
  const ola = await signedIn(browser, korpd.base, 'ola', PASSWORD, { timeout: TIMEOUT });
  const { page } = ola;
  await page.goto('/');
  await page.locator('#your-move [data-game]').first().waitFor({ timeout: TIMEOUT });
  assert.deepEqual(await ids(page.locator('#your-move')), [world.sooner, world.later]);
  // The queue comes first on the page.
  const firstList = await page.locator('main ul.list').first().getAttribute('id');
  assert.equal(firstList, 'your-move');
  assert.deepEqual(await axeViolations(page), []);

  await page.goto(`/games/${world.sooner}`);
  const next = page.locator('#next-game');
  await next.waitFor({ timeout: TIMEOUT });
  assert.equal(await next.getAttribute('href'), `/games/${world.later}`);
  assert.deepEqual(await axeViolations(page), []);
  await page.keyboard.press('n');
  await page.waitForURL(`**/games/${world.later}`, { timeout: TIMEOUT });
  await page.locator('#next-game').waitFor({ timeout: TIMEOUT });
  assert.equal(await page.locator('#next-game').getAttribute('href'), `/games/${world.sooner}`);
  // Typed in the move box, n is a letter, not a shortcut.
  await page.fill('#move-input', '');
  await page.locator('#move-input').press('n');
  assert.equal(await page.inputValue('#move-input'), 'n');
  assert.ok(page.url().endsWith(`/games/${world.later}`));

  // The preference: after each move, the next game where it is my move.
  await page.goto('/settings');
  const box = page.locator('#next-after-move');
  await box.waitFor({ timeout: TIMEOUT });
  assert.equal(await box.isChecked(), false);
  await box.check();
  assert.deepEqual(await axeViolations(page), []);
  await page.goto(`/games/${world.sooner}`);
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  await page.locator(`#next-game[href="/games/${world.later}"]`).waitFor({ timeout: TIMEOUT });
  await page.fill('#move-input', 'K@e1');
  await page.locator('#move-form button[type=submit]').click();
  await page.waitForURL(`**/games/${world.later}`, { timeout: TIMEOUT });
  const moved = await call('GET', `/v1/games/${world.sooner}`);
  assert.equal(moved.ply, 1);
  // The game just played left the queue: no next game from here.
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  await page.reload();
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  assert.equal(await page.locator('#next-game').isHidden(), true);
  assert.deepEqual(ola.errors, []);
});
