// New game (/new): challenge a player found by name prefix, or post an
// open challenge anyone may accept; the open challenges to accept. Also a
// single challenge (/challenges/{id}), the link in challenge emails.

import { api, me, q } from './api.js';
import { h, messageBox } from './ui.js';
import { challengeRow } from './page-home.js';

async function renderChallenge(main, id, navigate) {
  document.title = 'Challenge · korp';
  const msg = messageBox();
  main.append(h('h1', {}, 'Challenge'), msg);
  const player = me();
  if (!player) {
    main.append(h('p', {}, h('a', { href: `/login?next=${q(location.pathname)}` }, 'Sign in'), ' to answer this challenge.'));
    return null;
  }
  try {
    const [mine, open] = await Promise.all([api('GET', '/v1/challenges'), api('GET', '/v1/challenges/open')]);
    const c = [...mine.incoming, ...mine.outgoing, ...open.challenges].find(x => x.id === id);
    if (!c) { main.append(h('p', {}, 'This challenge is no longer open. ', h('a', { href: '/' }, 'Your games'))); return null; }
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
  document.title = 'New game · korp';
  const player = me();
  const msg = messageBox();
  const openList = h('ul', { id: 'open-challenges', class: 'list' });

  async function loadOpen() {
    try {
      const r = await api('GET', '/v1/challenges/open');
      openList.replaceChildren(...(r.challenges.length ? r.challenges.map(c => challengeRow(c,
        !player ? {} : c.challenger.id === player.id ? { onCancel: () => answer(c, 'cancel') } : { onAccept: () => answer(c, 'accept') }))
        : [h('li', { class: 'none' }, 'No open challenges right now.')]));
    } catch (e) { msg.show(e.message, 'error'); }
  }

  async function answer(c, what) {
    try {
      const r = await api('POST', `/v1/challenges/${q(c.id)}/${what}`);
      if (what === 'accept') navigate('/games/' + q(r.game_id)); else await loadOpen();
    } catch (e) { msg.show(e.message, 'error'); await loadOpen(); }
  }

  if (!player) {
    main.append(h('h1', {}, 'Open challenges'), msg,
      h('p', {}, h('a', { href: '/login?next=/new' }, 'Sign in'), ' or ', h('a', { href: '/signup' }, 'sign up'), ' to accept one or to challenge someone.'),
      h('section', { class: 'card' }, openList));
    await loadOpen();
    return null;
  }

  // ---- the form -------------------------------------------------------------
  let chosen = null;   // {id, name}
  const opponent = h('input', { id: 'opponent', autocomplete: 'off', placeholder: 'start typing a name', 'aria-controls': 'opponent-results' });
  const results = h('ul', { id: 'opponent-results', class: 'suggestions', role: 'listbox', 'aria-label': 'Players' });
  const openBox = h('input', { type: 'checkbox', id: 'open' });
  const picked = h('p', { id: 'picked', class: 'hint' }, 'No opponent chosen.');
  let searchSeq = 0;
  opponent.addEventListener('input', async () => {
    chosen = null;
    picked.textContent = 'No opponent chosen.';
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
          picked.textContent = `Opponent: ${p.name}`;
          results.replaceChildren();
        } }, p.name))));
      if (!results.children.length) results.append(h('li', { class: 'none' }, 'No player of that name.'));
    } catch (e) { msg.show(e.message, 'error'); }
  });
  openBox.addEventListener('change', () => { opponent.disabled = openBox.checked; });

  const variant = h('select', { id: 'variant' }, h('option', { value: 'korpalski' }, 'Korpalski'), h('option', { value: 'glinski' }, 'Glinski (hexagonal)'));
  const color = h('select', { id: 'color' }, h('option', { value: 'random' }, 'Random'), h('option', { value: 'white' }, 'White'), h('option', { value: 'black' }, 'Black'));
  const days = h('select', { id: 'days' }, ...[['', 'No time limit'], ['1', '1 day'], ['2', '2 days'], ['3', '3 days'], ['5', '5 days'], ['7', '7 days'], ['14', '14 days']]
    .map(([v, t]) => h('option', { value: v, selected: v === '3' }, t)));
  const fifty = h('input', { type: 'checkbox', id: 'fifty', checked: true });
  const form = h('form', { class: 'card form', id: 'challenge-form' },
    h('h2', {}, 'Challenge someone'),
    h('label', { for: 'opponent' }, 'Opponent'), opponent, results, picked,
    h('label', { class: 'check' }, openBox, ' Open challenge: anyone may accept'),
    h('label', { for: 'variant' }, 'Variant'), variant,
    h('label', { for: 'color' }, 'Your colour'), color,
    h('label', { for: 'days' }, 'Time per move'), days,
    h('label', { class: 'check' }, fifty, ' Fifty-move rule'),
    h('button', { type: 'submit', class: 'primary' }, 'Send challenge'));
  form.addEventListener('submit', async e => {
    e.preventDefault();
    msg.clear();
    if (!openBox.checked && !chosen) { msg.show('Choose an opponent from the list, or make the challenge open.', 'error'); opponent.focus(); return; }
    const body = { variant: variant.value, opponent: openBox.checked ? null : chosen.id, color: color.value,
      days_per_move: days.value ? Number(days.value) : null, fifty_move_rule: fifty.checked };
    try {
      const c = await api('POST', '/v1/challenges', body);
      msg.show(openBox.checked ? 'Open challenge posted: it waits for anyone to accept.' : `Challenge sent to ${chosen.name}.`, 'ok');
      form.dataset.challenge = c.id;
      await loadOpen();
    } catch (err) { msg.show(err.message, 'error'); }
  });

  main.append(h('h1', {}, 'New game'), msg, form,
    h('section', { class: 'card' }, h('h2', {}, 'Open challenges'), openList));
  await loadOpen();
  return null;
}
