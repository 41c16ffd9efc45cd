// Conditional moves on the game page (issue 18): while the opponent is to
// move, a player types lines ("their move, my reply, ..."), sees them as a
// tree, saves or clears them. korpd checks every move; its answer names the
// line and the move it refused.

import { api, q } from './api.js';
import { h, messageBox } from './ui.js';

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
    h('li', {}, h('span', { class: 'plan-if' }, `if ${n.move}`), ' → ',
      h('strong', { class: 'plan-reply' }, n.reply),
      n.next.length ? treeList(n.next) : null)));
}

/*
 * The panel: `game` is the game object, myColor the player's side. update(game)
 * redraws it after the game changed (a move may have used or dropped the lines).
 */
export function createPlan({ id, myColor }) {
  const msg = messageBox();
  const input = h('textarea', { id: 'plan-input', rows: 4, spellcheck: 'false',
    'aria-describedby': 'plan-help', placeholder: 'Nf6 Nb1\nNc6 Nb1 Ne5 Nc3' });
  const tree = h('div', { id: 'plan-tree', 'aria-live': 'polite' });
  const save = h('button', { type: 'submit', class: 'primary', id: 'plan-save' }, 'Save lines');
  const clear = h('button', { type: 'button', id: 'plan-clear' }, 'Clear');
  const form = h('form', { id: 'plan-form', class: 'plan-form' },
    h('label', { for: 'plan-input' }, 'Conditional moves'),
    input,
    h('p', { id: 'plan-help', class: 'hint' },
      'One line per row: their move, your reply, their next move, your reply… ',
      'Lines that begin alike form a tree; a reply is played at once when its move is.'),
    h('div', { class: 'row' }, save, clear), msg, tree);
  const note = h('p', { class: 'hint', id: 'plan-wait' },
    'Conditional moves are set while your opponent is to move.');
  const el = h('section', { class: 'plan', id: 'plan', 'aria-label': 'Conditional moves' }, form, note);
  let ply = -1;

  function showTree(lines) {
    tree.replaceChildren(lines.length ? treeList(linesTree(lines)) : h('p', { class: 'hint' }, 'No lines set.'));
  }

  async function load() {
    try {
      const r = await api('GET', `/v1/games/${q(id)}/conditional-moves`);
      input.value = r.lines.map(l => l.join(' ')).join('\n');
      showTree(r.lines);
    } catch (e) { msg.show(e.message, 'error'); }
  }

  form.addEventListener('submit', async e => {
    e.preventDefault();
    msg.clear();
    try {
      const r = await api('PUT', `/v1/games/${q(id)}/conditional-moves`, { lines: parseLines(input.value), ply });
      input.value = r.lines.map(l => l.join(' ')).join('\n');
      showTree(r.lines);
      msg.show(r.lines.length ? 'Lines saved.' : 'No lines set.', 'ok');
    } catch (err) {
      const p = err.problem || {};
      const where = Number.isInteger(p.line) ? ` (line ${p.line + 1}, move ${p.index + 1})` : '';
      msg.show(err.message + where, 'error');
    }
  });
  clear.addEventListener('click', async () => {
    msg.clear();
    try {
      await api('DELETE', `/v1/games/${q(id)}/conditional-moves`);
      input.value = '';
      showTree([]);
    } catch (e) { msg.show(e.message, 'error'); }
  });

  return {
    el,
    update(game) {
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
