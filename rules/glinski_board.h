/*
 * glinski_board.h — the hexagonal board in the names the generic bodies
 * read (board_generic.h lists them).
 */
#ifndef KORP_GLINSKI_BOARD_H
#define KORP_GLINSKI_BOARD_H

#include "glinski_int.h"

#define BD(name) gl_##name
#define BD_POS struct gl_pos
#define BD_BITS gl_bits
#define BD_CELLS GL_CELLS
#define BD_NONE GL_NONE
#define BD_EMPTY GL_EMPTY
#define BD_BIT gl_bit
#define BD_POP gl_pop
#define BD_COUNT gl_count
#define BD_LSB gl_lsb
#define BD_CELLS_OF(b) ((struct rules_cells){ { (uint64_t)(b), (uint64_t)((b) >> 64) } })
#define BD_BITS_OF(cells) ((gl_bits)(cells).w[0] | (gl_bits)(cells).w[1] << 64)
#define BD_AHEAD(color, cell) gl_step((color) == RULES_WHITE ? GL_NORTH : GL_SOUTH, (cell))
#define BD_ON_BOARD(cell) ((cell) != GL_NONE)
#define BD_START gl_start_cells
#define BD_LAST gl_last_cells
/* A pawn may become any piece but a king, listed from the queen down. */
#define BD_PROMOTIONS(p, color) \
    ((1u << RULES_KNIGHT) | (1u << RULES_BISHOP) | (1u << RULES_ROOK) | (1u << RULES_QUEEN))
#define BD_PROMOTION_ORDER { RULES_QUEEN, RULES_ROOK, RULES_BISHOP, RULES_KNIGHT }
#define BD_KINGS_MISSING(p, ksq) ((ksq) == GL_NONE)
#define BD_DROPS 0
#define BD_RESERVE(p, color, type) 0
/* Keys apart from Korpalski's: their own set, men coded from 16. */
#define BD_KEY_SET 1
#define BD_MAN_KEY(code) (16 + (code))

#define BD_VARIANT rules_glinski
#define BD_GEOMETRY gl_geometry
/* How position texts and their refusals name the format and a cell. */
#define BD_TEXT_NAME "hfen"
#define BD_CELL_WORD "cell"
#define BD_VALID(cell) ((cell) != GL_NONE)

#include "board_generic.h"

#endif
