// Every page of the web board, signed out and signed in, shows no `null`,
// `undefined`, `NaN` or `[object Object]`: a missing field printed as
// text (as "null" once stood under a player's games summary).  The players,
// games, challenges and a webhook are made through the API first, so that
// each page has every kind of row to draw: a bot without a password, an
// active game without a time limit, a finished one, an open challenge and a
// directed one, a webhook disabled by its endpoint's 410.

import { after, test } from 'node:test';
import assert from 'node:assert/strict';
import http from 'node:http';
import { useStage, person, signedIn, freePort, until, axeViolations } from './harness.mjs';
import { createArbiter } from './roles.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let pg, korpd, browser, call, gone;
const world = {};

// Words a page shows when a value was missing or of the wrong kind.
const LEAKS = /\b(null|undefined|NaN)\b|\[object \w+\]/;

async function challengeAndAccept(from, to, body) {
  const c = await call('POST', '/v1/challenges', from.token, { opponent: to.id, ...body });
  return (await call('POST', `/v1/challenges/${c.id}/accept`, to.token)).game_id;
}

useStage(async stage => {
  ({ pg, korpd, browser, call } = stage);

  // A webhook endpoint on loopback that answers 410 Gone: korpd disables the hook.
  const port = await freePort();
  gone = http.createServer((req, res) => { req.resume(); res.writeHead(410).end(); });
  await new Promise((resolve, reject) => { gone.once('error', reject); gone.listen(port, '127.0.0.1', resolve); });

  world.ewa = await call('POST', '/v1/players', null, { name: 'ewa', password: PASSWORD });
  // felek is an arbiter (and signs in on the web board).
  world.felek = await createArbiter(korpd.base, pg.url, 'felek', PASSWORD);
  world.bot = await call('POST', '/v1/players', null, { name: 'korp-engine' });   // no password: a bot

  const hook = await call('POST', '/v1/webhooks', world.ewa.token, { url: `http://127.0.0.1:${port}/hook` });
  // An active game without a time limit, the bot to move after two plies.
  world.active = await challengeAndAccept(world.bot, world.ewa, { variant: 'korpalski', color: 'white', days_per_move: null });
  await call('POST', `/v1/games/${world.active}/moves`, world.bot.token, { move: 'K@e1', ply: 0 });
  await call('POST', `/v1/games/${world.active}/moves`, world.ewa.token, { move: 'K@e8', ply: 1 });
  // A finished Glinski game with a time limit.
  world.finished = await challengeAndAccept(world.ewa, world.bot, { variant: 'glinski', color: 'black', days_per_move: 3 });
  await call('POST', `/v1/games/${world.finished}/resign`, world.ewa.token);
  // An open challenge by the bot and one from felek to ewa, both waiting.
  world.open = (await call('POST', '/v1/challenges', world.bot.token, { variant: 'glinski', opponent: null })).id;
  world.directed = (await call('POST', '/v1/challenges', world.felek.token,
    { variant: 'korpalski', opponent: world.ewa.id, days_per_move: 7, fifty_move_rule: false })).id;
  // ewa's request for an arbiter waits in felek's queue.
  await call('POST', `/v1/games/${world.active}/arbiter-request`, world.ewa.token, { text: 'a question' });
  await until('the webhook to be disabled by its 410', async () =>
    (await call('GET', `/v1/webhooks/${hook.id}`, world.ewa.token)).enabled === false);
}, { KORP_WEBHOOK_ALLOW_PRIVATE: '1' });

after(async () => new Promise(r => (gone ? gone.close(r) : r())));

/*
 * The pages, each with what shows that it has drawn everything it loads
 * (a list filled, a board drawn); `signedIn` picks the variant of the page.
 */
