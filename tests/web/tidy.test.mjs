// The pages as players read them: a tournament's crosstable in rank order
// with the place, the leaderboard with provisional players marked, the
// rating chart named; on the game page messages with their author's name,
// time and ply arriving live; "play the computer" with level, colour and
// clock; on a phone the navigation folded under Menu. axe-core on each.
// Expected orders and scores are worked out here from the games' results.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person, signedIn, axeViolations, newGame } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

const world = {};
const stage = useStage(async ({ call }) => {
  world.dir = await call('POST', '/v1/players', null, { name: 'dyrektor' });
  world.players = [];
  for (const name of ['ala', 'bea', 'cyd', 'dan'])
    world.players.push(await call('POST', '/v1/players', null, { name, password: PASSWORD }));
  world.t = await call('POST', '/v1/tournaments', world.dir.token, { name: 'Cup in order', variant: 'korpalski', max_players: 4 });
  for (const p of world.players) await call('POST', `/v1/tournaments/${world.t.id}/join`, p.token);
  await call('POST', `/v1/tournaments/${world.t.id}/start`, world.dir.token);
  const token = Object.fromEntries(world.players.map(p => [p.id, p.token]));
  world.games = (await call('GET', `/v1/tournaments/${world.t.id}`)).games;
  // Only the first round is played (Black resigns): the rest go on.
  for (const g of world.games.filter(x => x.round === 1)) await call('POST', `/v1/games/${g.id}/resign`, token[g.black]);
  world.tour = await call('GET', `/v1/tournaments/${world.t.id}`);
  // A game of two players for the messages.
  world.eva = await call('POST', '/v1/players', null, { name: 'eva', password: PASSWORD });
  world.fil = await call('POST', '/v1/players', null, { name: 'fil', password: PASSWORD });
  world.game = await newGame(call, world.eva, world.fil, { days_per_move: 3 });
  // The computer at level 3, and at the usual level.
  world.engine3 = await call('POST', '/v1/players', null, { name: 'korp-engine-3' });
  world.engine = await call('POST', '/v1/players', null, { name: 'korp-engine' });
});

/* NAME signed in (on a screen of `size` when given), at `url`. */
async function signedInAt(name, url, size = null) {
  const p = await signedIn(stage.browser, stage.korpd.base, name, PASSWORD, { timeout: TIMEOUT });
  if (size) await p.page.setViewportSize(size);
  await p.page.goto(url);
  return p;
}

