// The board component: one component for both variants. It draws the cells
// of a geometry (geometry.js: 8x8 squares with reserves and prisons, or
// Glinski's 91 hexagons) as SVG, shows a position, and turns clicks, drags
// and reserve picks into moves in UCI style, which it hands to onMove. It
// knows no rules: the legal moves come from the server (/legal-moves), and
// only those are offered, promotions included. By keyboard: Tab reaches the
// board (one cell at a time is in the tab order) and the reserves; the arrow
// keys move between cells, Enter or Space picks a man and puts it down.
// announce() says a move in words to screen readers.

import { PIECE_NAMES, parseUci } from './geometry.js';
import { pieceGroup, pieceIcon } from './pieces.js';
import { t, tn } from './i18n.js';

const NS = 'http://www.w3.org/2000/svg';
const DRAG_THRESHOLD = 4;   // px before a press becomes a drag
const ORDER = ['k', 'q', 'r', 'b', 'n', 'p'];

function el(tag, attrs = {}, ...children) {
  const e = document.createElement(tag);
  for (const [k, v] of Object.entries(attrs)) {
    if (v === null || v === undefined || v === false) continue;
    if (k === 'text') e.textContent = v; else e.setAttribute(k, v === true ? '' : v);
  }
  for (const c of children) if (c) e.appendChild(c);
  return e;
}

function svgEl(tag, attrs = {}) {
  const e = document.createElementNS(NS, tag);
  for (const [k, v] of Object.entries(attrs)) e.setAttribute(k, v);
  return e;
}

/*
 * Creates a board inside `root` (emptied first) for `geometry`. `onMove(uci)`
 * is called with each move the user makes and may return a promise; the
 * board takes no input until it settles. Returns the board's handle.
 */
function colorWord(color) { return color === 'white' ? t('white') : t('black'); }

// How many men of a kind, by the page's plural forms (5 pionów, 2 piony).
const COUNTS = {
  k: n => tn('{n} king', '{n} kings', n), q: n => tn('{n} queen', '{n} queens', n),
  r: n => tn('{n} rook', '{n} rooks', n), b: n => tn('{n} bishop', '{n} bishops', n),
  n: n => tn('{n} knight', '{n} knights', n), p: n => tn('{n} pawn', '{n} pawns', n),
};

/* "white reserve: 2 knights" (a reserve or a prison, in words). */
function countWords(color, where, kind, n) {
  const place = where === 'reserve'
    ? (color === 'white' ? t('white reserve') : t('black reserve'))
    : (color === 'white' ? t('white prison') : t('black prison'));
  return t('{place}: {count}', { place, count: COUNTS[kind](n) });
}

