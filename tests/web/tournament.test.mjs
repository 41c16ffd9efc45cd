// Tournaments and ratings in a real browser: a tournament page draws its crosstable (each
// cell the row player's score against that column's player, then score and
// Sonneborn-Berger, worked out here from the results), and a player's page
// shows their ratings with the history chart.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person, signedIn } from './harness.mjs';

const TIMEOUT = 15000;

let korpd, browser, call;
const world = {};

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  world.dir = await call('POST', '/v1/players', null, { name: 'director' });
  world.players = [];
  for (const name of ['gosia', 'henio', 'iza']) world.players.push(await call('POST', '/v1/players', null, { name }));
  world.t = await call('POST', '/v1/tournaments', world.dir.token, { name: 'Browser cup', variant: 'glinski', max_players: 3 });
  for (const p of world.players) await call('POST', `/v1/tournaments/${world.t.id}/join`, p.token);
  await call('POST', `/v1/tournaments/${world.t.id}/start`, world.dir.token);
  // White wins every game (Black resigns at once): rated games.
  const token = Object.fromEntries(world.players.map(p => [p.id, p.token]));
  world.games = (await call('GET', `/v1/tournaments/${world.t.id}`)).games;
  for (const g of world.games) await call('POST', `/v1/games/${g.id}/resign`, token[g.black]);
});

test('a tournament page shows its crosstable', async () => {
  const { page, errors, context } = await person(browser, korpd.base, 'visitor');
  try {
    await page.goto(`/tournaments/${world.t.id}`);
    await page.waitForSelector('#crosstable tbody tr', { timeout: TIMEOUT });
    // Scores by hand: one point per game played as White.
    const score = {};
    for (const p of world.players) score[p.id] = 0;
    for (const g of world.games) score[g.white] += 1;
    const sb = {};
    for (const p of world.players) sb[p.id] = 0;
    for (const g of world.games) sb[g.white] += score[g.black];
    for (const p of world.players) {
      const cells = await page.$$eval(`#crosstable tr[data-player="${p.id}"] td`, tds => tds.map(td => td.textContent));
      assert.equal(cells.length, 2 + 3 + 3, cells.join('|'));
      assert.equal(Number(cells[5]), score[p.id], `score of ${p.id}: ${cells}`);
      assert.equal(Number(cells[6]), sb[p.id], `Sonneborn-Berger of ${p.id}: ${cells}`);
      const opponents = cells.slice(2, 5);   /* the cells against each player */
      assert.equal(opponents.filter(c => c === '×').length, 1);
      assert.equal(opponents.filter(c => c === '1').length, score[p.id]);
    }
    assert.equal(await page.locator('#tournament-games li').count(), 3);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('a player page shows ratings and the history chart', async () => {
  const { page, errors, context } = await person(browser, korpd.base, 'visitor');
  try {
    // A player with two rated games: a line of two points.
    const p = world.players.find(x => world.games.filter(g => [g.white, g.black].includes(x.id)).length === 2);
    await page.goto(`/players/${p.id}`);
    await page.waitForSelector('#ratings .rating[data-variant="glinski"]', { timeout: TIMEOUT });
    const text = await page.locator('#ratings .rating[data-variant="glinski"]').textContent();
    assert.match(text, /Glinski: \d{3,4}\? \(RD \d+, 2 rated games\)/);
    assert.equal(await page.locator('#ratings svg.rating-chart polyline').count(), 1);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

// The forms' terms (game-terms.js): a round robin and a challenge made on the
// pages with a Fischer clock, leave not stopping the clocks, unrated; what
// korpd stored is what the form was given.
test('the new-tournament and new-game forms set a Fischer clock, leave and rating', async () => {
  const password = 'forms-password-1';
  const who = await call('POST', '/v1/players', null, { name: 'formfiller', password });
  const p = await signedIn(browser, korpd.base, 'formfiller', password);
  try {
    await p.page.goto('/tournaments');
    await p.page.fill('#tournament-new input[name=name]', 'Fischer cup');
    await p.page.selectOption('#tournament-time', 'fischer');
    await p.page.fill('#tournament-initial', '20');
    await p.page.fill('#tournament-increment', '2');
    await p.page.fill('#tournament-max', '30');
    await p.page.uncheck('#tournament-leave');
    await p.page.uncheck('#tournament-rated');
    await p.page.click('#tournament-new button[type=submit]');
    await p.page.waitForURL(/\/tournaments\/[A-Za-z0-9]+$/, { timeout: TIMEOUT });
    const tour = await call('GET', '/v1/tournaments/' + p.page.url().split('/').pop());
    assert.deepEqual(tour.clock, { type: 'fischer', initial_days: 20, increment_days: 2, max_days: 30 });
    assert.equal(tour.days_per_move, null);
    assert.equal(tour.leave_allowed, false);
    assert.equal(tour.rated, false);

    await p.page.goto('/new');
    await p.page.check('#open');
    await p.page.selectOption('#challenge-time', 'fischer');
    await p.page.fill('#challenge-initial', '10');
    await p.page.fill('#challenge-increment', '0');
    await p.page.fill('#challenge-max', '10');
    await p.page.click('#challenge-form button[type=submit]');
    await p.page.waitForSelector('#challenge-form[data-challenge]', { timeout: TIMEOUT });
    const id = await p.page.getAttribute('#challenge-form', 'data-challenge');
    const c = await call('GET', '/v1/challenges/' + id);
    assert.equal(c.challenger.id, who.id);
    assert.deepEqual(c.clock, { type: 'fischer', initial_days: 10, increment_days: 0, max_days: 10 });
    assert.equal(c.leave_allowed, true);
    assert.equal(c.rated, true);
    assert.deepEqual(p.errors, []);
  } finally { await p.context.close(); }
});
