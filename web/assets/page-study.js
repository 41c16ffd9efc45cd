// The study board (/study): any record — a PGN, a FEN/HFEN, or moves in any
// notation korp reads — replayed by the server's rules (POST /v1/replay).
// Step through it with the buttons or the arrow keys; play other moves from
// any position (the board offers only legal ones; a typed move that is not
// legal gets the rules' reason); export the line as PGN. Nothing is stored.

import { api } from './api.js';
import { createBoard } from './board.js';
import { geometryFor, parseUci } from './geometry.js';
import { h, messageBox, variantName } from './ui.js';
import { moveWords, moveLabel } from './notation.js';
import { t } from './i18n.js';
import { createAnalysisPanel } from './analysis-panel.js';

const STATUS_WORDS = {
  checkmate: () => t('Checkmate'), stalemate: () => t('Stalemate'),
  'insufficient-material': () => t('Draw: neither side can mate'),
};

// What the text box holds: a PGN, a position (optionally followed by moves), or moves.
export function readStudyText(text) {
  const t = text.trim();
  if (!t) return { moves: [] };
  if (/^\s*\[/m.test(t) || /\d+\.\s*\S/.test(t)) return { pgn: t };
  const lines = t.split(/\n/);
  if (lines[0].includes('/')) return { fen: lines[0].trim(), moves: lines.slice(1).join(' ').split(/\s+/).filter(Boolean) };
  return { moves: t.split(/[\s,]+/).filter(Boolean) };
}

// The line as PGN: the Variant tag, the start when it is not the variant's, SAN.
export function studyPgn(variant, start, standardStart, plies, result) {
  const tags = [['Event', 'korp study'], ['Variant', variantName(variant)], ['Result', result]];
  if (start !== standardStart) tags.push(['SetUp', '1'], ['FEN', start]);
  const black = / b /.test(start.replace(/\[[^\]]*\]/, ''));
  const full = Number((start.match(/(\d+)\s*$/) || [0, 1])[1]) || 1;
  const words = [];
  plies.forEach((p, i) => {
    const whiteMoves = black ? i % 2 === 1 : i % 2 === 0;
    const n = full + Math.floor((i + (black ? 1 : 0)) / 2);
    if (whiteMoves) words.push(`${n}.`);
    else if (i === 0) words.push(`${n}...`);
    words.push(p.san);
  });
  words.push(result);
  const lines = [];
  let line = '';
  for (const w of words) {
    if (line && line.length + 1 + w.length > 79) { lines.push(line); line = w; } else line = line ? line + ' ' + w : w;
  }
  if (line) lines.push(line);
  return tags.map(([k, v]) => `[${k} "${v.replace(/["\\]/g, '\\$&')}"]`).join('\n') + '\n\n' + lines.join('\n') + '\n';
}

