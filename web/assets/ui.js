// Small helpers shared by the pages: building elements, messages, times.

import { t } from './i18n.js';

/* h('div', {class: 'x', onclick: fn}, child, 'text', ...): an element. */
export function h(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs || {})) {
    if (v === null || v === undefined || v === false) continue;
    if (k.startsWith('on') && typeof v === 'function') e.addEventListener(k.slice(2), v);
    else if (k === 'text') e.textContent = v;
    else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children.flat()) {
    if (c === null || c === undefined || c === false) continue;
    e.appendChild(typeof c === 'string' || typeof c === 'number' ? document.createTextNode(String(c)) : c);
  }
  return e;
}

/* A place for messages: .show(text, kind) with kind 'error' | 'ok' | 'info'. */
export function messageBox() {
  const box = h('div', { class: 'message', role: 'status', 'aria-live': 'polite', hidden: true });
  box.show = (text, kind = 'info') => {
    box.textContent = text;
    box.className = 'message message-' + kind;
    box.setAttribute('role', kind === 'error' ? 'alert' : 'status');
    box.hidden = !text;
  };
  box.clear = () => box.show('');
  return box;
}

/* The one thing a page shows (a player, a tournament), read by load(): the
 * page's title becomes its name; when it cannot be read the page says
 * `missing` and why, and null comes back. */
export async function pageSubject(main, load, missing) {
  try {
    const subject = await load();
    document.title = `${subject.name} · korp`;
    return subject;
  } catch (e) {
    main.append(h('h1', {}, missing), h('p', {}, e.message));
    return null;
  }
}

export function sideName(color) { return color === 'white' ? t('White') : t('Black'); }
export function variantName(v) { return v === 'glinski' ? t('Glinski') : t('Korpalski'); }

/* "2 d 5 h", "3 h 20 min", "45 min", "overdue" for a deadline. */
export function timeLeft(deadline, now = Date.now()) {
  if (!deadline) return t('no time limit');
  let s = Math.floor((Date.parse(deadline) - now) / 1000);
  if (s <= 0) return t('overdue');
  const d = Math.floor(s / 86400); s -= d * 86400;
  const hr = Math.floor(s / 3600); s -= hr * 3600;
  const min = Math.floor(s / 60);
  if (d) return t('{d} d {h} h', { d, h: hr });
  if (hr) return t('{h} h {min} min', { h: hr, min });
  return t('{min} min', { min: Math.max(min, 1) });
}

export function resultText(game) {
  if (game.status === 'aborted') return t('aborted');
  if (game.status === 'active') return t('in progress');
  const why = game.termination ? ` (${terminationName(game.termination)})` : '';
  return game.result + why;
}

/* How a game ended, in words (korpd's termination slugs). */
const TERMINATIONS = {
  checkmate: () => t('checkmate'), stalemate: () => t('stalemate'),
  'insufficient-material': () => t('insufficient material'),
  threefold: () => t('threefold repetition'), 'fifty-move': () => t('fifty-move rule'),
  agreement: () => t('agreement'), resignation: () => t('resignation'), timeout: () => t('time'),
  adjudication: () => t('adjudication'), aborted: () => t('aborted'),
};
export function terminationName(slug) {
  return TERMINATIONS[slug] ? TERMINATIONS[slug]() : slug.replace(/-/g, ' ');
}

export function link(href, text, attrs = {}) { return h('a', { href, ...attrs }, text); }

export function playerLink(p) { return p ? link('/players/' + encodeURIComponent(p.id), p.name) : h('span', { text: t('anyone') }); }