export function createBoard(root, geometry, { onMove, label = t('Board') } = {}) {
  const state = {
    position: null,           // {pieces: Map, reserve, prison, toMove}
    legal: [],                // [{uci, san}]
    movable: null,            // the colour the user may move now, or null
    orientation: 'white',
    lastMove: null,           // {from, to}
    check: false,
    selected: null,           // {from} or {drop: type}
    pending: false,
  };
  let press = null;           // a pointer press that may become a drag
  let suppressClick = false;

  root.replaceChildren();
  root.classList.add('board-wrap', 'board-' + geometry.id);
  const top = el('div', { class: 'side-panel side-top' });
  const bottom = el('div', { class: 'side-panel side-bottom' });
  const svg = svgEl('svg', {
    class: 'board', viewBox: `0 0 ${geometry.width} ${geometry.height}`,
    role: 'group', 'aria-label': label, tabindex: '-1',   // the cells are in the tab order, not the drawing
  });
  const chooser = el('div', { class: 'promo-chooser', hidden: true, role: 'dialog', 'aria-label': t('Promote to') });
  const ghost = el('div', { class: 'drag-ghost', hidden: true, 'aria-hidden': 'true' });
  const spoken = el('div', { class: 'visually-hidden board-announce', 'aria-live': 'polite', role: 'status' });
  let focusName = null;          // the cell in the tab order
  const svgWrap = el('div', { class: 'board-svg-wrap' }, svg, chooser);
  if (geometry.hasReserves) root.append(top, svgWrap, bottom); else root.append(svgWrap);
  root.append(spoken);
  document.body.appendChild(ghost);

  const cellEls = new Map();     // name -> <g>
  const cells = new Map(geometry.cells.map(c => [c.name, c]));

  function flipXY(x, y) {
    return state.orientation === 'white' ? [x, y] : [geometry.width - x, geometry.height - y];
  }

  function buildCells() {
    svg.replaceChildren();
    cellEls.clear();
    // Coordinates are drawn on a layer of their own above the cells, hidden from
    // screen readers: a cell's name is its label ("a2 empty"), and a cell holding
    // the text "2" would be a button whose label does not contain its text.
    const coords = svgEl('g', { class: 'coords', 'aria-hidden': 'true' });
    const label = (c, attrs, text) => {
      const mark = svgEl('text', { ...attrs, class: `coord coord-${c.tone}`, 'font-size': geometry.labelSize });
      mark.textContent = text;
      coords.appendChild(mark);
    };
    for (const c of geometry.cells) {
      const g = svgEl('g', { class: 'cell tone-' + c.tone, 'data-cell': c.name, role: 'button', tabindex: '-1' });
      const pts = c.points.map(([x, y]) => flipXY(x, y).map(v => v.toFixed(3)).join(',')).join(' ');
      g.appendChild(svgEl('polygon', { points: pts, class: 'cell-shape' }));
      const [cx, cy] = flipXY(c.cx, c.cy);
      c.view = { cx, cy };
      // Coordinates: every hexagon is named; squares on the edges only.
      if (geometry.id === 'hex91') {
        label(c, { x: cx.toFixed(3), y: (cy + 0.72).toFixed(3), 'text-anchor': 'middle' }, c.name);
      } else {
        const bottomRank = state.orientation === 'white' ? 1 : 8;
        const leftFile = state.orientation === 'white' ? 'a' : 'h';
        if (c.rank === bottomRank)
          label(c, { x: (cx + 0.44).toFixed(3), y: (cy + 0.45).toFixed(3), 'text-anchor': 'end' }, c.file);
        if (c.file === leftFile)
          label(c, { x: (cx - 0.45).toFixed(3), y: (cy - 0.27).toFixed(3) }, String(c.rank));
      }
      svg.appendChild(g);
      cellEls.set(c.name, g);
    }
    svg.appendChild(coords);
    if (!focusName || !cellEls.has(focusName)) focusName = geometry.cells[0].name;
    cellEls.get(focusName).setAttribute('tabindex', '0');
  }

  // The cell an arrow key leads to from `name`: the nearest one on screen in
  // that direction (within 60 degrees of it), for squares and hexagons alike.
  function neighbour(name, key) {
    const [dx, dy] = { ArrowRight: [1, 0], ArrowLeft: [-1, 0], ArrowUp: [0, -1], ArrowDown: [0, 1] }[key];
    const from = cells.get(name).view;
    let best = null, bestD = Infinity;
    for (const c of geometry.cells) {
      const vx = c.view.cx - from.cx, vy = c.view.cy - from.cy;
      const along = vx * dx + vy * dy, across = Math.abs(vx * dy - vy * dx);
      if (along <= 0.01 || across > along * 1.8) continue;
      const d = along + across * 2;
      if (d < bestD) { bestD = d; best = c.name; }
    }
    return best;
  }

  function focusCell(name) {
    cellEls.get(focusName)?.setAttribute('tabindex', '-1');
    focusName = name;
    const g = cellEls.get(name);
    g.setAttribute('tabindex', '0');
    g.focus();
  }

  // ---- drawing a position --------------------------------------------------

  function targetsOf(sel) {
    if (!sel) return new Map();
    const out = new Map();   // to -> [moves]
    for (const m of state.legal) {
      const u = parseUci(m.uci);
      if (!u) continue;
      if ((sel.from && u.from === sel.from) || (sel.drop && u.drop === sel.drop)) {
        if (!out.has(u.to)) out.set(u.to, []);
        out.get(u.to).push({ ...m, ...u });
      }
    }
    return out;
  }

  function canMoveFrom(name) {
    if (!state.movable || state.pending || !state.position) return false;
    const p = state.position.pieces.get(name);
    return !!p && p.color === state.movable && state.legal.some(m => parseUci(m.uci)?.from === name);
  }

  function canDrop(type) {
    if (!state.movable || state.pending) return false;
    return state.legal.some(m => parseUci(m.uci)?.drop === type);
  }

  function render() {
    const pos = state.position;
    const targets = targetsOf(state.selected);
    for (const [name, g] of cellEls) {
      const c = cells.get(name);
      g.querySelector('.piece')?.remove();
      const p = pos?.pieces.get(name);
      if (p) {
        const size = geometry.id === 'hex91' ? 1.35 : 0.9;
        const pg = pieceGroup(p.color, p.type);
        pg.setAttribute('transform', `translate(${(c.view.cx - size / 2).toFixed(3)} ${(c.view.cy - size / 2 - (geometry.id === 'hex91' ? 0.1 : 0)).toFixed(3)}) scale(${size / 100})`);
        g.appendChild(pg);
      }
      const sel = state.selected?.from === name;
      const isKingInCheck = state.check && p && p.type === 'k' && p.color === pos.toMove;
      g.classList.toggle('selected', sel);
      g.classList.toggle('target', targets.has(name));
      g.classList.toggle('target-capture', targets.has(name) && !!p);
      g.classList.toggle('last', !!state.lastMove && (state.lastMove.from === name || state.lastMove.to === name));
      g.classList.toggle('check', !!isKingInCheck);
      g.classList.toggle('movable', canMoveFrom(name));
      g.setAttribute('aria-label', (p ? t('{cell} {color} {piece}', { cell: name, piece: PIECE_NAMES[p.type], color: colorWord(p.color) })
        : t('{cell} empty', { cell: name }))
        + (sel ? t(', selected') : '') + (targets.has(name) ? t(', legal target') : ''));
      g.setAttribute('aria-pressed', sel ? 'true' : 'false');
    }
    if (geometry.hasReserves) renderSides();
  }

  function renderSides() {
    const pos = state.position;
    // The panels are drawn afresh: a reserve button that had the focus keeps it.
    const hadFocus = root.contains(document.activeElement) ? document.activeElement.dataset?.reserve : null;
    const topColor = state.orientation === 'white' ? 'black' : 'white';
    for (const [panel, color] of [[top, topColor], [bottom, topColor === 'white' ? 'black' : 'white']]) {
      panel.replaceChildren();
      panel.dataset.color = color;
      const reserveName = color === 'white' ? t('White reserve') : t('Black reserve');
      const res = el('div', { class: 'reserve', role: 'group', 'aria-label': reserveName });
      res.appendChild(el('span', { class: 'side-title', text: reserveName }));
      let any = false;
      for (const kind of ORDER) {
        const n = pos?.reserve?.[color]?.[kind] || 0;
        if (!n) continue;
        any = true;
        const droppable = color === state.movable && canDrop(kind);
        const b = el('button', {
          type: 'button', class: 'reserve-piece' + (state.selected?.drop === kind && droppable ? ' selected' : ''),
          'data-reserve': `${color}-${kind}`, 'data-drop': kind, disabled: !droppable,
          'aria-label': countWords(color, 'reserve', kind, n),
          'aria-pressed': state.selected?.drop === kind && droppable ? 'true' : 'false',
        }, pieceIcon(color, kind), el('span', { class: 'count', text: String(n) }));
        res.appendChild(b);
      }
      if (!any) res.appendChild(el('span', { class: 'empty-note', text: t('empty') }));
      const prisonName = color === 'white' ? t('White prison') : t('Black prison');
      const pri = el('div', { class: 'prison', role: 'group', 'aria-label': prisonName });
      pri.appendChild(el('span', { class: 'side-title', text: t('Prison') }));
      let anyP = false;
      for (const kind of ['q', 'r', 'b', 'n', 'p']) {
        const n = pos?.prison?.[color]?.[kind] || 0;
        if (!n) continue;
        anyP = true;
        pri.appendChild(el('span', {
          class: 'prison-piece', 'data-prison': `${color}-${kind}`,
          'aria-label': countWords(color, 'prison', kind, n) + (kind === 'p' ? ' ' + t('(gone)') : ''),
          role: 'img',
        }, pieceIcon(color, kind), el('span', { class: 'count', text: String(n) })));
      }
      if (!anyP) pri.appendChild(el('span', { class: 'empty-note', text: t('empty') }));
      panel.append(res, pri);
    }
    if (hadFocus) root.querySelector(`[data-reserve="${hadFocus}"]`)?.focus();
  }

  // ---- making a move ------------------------------------------------------

  function choosePromotion(options, color) {
    return new Promise(resolve => {
      chooser.replaceChildren(el('span', { class: 'promo-title', text: t('Promote to') }));
      for (const m of options) {
        const b = el('button', { type: 'button', class: 'promo-option', 'data-promo': m.promo, 'aria-label': PIECE_NAMES[m.promo] },
          pieceIcon(color, m.promo));
        b.addEventListener('click', () => { chooser.hidden = true; resolve(m); });
        chooser.appendChild(b);
      }
      const cancel = el('button', { type: 'button', class: 'promo-cancel', text: t('Cancel') });
      cancel.addEventListener('click', () => { chooser.hidden = true; resolve(null); });
      chooser.appendChild(cancel);
      chooser.hidden = false;
      chooser.querySelector('button').focus();
    });
  }

  async function attempt(to) {
    const options = targetsOf(state.selected).get(to);
    if (!options) return false;
    let move = options[0];
    // A promotion always asks, offering only what the server lists as legal
    // (in Korpalski: the types in the mover's prison).
    if (options.some(o => o.promo)) {
      move = await choosePromotion(options.filter(o => o.promo), state.movable);
      if (!move) { render(); return true; }
    }
    state.selected = null;
    state.pending = true;
    render();
    try {
      await onMove?.(move.uci, move);
    } finally {
      state.pending = false;
      render();
    }
    return true;
  }

  function clickCell(name) {
    if (state.pending) return;
    if (state.selected && targetsOf(state.selected).has(name)) { attempt(name); return; }
    if (canMoveFrom(name) && state.selected?.from !== name) state.selected = { from: name };
    else state.selected = null;
    render();
  }

  function clickReserve(type) {
    if (!canDrop(type)) return;
    state.selected = state.selected?.drop === type ? null : { drop: type };
    render();
  }

  // ---- pointer input: click-click and drag-and-drop -------------------------

  function cellAt(x, y) {
    const hit = document.elementFromPoint(x, y);
    return hit?.closest?.('[data-cell]')?.dataset.cell || null;
  }

  function startDrag(e) {
    const rect = svg.getBoundingClientRect();
    const px = rect.width / geometry.width * (geometry.id === 'hex91' ? 1.5 : 1);
    ghost.replaceChildren(pieceIcon(press.color, press.type));
    ghost.style.width = ghost.style.height = px + 'px';
    ghost.hidden = false;
    press.size = px;
    press.dragging = true;
    if (press.from) {
      state.selected = { from: press.from };
      cellEls.get(press.from).classList.add('drag-origin');
    } else {
      state.selected = { drop: press.type };
    }
    render();
    if (press.from) cellEls.get(press.from).classList.add('drag-origin');
    moveGhost(e);
  }

  function moveGhost(e) {
    ghost.style.transform = `translate(${e.clientX - press.size / 2}px, ${e.clientY - press.size / 2}px)`;
  }

  function onDown(e, from, type, color) {
    if (e.button !== 0 || state.pending) return;
    // No pointer capture: it would retarget the click that follows a
    // press without a drag. The window hears the rest of the gesture.
    press = { id: e.pointerId, x: e.clientX, y: e.clientY, from, type, color, dragging: false };
  }

  function onMovePtr(e) {
    if (!press || e.pointerId !== press.id) return;
    if (!press.dragging && Math.hypot(e.clientX - press.x, e.clientY - press.y) > DRAG_THRESHOLD) startDrag(e);
    if (press.dragging) { moveGhost(e); e.preventDefault(); }
  }

  function onUp(e) {
    if (!press || e.pointerId !== press.id) return;
    const p = press;
    press = null;
    if (!p.dragging) return;           // a click: the click handler does it
    suppressClick = true;
    setTimeout(() => { suppressClick = false; }, 0);
    ghost.hidden = true;
    if (p.from) cellEls.get(p.from)?.classList.remove('drag-origin');
    const to = cellAt(e.clientX, e.clientY);
    if (to && targetsOf(state.selected).has(to)) { attempt(to); return; }
    if (to !== p.from) state.selected = null;
    render();
  }

  function onCancel() {
    if (!press) return;
    if (press.from) cellEls.get(press.from)?.classList.remove('drag-origin');
    press = null;
    ghost.hidden = true;
    render();
  }

  svg.addEventListener('pointerdown', e => {
    const name = e.target.closest('[data-cell]')?.dataset.cell;
    if (!name || !canMoveFrom(name)) return;
    const p = state.position.pieces.get(name);
    onDown(e, name, p.type, p.color);
  });
  window.addEventListener('pointermove', onMovePtr);
  window.addEventListener('pointerup', onUp);
  window.addEventListener('pointercancel', onCancel);
  svg.addEventListener('click', e => {
    if (suppressClick) return;
    const name = e.target.closest('[data-cell]')?.dataset.cell;
    if (name) clickCell(name);
  });
  svg.addEventListener('keydown', e => {
    const name = e.target.closest?.('[data-cell]')?.dataset.cell;
    if (!name) return;
    if (e.key === 'Enter' || e.key === ' ') { e.preventDefault(); clickCell(name); return; }
    if (!e.key.startsWith('Arrow')) return;
    e.preventDefault();
    const next = neighbour(name, e.key);
    if (next) focusCell(next);
  });
  svg.addEventListener('focusin', e => {
    const name = e.target.closest?.('[data-cell]')?.dataset.cell;
    if (name && name !== focusName) { cellEls.get(focusName)?.setAttribute('tabindex', '-1'); focusName = name; e.target.closest('[data-cell]').setAttribute('tabindex', '0'); }
  });
  for (const panel of [top, bottom]) {
    panel.addEventListener('pointerdown', e => {
      const b = e.target.closest('[data-drop]');
      if (!b || b.disabled) return;
      onDown(e, null, b.dataset.drop, panel.dataset.color);
    });
    panel.addEventListener('click', e => {
      if (suppressClick) return;
      const b = e.target.closest('[data-drop]');
      if (b && !b.disabled) clickReserve(b.dataset.drop);
    });
  }

  buildCells();

  return {
    /* Shows a position. `opts`: legal (moves of the side to move), movable
     * (the colour the user may move, or null), lastMove {from, to}, check. */
    update(fen, opts = {}) {
      state.position = geometry.parse(fen);
      state.legal = opts.legal || [];
      state.movable = opts.movable && opts.movable === state.position.toMove ? opts.movable : null;
      state.lastMove = opts.lastMove || null;
      state.check = !!opts.check;
      // Keep a selection only while it still has targets.
      if (state.selected && targetsOf(state.selected).size === 0) state.selected = null;
      chooser.hidden = true;
      render();
    },
    setOrientation(color) {
      if (color === state.orientation) return;
      state.orientation = color;
      buildCells();
      render();
    },
    flip() { this.setOrientation(state.orientation === 'white' ? 'black' : 'white'); },
    /* Says text to screen readers (a move in words). */
    announce(text) { spoken.textContent = text; },
    get orientation() { return state.orientation; },
    destroy() {
      ghost.remove();
      window.removeEventListener('pointermove', onMovePtr);
      window.removeEventListener('pointerup', onUp);
      window.removeEventListener('pointercancel', onCancel);
    },
  };
}
