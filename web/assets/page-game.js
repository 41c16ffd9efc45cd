// A game (/games/{id}): the board, the players and their time, the move
// list, the actions, a text box for moves; live through the game's event
// stream. Anyone may watch; the two players, signed in, also play, and go on
// to the next game where it is their move ("next game", the key n, or at once
// after each move when play-prefs.js says so). A move, made on the board or
// typed, is first shown and sent only on confirm (unless that is turned off).

import { api, me, q, reasonText } from './api.js';
import { createBoard } from './board.js';
import { geometryFor, parseUci } from './geometry.js';
import { moveWords, moveText, notationChoice, setNotationChoice } from './notation.js';
import { h, messageBox, sideName, variantName, timeLeft, resultText, playerLink } from './ui.js';
import { createPlan } from './game-plan.js';
import { createTalk } from './game-talk.js';
import { createGameClock, clockText } from './game-clock.js';
import { t } from './i18n.js';
import { createPerpetual } from './game-perpetual.js';
import { confirmMoves, moveQueue, nextAfterMove } from './play-prefs.js';

const RETRY_MAX_MS = 30000;

export async function render(main, { params, navigate }) {
  const id = params[0];
  let game, moves = [], legal = [], analysis = null;
  let closed = false;
  let es = null, retryTimer = null, retryMs = 1000;
  let loading = null, again = false;
  let nextGame = null;
  let pending = null;   // a move shown, waiting for confirm: { text, uci, san, ply }

  try {
    game = await api('GET', `/v1/games/${q(id)}`);
  } catch (e) {
    main.append(h('h1', {}, t('Game not found')), h('p', {}, e.status === 404 ? t('There is no game {id}.', { id }) : e.message));
    return null;
  }

  const player = me();
  const myColor = player ? (game.white.id === player.id ? 'white' : game.black.id === player.id ? 'black' : null) : null;
  const korpalski = game.variant === 'korpalski';
  let notation = notationChoice();

  // ---- the page's parts ---------------------------------------------------
  const msg = messageBox();
  msg.id = 'game-message';
  const status = h('p', { id: 'game-status', class: 'game-status', 'aria-live': 'polite' });
  const live = h('span', { id: 'live', class: 'live', title: t('Live updates') }, t('connecting…'));
  const stripTop = h('div', { class: 'player-strip', id: 'strip-top' });
  const stripBottom = h('div', { class: 'player-strip', id: 'strip-bottom' });
  const boardRoot = h('div', { id: 'board' });
  const moveList = h('ol', { id: 'move-list', class: 'move-list', 'aria-label': t('Moves') });
  const moveInput = h('input', { id: 'move-input', name: 'move', autocomplete: 'off', spellcheck: 'false', maxlength: 32,
    placeholder: korpalski ? t('e.g. N@e5, Nf3, g1f3 or S/e5') : t('e.g. Nf4, h3h5 or Hdf8'), 'aria-describedby': 'move-help' });
  const moveForm = h('form', { class: 'move-form', id: 'move-form' },
    h('label', { for: 'move-input' }, t('Type a move')),
    h('div', { class: 'row' }, moveInput, h('button', { type: 'submit', class: 'primary' }, t('Play'))),
    h('p', { id: 'move-help', class: 'hint' }, korpalski
      ? t('SAN (N@e5, Qf5+, e8=Q), UCI-style (g1f3, e7e8q) or Polish (S/e5, W:f3+, pe1=H)')
      : t('SAN (Nf4, Qxf9#), coordinates (h3h5, e9d9q) or Hungarian letters (Hdf8)')));
  const confirmText = h('span', { id: 'move-confirm-text' });
  const confirmOk = h('button', { type: 'button', id: 'move-confirm-ok', class: 'primary', onclick: () => sendPending() }, t('Confirm'));
  const confirmBar = h('div', { id: 'move-confirm', class: 'move-confirm', role: 'group', 'aria-label': t('Confirm the move'), hidden: true },
    confirmText, ' ', confirmOk, ' ',
    h('button', { type: 'button', id: 'move-confirm-cancel', onclick: () => cancelPending() }, t('Cancel')));
  const actions = h('div', { class: 'actions', id: 'actions' });
  const flipBtn = h('button', { type: 'button', id: 'flip', onclick: () => { board.flip(); drawStrips(); } }, t('Flip board'));
  const notationSel = h('select', { id: 'notation', 'aria-label': t('Notation') },
    h('option', { value: 'san' }, t('SAN')),
    h('option', { value: 'polish' }, korpalski ? t('Polish (inventor)') : t('Polish letters')),
    h('option', { value: 'hungarian' }, t('Hungarian letters')));
  if (notationSel) {
    notationSel.value = notation;
    notationSel.addEventListener('change', () => {
      notation = notationSel.value;
      setNotationChoice(notation);
      drawMoves();
    });
  }
  // Plan mode borrows the board (created below) and gives it back through draw().
  const plan = createPlan({ id, myColor, variant: game.variant, board: { update: (fen, o) => board.update(fen, o) },
    redraw: () => draw() });
  const talk = createTalk({ id, myColor });
  const nextLink = h('a', { id: 'next-game', class: 'button', hidden: true, 'aria-keyshortcuts': 'n' }, t('Next game'));
  const pgn = h('a', { href: `/v1/games/${q(id)}/pgn`, download: `korp-${id}.pgn`, id: 'pgn', class: 'button' }, t('Download PGN'));

  const clocks = createGameClock({ myColor, giveTime: async days => {
    const name = game[game.to_move].name;
    if (await act('POST', 'give-time', { days }))
      msg.show(t('{name} got {days} d more: the move is due by {when}', { name, days, when: game.deadline ? new Date(game.deadline).toLocaleString(document.documentElement.lang || undefined) : '' }), 'ok');
  } });
  main.append(h('section', { class: 'game-page' },
    h('div', { class: 'game-board-col' }, stripTop, boardRoot, stripBottom),
    h('aside', { class: 'game-side' },
      h('h1', { class: 'game-title' }, `${variantName(game.variant)}: `, playerLink(game.white), ' – ', playerLink(game.black)),
      h('p', { class: 'game-meta' }, clockText(game),
        game.fifty_move_rule ? '' : ' · ' + t('no fifty-move rule'), ' · ', live),
      status, player ? h('p', { class: 'next' }, nextLink) : null, clocks.el, msg, confirmBar,
      myColor ? moveForm : (player ? null : h('p', { class: 'hint' }, h('a', { href: `/login?next=${q(location.pathname)}` }, t('Sign in')), ' ', t('to play your games.'))),
      actions,
      h('div', { class: 'toolbar' }, flipBtn, notationSel, pgn,
        game.status !== 'active' ? h('a', { href: `/study?game=${q(id)}&variant=${q(game.variant)}`, id: 'open-study', class: 'button' }, t('Open in study')) : null),
      h('h2', { class: 'visually-hidden' }, t('Moves')),
      moveList, plan.el, talk.el)));

  // Perpetual-check claims and requests for an arbiter, before the messages.
  const perpetual = createPerpetual({ id, myColor, variant: game.variant });
  talk.el.before(perpetual.el);

  const board = createBoard(boardRoot, geometryFor(game.variant), {
    label: t('{variant} board', { variant: variantName(game.variant) }),
    onMove: (uci, m) => (plan.planning() ? plan.move(uci, m) : propose(uci)),
  });
  board.setOrientation(myColor || 'white');

  // ---- drawing ------------------------------------------------------------

  function lastMove() {
    const last = moves[moves.length - 1];
    const u = last && parseUci(last.uci);
    return u ? { from: u.from, to: u.to } : null;
  }

  function inCheck() {
    const last = game.moves[game.moves.length - 1];
    return !!last && /[+#]$/.test(last);
  }

  function drawStrips() {
    const topColor = board.orientation === 'white' ? 'black' : 'white';
    for (const [strip, color] of [[stripTop, topColor], [stripBottom, topColor === 'white' ? 'black' : 'white']]) {
      const p = game[color];
      const toMove = game.status === 'active' && game.to_move === color;
      strip.className = 'player-strip' + (toMove ? ' to-move' : '');
      strip.replaceChildren(...[
        h('span', { class: 'swatch swatch-' + color, 'aria-hidden': 'true' }),
        h('span', { class: 'who' }, playerLink(p), ` (${color === 'white' ? t('white') : t('black')})`, myColor === color ? ' · ' + t('you') : ''),
        // The time left is the clock's (one figure); without a clock, the deadline's.
        toMove ? h('span', { class: 'clock', 'data-clock': color }, game.deadline && !game.clock ? t('{time} left', { time: timeLeft(game.deadline) }) : t('to move')) : null,
      ].filter(Boolean));
    }
  }

  function drawStatus() {
    let text;
    if (game.status === 'active') {
      text = myColor ? (game.to_move === myColor ? t('Your move') : t('Waiting for {name}', { name: game[game.to_move].name }))
        : t('{side} to move', { side: sideName(game.to_move) });
      if (inCheck()) text += ' ' + t('(check)');
      if (game.draw_offer) text += ' · ' + t('{side} offers a draw', { side: sideName(game.draw_offer) });
    } else {
      text = t('Game over: {result}', { result: resultText(game) });
      if (game.adjudication_reason) text += ` – ${game.adjudication_reason}`;
    }
    status.textContent = text;
    moveForm.hidden = !(myColor && game.status === 'active' && game.to_move === myColor);
  }

  function drawMoves() {
    moveList.replaceChildren();
    const sans = game.moves;
    for (let i = 0; i < sans.length; i += 2) {
      const li = h('li', { class: 'move-pair', value: i / 2 + 1 });
      for (const k of [i, i + 1]) {
        if (k >= sans.length) break;
        const text = moveText(sans[k], game.variant, notation);
        li.appendChild(h('span', { class: 'move' + (k === sans.length - 1 ? ' current' : ''), 'data-ply': k + 1 }, text));
      }
      moveList.appendChild(li);
    }
    if (game.status !== 'active') moveList.appendChild(h('li', { class: 'result', 'data-result': game.result }, game.result));
    moveList.scrollTop = moveList.scrollHeight;
  }

  function button(label, idName, onclick, { disabled = false, title = null, kind = '' } = {}) {
    return h('button', { type: 'button', id: idName, class: kind, disabled, title, onclick }, label);
  }

  function drawActions() {
    actions.replaceChildren();
    if (!myColor || game.status !== 'active') return;
    const myTurn = game.to_move === myColor;
    const opp = myColor === 'white' ? 'black' : 'white';
    if (game.draw_offer === opp) {
      actions.append(h('p', { class: 'offer' }, t('{name} offers a draw.', { name: game[opp].name })),
        button(t('Accept draw'), 'draw-accept', () => act('POST', 'draw', { action: 'accept' })),
        button(t('Decline draw'), 'draw-decline', () => act('POST', 'draw', { action: 'decline' })));
    } else if (game.draw_offer === myColor) {
      actions.append(h('p', { class: 'offer' }, t('You offered a draw.')));
    } else {
      actions.append(button(t('Offer draw'), 'draw-offer', () => act('POST', 'draw', { action: 'offer' }),
        { title: analysis && !analysis.draw_by_agreement_allowed ? t('Korpalski allows a draw by agreement only when both reserves are empty') : null }));
    }
    actions.append(
      button(t('Claim threefold'), 'claim-threefold', () => claim('threefold'), { disabled: !(myTurn && analysis?.threefold_claimable) }),
      button(t('Claim fifty moves'), 'claim-fifty', () => claim('fifty-move'), { disabled: !(myTurn && analysis?.fifty_move_claimable) }));
    if (game.ply < 2) actions.append(button(t('Abort'), 'abort', () => act('POST', 'abort'), { kind: 'danger' }));
    const resign = button(t('Resign'), 'resign', () => {
      resign.replaceWith(h('span', { class: 'confirm' }, t('Resign this game?'), ' ',
        button(t('Yes, resign'), 'resign-confirm', () => act('POST', 'resign'), { kind: 'danger' }),
        button(t('No'), 'resign-cancel', () => drawActions())));
    }, { kind: 'danger' });
    actions.append(resign);
  }

  function draw() {
    const movable = myColor && game.status === 'active' && game.to_move === myColor ? myColor : null;
    if (pending && (pending.ply !== game.ply || !movable)) pending = null;
    confirmBar.hidden = !pending;
    if (!plan.planning() && !pending) board.update(game.fen, { legal, movable, lastMove: lastMove(), check: inCheck() });
    drawStrips();
    drawStatus();
    drawMoves();
    drawActions();
    plan.update(game);
    talk.update(game);
    clocks.update(game);
    perpetual.update(game);
    document.title = `${game.white.name} – ${game.black.name} (${variantName(game.variant)}) · korp`;
    boardRoot.dataset.ply = String(game.ply);
  }

  // ---- loading and acting ---------------------------------------------------

  async function reload() {
    if (loading) { again = true; return loading; }
    loading = (async () => {
      do {
        again = false;
        try {
          const [g, mv, queue] = await Promise.all([api('GET', `/v1/games/${q(id)}`), api('GET', `/v1/games/${q(id)}/moves`),
            player ? moveQueue(api, q, player.id) : Promise.resolve([])]);
          showNext(queue.find(other => other.id !== id) || null);
          let lg = [], an = null;
          if (g.status === 'active') {
            [lg, an] = await Promise.all([
              myColor ? api('GET', `/v1/games/${q(id)}/legal-moves`).then(r => r.moves) : Promise.resolve([]),
              api('GET', `/v1/games/${q(id)}/analysis`)]);
          }
          if (closed) return;
          const before = game.ply;
          game = g; moves = mv.moves; legal = lg; analysis = an;
          draw();
          // A new move, said in words to screen readers.
          if (game.ply > before && game.moves.length)
            board.announce(moveWords(game.moves[game.moves.length - 1], game.ply % 2 ? 'white' : 'black'));
        } catch (e) {
          if (!closed) msg.show(e.message, 'error');
        }
      } while (again && !closed);
    })();
    try { await loading; } finally { loading = null; }
  }

  // ---- confirm: the move is shown on the board, sent on confirm ---------------

  // The legal move a typed text names, if any: UCI, SAN or the long form
  // (Qc3xBf9), in SAN letters or the page's other notations.
  function legalNamed(text) {
    const bare = s => s.replace(/[+#X!?]+$/, '');
    const long = s => bare(s).replace(/[x:-][A-Z]?/g, '');
    const want = bare(text);
    const forms = m => [m.san, /^[A-Z]/.test(m.san) && !m.san.includes('@') ? m.san[0] + m.uci : m.uci];
    return legal.find(m => m.uci === text || forms(m).some(f => ['san', 'polish', 'hungarian'].some(n => {
      const shown = moveText(f, game.variant, n);
      return bare(shown) === want || long(shown) === long(text);
    }))) || null;
  }

  async function propose(text) {
    if (!confirmMoves()) return play(text);
    const m = legalNamed(text);
    if (!m) return play(text);   // korpd says why it is not a move
    msg.clear();
    try {
      const r = await api('GET', `/v1/games/${q(id)}/legal-moves?after=${q(m.uci)}`);
      const u = parseUci(m.uci);
      pending = { text, uci: m.uci, san: m.san, ply: game.ply };
      board.update(r.fen, { legal: [], movable: null, lastMove: u ? { from: u.from, to: u.to } : null, check: /[+#]$/.test(m.san) });
      confirmText.textContent = t('Play {move}?', { move: moveText(m.san, game.variant, notation) });
      confirmBar.hidden = false;
      confirmOk.focus();
      return true;
    } catch (e) { msg.show(e.message, 'error'); return false; }
  }

  async function sendPending() {
    if (!pending) return;
    const { uci } = pending;   // what was shown is what is played
    pending = null;
    confirmBar.hidden = true;
    if (await play(uci)) moveInput.value = '';
    else draw();
  }

  function cancelPending() {
    pending = null;
    draw();
    moveInput.focus();
  }

  function showNext(g) {
    nextGame = g;
    nextLink.hidden = !g;
    if (g) {
      nextLink.href = '/games/' + q(g.id);
      const opp = g.white.id === player.id ? g.black : g.white;
      nextLink.title = t('Your move against {name}', { name: opp.name });
    }
  }

  function goNext() {
    if (nextGame) navigate('/games/' + q(nextGame.id));
  }

  // The key n, anywhere but in a field being typed in.
  function onKey(e) {
    if (pending && e.key === 'Escape') { e.preventDefault(); cancelPending(); return; }
    if (e.key !== 'n' || e.ctrlKey || e.metaKey || e.altKey || e.defaultPrevented) return;
    if (e.target.closest?.('input, textarea, select, [contenteditable]')) return;
    e.preventDefault();
    goNext();
  }
  document.addEventListener('keydown', onKey);

  async function play(text) {
    msg.clear();
    try {
      game = await api('POST', `/v1/games/${q(id)}/moves`, { move: text, ply: game.ply });
      await reload();
      if (nextAfterMove()) goNext();
      return true;
    } catch (e) {
      msg.show(e.message, 'error');
      if (e.problem?.type === '/problems/ply-mismatch') await reload();
      return false;
    }
  }

  /* True when korpd did it (the game read again). */
  async function act(method, what, body) {
    msg.clear();
    try {
      await api(method, `/v1/games/${q(id)}/${what}`, body);
      await reload();
      return true;
    } catch (e) {
      msg.show(e.message, 'error');
      drawActions();
      return false;
    }
  }

  async function claim(kind) {
    msg.clear();
    try {
      const r = await api('POST', `/v1/games/${q(id)}/claims`, { kind });
      msg.show((r.accepted ? t('Claim accepted:') : t('Claim refused:')) + ' ' + (reasonText(r.code) || r.reason), r.accepted ? 'ok' : 'error');
      await reload();
    } catch (e) { msg.show(e.message, 'error'); }
  }

  moveForm.addEventListener('submit', async e => {
    e.preventDefault();
    const text = moveInput.value.trim();
    if (!text) return;
    if (confirmMoves() && legalNamed(text)) { await propose(text); return; }
    if (await play(text)) moveInput.value = '';
  });

  // ---- live: the game's event stream -----------------------------------------

  function connect() {
    if (closed) return;
    es = new EventSource(`/v1/events?game=${q(id)}`);
    es.addEventListener('open', () => {
      retryMs = 1000;
      live.textContent = t('● live');
      live.className = 'live on';
      reload();   // catch up with whatever happened while away
    });
    for (const kind of ['move', 'draw_offer', 'claim', 'game_end', 'game_start']) {
      es.addEventListener(kind, () => reload());
    }
    // A message reaches the players at once.
    es.addEventListener('message', () => talk.refresh());
    es.addEventListener('error', () => {
      live.textContent = t('reconnecting…');
      live.className = 'live off';
      // EventSource retries by itself unless the server refused the stream.
      if (es.readyState === EventSource.CLOSED) {
        es.close();
        retryTimer = setTimeout(connect, retryMs);
        retryMs = Math.min(retryMs * 2, RETRY_MAX_MS);
      }
    });
  }

  draw();
  await reload();
  // Engine analysis (analysis-panel.js): offered on finished games, and on
  // games in play whose engine policy allows it.
  if (game.status !== 'active' || game.engines === 'allowed') {
    const { createAnalysisPanel } = await import('./analysis-panel.js');
    main.querySelector('.game-side').append(createAnalysisPanel({ variant: game.variant, gameId: id, plies: moves, position: () => game.fen,
      format: san => (notation === 'polish' ? sanToPolish(san) : san) }).el);
  }
  connect();
  const ticker = setInterval(() => { if (game.status === 'active' && game.deadline) { drawStrips(); drawStatus(); } }, 30000);

  return () => {
    closed = true;
    document.removeEventListener('keydown', onKey);
    es?.close();
    clearTimeout(retryTimer);
    clearInterval(ticker);
    talk.destroy();
    clocks.destroy();
    board.destroy();
  };
}
