// Numbers of things said as the page's language says them: plural forms from
// the catalogs' Plural-Forms (Polish: 1 dzień, 2 dni, 5 dni; Hungarian keeps
// the singular after a numeral), and no English left in the game page's
// dynamic texts ("(you)", "Saved …"). The expected Polish forms are the
// grammar's (the gettext manual's Polish rule: one; 2-4 but not 12-14; many),
// written here by hand.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person, signIn, axeViolations, until } from './harness.mjs';
import { pluralRule } from '../../web/assets/i18n.js';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let korpd, browser, call;
const world = {};

useStage(async stage => {
  ({ korpd, browser, call } = stage);
  world.ola = await call('POST', '/v1/players', null, { name: 'ola', password: PASSWORD });
  world.jan = await call('POST', '/v1/players', null, { name: 'jan', password: PASSWORD });
  await call('PUT', '/v1/players/me/notifications', world.jan.token, { language: 'pl' });
  const c = await call('POST', '/v1/challenges', world.ola.token, {
    variant: 'korpalski', opponent: world.jan.id, color: 'white', days_per_move: 1 });
  world.game = (await call('POST', `/v1/challenges/${c.id}/accept`, world.jan.token)).game_id;
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
  const jan = await person(browser, korpd.base, 'jan');
  await signIn(jan, 'jan', PASSWORD, TIMEOUT);
  const { page } = jan;
  await call('POST', `/v1/games/${world.game}/messages`, world.jan.token, { text: 'Powodzenia!' });
  await page.goto(`/games/${world.game}`);
  await page.locator('#board[data-ply="0"]').waitFor({ timeout: TIMEOUT });
  assert.match(await page.locator('.game-meta').innerText(), /1 dzień na ruch/);
  // White is to move: Black may give time, in days said in Polish.
  await page.locator('#give-time').waitFor({ state: 'visible', timeout: TIMEOUT });
  assert.deepEqual(await page.locator('#give-time-days option').allInnerTexts(),
    ['1 dzień', '2 dni', '3 dni', '4 dni', '5 dni', '6 dni', '7 dni']);
  await until('the message to show', async () => /Powodzenia!/.test(await page.locator('#messages').innerText()));
  assert.match(await page.locator('#messages .msg-from').first().innerText(), /\(Ty\)$/);
  await page.fill('#notes-input', 'Ola lubi skoczki.');
  await page.click('#notes-form button[type=submit]');
  await page.locator('#notes-saved:text("Zapisano")').waitFor({ timeout: TIMEOUT });
  assert.doesNotMatch(await page.locator('#notes-saved').innerText(), /Saved|UTC|T\d\d:/);
  assert.equal(await page.evaluate(() => document.documentElement.lang), 'pl');
  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(jan.errors, []);
});
