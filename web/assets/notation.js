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
