// Ratings: a player's Glicko-2 rating in each variant with a
// rating-history chart (an SVG line), and the leaderboard of a variant
// (/leaderboard/{variant}), provisional players marked.

import { api, q } from './api.js';
import { h, link, messageBox, variantName } from './ui.js';
import { t } from './i18n.js';

const SVG = 'http://www.w3.org/2000/svg';

function svg(tag, attrs) {
  const e = document.createElementNS(SVG, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, String(v));
  return e;
}

/* The rating after each rated game as a line, oldest on the left, between
 * the lowest and highest rating written on its left edge; named (for screen
 * readers) by `label`, with the first and last ratings. */
export function historyChart(history, width = 320, height = 90, label = '') {
  const ratings = history.map(p => Math.round(p.rating));
  const name = history.length ? t('{label}: from {first} to {last}', { label, first: ratings[0], last: ratings[ratings.length - 1] }) : label;
  const chart = svg('svg', { class: 'rating-chart', width, height, viewBox: `0 0 ${width} ${height}`, role: 'img', 'aria-label': name });
  const title = svg('title', {});
  title.textContent = name;
  chart.append(title);
  if (history.length < 2) return chart;
  const left = 40;
  const lo = Math.min(...ratings) - 10, hi = Math.max(...ratings) + 10;
  const x = i => left + (i * (width - left - 4)) / (history.length - 1);
  const y = r => height - 4 - ((r - lo) * (height - 8)) / (hi - lo);
  for (const [value, at] of [[hi - 10, 12], [lo + 10, height - 4]]) {
    const tick = svg('text', { x: left - 6, y: at, 'text-anchor': 'end', 'font-size': 11, fill: 'currentColor', class: 'rating-tick' });
    tick.textContent = String(value);
    chart.append(tick);
  }
  chart.append(svg('line', { x1: left - 2, y1: 2, x2: left - 2, y2: height - 2, stroke: 'currentColor', 'stroke-opacity': 0.4 }));
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
        section.append(historyChart(hist.history, 320, 90, t('{variant} rating history', { variant: variantName(variant) })));
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
    // Provisional players too, marked as the player page marks them ("?").
    const r = await api('GET', `/v1/leaderboard/${q(variant)}?limit=100&provisional=true`);
    list.replaceChildren(...(r.players.length
      ? r.players.map(p => h('li', p.provisional ? { class: 'provisional', 'data-provisional': '' } : {},
        link('/players/' + q(p.id), p.name),
        ' ' + t('{rating} (RD {rd}, {games} games)', { rating: Math.round(p.rating) + (p.provisional ? '?' : ''), rd: Math.round(p.rd), games: p.games }),
        p.provisional ? h('span', { class: 'muted' }, ' · ' + t('provisional')) : ''))
      : [h('li', { class: 'none' }, t('No player has a settled rating yet.'))]));
  } catch (e) { msg.show(e.message, 'error'); }
  return null;
}
