// Refusals said in the page's language with their reason, not only their
// problem type: on a Polish page, a draw offer refused in Korpalski (the
// reserves are not empty) and a perpetual-check line whose move gives no
// check; sign-up refusals; Glinski moves in Hungarian letters. The expected
// texts are po/pl.po's and po/hu.po's. And numbers of things said as the
// page's language says them: plural forms from the catalogs' Plural-Forms
// (Polish: 1 dzień, 2 dni, 5 dni, by the gettext manual's Polish rule: one;
// 2-4 but not 12-14; many), no English left in the game page's dynamic texts.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person, signIn, axeViolations, newGame, until } from './harness.mjs';
import { pluralRule } from '../../web/assets/i18n.js';

const PASSWORD = 'correct horse battery';
// po/hu.po's words for a man that cannot reach its square (cannot-reach).
const VXF9_SAID = 'Egyik bábud sem juthat arra a mezőre.';
const TIMEOUT = 15000;
const world = {};
let korpd, browser, call;

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  for (const name of ['ola', 'jan'])
    world[name] = await call('POST', '/v1/players', null, { name, password: PASSWORD });
  await call('PUT', '/v1/players/me/notifications', world.ola.token, { language: 'pl' });
  world.game = await newGame(call, world.ola, world.jan);
});

test('a refused draw offer and a refused perpetual claim, said in Polish with their reason', async () => {
  const ola = await person(browser, korpd.base, 'ola', { locale: 'pl-PL' });
  ola.allow(/status of 422 .*\/v1\/games\/\w+\/(draw|claims)\)$/);
  await signIn(ola, 'ola', PASSWORD, TIMEOUT);
  const { page } = ola;
  await page.goto(`/games/${world.game}`);
  await page.locator('#game-status:text("Twój ruch")').waitFor({ timeout: TIMEOUT });

  await page.click('#draw-offer');
  const said = page.locator('#game-message.message-error');
  await said.waitFor({ timeout: TIMEOUT });
  assert.equal((await said.innerText()).replace(/\s+/g, ' ').trim(),
    'W szachach Korpalskiego remis za porozumieniem jest możliwy tylko wtedy, gdy obie rezerwy są puste');

  // The reserves counted in Polish plural forms (the start: K Q R R B B N N and 8 pawns).
  for (const [kind, said] of [['k', '1 król'], ['n', '2 skoczki'], ['p', '8 pionów']])
    assert.match(await page.locator(`[data-reserve="white-${kind}"]`).getAttribute('aria-label'), new RegExp(`: ${said}$`));
  // The example line is in the page's notation: the inventor's H for the queen (hetman).
  assert.equal(await page.locator('#perpetual-line').getAttribute('placeholder'), 'np. Hh5+ Kg8 He8+ Kh7 Hh5+');
  // The king dropped on e1 gives no check: the line is refused for that.
  await page.fill('#perpetual-line', 'K@e1');
  await page.click('#perpetual-claim');
  const claimSaid = page.locator('#perpetual-message.message-error');
  await claimSaid.waitFor({ timeout: TIMEOUT });
  assert.equal((await claimSaid.innerText()).trim(), 'W linii wiecznego szacha każdy Twój ruch musi dawać szacha.');
  assert.deepEqual(await axeViolations(page), []);
  assert.equal((await call('GET', `/v1/games/${world.game}`)).draw_offer, null);
  assert.deepEqual(ola.errors, []);
});

test('sign-up refusals said in Polish with their reason: a name taken, a common password', async () => {
  const visitor = await person(browser, korpd.base, 'visitor', { locale: 'pl-PL' });
  visitor.allow(/status of (409|400) .*\/v1\/players\)?$/);
  const { page } = visitor;
  await page.goto('/signup');
  const said = page.locator('form.auth-form .message-error');
  // Names are unique regardless of case: "OLA" is ola's name.
  await page.fill('#name', 'OLA');
  await page.fill('#password', PASSWORD);
  await page.click('form.auth-form button[type=submit]');
  await page.locator('form.auth-form .message-error:text("Ta nazwa jest zajęta")').waitFor({ timeout: TIMEOUT });
  assert.equal((await said.innerText()).trim(), 'Ta nazwa jest zajęta: wybierz inną.');
  // "qwertyuiop" is in web/data/common-passwords.txt.
  await page.fill('#name', 'zosia');
  await page.fill('#password', 'qwertyuiop');
  await page.click('form.auth-form button[type=submit]');
  await page.locator('form.auth-form .message-error:text("najczęstszych")').waitFor({ timeout: TIMEOUT });
  assert.equal((await said.innerText()).trim(), 'To hasło jest jednym z najczęstszych: wybierz inne.');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(visitor.errors, []);
});

