// The page's entry: finds out who is signed in, draws the navigation, and
// routes on location.pathname to one module per page. Links inside the
// site are followed without reloading (history.pushState).

import { loadSession, me, signOut } from './api.js';
import { h } from './ui.js';
import { addArbiterLink } from './arbiter-role.js';

const ROUTES = [
  [/^\/$/, () => import('./page-home.js')],
  [/^\/login$/, () => import('./page-auth.js'), 'login'],
  [/^\/signup$/, () => import('./page-auth.js'), 'signup'],
  [/^\/games\/([A-Za-z0-9]+)$/, () => import('./page-game.js')],
  [/^\/players\/([A-Za-z0-9]+)$/, () => import('./page-player.js')],
  [/^\/new$/, () => import('./page-new.js')],
  [/^\/challenges\/([A-Za-z0-9]+)$/, () => import('./page-new.js'), 'challenge'],
  [/^\/settings$/, () => import('./page-settings.js')],
  [/^\/study$/, () => import('./page-study.js')],
  [/^\/learn\/(korpalski|glinski)$/, () => import('./page-learn.js')],
  // Issue 19: tournaments and leaderboards.
  [/^\/tournaments$/, () => import('./page-tournament.js'), 'list'],
  [/^\/tournaments\/([A-Za-z0-9]+)$/, () => import('./page-tournament.js')],
  [/^\/leaderboard\/([a-z]+)$/, () => import('./page-ratings.js')],
  // Issue 19: the arbiter's queue.
  [/^\/arbiter$/, () => import('./page-arbiter.js')],
];

let cleanup = null;

function drawNav() {
  const nav = document.getElementById('nav');
  const player = me();
  const items = player
    ? [h('a', { href: '/' }, 'My games'), h('a', { href: '/new' }, 'New game'),
       h('a', { href: '/players/' + player.id, class: 'nav-me' }, player.name),
       h('a', { href: '/tournaments' }, 'Tournaments'),
       h('a', { href: '/settings' }, 'Settings'), h('a', { href: '/study' }, 'Study'),
       h('a', { href: '/learn/korpalski' }, 'Learn'),
       h('button', { type: 'button', class: 'linklike', id: 'sign-out', onclick: async () => {
         await signOut().catch(() => {});
         drawNav();
         navigate('/');
       } }, 'Sign out')]
    : [h('a', { href: '/new' }, 'Open games'), h('a', { href: '/study' }, 'Study'), h('a', { href: '/learn/korpalski' }, 'Learn'), h('a', { href: '/login' }, 'Sign in'), h('a', { href: '/signup' }, 'Sign up')];
  nav.replaceChildren(...items);
  addArbiterLink(nav);
}

export async function route() {
  if (cleanup) { try { cleanup(); } catch (e) { console.warn(e); } cleanup = null; }
  const main = document.getElementById('main');
  const path = location.pathname.replace(/\/+$/, '') || '/';
  for (const [re, load, mode] of ROUTES) {
    const m = re.exec(path);
    if (!m) continue;
    const page = await load();
    main.replaceChildren();
    cleanup = (await page.render(main, { params: m.slice(1), mode, navigate, refreshNav: drawNav })) || null;
    return;
  }
  main.replaceChildren(h('h1', {}, 'Not found'), h('p', {}, 'There is no page here. ', h('a', { href: '/' }, 'Go home')));
  document.title = 'Not found · korp';
}

export function navigate(path, { replace = false } = {}) {
  if (replace) history.replaceState(null, '', path); else history.pushState(null, '', path);
  route();
  window.scrollTo(0, 0);
}

document.addEventListener('click', e => {
  const a = e.target.closest('a[href]');
  if (!a || e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
  const url = new URL(a.href, location.href);
  if (url.origin !== location.origin || a.hasAttribute('download') || a.target || url.pathname.startsWith('/v1/')) return;
  e.preventDefault();
  navigate(url.pathname + url.search);
});
window.addEventListener('popstate', route);

(async () => {
  await loadSession();
  drawNav();
  await route();
})();
