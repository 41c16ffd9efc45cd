// Move text for people: SAN as korpd stores it, and for Korpalski the
// inventor's short Polish notation (docs/rules/korpalski.md §5), which is
// SAN written with other signs: K H W G S for K Q R B N, "p" before pawn
// moves, "/" for drops, ":" for captures, "X" for mate.

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

const NAMES = { K: 'king', Q: 'queen', R: 'rook', B: 'bishop', N: 'knight', P: 'pawn' };

/*
 * A SAN move in words for screen readers: "White drops a knight on f3, check",
 * "Black knight takes on e5", "White pawn to e8, promotes to a queen, mate".
 * Long-form Glinski moves (Qc3xBf9#) are read the same way.
 */
export function moveWords(san, color) {
  const side = color === 'black' ? 'Black' : 'White';
  let s = san.replace(/[!?]+$/, '');
  let end = '';
  if (s.endsWith('#')) { end = ', checkmate'; s = s.slice(0, -1); }
  else if (s.endsWith('+')) { end = ', check'; s = s.slice(0, -1); }
  let promo = '';
  const p = /=?([QRBN])$/.exec(s);
  if (p && /[a-l]\d+=?[QRBN]$/.test(s)) { promo = `, promotes to a ${NAMES[p[1]]}`; s = s.slice(0, -p[0].length); }
  const drop = /^([KQRBNP]?)@([a-l]\d+)$/.exec(s);
  if (drop) return `${side} drops a ${NAMES[drop[1] || 'P']} on ${drop[2]}${end}`;
  const piece = /^[KQRBN]/.test(s) ? NAMES[s[0]] : 'pawn';
  const cells = s.match(/[a-l]\d+/g) || [];
  const to = cells[cells.length - 1] || s;
  const takes = s.includes('x');
  return `${side} ${piece} ${takes ? 'takes on' : 'to'} ${to}${promo}${end}`;
}
