// A fair-play review on the arbiter's page: the player whose figures
// passed the thresholds, those figures (details of the queue item), each
// game judged with the player's own figures in it (GET
// /v1/games/{id}/fairplay), and the arbiter's three answers: warn the
// player (POST /v1/arbiter/queue/{id}/warn), close their account for rated
// play (POST /v1/arbiter/closures) or dismiss the item
// (POST /v1/arbiter/queue/{id}/dismiss).  docs/fairplay.md says what the
// figures mean.

import { api, q } from './api.js';
import { t } from './i18n.js';
import { h, link, messageBox, variantName } from './ui.js';
import { kindText } from './arbiter-facts.js';
import { ruling } from './arbiter-item.js';

const share = x => (typeof x === 'number' ? `${Math.round(x * 100)}%` : '\u2013');
const loss = x => (typeof x === 'number' ? x.toFixed(1) : '\u2013');
const seconds = x => (typeof x === 'number' ? `${Math.round(x)} s` : '\u2013');

/* A form of labelled fields and a submit button; fields: [name, label, element]. */
function actionForm(key, name, fields, button) {
  const inputs = {};
  const form = h('form', { class: `dismiss-form ${name}-form` });
  for (const [field, label, make] of fields) {
    const input = make(`${name}-${field}-${key}`);
    inputs[field] = input;
    form.append(h('label', { for: input.id }, label), input);
  }
  form.append(h('button', { type: 'submit', class: name }, button));
  return { form, inputs };
}

const reasonInput = id => h('input', { id, name: 'reason', maxlength: 500, required: true });
const messageInput = id => h('input', { id, name: 'message', maxlength: 2000, required: true });

/*
 * createReviewItem(item, { onRuled }): { el, load(), engine(), destroy() },
 * as createQueueItem (arbiter-item.js) for the other kinds.
 */
export function createReviewItem(item, { onRuled }) {
  const key = item.id;
  const d = item.details || {};
  const msg = messageBox();
  const who = h('span', { class: 'review-player' }, d.player_id || '');
  const figures = h('dl', { class: 'queue-details review-figures' },
    h('dt', {}, t('Under review')), h('dd', {}, who, d.variant ? ` \u00b7 ${variantName(d.variant)}` : ''),
    h('dt', {}, t('Games judged')), h('dd', {}, String((d.games || []).length)),
    h('dt', {}, t('Moves judged')), h('dd', {}, String(d.moves ?? '\u2013')),
    h('dt', {}, t('The engine\u2019s first choice')), h('dd', { class: 'review-top1' }, share(d.top1)),
    h('dt', {}, t('Average loss (centipawns)')), h('dd', { class: 'review-acpl' }, loss(d.acpl)));
  const rows = h('tbody', {});
  const table = h('table', { class: 'crosstable review-games' },
    h('caption', {}, t('The games judged, the newest first')),
    h('thead', {}, h('tr', {},
      ...[t('Game judged'), t('Moves judged'), t('The engine\u2019s first choice'), t('Within its first three'),
        t('Average loss (centipawns)'), t('Median thinking time'), t('Moves beside the engine\u2019s')]
        .map(x => h('th', { scope: 'col' }, x)))),
    rows);

  const warn = actionForm(key, 'warn', [['reason', t('Reason'), reasonInput],
    ['message', t('Message to the player'), messageInput]], t('Warn the player'));
  const close = actionForm(key, 'close', [['reason', t('Reason'), reasonInput],
    ['message', t('Message to the player'), messageInput],
    ['games', t('Their active rated games'), id => h('select', { id, name: 'games' },
      h('option', { value: 'forfeit' }, t('lost by forfeit, unrated')),
      h('option', { value: 'adjudicate' }, t('lost by adjudication, rated')))]],
  t('Close the account for rated play'));
  const dismiss = actionForm(key, 'dismiss', [['reason', t('Reason'), reasonInput]], t('Dismiss this item'));

  const el = h('li', { class: 'card queue-item review-item', 'data-id': item.id, 'data-kind': item.kind, 'data-game': item.game_id },
    h('h2', {}, kindText(item.kind), ' ', h('time', { datetime: item.created_at }, item.created_at.replace('T', ' ').replace('Z', ' UTC'))),
    figures, table, warn.form, close.form, dismiss.form, msg);

  const act = ruling(msg, onRuled);
  const value = (f, name) => f.inputs[name].value.trim();
  warn.form.addEventListener('submit', e => {
    e.preventDefault();
    act(`/v1/arbiter/queue/${q(item.id)}/warn`, { reason: value(warn, 'reason'), message: value(warn, 'message') });
  });
  close.form.addEventListener('submit', e => {
    e.preventDefault();
    act('/v1/arbiter/closures', { player_id: d.player_id, item_id: item.id, reason: value(close, 'reason'),
      message: value(close, 'message'), games: close.inputs.games.value });
  });
  dismiss.form.addEventListener('submit', e => {
    e.preventDefault();
    act(`/v1/arbiter/queue/${q(item.id)}/dismiss`, { reason: value(dismiss, 'reason') });
  });

  /* The player's moves judged beside the engine's first choices, the
   * moves that were the same marked. */
  function movesList(moves) {
    return h('details', { class: 'review-moves' }, h('summary', {}, t('{count} moves', { count: moves.length })),
      h('ol', {}, ...moves.map(m => h('li', { class: m.played === m.engine ? 'same' : 'other', value: m.ply },
        t('played {played}, the engine {engine}, {loss} lost', { played: m.played, engine: m.engine, loss: m.loss })))));
  }

  /* One game's row: the reviewed player's side of its analysis. */
  async function gameRow(id) {
    const cells = [link('/games/' + q(id), id)];
    try {
      const [game, f] = await Promise.all([api('GET', `/v1/games/${q(id)}`), api('GET', `/v1/games/${q(id)}/fairplay`)]);
      const side = game.white.id === d.player_id ? game.white : game.black;
      if (side.id === d.player_id) who.replaceChildren(link('/players/' + q(side.id), side.name));
      const s = f[game.white.id === d.player_id ? 'white' : 'black'] || {};
      cells.push(String(s.moves ?? '\u2013'), share(s.top1), share(s.top3), loss(s.acpl), seconds(s.median_seconds),
        movesList((f.moves || []).filter(m => m.side === (side === game.white ? 'white' : 'black'))));
    } catch (e) {
      cells.push(h('span', { class: 'hint' }, e.message));
    }
    return h('tr', { 'data-game': id }, ...cells.map((c, i) => (i === 0 ? h('th', { scope: 'row' }, c) : h('td', {}, c))));
  }

  return {
    el,
    async load() {
      rows.replaceChildren(...await Promise.all((d.games || []).map(gameRow)));
      el.dataset.ready = 'true';
    },
    async engine() {},
    destroy() {},
  };
}
