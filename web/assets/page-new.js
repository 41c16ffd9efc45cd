// New game (/new): challenge a player found by name prefix, or post an
// open challenge anyone may accept; the open challenges to accept. Also a
// single challenge (/challenges/{id}), the link in challenge emails.

import { api, me, q } from './api.js';
import { h, messageBox } from './ui.js';
import { challengeRow } from './page-home.js';
import { t } from './i18n.js';
import { gameTerms } from './game-terms.js';
import { followChallenge } from './home-front.js';

async function renderChallenge(main, id, navigate) {
  document.title = t('Challenge') + ' · korp';
  const msg = messageBox();
  main.append(h('h1', {}, t('Challenge')), msg);
  const player = me();
  if (!player) {
    main.append(h('p', {}, h('a', { href: `/login?next=${q(location.pathname)}` }, t('Sign in')), ' ', t('to answer this challenge.')));
    return null;
  }
  try {
    const [mine, open] = await Promise.all([api('GET', '/v1/challenges'), api('GET', '/v1/challenges/open')]);
    const c = [...mine.incoming, ...mine.outgoing, ...open.challenges].find(x => x.id === id);
    if (!c) { main.append(h('p', {}, t('This challenge is no longer open.'), ' ', h('a', { href: '/' }, t('Your games')))); return null; }
    const act = what => async () => {
      try {
        const r = await api('POST', `/v1/challenges/${q(c.id)}/${what}`);
        navigate(what === 'accept' ? '/games/' + q(r.game_id) : '/');
      } catch (e) { msg.show(e.message, 'error'); }
    };
    const mineOut = c.challenger.id === player.id;
    main.append(h('ul', { class: 'list' }, challengeRow(c, mineOut ? { onCancel: act('cancel') }
      : { onAccept: act('accept'), onDecline: c.opponent ? act('decline') : null })));
  } catch (e) { msg.show(e.message, 'error'); }
  return null;
}

export async function render(main, { mode, params, navigate }) {
  if (mode === 'challenge') return renderChallenge(main, params[0], navigate);
  document.title = t('New game') + ' · korp';
  const player = me();
  const msg = messageBox();
  const openList = h('ul', { id: 'open-challenges', class: 'list' });

  async function loadOpen() {
    try {
      const r = await api('GET', '/v1/challenges/open');
      openList.replaceChildren(...(r.challenges.length ? r.challenges.map(c => challengeRow(c,
        !player ? {} : c.challenger.id === player.id ? { onCancel: () => answer(c, 'cancel') } : { onAccept: () => answer(c, 'accept') }))
        : [h('li', { class: 'none' }, t('No open challenges right now.'))]));
    } catch (e) { msg.show(e.message, 'error'); }
  }

  async function answer(c, what) {
    try {
      const r = await api('POST', `/v1/challenges/${q(c.id)}/${what}`);
      if (what === 'accept') navigate('/games/' + q(r.game_id)); else await loadOpen();
    } catch (e) { msg.show(e.message, 'error'); await loadOpen(); }
  }

  if (!player) {
    main.append(h('h1', {}, t('Open challenges')), msg,
      h('p', {}, h('a', { href: '/login?next=/new' }, t('Sign in')), ' ', t('or'), ' ', h('a', { href: '/signup' }, t('sign up')), ' ', t('to accept one or to challenge someone.')),
      h('section', { class: 'card' }, openList));
    await loadOpen();
    return null;
  }

  // ---- the form -------------------------------------------------------------
  let chosen = null;   // {id, name}
  const opponent = h('input', { id: 'opponent', autocomplete: 'off', placeholder: t('start typing a name'), 'aria-controls': 'opponent-results' });
  const results = h('ul', { id: 'opponent-results', class: 'suggestions', role: 'listbox', 'aria-label': t('Players') });
  const openBox = h('input', { type: 'checkbox', id: 'open' });
  const picked = h('p', { id: 'picked', class: 'hint' }, t('No opponent chosen.'));
  let searchSeq = 0;
  opponent.addEventListener('input', async () => {
    chosen = null;
    picked.textContent = t('No opponent chosen.');
    const prefix = opponent.value.trim();
    const seq = ++searchSeq;
    if (prefix.length < 1) { results.replaceChildren(); return; }
    try {
      const r = await api('GET', `/v1/players?name=${q(prefix)}`);
      if (seq !== searchSeq) return;
      results.replaceChildren(...r.players.filter(p => p.id !== player.id).map(p =>
        h('li', { role: 'option' }, h('button', { type: 'button', class: 'linklike', 'data-player': p.name, onclick: () => {
          chosen = p;
          opponent.value = p.name;
          picked.textContent = t('Opponent: {name}', { name: p.name });
          results.replaceChildren();
        } }, p.name))));
      if (!results.children.length) results.append(h('li', { class: 'none' }, t('No player of that name.')));
    } catch (e) { msg.show(e.message, 'error'); }
  });
  openBox.addEventListener('change', () => { opponent.disabled = openBox.checked; });

  const variant = h('select', { id: 'variant' }, h('option', { value: 'korpalski' }, t('Korpalski')), h('option', { value: 'glinski' }, t('Glinski (hexagonal)')));
  const color = h('select', { id: 'color' }, h('option', { value: 'random' }, t('Random')), h('option', { value: 'white' }, t('White')), h('option', { value: 'black' }, t('Black')));
  const terms = gameTerms('challenge');
  const fifty = h('input', { type: 'checkbox', id: 'fifty', checked: true });
  const form = h('form', { class: 'card form', id: 'challenge-form' },
    h('h2', {}, t('Challenge someone')),
    h('label', { for: 'opponent' }, t('Opponent')), opponent, results, picked,
    h('label', { class: 'check' }, openBox, ' ', t('Open challenge: anyone may accept')),
    h('label', { for: 'variant' }, t('Variant')), variant,
    h('label', { for: 'color' }, t('Your colour')), color,
    ...terms.elements,
    h('label', { class: 'check' }, fifty, ' ', t('Fifty-move rule')),
    h('button', { type: 'submit', class: 'primary' }, t('Send challenge')));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    msg.clear();
    if (!openBox.checked && !chosen) { msg.show(t('Choose an opponent from the list, or make the challenge open.'), 'error'); opponent.focus(); return; }
    const body = { variant: variant.value, opponent: openBox.checked ? null : chosen.id, color: color.value,
      fifty_move_rule: fifty.checked, ...terms.value() };
    try {
      const c = await api('POST', '/v1/challenges', body);
      msg.show(openBox.checked ? t('Open challenge posted: it waits for anyone to accept.') : t('Challenge sent to {name}.', { name: chosen.name }), 'ok');
      form.dataset.challenge = c.id;
      await loadOpen();
      // A bot may accept at once: then its game opens.
      if (!openBox.checked) await followChallenge(c, navigate, 5000);
    } catch (err) { msg.show(err.message, 'error'); }
  });

  main.append(h('h1', {}, t('New game')), msg, form,
    h('section', { class: 'card' }, h('h2', {}, t('Open challenges')), openList));
  await loadOpen();
  return null;
}
