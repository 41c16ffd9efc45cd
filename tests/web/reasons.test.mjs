// Refusals said in the page's language with their reason, not only their
// problem type: on a Polish page, a draw offer refused in Korpalski (the
// reserves are not empty) and a perpetual-check line whose move gives no
// check. The expected texts are po/pl.po's.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person, signIn, axeViolations, newGame } from './harness.mjs';

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
