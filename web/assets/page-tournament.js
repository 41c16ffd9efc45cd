// Round-robin tournaments: the list (/tournaments: open, active,
// finished; create one; join) and one tournament (/tournaments/{id}): its
// players, the crosstable with every result, scores and tie-breaks, its
// games and PGN, and the director's start.

import { api, me, q } from './api.js';
import { h, link, messageBox, pageSubject, variantName } from './ui.js';
import { t, number } from './i18n.js';
import { gameTerms } from './game-terms.js';
import { isArbiter } from './arbiter-role.js';

export async function render(main, { mode, params, navigate }) {
  if (mode === 'list') return renderList(main, navigate);
  return renderOne(main, params[0]);
}

/* A tournament's status in words. */
function statusName(status) {
  return { open: t('open'), active: t('being played'), finished: t('finished') }[status] || status;
}

function tournamentRow(tour) {
  return h('li', {}, link('/tournaments/' + q(tour.id), tour.name),
    h('span', { class: 'muted' }, `${variantName(tour.variant)} · ${statusName(tour.status)} · `
      + t('{count} of {max} players', { count: tour.player_count, max: tour.max_players })
      + (tour.double ? ' · ' + t('double round') : '')));
}

async function renderList(main, navigate) {
  document.title = t('Tournaments') + ' · korp';
  const msg = messageBox();
  main.append(h('h1', {}, t('Tournaments')), msg);
  for (const status of ['open', 'active', 'finished']) {
    const list = h('ul', { class: 'list', id: 'tournaments-' + status });
    main.append(h('section', { class: 'card' }, h('h2', {}, { open: t('Open'), active: t('Active'), finished: t('Finished') }[status]), list));
    try {
      const r = await api('GET', `/v1/tournaments?status=${status}&limit=50`);
      list.replaceChildren(...(r.tournaments.length ? r.tournaments.map(tournamentRow)
        : [h('li', { class: 'none' }, t('None.'))]));
    } catch (e) { msg.show(e.message, 'error'); }
  }
  if (!me()) return null;
  const name = h('input', { name: 'name', required: true, maxlength: 100 });
  const variant = h('select', { name: 'variant' }, h('option', { value: 'korpalski' }, t('Korpalski')),
    h('option', { value: 'glinski' }, t('Glinski')));
  const players = h('input', { name: 'max_players', type: 'number', min: 3, max: 30, value: 8 });
  const terms = gameTerms('tournament', { none: false });
  const double = h('input', { name: 'double', type: 'checkbox' });
  const form = h('form', { id: 'tournament-new' },
    h('label', {}, t('Name'), ' ', name), h('label', {}, t('Variant'), ' ', variant),
    h('label', {}, t('Players at most'), ' ', players), ...terms.elements,
    h('label', {}, double, ' ', t('Double round')), h('button', { type: 'submit' }, t('Create')));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    try {
      const tour = await api('POST', '/v1/tournaments', {
        name: name.value, variant: variant.value, max_players: Number(players.value),
        double: double.checked, ...terms.value() });
      navigate('/tournaments/' + tour.id);
    } catch (err) { msg.show(err.message, 'error'); }
  });
  main.append(h('section', { class: 'card' }, h('h2', {}, t('New round robin')), form));
  return null;
}

/* The crosstable: a row per player in the standings' order (rank, then start
 * number), a column per opponent by number with the player's score in each of
 * their games, then score, Sonneborn-Berger and the place. */
