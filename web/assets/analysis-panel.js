// "Analyse with the engine": the engine's best lines for a
// position, from POST /v1/analyse, for finished games' pages and the study
// board. korpd refuses analysis of a game the asker is still playing; the
// pages do not offer it there either.
//
//   const panel = createAnalysisPanel({ variant, position, gameId, format, onLine, plies });
//   parent.append(panel.el);
//
// variant     -> "korpalski" or "glinski", or a function answering it.
// position()  -> the FEN to analyse now (the study board's current one), or
//                null; with `plies` instead (a finished game's moves, each
//                {ply, san, fen}), the panel offers a choice of position.
// format(san) -> the move in the page's notation. This is the hook for the
//                notation setting (Polish for Korpalski, Hungarian for
//                Glinski): the panel shows whatever it returns, and SAN
//                (from the server) when no format is given.
// onLine(uci[], fen) -> plays a line on the page's board (optional: without
//                it the lines are shown, not played).
// panel.clear() forgets the lines shown (call it when the position changes).

import { api, me } from './api.js';
import { h, messageBox } from './ui.js';
import { t, number } from './i18n.js';

const LINES = 3;
const MOVETIME_MS = 1000;

/* A score for people, from White's point of view: "+0.35", "-1.20", "#3", "#-2". */
export function scoreText(line, whiteToMove) {
  const sign = whiteToMove ? 1 : -1;
  if (line.mate !== undefined) return `#${sign * line.mate}`;
  const cp = sign * line.cp;
  return number(cp / 100, { minimumFractionDigits: 2, maximumFractionDigits: 2, signDisplay: 'exceptZero' });
}

/* The line with move numbers from the FEN's side to move and fullmove number:
 * "12. Nf3 Nc6 13. e4" or "12... Nc6 13. e4". */
export function lineText(sans, fen, format = s => s) {
  const fields = fen.replace(/\[[^\]]*\]/, '').trim().split(/\s+/);
  let white = fields[1] !== 'b';
  let n = Number(fields[fields.length - 1]) || 1;
  const words = [];
  sans.forEach((san, i) => {
    if (white) words.push(`${n}.`);
    else if (i === 0) words.push(`${n}...`);
    words.push(format(san));
    if (!white) n++;
    white = !white;
  });
  return words.join(' ');
}

export function createAnalysisPanel({ variant, position, gameId = null, format, onLine, plies = null }) {
  const msg = messageBox();
  msg.id = 'analysis-message';
  const info = h('p', { id: 'analysis-info', class: 'hint', 'aria-live': 'polite' });
  const list = h('ol', { id: 'analysis-lines', class: 'analysis-lines', 'aria-label': t('Engine lines') });
  const run = h('button', { type: 'button', id: 'analysis-run', class: 'primary' }, t('Analyse with the engine'));
  let plySel = null;
  if (plies && plies.length) {
    plySel = h('select', { id: 'analysis-ply', 'aria-label': t('Position to analyse') },
      ...plies.map(p => h('option', { value: String(p.ply) },
        t('After {move}', { move: `${Math.ceil(p.ply / 2)}${p.ply % 2 ? '.' : '…'} ${format ? format(p.san) : p.san}` }))));
    plySel.value = String(plies[plies.length - 1].ply);
    plySel.addEventListener('change', () => clear());
  }
  const signedIn = !!me();
  const el = h('section', { id: 'analysis-panel', class: 'analysis-panel', 'aria-labelledby': 'analysis-title' },
    h('h2', { id: 'analysis-title' }, t('Engine analysis')),
    signedIn
      ? h('div', { class: 'toolbar' }, plySel ? h('label', { for: 'analysis-ply' }, t('Position')) : null, plySel, run)
      : h('p', { class: 'hint' }, h('a', { href: `/login?next=${encodeURIComponent(location.pathname + location.search)}` }, t('Sign in')),
        ' ', t('to analyse with the engine.')),
    msg, info, list);
  let busy = false, generation = 0;

  function currentFen() {
    if (plySel) return plies.find(p => String(p.ply) === plySel.value)?.fen || null;
    // (a game without moves: its position)
    return position ? position() : null;
  }

  function clear() {
    generation++;
    list.replaceChildren();
    info.textContent = '';
    msg.clear();
  }

  function draw(answer, fen) {
    const whiteToMove = !/ b /.test(fen.replace(/\[[^\]]*\]/, ''));
    if (!answer.lines.length) {
      info.textContent = t('No legal move in this position.');
      return;
    }
    info.textContent = t('Depth {depth}, {nodes} positions searched; scores from White\'s point of view.',
      { depth: answer.depth, nodes: number(answer.nodes) });
    list.replaceChildren(...answer.lines.map((line, i) => {
      const score = h('span', { class: 'analysis-score' }, scoreText(line, whiteToMove));
      const words = lineText(line.pv_san, fen, format);
      const body = onLine
        ? h('button', { type: 'button', class: 'linklike analysis-line', 'data-line': String(i + 1),
          title: t('Play this line on the board'), onclick: () => onLine(line.pv_uci.slice(), fen) }, words)
        : h('span', { class: 'analysis-line', 'data-line': String(i + 1) }, words);
      return h('li', {}, score, ' ', body);
    }));
  }

  run.addEventListener('click', async () => {
    if (busy) return;
    const fen = currentFen();
    if (!fen) return;
    clear();
    const mine = generation;
    busy = true;
    run.disabled = true;
    info.textContent = t('The engine is thinking…');
    try {
      const body = { variant: typeof variant === 'function' ? variant() : variant, fen, multipv: LINES, movetime_ms: MOVETIME_MS };
      if (gameId) body.game_id = gameId;
      const answer = await api('POST', '/v1/analyse', body);
      if (mine === generation) draw(answer, fen);
    } catch (e) {
      if (mine === generation) {
        info.textContent = '';
        msg.show(e.status === 503 ? t('The engine is busy; try again in a few seconds.') : e.message, 'error');
      }
    } finally {
      busy = false;
      run.disabled = false;
    }
  });

  return { el, clear };
}
