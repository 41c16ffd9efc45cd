// Move text for people: SAN as korpd stores it, and for Korpalski the
// inventor's short Polish notation (docs/rules/korpalski.md §5), which is
// SAN written with other signs: K H W G S for K Q R B N, "p" before pawn
// moves, "/" for drops, ":" for captures, "X" for mate.

import { t, language } from './i18n.js';

const POLISH = { K: 'K', Q: 'H', R: 'W', B: 'G', N: 'S', P: 'p' };

/* The short Polish form of a Korpalski SAN move ("Qxb2#" -> "H:b2X"). */
export function sanToPolish(san) {
  let s = san;
  let mark = '';
  const m = /[+#]+$/.exec(s);
  if (m) { mark = m[0].replace('#', 'X'); s = s.slice(0, -m[0].length); }
  s = s.replace(/=([QRBN])/, (_, p) => '=' + POLISH[p]);
  const drop = /^([KQRBNP]?)@(.+)$/.exec(s);
  if (drop) return POLISH[drop[1] || 'P'] + '/' + drop[2] + mark;
  s = s.replace(/x/g, ':');
  if (/^[KQRBN]/.test(s)) s = POLISH[s[0]] + s.slice(1);
  else s = 'p' + s;
  return s + mark;
}

// Piece names said three ways, because Polish and Hungarian inflect them:
// the man that moves, the man put on the board, the man a pawn becomes.
const NAMES = {
  K: () => t('king'), Q: () => t('queen'), R: () => t('rook'),
  B: () => t('bishop'), N: () => t('knight'), P: () => t('pawn'),
};
const DROPPED = {
  K: () => t('a king'), Q: () => t('a queen'), R: () => t('a rook'),
  B: () => t('a bishop'), N: () => t('a knight'), P: () => t('a pawn'),
};
const PROMOTED = {
  Q: () => t(', promotes to a queen'), R: () => t(', promotes to a rook'),
  B: () => t(', promotes to a bishop'), N: () => t(', promotes to a knight'),
};

/*
 * A SAN move in words for screen readers, in the page's language: "White
 * drops a knight on f3, check", "Black knight takes on e5", "White pawn to
 * e8, promotes to a queen, checkmate". Long-form Glinski moves (Qc3xBf9#)
 * are read the same way.
 */
export function moveWords(san, color) {
  const side = color === 'black' ? t('Black') : t('White');
  let s = san.replace(/[!?]+$/, '');
  let end = '';
  if (s.endsWith('#')) { end = t(', checkmate'); s = s.slice(0, -1); }
  else if (s.endsWith('+')) { end = t(', check'); s = s.slice(0, -1); }
  let promo = '';
  const p = /=?([QRBN])$/.exec(s);
  if (p && /[a-l]\d+=?[QRBN]$/.test(s)) { promo = PROMOTED[p[1]](); s = s.slice(0, -p[0].length); }
  const drop = /^([KQRBNP]?)@([a-l]\d+)$/.exec(s);
  if (drop) return t('{side} drops {piece} on {cell}', { side, piece: DROPPED[drop[1] || 'P'](), cell: drop[2] }) + end;
  const piece = /^[KQRBN]/.test(s) ? NAMES[s[0]]() : NAMES.P();
  const cells = s.match(/[a-l]\d+/g) || [];
  const to = cells[cells.length - 1] || s;
  const takes = s.includes('x');
  return (takes ? t('{side} {piece} takes on {cell}', { side, piece, cell: to })
    : t('{side} {piece} to {cell}', { side, piece, cell: to })) + promo + end;
}

// Notation by language. Three notations: 'san'; 'polish' (for
// Korpalski the inventor's, for Glinski SAN with Polish letters K H W G S);
// 'hungarian' (SAN with Hungarian letters K V B F H). The default follows
// the page's language; a choice made on a game page is kept in this
// browser. The move box reads every notation whatever is shown.
const LETTERS = {
  pl: { K: 'K', Q: 'H', R: 'W', B: 'G', N: 'S' },
  hu: { K: 'K', Q: 'V', R: 'B', B: 'F', N: 'H' },
};
const STORE = 'korp-notation';
const NOTATIONS = ['san', 'polish', 'hungarian'];

export function notationChoice(lang = language()) {
  let stored = null;
  try { stored = localStorage.getItem(STORE); } catch { /* storage off */ }
  if (NOTATIONS.includes(stored)) return stored;
  return lang === 'pl' ? 'polish' : lang === 'hu' ? 'hungarian' : 'san';
}

export function setNotationChoice(value) {
  try { localStorage.setItem(STORE, NOTATIONS.includes(value) ? value : 'san'); } catch { /* storage off */ }
}

/* SAN with the piece letters of `lang` (squares are lower case, men upper). */
export function sanWithLetters(san, lang) {
  const map = LETTERS[lang];
  return map ? san.replace(/[KQRBN]/g, c => map[c]) : san;
}

/* A SAN move in a notation. */
export function moveText(san, variant, choice = notationChoice()) {
  if (choice === 'polish') return variant === 'korpalski' ? sanToPolish(san) : sanWithLetters(san, 'pl');
  if (choice === 'hungarian') return sanWithLetters(san, 'hu');
  return san;
}

/* A ply as the replay endpoint gives it ({san, polish}): in SAN, Korpalski
 * moves are followed by the inventor's form ("Nf3 (S/f3)"). */
export function moveLabel(ply, variant, choice = notationChoice()) {
  if (choice === 'san') return variant === 'korpalski' && ply.polish ? `${ply.san} (${ply.polish})` : ply.san;
  if (choice === 'polish' && variant === 'korpalski' && ply.polish) return ply.polish;
  return moveText(ply.san, variant, choice);
}