function crosstable(tour) {
  const players = [...tour.players].sort((a, b) => (a.number || 99) - (b.number || 99));
  const standing = Object.fromEntries(tour.standings.map(s => [s.player, s]));
  const order = Object.fromEntries(tour.standings.map((s, i) => [s.player, i]));
  const ranked = [...players].sort((a, b) => (order[a.id] ?? 99) - (order[b.id] ?? 99));
  const value = { '1-0': [1, 0], '0-1': [0, 1], '1/2-1/2': [0.5, 0.5], '3/4-1/4': [0.75, 0.25], '1/4-3/4': [0.25, 0.75] };
  const words = { 1: '1', 0: '0', 0.5: '½', 0.75: '¾', 0.25: '¼' };
  const cell = (p, o) => {
    const scores = tour.games.filter(g => value[g.result] && ((g.white === p.id && g.black === o.id) || (g.black === p.id && g.white === o.id)))
      .map(g => words[value[g.result][g.white === p.id ? 0 : 1]]);
    const going = tour.games.some(g => g.result === '*' && [g.white, g.black].includes(p.id) && [g.white, g.black].includes(o.id));
    return scores.join(' ') + (going ? (scores.length ? ' ·' : '·') : '');
  };
  const head = h('tr', {}, h('th', {}, '#'), h('th', {}, t('Player')),
    ...players.map(p => h('th', {}, String(p.number || ''))), h('th', {}, t('Score')), h('th', {}, t('SB')), h('th', {}, t('Rank')));
  const rows = ranked.map(p => {
    const s = standing[p.id] || { score: 0, sonneborn_berger: 0, rank: '' };
    return h('tr', { 'data-player': p.id, 'data-place': s.rank }, h('td', {}, String(p.number || '')),
      h('td', {}, link('/players/' + q(p.id), p.name), p.withdrawn ? ' ' + t('(withdrew)') : ''),
      ...players.map(o => h('td', { class: o.id === p.id ? 'self' : '' }, o.id === p.id ? '×' : cell(p, o))),
      h('td', { class: 'score' }, number(s.score)), h('td', {}, number(s.sonneborn_berger)), h('td', {}, String(s.rank)));
  });
  return h('table', { class: 'crosstable', id: 'crosstable' }, h('thead', {}, head), h('tbody', {}, ...rows));
}

async function renderOne(main, id) {
  const msg = messageBox();
  const tour = await pageSubject(main, () => api('GET', `/v1/tournaments/${q(id)}`),
    t('Tournament not found'));
  if (!tour) return null;
  const player = me();
  const mine = player && tour.players.some(p => p.id === player.id && !p.withdrawn);
  const act = (what, label) => h('button', { type: 'button', id: 'tournament-' + what, onclick: async () => {
    try {
      await api('POST', `/v1/tournaments/${q(tour.id)}/${what}`);
      main.replaceChildren();
      await renderOne(main, id);
    } catch (e) { msg.show(e.message, 'error'); }
  } }, label);
  const actions = [];
  if (player && tour.status === 'open' && !mine) actions.push(act('join', t('Join')));
  if (player && mine && (tour.status === 'open' || tour.status === 'active')) actions.push(act('withdraw', t('Withdraw')));
  if (player && tour.status === 'open' && (tour.director.id === player.id || await isArbiter())) actions.push(act('start', t('Start now')));
  const names = Object.fromEntries(tour.players.map(p => [p.id, p.name]));
  const games = h('ul', { class: 'list', id: 'tournament-games' }, ...(tour.games.length
    ? tour.games.map(g => h('li', {}, link('/games/' + q(g.id), `${names[g.white] || g.white} – ${names[g.black] || g.black}`),
      h('span', { class: 'muted' }, t('round {round}', { round: g.round }) + ' · ' + (g.result === '*' ? t('in progress') : g.result))))
    : [h('li', { class: 'none' }, t('The games are made when the tournament starts.'))]));
  main.append(h('h1', {}, tour.name), msg,
    h('p', { id: 'tournament-facts' }, (tour.double ? t('{variant} double round robin', { variant: variantName(tour.variant) })
      : t('{variant} round robin', { variant: variantName(tour.variant) })) + ` · ${statusName(tour.status)} · `
      + t('directed by') + ' ', link('/players/' + q(tour.director.id), tour.director.name),
      ' · ' + t('{count} of {max} players', { count: tour.players.length, max: tour.max_players }) + ' · ' + (tour.rated ? t('rated') : t('unrated'))),
    actions.length ? h('p', {}, ...actions) : '',
    h('section', { class: 'card' }, h('h2', {}, t('Crosstable')), tour.players.length ? crosstable(tour) : h('p', { class: 'none' }, t('No player yet.'))),
    h('section', { class: 'card' }, h('h2', {}, t('Games')), games,
      tour.games.length ? h('p', {}, h('a', { href: `/v1/tournaments/${q(tour.id)}/pgn`, download: `${tour.id}.pgn` }, t('Every game as PGN'))) : ''));
  return null;
}
