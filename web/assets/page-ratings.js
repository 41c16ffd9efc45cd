// Ratings: a player's Glicko-2 rating in each variant with a
// rating-history chart (an SVG line), and the leaderboard of a variant
// (/leaderboard/{variant}).

import { api, q } from './api.js';
import { h, link, messageBox, variantName } from './ui.js';
import { t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/* The rating after each rated game as a line: oldest on the left. */
export function historyChart(history, width = 320, height = 90) {
  const chart = svg('svg', { class: 'rating-chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img' });
  if (history.length < 2) return chart;
  const ratings = history.map(p => p.rating);
  const lo = Math.min(...ratings) - 10, hi = Math.max(...ratings) + 10;
  const x = i => 4 + (i * (width - 8)) / (history.length - 1);
  const y = r => height - 4 - ((r - lo) * (height - 8)) / (hi - lo);
  chart.append(svg('polyline', { fill: 'none', stroke: 'currentColor', 'stroke-width': 2,
    points: history.map((p, i) => `${x(i).toFixed(1)},${y(p.rating).toFixed(1)}`).join(' ') }));
  return chart;
}

/* The ratings section of a player's page. */
export async function ratingsSection(player) {
  const section = h('section', { class: 'card', id: 'ratings' }, h('h2', {}, t('Ratings')));
  for (const variant of ['korpalski', 'glinski']) {
    const r = player.ratings && player.ratings[variant];
    if (!r) continue;
    const line = h('p', { class: 'rating', 'data-variant': variant },
      t('{variant}: {rating} (RD {rd}, {games} rated games)', { variant: variantName(variant), rating: Math.round(r.rating) + (r.provisional ? '?' : ''), rd: Math.round(r.rd), games: r.games }) + ' · ',
      link('/leaderboard/' + variant, t('leaderboard')));
    section.append(line);
    if (r.games > 1) {
      try {
        const hist = await api('GET', `/v1/players/${q(player.id)}/rating-history?variant=${variant}`);
        section.append(historyChart(hist.history));
      } catch (e) { /* the line above says enough */ }
    }
  }
  return section;
}

export async function render(main, { params }) {
  const variant = params[0];
  const msg = messageBox();
  document.title = t('{variant} leaderboard', { variant: variantName(variant) }) + ' · korp';
  const list = h('ol', { class: 'leaderboard', id: 'leaderboard' });
  main.append(h('h1', {}, t('{variant} leaderboard', { variant: variantName(variant) })), msg, h('section', { class: 'card' }, list));
  try {
    const r = await api('GET', `/v1/leaderboard/${q(variant)}?limit=100`);
    list.replaceChildren(...(r.players.length
      ? r.players.map(p => h('li', {}, link('/players/' + q(p.id), p.name), ' ' + t('{rating} (RD {rd}, {games} games)', { rating: Math.round(p.rating), rd: Math.round(p.rd), games: p.games })))
      : [h('li', { class: 'none' }, t('No player has a settled rating yet.'))]));
  } catch (e) { msg.show(e.message, 'error'); }
  return null;
}
