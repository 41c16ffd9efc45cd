// Issue 19 in a real browser: a tournament page draws its crosstable (each
// cell the row player's score against that column's player, then score and
// Sonneborn-Berger, worked out here from the results), and a player's page
// shows their ratings with the history chart.

import { after, before, test } from 'node:test';
import assert from 'node:assert/strict';
import path from 'node:path';
import { REPO, startPostgres, startKorpd, launchChromium, person } from './harness.mjs';

const KORPD = process.env.KORPD || path.join(REPO, 'build', 'korpd', 'korpd');
const TIMEOUT = 15000;

let pg, korpd, browser;
const world = {};

async function call(method, url, token, body) {
  const headers = { Accept: 'application/json' };
  if (token) headers.Authorization = `Bearer ${token}`;
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const r = await fetch(korpd.base + url, { method, headers, body: body === undefined ? undefined : JSON.stringify(body) });
  const text = await r.text();
  assert.ok(r.ok, `${method} ${url}: ${r.status} ${text}`);
  return text ? JSON.parse(text) : null;
}

before(async () => {
  pg = await startPostgres();
  korpd = await startKorpd(KORPD, pg.url, {});
  browser = await launchChromium();
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

after(async () => {
  await browser?.close().catch(() => {});
  await korpd?.close();
  pg?.close();
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
