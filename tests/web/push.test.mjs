// The installable app and its service worker in Chromium: every page links
// the manifest (name, start_url, standalone, icons 192 and 512 that load);
// /sw.js, registered at the root, shows a push as a notification (delivered
// through the DevTools protocol's ServiceWorker.deliverPushMessage, no push
// service needed) with the message's title, body and page; the settings
// page offers "notify me in this browser" and lists no browser yet.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, signedIn, until, axeViolations } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

let korpd, browser;

useStage(async stage => {
  ({ korpd, browser } = stage);
  await stage.call('POST', '/v1/players', null, { name: 'ola', password: PASSWORD });
}, { KORP_PUSH_CONTACT: 'mailto:ops@example.org' });

test('the manifest, the service worker and a push shown', async () => {
  const ola = await signedIn(browser, korpd.base, 'ola', PASSWORD, { timeout: TIMEOUT });
  const { page, context } = ola;
  await context.grantPermissions(['notifications'], { origin: korpd.base });
  await page.goto('/settings');
  await page.locator('#push-subscribe').waitFor({ timeout: TIMEOUT });
  await page.locator('#push-list li.none').waitFor({ timeout: TIMEOUT });

  const href = await page.locator('link[rel="manifest"]').getAttribute('href');
  const manifest = await page.evaluate(async url => (await fetch(url)).json(), href);
  assert.equal(manifest.display, 'standalone');
  assert.equal(manifest.start_url, '/');
  assert.ok(manifest.name && manifest.short_name);
  const sizes = manifest.icons.map(i => i.sizes).sort();
  assert.deepEqual(sizes, ['192x192', '512x512']);
  for (const icon of manifest.icons) {
    const size = await page.evaluate(async src => {
      const img = new Image();
      img.src = src;
      await img.decode();
      return `${img.naturalWidth}x${img.naturalHeight}`;
    }, icon.src);
    assert.equal(size, icon.sizes, icon.src);
  }

  const cdp = await context.newCDPSession(page);
  const registrations = [];
  cdp.on('ServiceWorker.workerRegistrationUpdated', e => registrations.push(...e.registrations));
  await cdp.send('ServiceWorker.enable');
  const scope = await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.register('/sw.js');
    await navigator.serviceWorker.ready;
    return reg.scope;
  });
  assert.equal(scope, korpd.base + '/');
  await until('the registration', () => registrations.some(r => r.scopeURL === scope && !r.isDeleted), TIMEOUT);
  const registrationId = registrations.find(r => r.scopeURL === scope).registrationId;

  // The worker takes pushes once it is activated; a push delivered while it
  // is still activating may be dropped, so each wait below delivers again
  // every 2 s until what it waits for is shown (a repeated push of one game
  // replaces its notification: nothing is shown twice).
  await page.evaluate(async () => {
    const reg = await navigator.serviceWorker.ready;
    if (reg.active.state === 'activated') return;
    await Promise.race([
      new Promise(resolve => reg.active.addEventListener('statechange',
        () => { if (reg.active.state === 'activated') resolve(); })),
      new Promise((_, reject) => setTimeout(() => reject(new Error('the worker never activated')), 15000))]);
  });
  const deliverUntil = async (what, data, shownNow) => {
    let sent = 0;
    await until(what, async () => {
      if (Date.now() - sent > 2000) {
        sent = Date.now();
        await cdp.send('ServiceWorker.deliverPushMessage',
          { origin: korpd.base, registrationId, data: JSON.stringify(data) });
      }
      return shownNow();
    }, TIMEOUT);
  };

  const message = { type: 'move', title: 'Your move against jan', body: 'jan played Nc3.',
    url: `${korpd.base}/games/abc123`, game_id: 'abc123' };
  let shown = [];
  await deliverUntil('the notification', message, async () => {
    shown = await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications())
      .map(n => ({ title: n.title, body: n.body, tag: n.tag, data: n.data })));
    return shown.length > 0;
  });
  assert.deepEqual(shown, [{ title: message.title, body: message.body, tag: 'game-abc123',
    data: { url: message.url } }]);

  // A second push of the same game replaces the first.
  await deliverUntil('the replacement', { ...message, title: 'Game over' }, async () => {
    shown = await page.evaluate(async () => (await (await navigator.serviceWorker.ready).getNotifications())
      .map(n => n.title));
    return shown.length === 1 && shown[0] === 'Game over';
  });

  assert.deepEqual(await axeViolations(page), []);
  assert.deepEqual(ola.errors, []);
  await ola.context.close();
});
