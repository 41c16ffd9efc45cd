// Round-robin tournaments (issue 19): the list (/tournaments: open, active,
// finished; create one; join) and one tournament (/tournaments/{id}): its
// players, the crosstable with every result, scores and tie-breaks, its
// games and PGN, and the director's start.

import { api, me, q } from './api.js';
import { h, link, messageBox, variantName } from './ui.js';

export async function render(main, { mode, params, navigate }) {
  if (mode === 'list') return renderList(main, navigate);
  return renderOne(main, params[0]);
}

function tournamentRow(t) {
  return h('li', {}, link('/tournaments/' + q(t.id), t.name),
    h('span', { class: 'muted' }, `${variantName(t.variant)} · ${t.status} · ${t.player_count} of ${t.max_players} players`
      + (t.double ? ' · double round' : '')));
}

async function renderList(main, navigate) {
  document.title = 'Tournaments · korp';
  const msg = messageBox();
  main.append(h('h1', {}, 'Tournaments'), msg);
  for (const status of ['open', 'active', 'finished']) {
    const list = h('ul', { class: 'list', id: 'tournaments-' + status });
    main.append(h('section', { class: 'card' }, h('h2', {}, status[0].toUpperCase() + status.slice(1)), list));
    try {
      const r = await api('GET', `/v1/tournaments?status=${status}&limit=50`);
      list.replaceChildren(...(r.tournaments.length ? r.tournaments.map(tournamentRow)
        : [h('li', { class: 'none' }, 'None.')]));
    } catch (e) { msg.show(e.message, 'error'); }
  }
  if (!me()) return null;
  const name = h('input', { name: 'name', required: true, maxlength: 100 });
  const variant = h('select', { name: 'variant' }, h('option', { value: 'korpalski' }, 'Korpalski'),
    h('option', { value: 'glinski' }, 'Glinski'));
  const players = h('input', { name: 'max_players', type: 'number', min: 3, max: 30, value: 8 });
  const days = h('input', { name: 'days_per_move', type: 'number', min: 1, max: 60, value: 3 });
  const double = h('input', { name: 'double', type: 'checkbox' });
  const form = h('form', { id: 'tournament-new' },
    h('label', {}, 'Name ', name), h('label', {}, 'Variant ', variant),
    h('label', {}, 'Players at most ', players), h('label', {}, 'Days a move ', days),
    h('label', {}, double, ' Double round'), h('button', { type: 'submit' }, 'Create'));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    try {
      const t = await api('POST', '/v1/tournaments', {
        name: name.value, variant: variant.value, max_players: Number(players.value),
        days_per_move: Number(days.value), double: double.checked });
      navigate('/tournaments/' + t.id);
    } catch (err) { msg.show(err.message, 'error'); }
  });
  main.append(h('section', { class: 'card' }, h('h2', {}, 'New round robin'), form));
  return null;
}

/* The crosstable: a row per player (by number), a cell per opponent with the
 * player's score in each of their games, then score, Sonneborn-Berger, rank. */
function crosstable(t) {
  const players = [...t.players].sort((a, b) => (a.number || 99) - (b.number || 99));
  const standing = Object.fromEntries(t.standings.map(s => [s.player, s]));
  const value = { '1-0': [1, 0], '0-1': [0, 1], '1/2-1/2': [0.5, 0.5], '3/4-1/4': [0.75, 0.25], '1/4-3/4': [0.25, 0.75] };
  const words = { 1: '1', 0: '0', 0.5: '½', 0.75: '¾', 0.25: '¼' };
  const cell = (p, o) => {
    const scores = t.games.filter(g => value[g.result] && ((g.white === p.id && g.black === o.id) || (g.black === p.id && g.white === o.id)))
      .map(g => words[value[g.result][g.white === p.id ? 0 : 1]]);
    const going = t.games.some(g => g.result === '*' && [g.white, g.black].includes(p.id) && [g.white, g.black].includes(o.id));
    return scores.join(' ') + (going ? (scores.length ? ' ·' : '·') : '');
  };
  const head = h('tr', {}, h('th', {}, '#'), h('th', {}, 'Player'),
    ...players.map(p => h('th', {}, String(p.number || ''))), h('th', {}, 'Score'), h('th', {}, 'SB'), h('th', {}, 'Rank'));
  const rows = players.map(p => {
    const s = standing[p.id] || { score: 0, sonneborn_berger: 0, rank: '' };
    return h('tr', { 'data-player': p.id }, h('td', {}, String(p.number || '')),
      h('td', {}, link('/players/' + q(p.id), p.name), p.withdrawn ? ' (withdrew)' : ''),
      ...players.map(o => h('td', { class: o.id === p.id ? 'self' : '' }, o.id === p.id ? '×' : cell(p, o))),
      h('td', { class: 'score' }, String(s.score)), h('td', {}, String(s.sonneborn_berger)), h('td', {}, String(s.rank)));
  });
  return h('table', { class: 'crosstable', id: 'crosstable' }, h('thead', {}, head), h('tbody', {}, ...rows));
}

async function renderOne(main, id) {
  const msg = messageBox();
  let t;
  try {
    t = await api('GET', `/v1/tournaments/${q(id)}`);
  } catch (e) {
    main.append(h('h1', {}, 'Tournament not found'), h('p', {}, e.message));
    return null;
  }
  document.title = `${t.name} · korp`;
  const player = me();
  const mine = player && t.players.some(p => p.id === player.id && !p.withdrawn);
  const act = (what, label) => h('button', { type: 'button', id: 'tournament-' + what, onclick: async () => {
    try {
      await api('POST', `/v1/tournaments/${q(t.id)}/${what}`);
      main.replaceChildren();
      await renderOne(main, id);
    } catch (e) { msg.show(e.message, 'error'); }
  } }, label);
  const actions = [];
  if (player && t.status === 'open' && !mine) actions.push(act('join', 'Join'));
  if (player && mine && (t.status === 'open' || t.status === 'active')) actions.push(act('withdraw', 'Withdraw'));
  if (player && t.status === 'open' && (t.director.id === player.id || player.role === 'arbiter')) actions.push(act('start', 'Start now'));
  const names = Object.fromEntries(t.players.map(p => [p.id, p.name]));
  const games = h('ul', { class: 'list', id: 'tournament-games' }, ...(t.games.length
    ? t.games.map(g => h('li', {}, link('/games/' + q(g.id), `${names[g.white] || g.white} – ${names[g.black] || g.black}`),
      h('span', { class: 'muted' }, `round ${g.round} · ${g.result === '*' ? 'in progress' : g.result}`)))
    : [h('li', { class: 'none' }, 'The games are made when the tournament starts.')]));
  main.append(h('h1', {}, t.name), msg,
    h('p', { id: 'tournament-facts' }, `${variantName(t.variant)} round robin${t.double ? ' (double)' : ''} · ${t.status} · `
      + `directed by `, link('/players/' + q(t.director.id), t.director.name),
      ` · ${t.players.length} of ${t.max_players} players` + (t.rated ? ' · rated' : ' · unrated')),
    actions.length ? h('p', {}, ...actions) : '',
    h('section', { class: 'card' }, h('h2', {}, 'Crosstable'), t.players.length ? crosstable(t) : h('p', { class: 'none' }, 'No player yet.')),
    h('section', { class: 'card' }, h('h2', {}, 'Games'), games,
      t.games.length ? h('p', {}, h('a', { href: `/v1/tournaments/${q(t.id)}/pgn`, download: `${t.id}.pgn` }, 'Every game as PGN')) : ''));
  return null;
}
