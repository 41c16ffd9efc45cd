// The arbiter in a real browser: a perpetual-check claim from the game
// page (a valid line goes to the arbiter, an invalid one is refused saying
// which move), the arbiter's page (the queue oldest first with each game's
// analysis facts; dismiss; adjudicate), the refusal for anyone else, and the
// engine's evaluation (a test of its own: POST /v1/analyse comes from
// another branch).
//
// The position, checked by hand on the Korpalski rules (../shared/rules):
// 1. K@a1 K@h8 2. Q@b1 N@a8 (no drop gives check: b1 sees the b-file, the
// first rank and b1-h7; a knight on a8 sees b6 and c7). White to move at ply
// 4. Qb8+ checks along the eighth rank (c8-g8 empty); Kh7 is not attacked
// from b8; Qb1+ checks along b1-h7 (c2-g6 empty); Kh8 is not attacked from
// b1. In "Qb8+ Kh7 Qb2" the third move attacks the b-file, the second rank
// and b2-h8, but the king stands on h7: no check. The facts of the position:
// four plies, White to move, the halfmove clock 0 (the last ply was a drop),
// no earlier occurrence (each drop changed the reserves).

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { person, signedIn, useStage } from './harness.mjs';
import { createArbiter } from './roles.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;
const OPENING = ['K@a1', 'K@h8', 'Q@b1', 'N@a8'];
const PERPETUAL = 'Qb8+ Kh7 Qb1+ Kh8 Qb8+';
const NO_CHECK = 'Qb8+ Kh7 Qb2 Kh8 Qb8+';
// Until POST /v1/analyse is there (or while it is busy) its failure is logged.
const ENGINE_REFUSED = /status of (404|429|503) .*\/v1\/analyse\)?$/;

const world = {};

/* A Korpalski game of ola (White) against the bot piotr, after OPENING. */
async function openedGame() {
  const c = await stage.call('POST', '/v1/challenges', world.ola.token,
    { variant: 'korpalski', opponent: world.piotr.id, color: 'white', days_per_move: null });
  const id = (await stage.call('POST', `/v1/challenges/${c.id}/accept`, world.piotr.token)).game_id;
  for (const [i, move] of OPENING.entries())
    await stage.call('POST', `/v1/games/${id}/moves`, i % 2 ? world.piotr.token : world.ola.token, { move, ply: i });
  return id;
}

async function queue() {
  return (await stage.call('GET', '/v1/arbiter/queue', world.sedzia.token)).items;
}

const stage = useStage(async () => {
  for (const name of ['ola', 'tomek'])
    world[name] = await stage.call('POST', '/v1/players', null, { name, password: PASSWORD });
  world.piotr = await stage.call('POST', '/v1/players', null, { name: 'piotr' });   // a bot, by token
  world.sedzia = await createArbiter(stage.korpd.base, stage.pg.url, 'sedzia', PASSWORD);
  assert.equal(world.sedzia.role, 'arbiter');
});

function signIn(name) {
  return signedIn(stage.browser, stage.korpd.base, name, PASSWORD, { allow: [ENGINE_REFUSED] });
}

test('a perpetual-check claim from the game page: refused with the move, then sent to the arbiter', async () => {
  const game = await openedGame();
  const ola = await signIn('ola');
  const page = ola.page;
  ola.allow(/status of 422 /);
  try {
    await page.goto(`/games/${game}`);
    await page.locator('#board[data-ply="4"]').waitFor({ timeout: TIMEOUT });
    await page.locator('#perpetual-form').waitFor({ state: 'visible', timeout: TIMEOUT });

    await page.fill('#perpetual-line', NO_CHECK);
    await page.click('#perpetual-claim');
    const refused = page.locator('#perpetual-message.message-error');
    await refused.waitFor({ timeout: TIMEOUT });
    const why = await refused.textContent();
    assert.match(why, /move 3\b/, why);
    assert.match(why, /Qb2/, why);
    assert.match(why, /does not give check/, why);
    assert.equal((await queue()).filter(i => i.game_id === game).length, 0);

    await page.fill('#perpetual-line', PERPETUAL);
    await page.click('#perpetual-claim');
    const sent = page.locator('#perpetual-message.message-ok');
    await sent.waitFor({ timeout: TIMEOUT });
    assert.match(await sent.textContent(), /sent to the arbiter/);
    const items = (await queue()).filter(i => i.game_id === game);
    assert.equal(items.length, 1);
    assert.equal(items[0].kind, 'perpetual');
    assert.deepEqual(items[0].details, { claimant: world.ola.id, color: 'white', ply: 4, line: PERPETUAL });
    // The game goes on: nothing was played.
    assert.equal((await stage.call('GET', `/v1/games/${game}`)).ply, 4);

    await page.fill('#arbiter-request-text', 'please look at this game');
    await page.click('#arbiter-request');
    await page.locator('#perpetual-message.message-ok:text("request was sent")').waitFor({ timeout: TIMEOUT });
    const request = (await queue()).filter(i => i.game_id === game && i.kind === 'request');
    assert.equal(request.length, 1);
    assert.equal(request[0].details.text, 'please look at this game');
    assert.deepEqual(ola.errors, []);
  } finally { await ola.context.close(); }
});

