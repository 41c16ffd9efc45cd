// Home (/): signed in, "my games": first the queue of games where it is
// your move (soonest deadline first), then the challenges waiting for me and the ones I sent; signed out, a welcome. Then,
// for both, the front (home-front.js): the variants, play the computer, open
// challenges, games being played now.

import { api, me, q } from './api.js';
import { renderFront } from './home-front.js';
import { h, messageBox, timeLeft, variantName, resultText, playerLink } from './ui.js';
import { t } from './i18n.js';
import { moveQueue } from './play-prefs.js';

export function gameRow(g, myId) {
  const myColor = g.white.id === myId ? 'white' : g.black.id === myId ? 'black' : null;
  const opp = myColor === 'white' ? g.black : myColor === 'black' ? g.white : null;
  const myTurn = g.status === 'active' && myColor && g.to_move === myColor;
  return h('li', { class: 'game-row' + (myTurn ? ' my-turn' : ''), 'data-game': g.id },
    h('a', { href: '/games/' + q(g.id), class: 'game-link' },
      h('span', { class: 'variant' }, variantName(g.variant)),
      ' ',
      opp ? h('span', { class: 'opp' }, t('vs {name}', { name: opp.name })) : h('span', { class: 'opp' }, `${g.white.name} – ${g.black.name}`),
      ' ',
      h('span', { class: 'state' }, g.status === 'active'
        ? (myTurn ? t('your move') : myColor ? t('their move') : g.to_move === 'white' ? t('White to move') : t('Black to move'))
          + (g.deadline ? ' · ' + t('{time} left', { time: timeLeft(g.deadline) }) : '')
        : resultText(g)),
      h('span', { class: 'ply' }, ' · ' + t('move {n}', { n: Math.floor(g.ply / 2) + 1 }))));
}

function challengeText(c) {
  const color = c.color === 'random' ? t('random colours')
    : c.color === 'white' ? t('{name} plays White', { name: c.challenger.name }) : t('{name} plays Black', { name: c.challenger.name });
  const time = c.days_per_move ? t('{days} d/move', { days: c.days_per_move }) : t('no time limit');
  return `${variantName(c.variant)}, ${color}, ${time}${c.fifty_move_rule ? '' : ', ' + t('no fifty-move rule')}`;
}

export function challengeRow(c, { onAccept, onDecline, onCancel }) {
  return h('li', { class: 'challenge-row', 'data-challenge': c.id },
    h('span', {}, playerLink(c.challenger), ' → ', playerLink(c.opponent), ': ', challengeText(c), ' '),
    onAccept ? h('button', { type: 'button', class: 'primary accept', onclick: onAccept }, t('Accept')) : null,
    onDecline ? h('button', { type: 'button', class: 'decline', onclick: onDecline }, t('Decline')) : null,
    onCancel ? h('button', { type: 'button', class: 'cancel', onclick: onCancel }, t('Withdraw')) : null);
}

export async function render(main, { navigate }) {
  const player = me();
  if (!player) {
    document.title = 'korp';
    main.append(h('section', { class: 'card welcome' },
      h('h1', {}, t('Correspondence chess, Polish style')),
      h('p', {}, t('Play Korpalski Chess (the drop variant that starts on an empty board) and Glinski\'s hexagonal chess, a move a day or at your own pace.')),
      h('p', {}, h('a', { href: '/signup', class: 'button primary' }, t('Sign up')), ' ', h('a', { href: '/login', class: 'button' }, t('Sign in')), ' ',
        h('a', { href: '/study', class: 'button' }, t('Study a game')))));
    return renderFront(main, { navigate });
  }
  document.title = t('My games') + ' · korp';
  const msg = messageBox();
  const incoming = h('ul', { id: 'incoming', class: 'list' });
  const outgoing = h('ul', { id: 'outgoing', class: 'list' });
  const queue = h('ul', { id: 'your-move', class: 'list' });
  const active = h('ul', { id: 'my-games', class: 'list' });
  const finished = h('ul', { id: 'finished-games', class: 'list' });
  main.append(h('h1', {}, t('My games')), msg,
    h('section', { class: 'card' }, h('h2', {}, t('Your move')), queue),
    h('section', { class: 'card' }, h('h2', {}, t('Challenges for you')), incoming),
    h('section', { class: 'card' }, h('h2', {}, t('Games in progress')), active),
    h('section', { class: 'card' }, h('h2', {}, t('Challenges you sent')), outgoing),
    h('section', { class: 'card' }, h('h2', {}, t('Finished games')), finished),
    h('p', {}, h('a', { href: '/new', class: 'button primary' }, t('New game'))));
  const front = h('div', { id: 'front' });
  main.append(front);
  const leaveFront = await renderFront(front, { navigate });

  async function load() {
    try {
      const [ch, mine, act, fin] = await Promise.all([
        api('GET', '/v1/challenges'),
        moveQueue(api, q, player.id),
        api('GET', `/v1/games?player=${q(player.id)}&status=active&limit=100`),
        api('GET', `/v1/games?player=${q(player.id)}&status=finished&limit=20`)]);
      const act2 = act.games.slice().sort((a, b) => {
        const ta = a.to_move === (a.white.id === player.id ? 'white' : 'black') ? 0 : 1;
        const tb = b.to_move === (b.white.id === player.id ? 'white' : 'black') ? 0 : 1;
        if (ta !== tb) return ta - tb;
        return (a.deadline ? Date.parse(a.deadline) : Infinity) - (b.deadline ? Date.parse(b.deadline) : Infinity);
      });
      queue.replaceChildren(...(mine.length ? mine.map(g => gameRow(g, player.id)) : [h('li', { class: 'none' }, t('No game waits for your move.'))]));
      active.replaceChildren(...(act2.length ? act2.map(g => gameRow(g, player.id)) : [h('li', { class: 'none' }, t('No games in progress.'))]));
      finished.replaceChildren(...(fin.games.length ? fin.games.map(g => gameRow(g, player.id)) : [h('li', { class: 'none' }, t('None yet.'))]));
      incoming.replaceChildren(...(ch.incoming.length ? ch.incoming.map(c => challengeRow(c, {
        onAccept: () => answer(c, 'accept'), onDecline: () => answer(c, 'decline') })) : [h('li', { class: 'none' }, t('None.'))]));
      outgoing.replaceChildren(...(ch.outgoing.length ? ch.outgoing.map(c => challengeRow(c, {
        onCancel: () => answer(c, 'cancel') })) : [h('li', { class: 'none' }, t('None.'))]));
    } catch (e) { msg.show(e.message, 'error'); }
  }

  async function answer(c, what) {
    try {
      const r = await api('POST', `/v1/challenges/${q(c.id)}/${what}`);
      if (what === 'accept') { navigate('/games/' + q(r.game_id)); return; }
      await load();
    } catch (e) { msg.show(e.message, 'error'); await load(); }
  }

  await load();
  // The player's own stream: challenges and moves arrive without a reload.
  let es = null;
  try {
    es = new EventSource('/v1/events');
    for (const kind of ['challenge', 'challenge_declined', 'challenge_cancelled', 'game_start', 'move', 'game_end']) {
      es.addEventListener(kind, () => load());
    }
  } catch { /* no stream: the page still works */ }
  return () => { es?.close(); leaveFront?.(); };
}