function pages(signedIn) {
  const list = [
    ['home', '/', signedIn ? '#finished-games li' : '.welcome', '#front-playing li', '#front-open li'],
    ['sign in', '/login', 'form.auth-form'],
    ['sign up', '/signup', 'form.auth-form'],
    ['new game', '/new', '#open-challenges li'],
    ['the bot\'s page', `/players/${world.bot.id}`, '#player-active li', '#player-finished li'],
    ['a player\'s page', `/players/${world.ewa.id}`, '#player-active li', '#player-finished li'],
    ['an active game', `/games/${world.active}`, '#board[data-ply="2"]', '#live:text("live")'],
    ['a finished game', `/games/${world.finished}`, '#board[data-ply="0"]', '#move-list .result', '#open-study', '#analysis-panel'],
    ['a finished game in study', `/study?game=${world.finished}&variant=glinski`, '#study-status:text("Ply 0 of 0")'],
    ['an open challenge', `/challenges/${world.open}`, signedIn ? '.challenge-row' : 'main a[href^="/login"]'],
    ['a challenge for ewa', `/challenges/${world.directed}`, signedIn ? '.challenge-row' : 'main a[href^="/login"]'],
    ['a missing game', '/games/NoSuchGame', 'h1:text("Game not found")'],
    ['the study board', '/study', '#study-status:text("Ply 0 of 0")', '#board [data-cell]', '#analysis-panel'],
    ['learn Korpalski', '/learn/korpalski', '#lesson-ends .lesson-board[data-ready="true"]'],
    ['learn Glinski', '/learn/glinski', '#lesson-stalemate .lesson-board[data-ready="true"]'],
    // Refused but to felek, an arbiter, who sees ewa's request drawn to its end.
    ['the arbiter\'s queue', '/arbiter', '#arbiter-refused, .engine-line[data-state="done"], .engine-line[data-state="failed"]'],
  ];
  // Signed out, /settings sends people to sign in.
  list.push(signedIn ? ['settings', '/settings', '#notifications-form', '#webhook-list li', '#token-list [data-token]']
                     : ['settings', '/settings', 'form.auth-form']);
  return list;
}

/* The text people see or hear: the visible text, the title and the labels. */
function shownText(page) {
  return page.evaluate(() => {
    const parts = [document.title, document.body.innerText];
    for (const el of document.querySelectorAll('[aria-label], [title], [placeholder], [alt], input[value]')) {
      for (const a of ['aria-label', 'title', 'placeholder', 'alt', 'value']) {
        if (el.hasAttribute(a)) parts.push(`${el.tagName.toLowerCase()}[${a}]: ${el.getAttribute(a)}`);
      }
    }
    return parts.join('\n');
  });
}

function leaks(text) {
  return text.split('\n').filter(line => LEAKS.test(line));
}

test('the leak check finds what it looks for', () => {
  assert.deepEqual(leaks('1 game: 0 won\nnull\ndisabled: undefined x\nNaN points\n[object Object]'),
    ['null', 'disabled: undefined x', 'NaN points', '[object Object]']);
  assert.deepEqual(leaks('nullable annulled Undefinedness 3 points'), []);
});

// What axe-core finds on the pages visited.
const barriers = [];

async function visitAll(p, who, signedIn) {
  const found = [];
  for (const [name, url, ...ready] of pages(signedIn)) {
    await p.page.goto(url);
    for (const sel of ready) await p.page.locator(sel).first().waitFor({ timeout: TIMEOUT });
    const bad = leaks(await shownText(p.page));
    if (bad.length) found.push(`${who}, ${name} (${url}): ${bad.join(' | ')}`);
    for (const v of await axeViolations(p.page)) barriers.push(`${who}, ${name} (${url}): ${v}`);
  }
  return found;
}

const signInAs = name => signedIn(browser, korpd.base, name, PASSWORD, { timeout: TIMEOUT, allow: [
  /status of 404 .*\/v1\/games\/NoSuchGame\)$/,
  // The engine's evaluation on the arbiter's page may be missing or busy.
  /status of (404|429|503) .*\/v1\/analyse\)$/,
] });

test('no page shows null, undefined, NaN or [object Object]', async () => {
  const out = await person(browser, korpd.base, 'signed-out');
  out.allow(/status of 404 .*\/v1\/games\/NoSuchGame\)$/);
  const found = await visitAll(out, 'signed out', false);
  // ewa plays both games and is challenged; felek watches them and challenged her.
  const ewa = await signInAs('ewa');
  found.push(...await visitAll(ewa, 'ewa', true));
  const felek = await signInAs('felek');
  found.push(...await visitAll(felek, 'felek', true));

  assert.deepEqual(found, [], 'pages show a missing value as text');
  assert.deepEqual(barriers, [], 'axe-core finds accessibility violations');
  const people = [out, ewa, felek];
  assert.deepEqual(people.flatMap(p => p.errors), [], 'console errors, page errors or CSP violations');
  for (const p of people) await p.context.close();
});
