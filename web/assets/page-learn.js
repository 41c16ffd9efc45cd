// The learn pages (/learn/korpalski, /learn/glinski): the rules, each shown on
// a live board the reader can try moves on (the server's rules answer, through
// POST /v1/replay), then the variant's example games to replay on the study
// board. The lessons are data (lessons.js).

import { api } from './api.js';
import { createBoard } from './board.js';
import { geometryFor, parseUci } from './geometry.js';
import { h, messageBox } from './ui.js';
import { lessons } from './lessons.js';
import { t } from './i18n.js';
import { moveLabel } from './notation.js';

const STATUS_WORDS = {
  checkmate: () => t('checkmate'), stalemate: () => t('stalemate'),
  'insufficient-material': () => t('a draw: neither side can mate'),
};

function toMoveOf(fen) {
  return / b /.test(fen.replace(/\[[^\]]*\]/, '')) ? 'black' : 'white';
}

// One lesson: its text, a board on its position, what the last move did, a reset.
function lessonSection(variant, lesson, boards) {
  const msg = messageBox();
  const said = h('p', { class: 'hint lesson-said', 'aria-live': 'polite' });
  const boardRoot = h('div', { class: 'lesson-board' });
  const reset = h('button', { type: 'button', class: 'lesson-reset' }, t('Start again'));
  const section = h('section', { class: 'card lesson', id: `lesson-${lesson.id}`, 'data-lesson': lesson.id },
    h('h2', {}, lesson.title), ...lesson.text.map(para => h('p', {}, para)),
    boardRoot, said, msg, reset);
  let moves = [];
  const board = createBoard(boardRoot, geometryFor(variant), {
    label: t('{title}: board', { title: lesson.title }),
    onMove: async uci => { moves.push(uci); await show(); },
  });
  boards.push(board);

  async function show() {
    try {
      const r = await api('POST', '/v1/replay', { variant, fen: lesson.fen, moves, legal: true });
      const last = r.plies[r.plies.length - 1];
      const u = last ? parseUci(last.uci) : null;
      const toMove = toMoveOf(r.fen);
      board.update(r.fen, { legal: r.legal, movable: toMove, lastMove: u ? { from: u.from, to: u.to } : null, check: !!last?.check });
      boardRoot.dataset.legal = String(r.legal.length);
      boardRoot.dataset.ready = 'true';
      const side = toMove === 'white' ? t('White') : t('Black');
      said.textContent = last
        ? `${moveLabel(last, variant)}: ${last.status !== 'ongoing' ? STATUS_WORDS[last.status]()
          : (last.check ? t('{side} to move, in check', { side }) : t('{side} to move', { side }))}.`
        : t('{side} to move: legal moves: {n}.', { side, n: r.legal.length });
      msg.clear();
    } catch (e) {
      moves.pop();
      msg.show(e.message, 'error');
    }
  }
  reset.addEventListener('click', () => { moves = []; show(); });
  show();
  return section;
}

export async function render(main, { params }) {
  const variant = params[0] === 'glinski' ? 'glinski' : 'korpalski';
  const LESSONS = lessons();
  const course = LESSONS[variant];
  const other = variant === 'glinski' ? 'korpalski' : 'glinski';
  document.title = t('Learn {title}', { title: course.title }) + ' · korp';
  const boards = [];
  main.append(h('h1', {}, t('Learn {title}', { title: course.title })), h('p', {}, course.intro),
    h('p', { class: 'hint' }, t('Every board below takes moves: pick a man (or one in reserve), then a cell. Only legal moves are offered.'), ' ',
      h('a', { href: `/learn/${other}` }, t('Learn {title} too', { title: LESSONS[other].title })), '.'));
  for (const lesson of course.lessons) main.append(lessonSection(variant, lesson, boards));
  main.append(h('section', { class: 'card', id: 'example-games' }, h('h2', {}, t('Games to replay')),
    h('ul', { class: 'list' }, ...course.games.map(g => h('li', {},
      h('a', { href: `/study?variant=${variant}&example=${encodeURIComponent(g.file)}` }, g.title))))));
  return () => boards.forEach(b => b.destroy());
}
