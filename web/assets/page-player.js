// A player (/players/{id}): the record and the games, public.

import { api, me, q } from './api.js';
import { h, messageBox, pageSubject } from './ui.js';
import { t, number } from './i18n.js';
import { gameRow } from './page-home.js';
import { ratingsSection } from './page-ratings.js';

export async function render(main, { params }) {
  const id = params[0];
  const msg = messageBox();
  const p = await pageSubject(main, () => api('GET', `/v1/players/${q(id)}`), t('Player not found'));
  if (!p) return null;
  const active = h('ul', { class: 'list', id: 'player-active' });
  const done = h('ul', { class: 'list', id: 'player-finished' });
  const more = h('button', { type: 'button', hidden: true }, t('More games'));
  let cursor = null;
  main.append(h('h1', {}, p.name, p.role === 'arbiter' ? ' ' + t('(arbiter)') : ''), msg,
    h('p', { class: 'record', id: 'record' },
      t('{played} games: {won} won, {drawn} drawn, {lost} lost · {points} points', { played: p.played, won: p.won, drawn: p.drawn, lost: p.lost, points: number(p.points) })),
    // Not null for "no link": append() writes null out as the text "null".
    ...(me() && me().id !== p.id ? [h('p', {}, h('a', { href: '/new', class: 'button' }, t('Challenge someone')))] : []),
    await ratingsSection(p),
    h('section', { class: 'card' }, h('h2', {}, t('Games in progress')), active),
    h('section', { class: 'card' }, h('h2', {}, t('Finished games')), done, more));

  async function loadMore() {
    try {
      const r = await api('GET', `/v1/games?player=${q(id)}&status=finished&limit=20` + (cursor ? `&cursor=${q(cursor)}` : ''));
      done.append(...r.games.map(g => gameRow(g, id)));
      if (!done.children.length) done.append(h('li', { class: 'none' }, t('None yet.')));
      cursor = r.next;
      more.hidden = !cursor;
    } catch (e) { msg.show(e.message, 'error'); }
  }
  more.addEventListener('click', loadMore);
  try {
    const r = await api('GET', `/v1/games?player=${q(id)}&status=active&limit=100`);
    active.replaceChildren(...(r.games.length ? r.games.map(g => gameRow(g, id)) : [h('li', { class: 'none' }, t('None.'))]));
  } catch (e) { msg.show(e.message, 'error'); }
  await loadMore();
  return null;
}
