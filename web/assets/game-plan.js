// Conditional moves on the game page: while the opponent is to
// move, a player types lines ("their move, my reply, ..."), or plays them
// out on the board in plan mode (korpd's /legal-moves?after= gives each
// position), sees them as a tree, saves or clears them. korpd checks every
// move; its answer names the line and the move it refused.

import { api, q } from './api.js';
import { h, messageBox } from './ui.js';
import { t } from './i18n.js';
import { moveText } from './notation.js';

/* Lines typed one per row, moves separated by spaces or commas. */
export function parseLines(text) {
  return text.split('\n')
    .map(row => row.split(/[\s,]+/).filter(Boolean))
    .filter(line => line.length > 0);
}

/* The lines as a tree: [{ move, reply, next: [...] }], shared prefixes merged. */
export function linesTree(lines) {
  const root = [];
  for (const line of lines) {
    let level = root;
    for (let k = 0; k + 1 < line.length; k += 2) {
      let node = level.find(n => n.move === line[k] && n.reply === line[k + 1]);
      if (!node) {
        node = { move: line[k], reply: line[k + 1], next: [] };
        level.push(node);
      }
      level = node.next;
    }
  }
  return root;
}

function treeList(nodes) {
  return h('ul', { class: 'plan-tree' }, nodes.map(n =>
    h('li', {}, h('span', { class: 'plan-if' }, t('if {move}', { move: n.move })), ' → ',
      h('strong', { class: 'plan-reply' }, n.reply),
      n.next.length ? treeList(n.next) : null)));
}

/* SAN moves (lines apart) in the page's notation: an example, a plan. */
export function inNotation(text, variant) {
  return text.split('\n').map(l => l.split(' ').map(m => moveText(m, variant)).join(' ')).join('\n');
}

/*
 * The panel for the player playing myColor. In plan mode it borrows `board`
 * (moves made on it come to move() instead of being played) and gives it
 * back with redraw(). update(game) redraws the panel after the game changed
 * (a move may have used or dropped the lines).
 */