export async function render(main) {
  document.title = t('Study board') + ' · korp';
  const msg = messageBox();
  msg.id = 'study-message';
  let variant = 'korpalski';
  let start = null, standardStart = {};          // FEN before ply 1; each variant's own
  let plies = [], loaded = [], cursor = 0, result = '*', board = null, busy = false;

  const variantSel = h('select', { id: 'study-variant', 'aria-label': t('Variant') },
    h('option', { value: 'korpalski' }, t('Korpalski')), h('option', { value: 'glinski' }, t('Glinski')));
  const text = h('textarea', { id: 'study-text', rows: 6, spellcheck: 'false',
    placeholder: t('Paste a PGN, a FEN (and moves after it), or moves like K@e1 K/e8 Q@d1'), 'aria-label': t('Game record') });
  const loadBtn = h('button', { type: 'submit', class: 'primary', id: 'study-load' }, t('Replay'));
  const freshBtn = h('button', { type: 'button', id: 'study-start' }, t('Start position'));
  const form = h('form', { class: 'form', id: 'study-form' }, h('label', { for: 'study-variant' }, t('Variant')), variantSel,
    h('label', { for: 'study-text' }, t('Record')), text, h('div', { class: 'row' }, loadBtn, freshBtn));
  const boardRoot = h('div', { id: 'board' });
  const status = h('p', { id: 'study-status', class: 'game-status', 'aria-live': 'polite' });
  const moveList = h('ol', { id: 'study-moves', class: 'move-list', 'aria-label': t('Moves') });
  const nav = (id, label, to) => h('button', { type: 'button', id, 'aria-label': label, onclick: () => go(to()) }, label);
  const navBar = h('div', { class: 'toolbar', id: 'study-nav' },
    nav('study-first', '|<', () => 0), nav('study-prev', '<', () => cursor - 1),
    nav('study-next', '>', () => cursor + 1), nav('study-last', '>|', () => plies.length),
    h('button', { type: 'button', id: 'study-flip', onclick: () => board?.flip() }, t('Flip board')));
  const backBtn = h('button', { type: 'button', id: 'study-back', hidden: true, onclick: () => { plies = loaded.slice(); go(cursor); drawMoves(); } }, t('Back to the loaded line'));
  const moveInput = h('input', { id: 'study-move', autocomplete: 'off', spellcheck: 'false', maxlength: 32, 'aria-label': t('Type a move') });
  const moveForm = h('form', { class: 'move-form', id: 'study-move-form' },
    h('div', { class: 'row' }, moveInput, h('button', { type: 'submit' }, t('Play'))));
  const pgnBtn = h('button', { type: 'button', id: 'study-pgn' }, t('Export PGN'));

  // Engine analysis of the shown position; a line clicked is played from it.
  const analysis = createAnalysisPanel({ variant: () => variant, position: () => (cursor === 0 ? start : plies[cursor - 1].fen),
    onLine: ucis => playLine(ucis) });
  main.append(h('h1', {}, t('Study board')), h('section', { class: 'game-page' },
    h('div', { class: 'game-board-col' }, boardRoot),
    h('aside', { class: 'game-side' }, form, msg, status, navBar, moveForm, h('div', { class: 'toolbar' }, backBtn, pgnBtn), moveList, analysis.el)));

  function makeBoard() {
    board?.destroy();
    board = createBoard(boardRoot, geometryFor(variant), { label: t('{variant} study board', { variant: variantName(variant) }), onMove: uci => play(uci) });
  }

  async function replay(body) {
    return api('POST', '/v1/replay', { variant, ...body });
  }

  // Loads a record: the server replays it and answers every ply.
  async function load(body) {
    msg.clear?.();
    try {
      const r = await replay(body);
      start = r.start;
      plies = r.plies;
      loaded = plies.slice();
      result = r.result;
      cursor = plies.length;
      await go(cursor);
      drawMoves();
      return true;
    } catch (e) {
      msg.show(e.message, 'error');
      return false;
    }
  }

  // Shows the position after `n` plies, with its legal moves.
  async function go(n) {
    cursor = Math.max(0, Math.min(plies.length, n));
    analysis.clear();
    const fen = cursor === 0 ? start : plies[cursor - 1].fen;
    const last = cursor > 0 ? plies[cursor - 1] : null;
    let legal = [];
    try {
      legal = (await replay({ fen, moves: [], legal: true })).legal;
    } catch (e) { msg.show(e.message, 'error'); }
    const u = last ? parseUci(last.uci) : null;
    const toMove = / b /.test(fen.replace(/\[[^\]]*\]/, '')) ? 'black' : 'white';
    board.update(fen, { legal, movable: toMove, lastMove: u ? { from: u.from, to: u.to } : null, check: !!last?.check });
    const side = toMove === 'white' ? t('White') : t('Black');
    status.textContent = last && last.status !== 'ongoing' ? STATUS_WORDS[last.status]()
      : t('Ply {ply} of {count}', { ply: cursor, count: plies.length }) + ': '
        + (last?.check ? t('{side} to move, in check', { side }) : t('{side} to move', { side }));
    for (const li of moveList.children) li.classList.toggle('current', Number(li.dataset.ply) === cursor);
    if (last) board.announce(moveWords(last.san, toMove === 'white' ? 'black' : 'white'));
  }

  // A move from the shown position: the line after it is replaced.
  async function play(move) {
    if (busy) return;
    busy = true;
    try {
      const line = plies.slice(0, cursor).map(p => p.uci);
      const r = await replay({ fen: start, moves: [...line, move] });
      plies = r.plies;
      result = r.result;
      await go(cursor + 1);
      drawMoves();
      msg.clear?.();
    } catch (e) {
      msg.show(e.message, 'error');
    } finally { busy = false; }
  }

  // An engine line from the shown position: it replaces what followed, shown one move in.
  async function playLine(ucis) {
    const line = plies.slice(0, cursor).map(p => p.uci);
    try {
      const r = await replay({ fen: start, moves: [...line, ...ucis] });
      plies = r.plies;
      result = r.result;
      await go(cursor + 1);
      drawMoves();
    } catch (e) { msg.show(e.message, 'error'); }
  }

  function drawMoves() {
    moveList.replaceChildren(...plies.map(p => h('li', { 'data-ply': p.ply, class: p.ply === cursor ? 'current' : '' },
      h('button', { type: 'button', class: 'linklike', onclick: () => go(p.ply) }, moveLabel(p, variant)))));
    const same = plies.length === loaded.length && plies.every((p, i) => p.uci === loaded[i].uci);
    backBtn.hidden = same;
  }

  form.addEventListener('submit', async e => {
    e.preventDefault();
    if (variantSel.value !== variant) { variant = variantSel.value; makeBoard(); }
    await load(readStudyText(text.value));
  });
  freshBtn.addEventListener('click', async () => {
    variant = variantSel.value;
    makeBoard();
    await load({ moves: [] });
    standardStart[variant] = start;
  });
  moveForm.addEventListener('submit', async e => {
    e.preventDefault();
    const m = moveInput.value.trim();
    if (!m) return;
    await play(m);
    if (!msg.classList.contains('message-error')) moveInput.value = '';
  });
  pgnBtn.addEventListener('click', async () => {
    if (!standardStart[variant]) standardStart[variant] = (await replay({ moves: [] })).start;
    const text = studyPgn(variant, start, standardStart[variant], plies.slice(0, cursor), cursor === plies.length ? result : '*');
    const a = h('a', { href: URL.createObjectURL(new Blob([text], { type: 'application/x-chess-pgn' })), download: `korp-study-${variant}.pgn` });
    a.click();
    setTimeout(() => URL.revokeObjectURL(a.href), 1000);
  });
  const keys = e => {
    if (e.target.closest('input, textarea, select')) return;
    const to = { ArrowLeft: cursor - 1, ArrowRight: cursor + 1, Home: 0, End: plies.length }[e.key];
    if (to === undefined) return;
    e.preventDefault();
    go(to);
  };
  document.addEventListener('keydown', keys);

  // A record in the address (?variant=…&pgn=… from "open in study"), else the start.
  const params = new URLSearchParams(location.search);
  if (params.get('variant') === 'glinski') variant = 'glinski';
  variantSel.value = variant;
  makeBoard();
  standardStart[variant] = (await replay({ moves: [] }).catch(() => ({ start: null }))).start;
  const example = params.get('example');
  if (example && /^[a-z0-9-]+\.pgn$/.test(example)) {
    try {
      const r = await fetch(`/assets/examples/${example}`);
      if (!r.ok) throw new Error(t('No example game {name}.', { name: example }));
      text.value = await r.text();
    } catch (e) { msg.show(e.message, 'error'); }
  }
  if (params.get('game')) {
    try {
      text.value = await api('GET', `/v1/games/${encodeURIComponent(params.get('game'))}/pgn`, undefined, { raw: true });
    } catch (e) { msg.show(e.message, 'error'); }
  }
  await load(text.value ? readStudyText(text.value) : { moves: [] });
  return () => { document.removeEventListener('keydown', keys); board?.destroy(); };
}
