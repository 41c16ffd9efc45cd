// The front page's way in: signed out, "play the computer" leads to sign-up; signed in,
// one click challenges the computer (here a player named korp-engine that the test
// answers for through the API, as the engine bot would) and opens the game once it is
// accepted. The games being played now and the open challenges are listed.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, person } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let korpd, browser, call;
useStage(stage => ({ korpd, browser, call } = stage));

test('play the computer in one click, and what is going on', async () => {
  const engine = await call('POST', '/v1/players', null, { name: 'korp-engine' });
  const zosia = await call('POST', '/v1/players', null, { name: 'zosia', password: PASSWORD });
  const other = await call('POST', '/v1/players', null, { name: 'other' });
  // A game being played and a challenge anyone may accept.
  const c = await call('POST', '/v1/challenges', other.token, { variant: 'glinski', opponent: engine.id });
  const watched = (await call('POST', `/v1/challenges/${c.id}/accept`, engine.token)).game_id;
  const open = (await call('POST', '/v1/challenges', other.token, { variant: 'korpalski', opponent: null })).id;

  const visitor = await person(browser, korpd.base, 'visitor');
  await visitor.page.goto('/');
  await visitor.page.locator(`#front-playing [data-game="${watched}"]`).waitFor({ timeout: TIMEOUT });
  await visitor.page.locator(`#front-open [data-challenge="${open}"]`).waitFor({ timeout: TIMEOUT });
  await visitor.page.click('#play-computer-korpalski');
  await visitor.page.waitForURL('**/signup', { timeout: TIMEOUT });
  assert.deepEqual(visitor.errors, []);
  await visitor.context.close();

  const p = await person(browser, korpd.base, 'zosia');
  await p.page.goto('/login');
  await p.page.fill('#name', 'zosia');
  await p.page.fill('#password', PASSWORD);
  await p.page.click('form.auth-form button[type=submit]');
  await p.page.locator('.nav-me').waitFor({ timeout: TIMEOUT });
  await p.page.goto('/');
  await p.page.click('#play-computer-korpalski');
  await p.page.locator('#front-message:text("Waiting for the computer")').waitFor({ timeout: TIMEOUT });
  // The "engine" finds the challenge and accepts it; the page opens the game.
  const mine = await call('GET', '/v1/challenges', engine.token);
  const fromZosia = mine.incoming.filter(x => x.challenger.id === zosia.id);
  assert.equal(fromZosia.length, 1);
  assert.equal(fromZosia[0].variant, 'korpalski');
  const game = (await call('POST', `/v1/challenges/${fromZosia[0].id}/accept`, engine.token)).game_id;
  await p.page.waitForURL(`**/games/${game}`, { timeout: TIMEOUT });
  assert.deepEqual(p.errors, []);
  await p.context.close();
});