export function createPlan({ id, myColor, variant = null, board = null, redraw = () => {} }) {
  const msg = messageBox();
  const input = h('textarea', { id: 'plan-input', rows: 4, spellcheck: 'false',
    'aria-describedby': 'plan-help', placeholder: inNotation('Nf6 Nb1\nNc6 Nb1 Ne5 Nc3', variant) });
  const tree = h('div', { id: 'plan-tree', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'primary', id: 'plan-save' }, t('Save lines'));
  const clear = h('button', { type: 'button', id: 'plan-clear' }, t('Clear'));
  const planLine = h('p', { id: 'plan-line', class: 'plan-line', 'aria-live': 'polite' });
  const planBtn = h('button', { type: 'button', id: 'plan-start' }, t('Plan on the board'));
  const addBtn = h('button', { type: 'button', id: 'plan-add', class: 'primary' }, t('Add line'));
  const undoBtn = h('button', { type: 'button', id: 'plan-undo' }, t('Undo'));
  const doneBtn = h('button', { type: 'button', id: 'plan-done' }, t('Done'));
  const planBar = h('div', { id: 'plan-bar', class: 'plan-bar', hidden: true }, planLine,
    h('div', { class: 'row' }, addBtn, undoBtn, doneBtn));
  const form = h('form', { id: 'plan-form', class: 'plan-form' },
    h('label', { for: 'plan-input' }, t('Conditional moves')),
    input,
    h('p', { id: 'plan-help', class: 'hint' },
      t('One line per row: their move, your reply, their next move, your reply…'), ' ',
      t('Lines that begin alike form a tree; a reply is played at once when its move is.')),
    h('div', { class: 'row' }, save, clear, board ? planBtn : null), planBar, msg, tree);
  const note = h('p', { class: 'hint', id: 'plan-wait' },
    t('Conditional moves are set while your opponent is to move.'));
  const el = h('section', { class: 'plan', id: 'plan', 'aria-label': t('Conditional moves') }, form, note);
  let ply = -1;
  let planning = null;   // the moves played out in plan mode (UCI and SAN), or null

  // ---- plan mode: the board shows the position after the moves so far ----
  async function showPlan() {
    const after = planning.map(m => m.uci).join(',');
    const r = await api('GET', `/v1/games/${q(id)}/legal-moves` + (after ? `?after=${q(after)}` : ''));
    const fen = r.fen || currentFen;
    const toMove = fen.split(' ')[1] === 'w' ? 'white' : 'black';
    board.update(fen, { legal: r.moves, movable: toMove, lastMove: null, check: false });
    planLine.textContent = planning.length
      ? t('Line:') + ' ' + planning.map(m => moveText(m.san, variant)).join(' ')
      : t('Play their move on the board, then your reply, and so on.');
    addBtn.disabled = planning.length < 2 || planning.length % 2 !== 0;
    undoBtn.disabled = planning.length === 0;
  }
  let currentFen = '';

  async function startPlan() {
    msg.clear();
    planning = [];
    planBar.hidden = false;
    planBtn.hidden = true;
    try { await showPlan(); } catch (e) { msg.show(e.message, 'error'); }
  }

  function endPlan() {
    planning = null;
    planBar.hidden = true;
    planBtn.hidden = false;
    redraw();
  }

  planBtn.addEventListener('click', startPlan);
  doneBtn.addEventListener('click', endPlan);
  undoBtn.addEventListener('click', async () => {
    planning.pop();
    try { await showPlan(); } catch (e) { msg.show(e.message, 'error'); }
  });
  addBtn.addEventListener('click', async () => {
    const line = planning.map(m => m.san).join(' ');
    input.value = (input.value.trim() ? input.value.trim() + '\n' : '') + line;
    showTree(parseLines(input.value));
    planning = [];
    try { await showPlan(); } catch (e) { msg.show(e.message, 'error'); }
  });

  function showTree(lines) {
    tree.replaceChildren(lines.length ? treeList(linesTree(lines)) : h('p', { class: 'hint' }, t('No lines set.')));
  }

  // Each save, clear or edit counts: a load answered after one of them is
  // older than what the page shows (or would overwrite what the player is
  // typing) and is dropped.
  let changes = 0;
  input.addEventListener('input', () => { changes++; });
  async function load() {
    const seen = changes;
    try {
      const r = await api('GET', `/v1/games/${q(id)}/conditional-moves`);
      if (seen !== changes) return;
      input.value = r.lines.map(l => l.join(' ')).join('\n');
      showTree(r.lines);
    } catch (e) { if (seen === changes) msg.show(e.message, 'error'); }
  }

  form.addEventListener('submit', async e => {
    e.preventDefault();
    msg.clear();
    changes++;
    try {
      const r = await api('PUT', `/v1/games/${q(id)}/conditional-moves`, { lines: parseLines(input.value), ply });
      input.value = r.lines.map(l => l.join(' ')).join('\n');
      showTree(r.lines);
      msg.show(r.lines.length ? t('Lines saved.') : t('No lines set.'), 'ok');
    } catch (err) {
      const p = err.problem || {};
      const where = Number.isInteger(p.line) ? ' ' + t('(line {line}, move {move})', { line: p.line + 1, move: p.index + 1 }) : '';
      msg.show(err.message + where, 'error');
    }
  });
  clear.addEventListener('click', async () => {
    msg.clear();
    changes++;
    try {
      await api('DELETE', `/v1/games/${q(id)}/conditional-moves`);
      input.value = '';
      showTree([]);
    } catch (e) { msg.show(e.message, 'error'); }
  });

  return {
    el,
    /* Whether the board is the plan's now. */
    planning: () => planning !== null,
    /* A move made on the board in plan mode. */
    async move(uci, m) {
      if (planning.length >= 40) return;
      planning.push({ uci, san: m?.san || uci });
      try { await showPlan(); } catch (e) { planning.pop(); msg.show(e.message, 'error'); }
    },
    update(game) {
      currentFen = game.fen;
      if (planning && (game.status !== 'active' || game.to_move === myColor)) endPlan();
      const active = !!myColor && game.status === 'active';
      const waiting = active && game.to_move !== myColor;
      el.hidden = !active;
      form.hidden = !waiting;
      note.hidden = waiting;
      if (waiting && game.ply !== ply) load();
      ply = game.ply;
    },
  };
}
