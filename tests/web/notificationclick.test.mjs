// The service worker's notificationclick (web/sw.js) in Chromium: tapping a
// push's notification closes it and opens its page: a window already there is
// focused; else an open korp window goes there and is focused; with none a
// window is opened; a page of another origin opens korp's root instead.
// Headless Chromium cannot tap a notification, so the click is dispatched in
// the worker itself (a NotificationEvent for a notification it showed), with
// the calls that need a real tap (focus, openWindow) recorded instead of made;
// matchAll and navigate are the browser's own.

import { test } from 'node:test';
import assert from 'node:assert/strict';
import { useStage, signedIn } from './harness.mjs';

const PASSWORD = 'correct horse battery';
const TIMEOUT = 15000;

// (no push service is needed: the worker shows its own notification)
const stage = useStage(s => s.call('POST', '/v1/players', null, { name: 'tapper', password: PASSWORD }));

/* In the worker: shows a notification for `url`, taps it, and says what the
 * handler did (the windows focused, the windows opened, the notifications
 * left).  `noWindows` makes matchAll find none. */
async function tap({ url, noWindows }) {
  {
    const did = { focused: [], opened: [] };
    const realFocus = WindowClient.prototype.focus;
    WindowClient.prototype.focus = function () { did.focused.push(this.url); return Promise.resolve(this); };
    const clients = self.clients;
    // (the global's own property: put back as it was after)
    const own = Object.getOwnPropertyDescriptor(self, 'clients');
    const stub = {
      matchAll: noWindows ? async () => [] : opts => clients.matchAll(opts),
      openWindow: async u => { did.opened.push(u); return null; },
    };
    Object.defineProperty(self, 'clients', { value: stub, configurable: true });
    try {
      await self.registration.showNotification('Your move', { tag: 'tap', data: { url } });
      const [n] = await self.registration.getNotifications({ tag: 'tap' });
      const event = new NotificationEvent('notificationclick', { notification: n });
      let done = Promise.resolve();
      // An event made here is not trusted: its own waitUntil would refuse.
      Object.defineProperty(event, 'waitUntil', { value: p => { done = p; } });
      self.dispatchEvent(event);
      await done;
      did.left = (await self.registration.getNotifications({ tag: 'tap' })).length;
      return did;
    } finally {
      WindowClient.prototype.focus = realFocus;
      if (own) Object.defineProperty(self, 'clients', own); else delete self.clients;
    }
  }
}

test('a tapped notification opens or focuses its page', async () => {
  const { korpd } = stage;
  const tapper = await signedIn(stage.browser, korpd.base, 'tapper', PASSWORD, { timeout: TIMEOUT });
  const { page, context } = tapper;
  try {
    await context.grantPermissions(['notifications'], { origin: korpd.base });
    await page.goto('/settings');
    await page.evaluate(async () => {
      await navigator.serviceWorker.register('/sw.js');
      const reg = await navigator.serviceWorker.ready;
      if (reg.active.state !== 'activated')
        await new Promise(resolve => reg.active.addEventListener('statechange',
          () => { if (reg.active.state === 'activated') resolve(); }));
    });
    // Loaded again, the page is the worker's (a window it controls can be sent elsewhere).
    await page.reload();
    await page.waitForFunction(() => navigator.serviceWorker.controller !== null, null, { timeout: TIMEOUT });
    const worker = context.serviceWorkers().find(w => w.url().endsWith('/sw.js'))
      || await context.waitForEvent('serviceworker', { timeout: TIMEOUT });
    const tapIn = (url, noWindows = false) => worker.evaluate(tap, { url, noWindows });

    // Another korp page is open: it goes to the page and is focused.
    const target = `${korpd.base}/tournaments`;
    let did = await tapIn(target);
    assert.deepEqual(did, { focused: [target], opened: [], left: 0 });
    await page.waitForURL(target, { timeout: TIMEOUT });

    // The page is open already: focused, nothing opened.
    did = await tapIn(target);
    assert.deepEqual(did, { focused: [target], opened: [], left: 0 });
    assert.equal(page.url(), target);

    // No korp window: one is opened at the page.
    did = await tapIn(`${korpd.base}/leaderboard/glinski`, true);
    assert.deepEqual(did, { focused: [], opened: [`${korpd.base}/leaderboard/glinski`], left: 0 });

    // A page of another origin is never opened: korp's root is.
    did = await tapIn('https://example.org/phish', true);
    assert.deepEqual(did, { focused: [], opened: [`${korpd.base}/`], left: 0 });
    assert.deepEqual(tapper.errors, []);
  } finally { await context.close(); }
});
