// What the arbiter's page writes about a queued item: the kind of item, its
// details, and the /analysis facts of its game's position, each as
// label: value rows.

import { t } from './i18n.js';
import { h } from './ui.js';

export function kindText(kind) {
  if (kind === 'perpetual') return t('Perpetual check claim');
  if (kind === 'request') return t('A player asks for an arbiter');
  if (kind === 'tournament-end') return t('Unfinished at the tournament\u2019s end');
  if (kind === 'fairplay-review') return t('Fair-play review');
  return kind;
}

function value(v) {
  if (v === true) return t('yes');
  if (v === false) return t('no');
  if (v === null || v === undefined) return '\u2013';
  if (Array.isArray(v)) return v.length ? v.join(', ') : t('none');
  if (typeof v === 'object') {
    if ('white' in v && 'black' in v) return t('White: {white}, Black: {black}', { white: value(v.white), black: value(v.black) });
    return Object.entries(v).map(([k, x]) => `${k}: ${value(x)}`).join(', ');
  }
  if (v === 'white') return t('White');
  if (v === 'black') return t('Black');
  return String(v);
}

/* A <dl> of [label, value] rows; rows with a missing value are left out. */
function rows(pairs, attrs) {
  return h('dl', attrs, ...pairs.filter(([, v]) => v !== undefined)
    .map(([label, v]) => [h('dt', {}, label), h('dd', {}, value(v))]));
}

/* An item's details: who claimed or asked, at which ply, the line, the text. */
export function detailsList(item, players) {
  const d = item.details || {};
  const who = d.claimant || d.player;
  const known = new Set(['claimant', 'player', 'color', 'ply', 'line', 'text']);
  return rows([
    [t('From'), who ? (players[who] || who) : undefined],
    [t('Side'), d.color],
    [t('At ply'), d.ply],
    [t('Line'), d.line],
    [t('Text'), d.text],
    ...Object.entries(d).filter(([k]) => !known.has(k)).map(([k, v]) => [k, v]),
  ], { class: 'queue-details' });
}

/* The facts of GET /v1/games/{id}/analysis an arbiter rules on. */
export function factsList(a) {
  return rows([
    [t('Ply'), a.ply],
    [t('To move'), a.to_move],
    [t('Position'), a.status],
    [t('Halfmove clock'), a.halfmove_clock],
    [t('Fifty-move draw claimable'), a.fifty_move_claimable],
    [t('Earlier occurrences (plies)'), a.earlier_occurrences],
    [t('Threefold draw claimable'), a.threefold_claimable],
    [t('Insufficient material'), a.insufficient_material],
    [t('Can mate'), a.can_mate],
    [t('Draw by agreement allowed'), a.draw_by_agreement_allowed],
  ], { class: 'analysis-facts' });
}