test('the arbiter page: the queue oldest first with the facts; dismiss removes an item; adjudication ends the game', async () => {
  const game = await openedGame();
  const claim = (await stage.call('POST', `/v1/games/${game}/claims`, world.ola.token, { kind: 'perpetual', line: PERPETUAL })).claim_id;
  const other = await openedGame();
  const request = (await stage.call('POST', `/v1/games/${other}/arbiter-request`, world.piotr.token, { text: 'a dispute' })).request_id;
  const sedzia = await signIn('sedzia');
  const page = sedzia.page;
  try {
    await page.locator('#nav-arbiter').waitFor({ timeout: TIMEOUT });
    await page.click('#nav-arbiter');
    const claimCard = page.locator(`.queue-item[data-id="${claim}"]`);
    const requestCard = page.locator(`.queue-item[data-id="${request}"]`);
    await page.locator(`.queue-item[data-id="${claim}"][data-ready="true"]`).waitFor({ timeout: TIMEOUT });
    await page.locator(`.queue-item[data-id="${request}"][data-ready="true"]`).waitFor({ timeout: TIMEOUT });

    // Oldest first: the claim was made before the request.
    const order = await page.$$eval('#arbiter-queue .queue-item', lis => lis.map(li => li.dataset.id));
    assert.ok(order.indexOf(claim) < order.indexOf(request), order.join(' '));

    const facts = await claimCard.locator('dl.analysis-facts').innerText();
    const row = label => new RegExp(`${label}\\s*\\n?\\s*`);
    assert.match(facts, new RegExp(row('Ply').source + '4\\b'), facts);
    assert.match(facts, new RegExp(row('To move').source + 'White'), facts);
    assert.match(facts, new RegExp(row('Halfmove clock').source + '0\\b'), facts);
    assert.match(facts, new RegExp(row('Earlier occurrences \\(plies\\)').source + 'none'), facts);
    assert.match(facts, new RegExp(row('Threefold draw claimable').source + 'no'), facts);
    const details = await claimCard.locator('dl.queue-details').innerText();
    assert.match(details, new RegExp(PERPETUAL.replace(/\+/g, '\\+')), details);
    assert.match(details, /ola/, details);
    assert.match(await requestCard.locator('dl.queue-details').innerText(), /a dispute/);
    assert.ok(await claimCard.locator('.queue-board [data-cell]').count() >= 64);
    assert.equal(await claimCard.locator(`a[href="/games/${game}"]`).count(), 1);

    // Dismiss the request: it leaves the page and the queue.
    await page.fill(`#dismiss-reason-${request}`, 'no rule was broken');
    await requestCard.locator('button.dismiss').click();
    await requestCard.waitFor({ state: 'detached', timeout: TIMEOUT });
    assert.ok(!(await queue()).some(i => i.id === request));

    // Adjudicate the claimed game: a draw, the claim resolved.  No result is
    // chosen before the arbiter picks one; the ruling is asked again.
    assert.equal(await page.locator(`#adjudicate-result-${claim}`).inputValue(), '');
    await page.selectOption(`#adjudicate-result-${claim}`, '1/2-1/2');
    await page.fill(`#adjudicate-reason-${claim}`, 'perpetual check upheld');
    await claimCard.locator('button.adjudicate').click();
    await claimCard.locator('button.adjudicate-yes').click();
    await claimCard.waitFor({ state: 'detached', timeout: TIMEOUT });
    assert.ok(!(await queue()).some(i => i.id === claim));
    const g = await stage.call('GET', `/v1/games/${game}`);
    assert.deepEqual([g.status, g.result, g.termination, g.adjudication_reason],
      ['finished', '1/2-1/2', 'adjudication', 'perpetual check upheld']);
    assert.deepEqual(sedzia.errors, []);
  } finally { await sedzia.context.close(); }
});

test('the arbiter page refuses anyone who is not an arbiter', async () => {
  const tomek = await signIn('tomek');
  const visitor = await person(stage.browser, stage.korpd.base, 'visitor');
  try {
    await tomek.page.goto('/arbiter');
    await tomek.page.locator('#arbiter-refused').waitFor({ timeout: TIMEOUT });
    assert.match(await tomek.page.locator('#arbiter-refused').textContent(), /Only arbiters/);
    assert.equal(await tomek.page.locator('#arbiter-queue').count(), 0);
    assert.equal(await tomek.page.locator('#nav-arbiter').count(), 0);
    await visitor.page.goto('/arbiter');
    await visitor.page.locator('#arbiter-refused a[href^="/login"]').waitFor({ timeout: TIMEOUT });
    assert.deepEqual([...tomek.errors, ...visitor.errors], []);
  } finally {
    await tomek.context.close();
    await visitor.context.close();
  }
});

// The engine's evaluation (POST /v1/analyse) beside a claim in the queue.
test('ENGINE (needs POST /v1/analyse): the arbiter page shows the engine evaluation', async () => {
  const game = await openedGame();
  const claim = (await stage.call('POST', `/v1/games/${game}/claims`, world.ola.token, { kind: 'perpetual', line: PERPETUAL })).claim_id;
  const sedzia = await signIn('sedzia');
  try {
    await sedzia.page.goto('/arbiter');
    const line = sedzia.page.locator(`.queue-item[data-id="${claim}"] .engine-line`);
    await sedzia.page.locator(`.queue-item[data-id="${claim}"] .engine-line:not([data-state="waiting"])`)
      .waitFor({ timeout: 60000 });
    const text = await line.textContent();
    assert.equal(await line.getAttribute('data-state'), 'done', text);
    // White to move with the queen against a bare king and a knight: an
    // evaluation, then a principal variation that starts with a legal
    // queen or king move or a drop, in SAN.
    assert.match(text, /^engine: ([+-]\d+\.\d\d|mate in \d+|mated in \d+) \(depth \d+\): \S/, text);
  } finally { await sedzia.context.close(); }
});
