// One item of the arbiter's queue as a card: what it is, its game (a link,
// a small board of the current position), the /analysis facts, the
// engine's evaluation, and the two rulings: adjudicate the game (the
// existing POST /v1/games/{id}/adjudication, which resolves every item of
// the game) or dismiss this item (POST /v1/arbiter/queue/{id}/dismiss).

import { api, q } from './api.js';
import { createBoard } from './board.js';
import { geometryFor } from './geometry.js';
import { t, date } from './i18n.js';
import { h, link, messageBox, variantName } from './ui.js';
import { detailsList, factsList, kindText } from './arbiter-facts.js';
import { evaluate } from './arbiter-engine.js';

const RESULTS = {
  korpalski: ['1-0', '0-1', '1/2-1/2'],
  glinski: ['1-0', '0-1', '1/2-1/2', '3/4-1/4', '1/4-3/4'],
};

/* An arbiter's action from a card: POST path with body, then onRuled(), or
 * the refusal shown in msg. */
export function ruling(msg, onRuled) {
  return async (path, body) => {
    msg.clear();
    try {
      await api('POST', path, body);
      onRuled();
    } catch (e) { msg.show(e.message, 'error'); }
  };
}

/*
 * createQueueItem(item, { onRuled }): { el, load(), engine(), destroy() }.
 * load() fetches the game and its facts; engine() asks for the evaluation
 * (the page asks for one item's at a time); onRuled() after a ruling.
 */
export function createQueueItem(item, { onRuled }) {
  const key = item.id;
  const msg = messageBox();
  const boardRoot = h('div', { class: 'queue-board' });
  const facts = h('div', { class: 'queue-facts' }, h('p', { class: 'hint' }, t('Loading the game\u2026')));
  const engineLine = h('p', { class: 'engine-line', 'data-state': 'waiting' }, t('engine: thinking\u2026'));
  const gameLine = h('p', { class: 'queue-game' }, link('/games/' + q(item.game_id), t('Game {id}', { id: item.game_id })));
  const details = h('div', { class: 'queue-item-details' }, detailsList(item, {}));
  const result = h('select', { id: `adjudicate-result-${key}`, name: 'result' });
  const why = h('input', { id: `adjudicate-reason-${key}`, name: 'reason', maxlength: 500, required: true });
  result.required = true;
  // Asked again before it is sent: the ruling ends the game.
  const sure = h('p', { class: 'confirm adjudicate-confirm', hidden: true });
  const adjudicate = h('form', { class: 'adjudicate-form' },
    h('label', { for: result.id }, t('Result')), result,
    h('label', { for: why.id }, t('Reason')), why,
    h('button', { type: 'submit', class: 'primary adjudicate' }, t('Adjudicate the game')), sure);
  const dismissWhy = h('input', { id: `dismiss-reason-${key}`, name: 'reason', maxlength: 500, required: true });
  const dismiss = h('form', { class: 'dismiss-form' },
    h('label', { for: dismissWhy.id }, t('Reason')), dismissWhy,
    h('button', { type: 'submit', class: 'dismiss' }, t('Dismiss this item')));
  const el = h('li', { class: 'card queue-item', 'data-id': item.id, 'data-kind': item.kind, 'data-game': item.game_id },
    h('h2', {}, kindText(item.kind), ' ', h('time', { datetime: item.created_at }, date(item.created_at, { dateStyle: 'medium', timeStyle: 'short' }))),
    gameLine, details,
    h('div', { class: 'queue-position' }, boardRoot, h('div', {}, facts, engineLine)),
    adjudicate, dismiss, msg);
  let board = null, game = null;

  const rule = ruling(msg, onRuled);
  adjudicate.addEventListener('submit', e => {
    e.preventDefault();
    const chosen = result.value, reason = why.value.trim();
    sure.replaceChildren(t('End game {id} as {result}?', { id: item.game_id, result: chosen }), ' ',
      h('button', { type: 'button', class: 'danger adjudicate-yes', onclick: () => { sure.hidden = true; rule(`/v1/games/${q(item.game_id)}/adjudication`, { result: chosen, reason }); } }, t('Yes, adjudicate')),
      ' ', h('button', { type: 'button', class: 'adjudicate-no', onclick: () => { sure.hidden = true; } }, t('No')));
    sure.hidden = false;
  });
  dismiss.addEventListener('submit', e => {
    e.preventDefault();
    rule(`/v1/arbiter/queue/${q(item.id)}/dismiss`, { reason: dismissWhy.value.trim() });
  });

  return {
    el,
    async load() {
      try {
        game = await api('GET', `/v1/games/${q(item.game_id)}`);
        gameLine.append(` \u00b7 ${variantName(game.variant)}: ${game.white.name} \u2013 ${game.black.name}`);
        details.replaceChildren(detailsList(item, { [game.white.id]: game.white.name, [game.black.id]: game.black.name }));
        // No result chosen in advance: the arbiter picks one.
        result.replaceChildren(h('option', { value: '', selected: true, disabled: true }, t('Choose a result')),
          ...RESULTS[game.variant].map(r => h('option', { value: r }, r)));
        board = createBoard(boardRoot, geometryFor(game.variant), { label: t('The position of game {id}', { id: item.game_id }) });
        board.update(game.fen, {});
        facts.replaceChildren(factsList(await api('GET', `/v1/games/${q(item.game_id)}/analysis`)));
      } catch (e) {
        facts.replaceChildren(h('p', { class: 'hint' }, e.message));
      }
      el.dataset.ready = 'true';
    },
    async engine() {
      if (!game) { engineLine.textContent = t('engine evaluation unavailable'); engineLine.dataset.state = 'failed'; return; }
      const r = await evaluate(game.variant, game.fen);
      engineLine.textContent = r.text;
      engineLine.dataset.state = r.ok ? 'done' : 'failed';
    },
    destroy() { board?.destroy(); },
  };
}
