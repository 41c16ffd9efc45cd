// The front of the home page, for newcomers and players alike: the two
// variants (a board of each at its start), "play the computer now" (one
// click; level, colour and clock to choose under it), the
// challenges waiting for anyone, the games being played now, the learn pages.

import { api, me, q } from './api.js';
import { createBoard } from './board.js';
import { geometryFor } from './geometry.js';
import { h, messageBox, variantName } from './ui.js';
import { gameRow, challengeRow } from './page-home.js';
import { t } from './i18n.js';

const ENGINE = 'korp-engine';
const START = {
  korpalski: '8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1',
  glinski: 'b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1',
};
const ABOUT = {
  korpalski: () => t('The board starts empty: each side places its king, then drops its men one by one. ' +
    'A drop may never give check, and a pawn promotes only to a piece its side has lost.'),
  glinski: () => t('Ninety-one hexagons in three colours, three bishops a side, pawns that capture at 60 degrees, ' +
    'and a stalemate that scores three quarters.'),
};

/* Waits up to `ms` for challenge c to become a game (a bot accepts at once)
 * and opens it; true when it did. */
export async function followChallenge(c, navigate, ms) {
  if (c.game_id) { navigate('/games/' + q(c.game_id)); return true; }
  const deadline = Date.now() + ms;
  while (Date.now() < deadline) {
    const now = await api('GET', `/v1/challenges/${q(c.id)}`);
    if (now.game_id) { navigate('/games/' + q(now.game_id)); return true; }
    if (now.status !== 'open') break;
    await new Promise(r => setTimeout(r, 500));
  }
  return false;
}

// The computer's levels are its accounts: korp-engine-N plays level N, and
// korp-engine level 7 (examples/random-bot/README.md).
const DEFAULT_LEVEL = 7;
const engineName = level => (level === DEFAULT_LEVEL ? ENGINE : `${ENGINE}-${level}`);

// Challenges the computer (the engine bot, when this server runs one) at the
// level, colour and clock chosen (the defaults when not) and opens the game
// once it accepts.
async function playComputer(variant, msg, navigate, { level = DEFAULT_LEVEL, color = 'random', days = null } = {}) {
  const player = me();
  if (!player) { navigate('/signup'); return; }
  try {
    const name = engineName(level);
    let found = (await api('GET', `/v1/players?name=${q(name)}`)).players.find(p => p.name === name);
    // A server with one engine account plays every level with it.
    if (!found && level !== DEFAULT_LEVEL) found = (await api('GET', `/v1/players?name=${q(ENGINE)}`)).players.find(p => p.name === ENGINE);
    if (!found) { msg.show(t('The computer does not play on this server.'), 'error'); return; }
    const c = await api('POST', '/v1/challenges', { variant, opponent: found.id, color, ...(days ? { days_per_move: days } : {}) });
    msg.show(t('Waiting for the computer to accept…'), 'info');
    if (await followChallenge(c, navigate, 20000)) return;
    msg.show(t('The computer has not answered yet: your challenge waits on your games page.'), 'info');
  } catch (e) { msg.show(e.message, 'error'); }
}

/* "Play the computer" with its choices folded away: level, colour, clock. */
function computerChoices(v) {
  const id = s => `computer-${s}-${v}`;
  const level = h('select', { id: id('level') }, ...[1, 2, 3, 4, 5, 6, 7, 8, 9, 10].map(n => h('option', { value: n, selected: n === DEFAULT_LEVEL }, String(n))));
  const color = h('select', { id: id('color') },
    h('option', { value: 'random', selected: true }, t('Random')), h('option', { value: 'white' }, t('White')), h('option', { value: 'black' }, t('Black')));
  const days = h('select', { id: id('days') }, h('option', { value: '', selected: true }, t('as usual')),
    ...[1, 2, 3, 5, 7, 14].map(n => h('option', { value: n }, t('{days} d a move', { days: n }))));
  const el = h('details', { class: 'computer-choices', id: id('choices') },
    h('summary', {}, t('Level, colour and clock')),
    h('div', { class: 'computer-fields' },
      h('label', { for: level.id }, t('Level (1-10)')), level,
      h('label', { for: color.id }, t('Your colour')), color,
      h('label', { for: days.id }, t('Time a move')), days));
  return { el, value: () => ({ level: Number(level.value), color: color.value, days: days.value ? Number(days.value) : null }) };
}

export async function renderFront(main, { navigate }) {
  const msg = messageBox();
  msg.id = 'front-message';
  const boards = [];
  const variants = h('div', { class: 'front-variants', id: 'front-variants' });
  for (const v of ['korpalski', 'glinski']) {
    const root = h('div', { class: 'front-board' });
    const choices = computerChoices(v);
    variants.append(h('section', { class: 'card front-variant', 'data-variant': v },
      h('h2', {}, variantName(v)), root, h('p', {}, ABOUT[v]()),
      h('p', {}, h('button', { type: 'button', class: 'primary', id: `play-computer-${v}`, onclick: () => playComputer(v, msg, navigate, choices.value()) },
        me() ? t('Play the computer now') : t('Sign up and play the computer')), ' ',
        h('a', { href: `/learn/${v}`, class: 'button' }, t('Learn the rules'))),
      me() ? choices.el : null));
    const b = createBoard(root, geometryFor(v), { label: t('{variant} at the start', { variant: variantName(v) }) });
    b.update(START[v], {});
    boards.push(b);
  }
  const open = h('ul', { class: 'list', id: 'front-open' });
  const playing = h('ul', { class: 'list', id: 'front-playing' });
  main.append(msg, variants,
    h('section', { class: 'card' }, h('h2', {}, t('Challenges anyone may accept')), open),
    h('section', { class: 'card' }, h('h2', {}, t('Games being played now')), playing));
  try {
    const [o, g] = await Promise.all([api('GET', '/v1/challenges/open'), api('GET', '/v1/games?status=active&limit=10')]);
    const mine = me()?.id;
    open.replaceChildren(...(o.challenges.length ? o.challenges.slice(0, 10).map(c => challengeRow(c, {
      onAccept: mine && c.challenger.id !== mine ? async () => {
        try { navigate('/games/' + q((await api('POST', `/v1/challenges/${q(c.id)}/accept`)).game_id)); }
        catch (e) { msg.show(e.message, 'error'); }
      } : null })) : [h('li', { class: 'none' }, t('None waiting.'), ' ', h('a', { href: '/new' }, t('Make one')), '.')]));
    playing.replaceChildren(...(g.games.length ? g.games.map(x => gameRow(x, mine)) : [h('li', { class: 'none' }, t('None right now.'))]));
  } catch (e) { msg.show(e.message, 'error'); }
  return () => boards.forEach(b => b.destroy());
}
