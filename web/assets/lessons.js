// The lessons of the learn pages (/learn/korpalski, /learn/glinski), as data:
// each a title, a few paragraphs, and a position to try moves in (the
// server's rules decide which are legal). Taken from docs/rules/ (the
// project's reference for every rule); the example games are the inventor's
// own and Glinski's, and real Hungarian tournament games.

import { t } from './i18n.js';

// Where each variant's game starts: the learn pages show it more than once.
const KORPALSKI_START = '8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1';
const GLINSKI_START = 'b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1';

// One lesson: its id (the page's anchor), its title, the position to try
// moves in, and its paragraphs.
function lesson(id, title, fen, ...text) {
  return { id, title, fen, text };
}

// A function, so that the texts are read in the page's language when drawn.
export function lessons() {
  return {
  korpalski: {
    title: t('Korpalski chess'),
    intro: t('Robert Korpalski, a Polish chess coach, invented this game in the 1970s ("dostawianka"). ' +
      'It uses one ordinary board and one ordinary set, and nothing else: the board starts empty, ' +
      'and every chessman is placed on it from its owner\'s reserve.'),
    lessons: [
      lesson('kings-first', t('An empty board, and the kings first'), KORPALSKI_START,
        t('Both sides start with all sixteen men in reserve, beside the board. ' +
          'The first move of each side places its king, anywhere.'),
        t('Try it: every square is a legal first move for White\'s king.')),
      lesson('kings-apart', t('Kings never touch'),
        '8/8/8/8/4K3/8/8/8[QRRBBNNPPPPPPPPkqrrbbnnpppppppp] b - - 0 1',
        t('Black\'s first move places the black king on any square not next to the white king.'),
        t('Here the white king stands on e4: the nine squares around it (and its own) are refused.')),
      lesson('drops', t('Drops anywhere, but never with check'),
        '4k3/8/8/8/8/8/8/4K3[QRRBBNNPPPPPPPPqrrbbnnpppppppp] w - - 0 2',
        t('From then on a move is either an ordinary chess move of a man on the board, or a drop: ' +
          'a man from the mover\'s reserve put on any empty square.'),
        t('The key rule of the game: a drop may never give check. Try to drop the queen on the e-file ' +
          'or on a diagonal of the black king: the board does not offer it.')),
      lesson('block-by-drop', t('A drop may block a check'),
        'k3r3/8/8/8/8/8/8/4K3[QRRBBNNPPPPPPPPqrbbnnpppppppp] w - - 0 3',
        t('The black rook on e8 checks the white king. White may step aside, or drop a man between ' +
          'them: interposing by drop is a normal defence. A position that would be mate in ordinary ' +
          'chess is not mate here if a drop can block the check.')),
      lesson('pawn-drops', t('Pawns: not on the first or the last rank'),
        '7k/8/8/8/8/8/8/K7[QRRBBNNPPPPPPPPqrrbbnnpppppppp] w - - 0 2',
        t('Pawns are dropped on ranks 2 to 7 only. A pawn dropped on its own second rank may still ' +
          'advance two squares, and en passant is as in chess.'),
        t('Pick the pawn in White\'s reserve: ranks 1 and 8 are not offered.')),
      lesson('promotion', t('Promotion only to a captured piece'),
        'k7/4P3/8/8/8/8/8/K7[QRRBBNPPPPPPPqrrbbnnpppppppp] w - - 0 20',
        t('A pawn may reach its last rank only if its owner has a captured piece of its own in ' +
          'prison, and it becomes one of those. White has lost a knight here (it is in White\'s prison): ' +
          'the pawn on e7 may promote, but only to a knight.')),
      lesson('immobile-pawn', t('The pawn that cannot move still gives check'),
        '3k4/4P3/8/8/8/8/8/4K3[QRRBBNNPPPPPPPqrrbbnnpppppppp] b - - 0 10',
        t('With an empty prison a pawn cannot step onto its last rank at all. It still attacks the two ' +
          'squares in front of it: the white pawn on e7 cannot move, yet the black king on d8 is in check.')),
      lesson('ends', t('Mate, stalemate, and the draws'), KORPALSKI_START,
        t('There is no castling. Checkmate wins; stalemate (no legal move, drops included) is a draw.'),
        t('The fifty-move rule counts moves without a capture, a pawn move or a drop. A threefold ' +
          'repetition needs the same reserves too. Material is insufficient only when the men on the ' +
          'board and in the reserves together cannot mate. A draw may be agreed only when both ' +
          'reserves are empty.')),
    ],
    games: [
      { title: t('The inventor\'s game (0-1 by mate), from his rules page'), file: 'inventor-sample.pgn' },
    ],
  },
  glinski: {
    title: t('Glinski\'s hexagonal chess'),
    intro: t('Władysław Gliński\'s hexagonal chess (1936-1949, final form 1972) is the most played hexagonal ' +
      'chess. Its board has 91 cells in three colours; each side has a king, a queen, two rooks, ' +
      'two knights, three bishops and nine pawns.'),
    lessons: [
      lesson('board', t('The board and the start'), GLINSKI_START,
        t('Eleven files, a to l without j, of 6 to 11 cells; cells are numbered from White\'s side. ' +
          'Each side has three bishops, one for each colour of cell.'),
        t('Pick any white man to see where it may go.')),
      lesson('rook', t('The rook: six directions'), '1/2k/5/7/9/5R5/11/11/11/11/6K4 w - 0 1',
        t('A rook moves any distance across the edges of the cells: six directions.')),
      lesson('bishop', t('The bishop: six diagonals, one colour'), '1/2k/5/7/9/5B5/11/11/11/11/6K4 w - 0 1',
        t('A bishop moves through the corners of the cells, to the nearest cell of its own colour: ' +
          'six directions, and it never changes colour.')),
      lesson('queen-king', t('The queen and the king: twelve directions'),
        '1/2k/5/7/9/5Q5/11/11/11/11/6K4 w - 0 1',
        t('The queen moves as rook and bishop together. The king steps once in any of the twelve ' +
          'directions. There is no castling.')),
      lesson('knight', t('The knight: twelve jumps'), '1/2k/5/7/9/5N5/11/11/11/11/6K4 w - 0 1',
        t('A knight jumps one diagonal step and one straight step outwards: twelve cells, over any men.')),
      lesson('pawns', t('Pawns'), GLINSKI_START,
        t('A pawn moves one cell straight up its file and captures on the two cells at 60 degrees ' +
          'ahead. From any pawn starting cell of its side it may advance two cells; en passant as in ' +
          'chess. On the last cell of its file it becomes a queen, rook, bishop or knight.')),
      lesson('stalemate', t('Stalemate scores three quarters'), GLINSKI_START,
        t('Checkmate wins. Stalemate does not draw: the side that stalemates scores 3/4, the ' +
          'stalemated side 1/4. Repetition, the fifty-move rule and agreement draw, and a game ' +
          'where neither side can mate is drawn at once.')),
    ],
    games: [
      { title: t('Glinski\'s fool\'s mate, from his 1974 book'), file: 'glinski-fools-mate.pgn' },
      { title: t('Falusi - Somogyi, Bóly 1981 (0-1 by mate)'), file: 'glinski-1981-falusi-somogyi.pgn' },
      { title: t('Széles - Kolozsvári, Bóly 1981 (0-1 by mate)'), file: 'glinski-1981-szeles-kolozsvari.pgn' },
      { title: t('Rudolf - Szokodi, Zsolnay Cup 1982 (1-0 by mate)'), file: 'glinski-1982-rudolf-szokodi.pgn' },
    ],
  },
};
}
