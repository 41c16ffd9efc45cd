/*
 * korpalski_board.h — the 8x8 board in the names the generic bodies read
 * (board_generic.h lists them).
 */
#ifndef KORP_KORPALSKI_BOARD_H
#define KORP_KORPALSKI_BOARD_H

#include "korpalski_int.h"

#define BD(name) kp_##name
#define BD_POS struct kp_pos
#define BD_BITS uint64_t
#define BD_CELLS 64
#define BD_NONE KP_NO_SQUARE
#define BD_EMPTY KP_EMPTY
#define BD_BIT bb_of
#define BD_POP bb_pop
#define BD_COUNT bb_count
#define BD_LSB bb_lsb
#define BD_CELLS_OF(b) ((struct rules_cells){ { (b), 0 } })
#define BD_BITS_OF(cells) ((cells).w[0])
/* Up a rank for white (0), down for black (1); pawns never stand on the
 * first or last rank, so a step stays on the board. */
#define BD_AHEAD(color, sq) ((sq) + 8 - 16 * (color))
#define BD_ON_BOARD(sq) true
#define BD_START(color) ((color) == RULES_WHITE ? KP_RANK_2 : KP_RANK_7)
#define BD_LAST(color) ((color) == RULES_WHITE ? KP_RANK_8 : KP_RANK_1)
/* A pawn becomes only a type in its prison, listed from the knight up. */
#define BD_PROMOTIONS kp_prison_types
#define BD_PROMOTION_ORDER { RULES_KNIGHT, RULES_BISHOP, RULES_ROOK, RULES_QUEEN }
/* Until both kings stand there are no board moves, only the placement. */
#define BD_KINGS_MISSING(p, ksq) \
    ((ksq) == KP_NO_SQUARE || kp_king_cell((p), (p)->side ^ 1) == KP_NO_SQUARE)
#define BD_DROPS 1
#define BD_RESERVE(p, color, type) ((p)->reserve[(color)][(type)])
#define BD_KEY_SET 0
#define BD_MAN_KEY(code) (code)

#define BD_VARIANT rules_korpalski
#define BD_GEOMETRY kp_geometry
/* How position texts and their refusals name the format and a cell. */
#define BD_TEXT_NAME "fen"
#define BD_CELL_WORD "square"
#define BD_VALID(sq) ((unsigned)(sq) < 64)

#include "board_generic.h"

#endif