test('the crosstable lists the players by place, then start number', async () => {
  const { page, errors, context } = await person(stage.browser, stage.korpd.base, 'visitor');
  try {
    await page.goto(`/tournaments/${world.t.id}`);
    await page.locator('#crosstable tbody tr').first().waitFor({ timeout: TIMEOUT });
    // By hand: round 1's Whites have 1 point, its Blacks 0; equal scores by number.
    const number = Object.fromEntries(world.tour.players.map(p => [p.id, p.number]));
    const score = Object.fromEntries(world.tour.players.map(p => [p.id, 0]));
    for (const g of world.games.filter(x => x.round === 1)) score[g.white] += 1;
    const want = world.tour.players.map(p => p.id)
      .sort((a, b) => score[b] - score[a] || number[a] - number[b]);
    const rows = await page.locator('#crosstable tbody tr').evaluateAll(trs => trs.map(tr => [tr.dataset.player, tr.dataset.place]));
    assert.deepEqual(rows.map(r => r[0]), want);
    // Places: the two winners share the first, the two losers the third.
    assert.deepEqual(rows.map(r => Number(r[1])), want.map(id => (score[id] === 1 ? 1 : 3)));
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('the leaderboard marks provisional players; the chart is named', async () => {
  const { page, errors, context } = await person(stage.browser, stage.korpd.base, 'visitor2');
  try {
    // Tournaments are rated by default: round 1's players have one rated game, provisional.
    await page.goto('/leaderboard/korpalski');
    await page.locator('#leaderboard li').first().waitFor({ timeout: TIMEOUT });
    const rows = await page.locator('#leaderboard li').evaluateAll(lis => lis.map(li => ({ provisional: li.classList.contains('provisional'), text: li.textContent })));
    assert.equal(rows.length, 4);
    assert.ok(rows.every(r => r.provisional && /\?/.test(r.text) && /provisional/.test(r.text)), JSON.stringify(rows));
    assert.deepEqual(await axeViolations(page), []);
    // A player's page: the chart has a name a screen reader reads.
    const winner = world.games.find(x => x.round === 1).white;
    await page.goto(`/players/${winner}`);
    await page.locator('#ratings .rating[data-variant="korpalski"]').waitFor({ timeout: TIMEOUT });
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(errors, []);
  } finally { await context.close(); }
});

test('messages show who, when and at which ply, and arrive without a reload', async t => {
  const eva = await signedInAt('eva', `/games/${world.game}`);
  const { page } = eva;
  try {
    await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
    await page.locator('#clocks').waitFor({ state: 'attached', timeout: TIMEOUT });
    // The page's stream is open (it starts after the newest event: one written before
    // it connects is read with the game, not told live).
    await page.locator('#live:text("live")').waitFor({ timeout: TIMEOUT });
    // Eva moves; Fil answers with a message: it shows without a reload.
    await stage.call('POST', `/v1/games/${world.game}/moves`, world.eva.token, { move: 'K@e1', ply: 0 });
    await stage.call('POST', `/v1/games/${world.game}/messages`, world.fil.token, { text: 'Hello from Fil' });
    const sent = (await stage.call('GET', `/v1/games/${world.game}/messages`, world.eva.token)).messages[0];
    const item = page.locator('#messages .msg-black');
    // The stream tells it at once (or at its periodic read, 15 s); the page also asks every
    // minute. In a few fresh-clone runs on a loaded machine it came later than 30 s, cause
    // not found: then what the page and korpd showed is written as a diagnostic.
    const asked = Date.now();
    try {
      await item.waitFor({ timeout: 30000 });
    } catch {
      t.diagnostic(`no message after 30 s; live: ${await page.locator('#live').innerText()}; ` +
        `page messages: ${(await page.locator('.message').allInnerTexts()).join(' / ')}; korpd: ` +
        stage.korpd.logText().split('\n').filter(l => /events|messages|stream/.test(l)).slice(-30).join(' | '));
      await item.waitFor({ timeout: 45000 });
      t.diagnostic(`the message came after ${Date.now() - asked} ms`);
    }
    assert.equal(await item.locator('.msg-author').innerText(), 'fil');
    assert.equal(await item.getAttribute('data-ply'), String(sent.ply));
    assert.match(await item.innerText(), new RegExp(`ply ${sent.ply}`));
    assert.equal(await item.locator('time').getAttribute('datetime'), sent.created_at);
    // The time as the reader's zone and language write it (the browser's own formatting).
    const shown = await page.evaluate(at => new Date(at).toLocaleString(document.documentElement.lang || undefined, { dateStyle: 'medium', timeStyle: 'short' }), sent.created_at);
    assert.equal(await item.locator('time').innerText(), shown);
    // One time-left figure: the clock's; the status line has none.
    assert.doesNotMatch(await page.locator('#game-status').innerText(), /left/);
    // The plan and notes panels' labels sit above their fields.
    for (const [label, field] of [['#plan-form label', '#plan-input'], ['#notes-form label', '#notes-input']]) {
      const l = await page.locator(label).first().boundingBox(), f = await page.locator(field).boundingBox();
      if (l && f) assert.ok(l.y + l.height <= f.y + 1, `${label} above ${field}`);
    }
    assert.deepEqual(await axeViolations(page), []);
    assert.deepEqual(eva.errors, []);
  } finally { await eva.context.close(); }
});

test('play the computer: one click, or level, colour and clock', async () => {
  const ala = await signedInAt('ala', '/');
  const { page } = ala;
  try {
    await page.locator('#play-computer-glinski').waitFor({ timeout: TIMEOUT });
    await page.click('#computer-choices-glinski summary');
    await page.selectOption('#computer-level-glinski', '3');
    await page.selectOption('#computer-color-glinski', 'black');
    await page.selectOption('#computer-days-glinski', '2');
    assert.deepEqual(await axeViolations(page), []);
    await page.click('#play-computer-glinski');
    await page.locator('#front-message:text("Waiting for the computer")').waitFor({ timeout: TIMEOUT });
    const mine = await stage.call('GET', '/v1/challenges', world.engine3.token);
    const c = mine.incoming.find(x => x.challenger.id === world.players[0].id);
    assert.ok(c, 'the challenge went to korp-engine-3');
    assert.equal(c.variant, 'glinski');
    assert.equal(c.color, 'black');
    assert.equal(c.days_per_move, 2);
    const game = (await stage.call('POST', `/v1/challenges/${c.id}/accept`, world.engine3.token)).game_id;
    await page.waitForURL(`**/games/${game}`, { timeout: TIMEOUT });
    assert.deepEqual(ala.errors, []);
  } finally { await ala.context.close(); }
});

test('on a phone the navigation folds under Menu', async () => {
  const p = await signedInAt('bea', '/', { width: 375, height: 740 });
  const { page } = p;
  try {
    const toggle = page.locator('#nav-toggle');
    await toggle.waitFor({ timeout: TIMEOUT });
    assert.equal(await page.locator('#nav').isVisible(), false);
    // The header is one line: the brand and the button.
    const header = await page.locator('header.top').boundingBox();
    assert.ok(header.height < 60, `header ${header.height}px high`);
    assert.equal(await toggle.getAttribute('aria-expanded'), 'false');
    await toggle.click();
    assert.equal(await toggle.getAttribute('aria-expanded'), 'true');
    await page.locator('#nav a[href="/tournaments"]').waitFor({ state: 'visible', timeout: TIMEOUT });
    assert.deepEqual(await axeViolations(page), []);
    await page.click('#nav a[href="/tournaments"]');
    await page.waitForURL('**/tournaments', { timeout: TIMEOUT });
    assert.equal(await page.locator('#nav').isVisible(), false);
    assert.deepEqual(p.errors, []);
  } finally { await p.context.close(); }
});
