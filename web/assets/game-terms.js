// The terms of a game, as the new-game form and the new-tournament form ask
// them: the time control (days per move, a Fischer clock or none), whether
// the players' leave stops the clocks, and whether the game is rated. The
// value is the API's fields: { days_per_move | clock, leave_allowed, rated }.

import { t, tn } from './i18n.js';
import { h } from './ui.js';

const number = (id, min, max, value) =>
  h('input', { id, type: 'number', min, max, value, required: true, class: 'short' });

/* The fields, with ids prefixed by PREFIX; NONE: whether "no time limit" is
 * offered (tournaments need a time control). */
export function gameTerms(prefix, { none = true } = {}) {
  const id = name => `${prefix}-${name}`;
  const kinds = [['per_move', t('Days per move')], ['fischer', t('Fischer clock (days)')]];
  if (none) kinds.push(['none', t('No time limit')]);
  const kind = h('select', { id: id('time') }, ...kinds.map(([v, text]) => h('option', { value: v }, text)));
  const days = h('select', { id: id('days') }, ...['1', '2', '3', '5', '7', '14']
    .map(v => h('option', { value: v, selected: v === '3' }, tn('{n} day', '{n} days', Number(v)))));
  const initial = number(id('initial'), 1, 180, 30);
  const increment = number(id('increment'), 0, 30, 1);
  const max = number(id('max'), 1, 365, 45);
  const perMove = h('div', { class: 'terms-per-move' }, h('label', { for: id('days') }, t('Time per move')), days);
  const fischer = h('fieldset', { class: 'terms-fischer', hidden: true },
    h('legend', {}, t('Fischer clock')),
    h('label', { for: id('initial') }, t('Starting time (days)')), initial,
    h('label', { for: id('increment') }, t('Added after each move (days)')), increment,
    h('label', { for: id('max') }, t('At most (days)')), max);
  const leave = h('input', { type: 'checkbox', id: id('leave'), checked: true });
  const rated = h('input', { type: 'checkbox', id: id('rated'), checked: true });
  const show = () => {
    perMove.hidden = kind.value !== 'per_move';
    fischer.hidden = kind.value !== 'fischer';
  };
  kind.addEventListener('change', show);
  const elements = [
    h('label', { for: id('time') }, t('Time control')), kind, perMove, fischer,
    h('label', { class: 'check' }, leave, ' ', t('Leave stops the clocks')),
    h('label', { class: 'check' }, rated, ' ', t('Rated')),
  ];
  const value = () => {
    const terms = { leave_allowed: leave.checked, rated: rated.checked };
    if (kind.value === 'per_move') terms.days_per_move = Number(days.value);
    else if (kind.value === 'fischer') {
      terms.clock = { type: 'fischer', initial_days: Number(initial.value),
        increment_days: Number(increment.value), max_days: Number(max.value) };
    } else terms.days_per_move = null;
    return terms;
  };
  return { elements, value };
}