test('a Glinski move in Hungarian letters, on a Hungarian page: unreadable names Glinski\'s notations; illegal says why', async () => {
  const gyozo = await call('POST', '/v1/players', null, { name: 'gyozo', password: PASSWORD });
  await call('PUT', '/v1/players/me/notifications', gyozo.token, { language: 'hu' });
  const c = await call('POST', '/v1/challenges', world.jan.token, { variant: 'glinski', opponent: gyozo.id, color: 'black' });
  const game = (await call('POST', `/v1/challenges/${c.id}/accept`, gyozo.token)).game_id;
  const hu = await person(browser, korpd.base, 'gyozo', { locale: 'hu-HU' });
  hu.allow(/status of 422 .*\/v1\/games\/\w+\/moves\)$/);
  await signIn(hu, 'gyozo', PASSWORD, TIMEOUT);
  const { page } = hu;
  await page.goto(`/games/${game}`);
  await page.locator('#move-input').waitFor({ timeout: TIMEOUT });
  const said = page.locator('#game-message.message-error');

  // Z is no piece letter of any notation: Glinski's notations are named, and only they
  // (docs/rules/glinski.md: SAN, coordinates, Hungarian letters; no Polish notation).
  await page.fill('#move-input', 'Zf9');
  await page.press('#move-input', 'Enter');
  await said.waitFor({ timeout: TIMEOUT });
  assert.equal((await said.innerText()).trim(),
    'A korp nem tudja kiolvasni ezt a lépést: írd SAN szerint, koordinátákkal (UCI) vagy magyar betűkkel (K V B F H).');

  // The queen (vezér) on e1 cannot reach f9 at the start: the move is read, and
  // refused for what it does.
  await page.fill('#move-input', 'Vxf9');
  await page.press('#move-input', 'Enter');
  await page.locator('#game-message.message-error:not(:text("kiolvasni"))').waitFor({ timeout: TIMEOUT });
  assert.equal((await said.innerText()).trim(), VXF9_SAID);
  assert.equal((await call('GET', `/v1/games/${game}`)).ply, 0);
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(hu.errors, []);
});

test('the Plural-Forms rules of Polish and Hungarian, read without eval', () => {
  const polish = pluralRule('nplurals=3; plural=(n==1 ? 0 : n%10>=2 && n%10<=4 && (n%100<10 || n%100>=20) ? 1 : 2);');
  // 1 dzień; 2, 3, 4, 22, 104 dni (few); 0, 5, 11-14, 25, 112 dni (many).
  const want = { 0: 2, 1: 0, 2: 1, 3: 1, 4: 1, 5: 2, 11: 2, 12: 2, 13: 2, 14: 2, 21: 2, 22: 1, 25: 2, 104: 1, 112: 2 };
  for (const [n, form] of Object.entries(want)) assert.equal(polish(Number(n)), form, `Polish form of ${n}`);
  const hungarian = pluralRule('nplurals=2; plural=(n != 1);');
  assert.deepEqual([0, 1, 2, 7].map(hungarian), [1, 0, 1, 1]);
  // An expression it cannot read falls back to English's rule.
  assert.deepEqual([1, 2].map(pluralRule('plural=alert(1);')), [0, 1]);
});

test('days, "(you)" and "Saved" on a Polish game page', async () => {
  // Jan chose Polish; his game has one day a move, White (Ola) to move.
  await call('PUT', '/v1/players/me/notifications', world.jan.token, { language: 'pl' });
  const c = await call('POST', '/v1/challenges', world.ola.token, {
    variant: 'korpalski', opponent: world.jan.id, color: 'white', days_per_move: 1 });
  const game = (await call('POST', `/v1/challenges/${c.id}/accept`, world.jan.token)).game_id;
  const jan = await person(browser, korpd.base, 'jan');
  await signIn(jan, 'jan', PASSWORD, TIMEOUT);
  const { page } = jan;
  await call('POST', `/v1/games/${game}/messages`, world.jan.token, { text: 'Powodzenia!' });
  await page.goto(`/games/${game}`);
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('.game-meta').innerText(), /1 dzień na ruch/);
  // White is to move: Black may give time, in days said in Polish.
  await page.locator('#give-time').waitFor({ state: 'visible', timeout: TIMEOUT });
  assert.deepEqual(await page.locator('#give-time-days option').allInnerTexts(),
    ['1 dzień', '2 dni', '3 dni', '4 dni', '5 dni', '6 dni', '7 dni']);
  await until('the message to show', async () => /Powodzenia!/.test(await page.locator('#messages').innerText()));
  assert.match(await page.locator('#messages .msg-author').first().innerText(), /\(ty\)$/i);
  await page.fill('#notes-input', 'Ola lubi skoczki.');
  await page.click('#notes-form button[type=submit]');
  await page.locator('#notes-saved:text("Zapisano")').waitFor({ timeout: TIMEOUT });
  assert.doesNotMatch(await page.locator('#notes-saved').innerText(), /Saved|UTC|T\d\d:/);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'pl');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(jan.errors, []);
});
