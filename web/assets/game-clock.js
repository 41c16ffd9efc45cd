// A game's clocks: both sides' time, the side to move's counting
// down every second, a pause mark (an icon drawn here) beside them while
// leave stops them, and "give time" for a player while the opponent is to
// move, asked again before it is given. Used by page-game.js.

import { h, sideName } from './ui.js';
import { t, tn } from './i18n.js';

/* "30 days a move", "Fischer 30 d + 1 d, at most 45 d", "No time limit". */
export function clockText(game) {
  const c = game.clock;
  if (!c) return t('No time limit');
  if (c.type === 'per_move') return tn('{n} day a move', '{n} days a move', c.days);
  return t('Fischer {initial} d + {increment} d, at most {max} d', { initial: c.initial_days, increment: c.increment_days, max: c.max_days });
}

/* Whole seconds as "12 d 04:05:06", or "04:05:06" under a day. */
export function clockFace(seconds) {
  const s = Math.max(0, Math.floor(seconds));
  const d = Math.floor(s / 86400);
  const hms = [Math.floor(s % 86400 / 3600), Math.floor(s % 3600 / 60), s % 60]
    .map(n => String(n).padStart(2, '0')).join(':');
  return d ? t('{d} d {hms}', { d, hms }) : hms;
}

/* The pause mark: two bars, drawn (a font may lack the glyph ⏸). */
function pauseIcon() {
  const ns = 'http://www.w3.org/2000/svg';
  const icon = document.createElementNS(ns, 'svg');
  for (const [k, v] of Object.entries({ class: 'pause-icon', viewBox: '0 0 16 16', width: 16, height: 16, 'aria-hidden': 'true', focusable: 'false' })) icon.setAttribute(k, String(v));
  for (const x of [3, 9]) {
    const bar = document.createElementNS(ns, 'rect');
    for (const [k, v] of Object.entries({ x, y: 2, width: 4, height: 12, rx: 1, fill: 'currentColor' })) bar.setAttribute(k, String(v));
    icon.append(bar);
  }
  return icon;
}

/*
 * createGameClock({ myColor, giveTime }): { el, update(game), destroy() }.
 * giveTime(days) is called once a player's "Give time" (on the opponent's
 * turn) is confirmed; it says what it did.
 */
export function createGameClock({ myColor, giveTime }) {
  const faces = {
    white: h('span', { class: 'clock-face', 'data-side': 'white' }),
    black: h('span', { class: 'clock-face', 'data-side': 'black' }),
  };
  const pause = h('span', { class: 'clock-paused', id: 'clock-paused', hidden: true });
  const days = h('select', { id: 'give-time-days', 'aria-label': t('Days to give') },
    ...[1, 2, 3, 4, 5, 6, 7].map(n => h('option', { value: n }, tn('{n} day', '{n} days', n))));
  // (the row inside: a class that sets display would show a hidden form)
  const give = h('form', { class: 'give-time', id: 'give-time', hidden: true },
    h('div', { class: 'row' }, days, h('button', { type: 'submit' }, t('Give time'))));
  const sure = h('p', { class: 'confirm give-time-confirm', hidden: true });
  give.addEventListener('submit', e => {
    e.preventDefault();
    const n = Number(days.value);
    sure.replaceChildren(t('Give {name} {days} d more for this move?', { name: game[game.to_move].name, days: n }), ' ',
      h('button', { type: 'button', id: 'give-time-confirm', class: 'primary', onclick: () => { sure.hidden = true; giveTime(n); } }, t('Yes, give time')),
      ' ', h('button', { type: 'button', id: 'give-time-cancel', onclick: () => { sure.hidden = true; } }, t('No')));
    sure.hidden = false;
  });
  const el = h('div', { class: 'clocks', id: 'clocks', hidden: true },
    h('p', { class: 'clock-row' }, h('span', {}, t('White'), ' '), faces.white, h('span', {}, ' ', t('· Black'), ' '), faces.black, ' ', pause),
    give, sure);
  let game = null, readAt = 0;

  function tick() {
    if (!game || !game.clock) return;
    const c = game.clock;
    const running = game.status === 'active' && !c.paused_until;
    for (const side of ['white', 'black']) {
      let left = c.remaining[side];
      if (running && game.to_move === side) left -= (Date.now() - readAt) / 1000;
      faces[side].textContent = clockFace(left);
      faces[side].classList.toggle('running', running && game.to_move === side);
    }
  }

  const timer = setInterval(tick, 1000);

  return {
    el,
    update(g) {
      game = g;
      readAt = Date.now();
      el.hidden = !g.clock;
      if (!g.clock) return;
      const paused = g.status === 'active' && g.clock.paused_until;
      pause.hidden = !paused;
      pause.replaceChildren(...(paused
        ? [pauseIcon(), ' ' + t('Paused: a player is on leave until {until}', { until: g.clock.paused_until.slice(0, 16).replace('T', ' ') + ' UTC' })]
        : []));
      give.hidden = !(myColor && g.status === 'active' && g.to_move !== myColor);
      if (give.hidden) sure.hidden = true;
      give.title = t('Give {side} more time for this move', { side: sideName(g.to_move) });
      tick();
    },
    destroy() { clearInterval(timer); },
  };
}
