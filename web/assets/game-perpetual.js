// The game page's arbiter panel: the player to move claims a
// perpetual check by writing the line to come (POST /claims, kind
// "perpetual"; korpd checks that each of the claimant's moves gives check),
// and either player asks for an arbiter (POST /arbiter-request). Both go to
// the arbiter's queue; the game goes on meanwhile.

import { api, q } from './api.js';
import { t } from './i18n.js';
import { inNotation } from './game-plan.js';
import { h, messageBox } from './ui.js';

/*
 * createPerpetual({ id, myColor }): { el, update(game) }. Shown to the two
 * players of an active game; the claim form only to the one to move.
 */
export function createPerpetual({ id, myColor, variant = null }) {
  const msg = messageBox();
  msg.id = 'perpetual-message';
  const line = h('input', { id: 'perpetual-line', name: 'line', autocomplete: 'off', spellcheck: 'false',
    maxlength: 512, placeholder: t('e.g. {moves}', { moves: inNotation('Qh5+ Kg8 Qe8+ Kh7 Qh5+', variant) }), 'aria-describedby': 'perpetual-help' });
  const claim = h('form', { id: 'perpetual-form', class: 'perpetual-form' },
    h('label', { for: 'perpetual-line' }, t('Claim perpetual check')),
    h('div', { class: 'row' }, line, h('button', { type: 'submit', id: 'perpetual-claim' }, t('Send the claim'))),
    h('p', { id: 'perpetual-help', class: 'hint' },
      t('The moves to come, yours first; every move of yours must give check. An arbiter rules on it.')));
  const text = h('textarea', { id: 'arbiter-request-text', rows: 2, maxlength: 2000 });
  const ask = h('form', { id: 'arbiter-request-form', class: 'arbiter-request-form' },
    h('label', { for: 'arbiter-request-text' }, t('Ask for an arbiter (a dispute, a rule question)')),
    text, h('div', { class: 'row' }, h('button', { type: 'submit', id: 'arbiter-request' }, t('Ask an arbiter'))));
  const el = h('section', { class: 'perpetual', id: 'perpetual', 'aria-label': t('Arbiter'), hidden: true },
    h('h2', {}, t('Arbiter')), claim, ask, msg);

  async function send(path, body, done) {
    msg.clear();
    try {
      await api('POST', `/v1/games/${q(id)}/${path}`, body);
      msg.show(done, 'ok');
      return true;
    } catch (e) {
      // A 422 says which move of the line does not check, or is not legal.
      msg.show(e.message, 'error');
      return false;
    }
  }

  claim.addEventListener('submit', async e => {
    e.preventDefault();
    const words = line.value.trim();
    if (!words) return;
    if (await send('claims', { kind: 'perpetual', line: words },
      t('Your claim was sent to the arbiter. The game goes on meanwhile.'))) line.value = '';
  });
  ask.addEventListener('submit', async e => {
    e.preventDefault();
    if (!text.value.trim()) return;
    if (await send('arbiter-request', { text: text.value }, t('Your request was sent to the arbiter.'))) text.value = '';
  });

  return {
    el,
    update(game) {
      el.hidden = !(myColor && game.status === 'active');
      claim.hidden = game.to_move !== myColor;
    },
  };
}
