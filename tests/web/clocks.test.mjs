// The game page's clocks and the settings' leave section, in a
// real browser against a korpd of its own: both clocks shown, the side to
// move's counting down, "give time" for the player waiting, a pause mark
// while leave stops the clocks, and leave booked and cancelled in settings.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, signedIn, until } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;
const DAY = 86400;

let korpd, browser, call;
const world = {};

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  world.olga = await call('POST', '/v1/players', null, { name: 'olga', password: PASSWORD });
  world.piotr = await call('POST', '/v1/players', null, { name: 'piotr', password: PASSWORD });
  const c = await call('POST', '/v1/challenges', world.olga.token, {
    variant: 'korpalski', opponent: world.piotr.id, color: 'white',
    clock: { type: 'fischer', initial_days: 3, increment_days: 2, max_days: 4 } });
  world.game = (await call('POST', `/v1/challenges/${c.id}/accept`, world.piotr.token)).game_id;
});

const signInAs = name => signedIn(browser, korpd.base, name, PASSWORD, { timeout: TIMEOUT });

test('clocks count down, time is given, leave pauses them', async () => {
  const olga = await signInAs('olga');
  const page = olga.page;
  await page.goto(`/games/${world.game}`);
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('.game-meta').innerText(), /Fischer 3 d \+ 2 d, at most 4 d/);
  const white = page.locator('.clock-face[data-side="white"]');
  const black = page.locator('.clock-face[data-side="black"]');
  await until('the clocks to show', async () => /^[23] d \d\d:\d\d:\d\d$/.test(await white.innerText()));
  assert.equal(await black.innerText(), '3 d 00:00:00');
  // White's clock runs: its face changes within a few seconds; Black's stays.
  const first = await white.innerText();
  await until('White\'s clock to count down', async () => (await white.innerText()) !== first);
  assert.equal(await black.innerText(), '3 d 00:00:00');
  assert.ok(await white.evaluate(e => e.classList.contains('running')));
  // On her own turn Olga has no "give time".
  assert.equal(await page.locator('#give-time').isVisible(), false);

  // Olga moves; now she may give Piotr time: two days more.
  await call('POST', `/v1/games/${world.game}/moves`, world.olga.token, { move: 'K@e1', ply: 0 });
  await page.locator('#board[data-ply="1"]').waitFor({ timeout: TIMEOUT });
  await page.locator('#give-time').waitFor({ state: 'visible', timeout: TIMEOUT });
  const before = await call('GET', `/v1/games/${world.game}`);
  await page.selectOption('#give-time-days', '2');
  await page.click('#give-time button[type=submit]');
  // Asked again, then said what was done.
  await page.click('#give-time-confirm');
  await until('the page to say what it did', async () => /Piotr got 2 d more/i.test(await page.locator('.message').first().innerText()));
  await until('Piotr to have two days more', async () => {
    const g = await call('GET', `/v1/games/${world.game}`);
    return Date.parse(g.deadline) - Date.parse(before.deadline) === 2 * DAY * 1000;
  });
  await until('the page to show Black\'s five days', async () => /^(5 d 00:00:00|4 d 23:59:\d\d)$/.test(await black.innerText()));

  // Piotr books leave in settings from today: the game pauses, and says so.
  const piotr = await signInAs('piotr');
  await piotr.page.goto('/settings');
  await piotr.page.locator('#leave-form').waitFor({ timeout: TIMEOUT });
  await until('the allowance', async () => /45 of 45 days left/.test(await piotr.page.locator('#leave-summary').innerText()));
  await piotr.page.fill('#leave-days', '3');
  await piotr.page.click('#leave-form button[type=submit]');
  await piotr.page.locator('#leave-list li').waitFor({ timeout: TIMEOUT });
  await until('the days used', async () => /42 of 45 days left/.test(await piotr.page.locator('#leave-summary').innerText()));
  await page.reload();
  await page.locator('#clock-paused').waitFor({ state: 'visible', timeout: TIMEOUT });
  assert.match(await page.locator('#clock-paused').innerText(), /Paused: a player is on leave until/);
  // The pause mark is a drawn icon beside the clocks, not a font's glyph.
  assert.equal(await page.locator('.clock-row #clock-paused svg.pause-icon rect').count(), 2);
  assert.doesNotMatch(await page.locator('#clocks').innerText(), /\u23f8/);
  // A paused clock is not counted down: the page shows exactly the time korpd gives.
  assert.equal(await black.evaluate(e => e.classList.contains('running')), false);
  const left = (await call('GET', `/v1/games/${world.game}`)).clock.remaining.black;
  const face = `${Math.floor(left / DAY)} d ${[Math.floor(left % DAY / 3600), Math.floor(left % 3600 / 60), left % 60]
    .map(n => String(n).padStart(2, '0')).join(':')}`;
  assert.equal(await black.innerText(), face);

  // Cancelled while it runs, the leave ends tonight: two days come back.
  await piotr.page.click('#leave-list li button');
  await until('two days back', async () => /44 of 45 days left/.test(await piotr.page.locator('#leave-summary').innerText()));

  for (const p of [olga, piotr]) {
    assert.deepEqual(p.errors, []);
    await p.context.close();
  }
});
