// The page's entry: finds out who is signed in, draws the navigation, and
// routes on location.pathname to one module per page. Links inside the
// site are followed without reloading (history.pushState).

import { api, loadSession, me, signOut } from './api.js';
import { h } from './ui.js';
import { t, LANGUAGES, language, chooseLanguage, loadLanguage, rememberLanguage } from './i18n.js';
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
  // Tournaments and leaderboards.
  [/^\/tournaments$/, () => import('./page-tournament.js'), 'list'],
  [/^\/tournaments\/([A-Za-z0-9]+)$/, () => import('./page-tournament.js')],
  [/^\/leaderboard\/([a-z]+)$/, () => import('./page-ratings.js')],
  // The arbiter's queue.
  [/^\/arbiter$/, () => import('./page-arbiter.js')],
];

let cleanup = null;

function drawNav() {
  const nav = document.getElementById('nav');
  const player = me();
  const items = player
    ? [h('a', { href: '/' }, t('My games')), h('a', { href: '/new' }, t('New game')),
       h('a', { href: '/players/' + player.id, class: 'nav-me' }, player.name),
       h('a', { href: '/tournaments' }, t('Tournaments')),
       h('a', { href: '/settings' }, t('Settings')), h('a', { href: '/study' }, t('Study')),
       h('a', { href: '/learn/korpalski' }, t('Learn')),
       h('button', { type: 'button', class: 'linklike', id: 'sign-out', onclick: async () => {
         await signOut().catch(() => {});
         drawNav();
         navigate('/');
       } }, t('Sign out'))]
    : [h('a', { href: '/new' }, t('Open games')), h('a', { href: '/study' }, t('Study')), h('a', { href: '/learn/korpalski' }, t('Learn')), h('a', { href: '/login' }, t('Sign in')), h('a', { href: '/signup' }, t('Sign up'))];
  nav.replaceChildren(...items);
  addArbiterLink(nav);
  drawChrome();
}

// ---- the language ------------------------------------------------------------

/* The signed-in player's stored language, or null. */
async function playerLanguage() {
  if (!me()) return null;
  try { return (await api('GET', '/v1/players/me/notifications')).language || null; } catch { return null; }
}

/* Loads the language this page should use (before anything is drawn). */
async function settleLanguage() {
  const stored = await playerLanguage();
  await loadLanguage(chooseLanguage(stored ? { language: stored } : null));
}

/* On a narrow screen the navigation folds under a "Menu" button (app.css
 * shows the button and hides the links until it is pressed); choosing a
 * page folds it again. */
function drawNavToggle() {
  const nav = document.getElementById('nav');
  if (!nav) return;
  let toggle = document.getElementById('nav-toggle');
  if (!toggle) {
    toggle = h('button', { type: 'button', id: 'nav-toggle', class: 'nav-toggle linklike', 'aria-controls': 'nav', 'aria-expanded': 'false' });
    toggle.addEventListener('click', () => {
      const open = toggle.getAttribute('aria-expanded') !== 'true';
      toggle.setAttribute('aria-expanded', String(open));
      nav.classList.toggle('open', open);
    });
    nav.addEventListener('click', e => {
      if (e.target.closest('a, button')) { toggle.setAttribute('aria-expanded', 'false'); nav.classList.remove('open'); }
    });
    nav.before(toggle);
  }
  toggle.textContent = t('Menu');
}

/* The words of index.html itself, and the language switch in the footer. */
function drawChrome() {
  drawNavToggle();
  const skip = document.querySelector('a.skip');
  if (skip) skip.textContent = t('Skip to content');
  const footer = document.querySelector('footer.bottom');
  if (!footer) return;
  const select = h('select', { id: 'language', name: 'language' },
    ...LANGUAGES.map(l => h('option', { value: l.code, lang: l.code, selected: l.code === language() }, l.name)));
  select.addEventListener('change', () => switchLanguage(select.value));
  footer.replaceChildren(h('span', {}, t('korp: correspondence Korpalski and Glinski chess')), ' · ',
    h('label', { for: 'language' }, t('Language')), ' ', select);
}

/* The switch: a player's choice is stored with their preferences, a
 * visitor's in this browser; the page is drawn again in the new language. */
export async function switchLanguage(code) {
  rememberLanguage(code);
  if (me()) {
    try { await api('PUT', '/v1/players/me/notifications', { language: code }); } catch (e) { console.warn('language not stored:', e.message); }
  }
  await loadLanguage(code);
  drawNav();
  await route();
  document.getElementById('language')?.focus();
}

/* After signing in or out: the player's language, if it differs, is loaded. */
async function refreshNav() {
  const before = language();
  await settleLanguage();
  drawNav();
  if (language() !== before) await route();
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
    cleanup = (await page.render(main, { params: m.slice(1), mode, navigate, refreshNav })) || null;
    return;
  }
  main.replaceChildren(h('h1', {}, t('Not found')), h('p', {}, t('There is no page here.'), ' ', h('a', { href: '/' }, t('Go home'))));
  document.title = t('Not found') + ' · korp';
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
  await settleLanguage();
  drawNav();
  await route();
})();
