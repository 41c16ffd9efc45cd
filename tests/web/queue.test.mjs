// Your move, first: the home page opens with the games where it is my move,
// soonest deadline first; the game page's "next game" (and the key n) goes to
// the next of them; with the preference on, every move goes there at once.
// A move is shown first and sent on confirm (button or Enter); cancel (or
// Escape) puts it back; with confirmation off it goes at once.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, signedIn, axeViolations, newGame } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let korpd, browser, call;
const world = {};

const game = (white, black, days) => newGame(call, white, black, { days_per_move: days });

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  for (const name of ['ola', 'jan', 'kim'])
    world[name] = await call('POST', '/v1/players', null, { name, password: PASSWORD });
  // Ola is to move in three games (the one with three days made first) and waits in a fourth.
  world.later = await game(world.ola, world.kim, 3);
  world.sooner = await game(world.ola, world.jan, 1);
  world.last = await game(world.ola, world.kim, 5);
  world.theirs = await game(world.jan, world.ola, 2);
});

const ids = list => list.locator('[data-game]').evaluateAll(els => els.map(e => e.dataset.game));

test('the queue of my moves, next game, and going on after a move', async () => {
  const ola = await signedIn(browser, korpd.base, 'ola', PASSWORD, { timeout: TIMEOUT });
  const { page } = ola;
  await page.goto('/');
  await page.locator('#your-move [data-game]').first().waitFor({ timeout: TIMEOUT });
  assert.deepEqual(await ids(page.locator('#your-move')), [world.sooner, world.later, world.last]);
  // The queue comes first on the page.
  const firstList = await page.locator('main ul.list').first().getAttribute('id');
  assert.equal(firstList, 'your-move');
  assert.deepEqual(await axeViolations(page), []);

  await page.goto(`/games/${world.sooner}`);
  const next = page.locator('#next-game');
  await page.locator(`#next-game[href="/games/${world.later}"]`).waitFor({ timeout: TIMEOUT });
  assert.equal(await next.getAttribute('href'), `/games/${world.later}`);
  assert.deepEqual(await axeViolations(page), []);
  await page.keyboard.press('n');
  await page.waitForURL(`**/games/${world.later}`, { timeout: TIMEOUT });
  // The page before may still be showing its own link: wait for this page's.
  await page.locator(`#next-game[href="/games/${world.sooner}"]`).waitFor({ timeout: TIMEOUT });
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
  await page.locator('#move-confirm-ok').click({ timeout: TIMEOUT });
  await page.waitForURL(`**/games/${world.later}`, { timeout: TIMEOUT });
  const moved = await call('GET', `/v1/games/${world.sooner}`);
  assert.equal(moved.ply, 1);
  // The game just played left the queue: the next game from here is the last one.
  await page.locator(`#next-game[href="/games/${world.last}"]`).waitFor({ timeout: TIMEOUT });
  assert.deepEqual(ola.errors, []);
});

const ply = async id => (await call('GET', `/v1/games/${id}`)).ply;

test('a move is shown, then sent on confirm or put back on cancel', async () => {
  const ola = await signedIn(browser, korpd.base, 'ola', PASSWORD, { timeout: TIMEOUT });
  const { page } = ola;
  await page.goto(`/games/${world.later}`);
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  const e1 = page.locator('[data-cell="e1"]');
  const bar = page.locator('#move-confirm');
  await page.locator('[data-reserve="white-k"]').waitFor({ timeout: TIMEOUT });
  assert.match(await e1.getAttribute('aria-label'), /^e1 empty/);

  // On the board: shown, not sent; cancel puts it back.
  await page.locator('[data-reserve="white-k"]').click();
  await e1.click();
  await bar.waitFor({ state: 'visible', timeout: TIMEOUT });
  assert.match(await page.locator('#move-confirm-text').innerText(), /K@e1/);
  assert.match(await e1.getAttribute('aria-label'), /^e1 white king/);
  assert.deepEqual(await axeViolations(page), []);
  assert.equal(await ply(world.later), 0);
  await page.click('#move-confirm-cancel');
  await bar.waitFor({ state: 'hidden', timeout: TIMEOUT });
  assert.match(await e1.getAttribute('aria-label'), /^e1 empty/);
  assert.equal(await ply(world.later), 0);

  // Typed: Enter shows it, Escape puts it back (the text stays), Enter twice sends it.
  await page.fill('#move-input', 'K@d1');
  await page.press('#move-input', 'Enter');
  await page.locator('#move-confirm-ok:focus').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('[data-cell="d1"]').getAttribute('aria-label'), /^d1 white king/);
  await page.keyboard.press('Escape');
  await bar.waitFor({ state: 'hidden', timeout: TIMEOUT });
  assert.equal(await page.inputValue('#move-input'), 'K@d1');
  assert.equal(await ply(world.later), 0);
  await page.press('#move-input', 'Enter');
  await page.locator('#move-confirm-ok:focus').waitFor({ timeout: TIMEOUT });
  await page.keyboard.press('Enter');
  await page.locator('#board[data-ply="1"]').waitFor({ timeout: TIMEOUT });
  assert.deepEqual((await call('GET', `/v1/games/${world.later}`)).moves, ['K@d1']);
  assert.deepEqual(ola.errors, []);
});

test('with confirmation off a move is sent at once', async () => {
  const ola = await signedIn(browser, korpd.base, 'ola', PASSWORD, { timeout: TIMEOUT });
  const { page } = ola;
  await page.goto('/settings');
  const box = page.locator('#confirm-moves');
  await box.waitFor({ timeout: TIMEOUT });
  assert.equal(await box.isChecked(), true);
  await box.uncheck();
  await page.goto(`/games/${world.last}`);
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  await page.locator('[data-reserve="white-k"]').click({ timeout: TIMEOUT });
  await page.locator('[data-cell="f1"]').click();
  await page.locator('#board[data-ply="1"]').waitFor({ timeout: TIMEOUT });
  assert.equal(await page.locator('#move-confirm').isHidden(), true);
  assert.deepEqual((await call('GET', `/v1/games/${world.last}`)).moves, ['K@f1']);
  assert.deepEqual(ola.errors, []);
});
