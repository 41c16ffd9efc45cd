// The service worker: shows korp's pushes and opens their page when tapped.
// A push's data is the JSON korpd encrypts for this browser:
// {"type", "title", "body", "url", "game_id"} (docs/api.md, Web Push).

self.addEventListener('push', event => {
  let m = {};
  try { m = event.data ? event.data.json() : {}; } catch (e) { m = {}; }
  const title = m.title || 'korp';
  event.waitUntil(self.registration.showNotification(title, {
    body: m.body || '',
    icon: '/assets/icon-192.png',
    // One notification a game: a newer push replaces the older one.
    tag: m.game_id ? 'game-' + m.game_id : (m.type || 'korp'),
    data: { url: m.url || '/' },
  }));
});

self.addEventListener('notificationclick', event => {
  event.notification.close();
  const target = new URL(event.notification.data && event.notification.data.url || '/', self.location.origin);
  // Only korp's own pages are opened.
  const url = target.origin === self.location.origin ? target.href : self.location.origin + '/';
  event.waitUntil((async () => {
    const open = await self.clients.matchAll({ type: 'window', includeUncontrolled: true });
    for (const c of open) {
      if (c.url === url && 'focus' in c) return c.focus();
    }
    // A window this worker does not control (opened before it) cannot be
    // sent elsewhere: then the next, or a new window.
    for (const c of open) {
      if (!('navigate' in c && 'focus' in c)) continue;
      // (navigate answers the window as it is after, null when it left korp)
      try { const moved = await c.navigate(url); return (moved || c).focus(); } catch (e) { /* not ours to move */ }
    }
    return self.clients.openWindow(url);
  })());
});
