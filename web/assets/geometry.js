// Board geometries as data: the cells of each variant, where they are drawn,
// their colour, and how the variant's FEN places men on them. The board
// component (board.js) draws whatever geometry it is given and never asks
// which variant it shows.
import { t } from './i18n.js';

// Names of the men in the page's language (getters: read when drawn).
export const PIECE_NAMES = {
  get k() { return t('king'); }, get q() { return t('queen'); }, get r() { return t('rook'); },
  get b() { return t('bishop'); }, get n() { return t('knight'); }, get p() { return t('pawn'); },
};

// ---- Korpalski: 8x8 squares -------------------------------------------------

const FILES8 = 'abcdefgh';
// Each side's full set; the prison is what is neither on the board nor in
// reserve (docs/rules/korpalski.md §1).
const FULL_SET = { k: 1, q: 1, r: 2, b: 2, n: 2, p: 8 };

function squareCells() {
  const cells = [];
  for (let r = 1; r <= 8; r++) {
    for (let f = 0; f < 8; f++) {
      const x = f, y = 8 - r;
      cells.push({
        name: FILES8[f] + r,
        cx: x + 0.5, cy: y + 0.5,
        points: [[x, y], [x + 1, y], [x + 1, y + 1], [x, y + 1]],
        tone: (f + r) % 2 === 1 ? 'light' : 'dark',
        file: FILES8[f], rank: r,
      });
    }
  }
  return cells;
}

/* Parses a Korpalski FEN with reserves: board, reserves, prisons, side to move. */
function parseKorpalski(fen) {
  const m = /^([^\[\s]+)\[([^\]]*)\]\s+([wb])/.exec(fen);
  if (!m) throw new Error(t('Not a Korpalski FEN: {fen}', { fen }));
  const pieces = new Map();
  const rows = m[1].split('/');
  rows.forEach((row, i) => {
    let f = 0;
    for (const ch of row) {
      if (/\d/.test(ch)) { f += Number(ch); continue; }
      pieces.set(FILES8[f] + (8 - i), { color: ch === ch.toUpperCase() ? 'white' : 'black', type: ch.toLowerCase() });
      f++;
    }
  });
  const reserve = { white: {}, black: {} };
  for (const ch of m[2]) {
    const side = ch === ch.toUpperCase() ? 'white' : 'black';
    const t = ch.toLowerCase();
    reserve[side][t] = (reserve[side][t] || 0) + 1;
  }
  const prison = { white: {}, black: {} };
  for (const side of ['white', 'black']) {
    const onBoard = {};
    for (const p of pieces.values()) if (p.color === side) onBoard[p.type] = (onBoard[p.type] || 0) + 1;
    for (const t of ['q', 'r', 'b', 'n', 'p']) {
      const n = FULL_SET[t] - (onBoard[t] || 0) - (reserve[side][t] || 0);
      if (n > 0) prison[side][t] = n;   // pawns: captured or promoted, gone for good
    }
  }
  return { pieces, reserve, prison, toMove: m[3] === 'w' ? 'white' : 'black' };
}

export const SQUARE8 = {
  id: 'square8',
  cells: squareCells(),
  width: 8, height: 8,
  hasReserves: true,
  parse: parseKorpalski,
  labelSize: 0.22,
};

// ---- Glinski: 91 hexagons ---------------------------------------------------

const FILES11 = 'abcdefghikl';
const FILE_LEN = [6, 7, 8, 9, 10, 11, 10, 9, 8, 7, 6];
const R = 1;                 // hexagon circumradius
const H = Math.sqrt(3) / 2;  // half a cell's height

function hexCells() {
  const cells = [];
  for (let fi = 0; fi < 11; fi++) {
    const c = fi - 5;
    for (let r = 1; r <= FILE_LEN[fi]; r++) {
      // docs/rules/glinski.md §1: y = |c| + 2(r-1), in half-cells (0..20).
      const y = Math.abs(c) + 2 * (r - 1);
      const cx = 8.6 + 1.5 * R * c;   // 0.1 to spare beyond the outer corners
      const cy = 0.3 + (20 - y) * H + H;
      const points = [];
      for (let k = 0; k < 6; k++) {
        const a = Math.PI / 3 * k;
        points.push([cx + R * Math.cos(a), cy + R * Math.sin(a)]);
      }
      // Cells one diagonal step apart share a colour: the colour is y mod 3.
      const tone = ['dark', 'mid', 'light'][y % 3];
      cells.push({ name: FILES11[fi] + r, cx, cy, points, tone, file: FILES11[fi], rank: r });
    }
  }
  return cells;
}

/* Parses Glinski HFEN (docs/rules/glinski.md §5): ranks 11 down to 1. */
function parseGlinski(fen) {
  const [board, side] = fen.trim().split(/\s+/);
  const pieces = new Map();
  const ranks = board.split('/');
  if (ranks.length !== 11) throw new Error(t('Not a Glinski HFEN: {fen}', { fen }));
  ranks.forEach((row, i) => {
    const rank = 11 - i;
    const files = [...FILES11].filter((_, fi) => FILE_LEN[fi] >= rank);
    let k = 0;
    for (const tok of row.match(/\d+|[A-Za-z]/g) || []) {
      if (/\d/.test(tok)) { k += Number(tok); continue; }
      pieces.set(files[k] + rank, { color: tok === tok.toUpperCase() ? 'white' : 'black', type: tok.toLowerCase() });
      k++;
    }
  });
  return { pieces, reserve: null, prison: null, toMove: side === 'b' ? 'black' : 'white' };
}

export const HEX91 = {
  id: 'hex91',
  cells: hexCells(),
  width: 17.2, height: 0.6 + 22 * H,
  hasReserves: false,
  parse: parseGlinski,
  labelSize: 0.3,
};

export function geometryFor(variant) {
  return variant === 'glinski' ? HEX91 : SQUARE8;
}

/* Splits a move in UCI style (both variants) into {from, to, drop, promo}. */
export function parseUci(uci) {
  let m = /^([KQRBNP])@([a-l]\d{1,2})$/.exec(uci);
  if (m) return { drop: m[1].toLowerCase(), from: null, to: m[2], promo: null };
  m = /^([a-l]\d{1,2})([a-l]\d{1,2})([qrbn])?$/.exec(uci);
  if (m) return { drop: null, from: m[1], to: m[2], promo: m[3] || null };
  return null;
}
