/*
 * board_generic.h — what a variant's board header (korpalski_board.h,
 * glinski_board.h) describes for the generic bodies (movegen_generic.h,
 * variant_generic.h), and the little they derive from it.  The board
 * header defines, then includes this file:
 *
 *   BD(name)            the variant's function `name`: BD(knight_attacks)(c),
 *                       king_attacks, pawn_attacks(color, c),
 *                       bishop_attacks(c, occ), rook_attacks, between(a, b),
 *                       line(a, b), attackers(p, c, by, occ), king_cell(p,
 *                       color), apply(p, m), in_check(p), generate(p, out),
 *                       generate_noisy, move_legal_fast(p, m), perft(p, d),
 *                       repetition_key(p), insufficient_material(p)
 *   BD_POS, BD_BITS     the position struct and the bitboard type
 *   BD_CELLS, BD_NONE, BD_EMPTY   cell count, "no cell", an empty mailbox entry
 *   BD_BIT, BD_POP, BD_COUNT, BD_LSB   bitboard basics
 *   BD_CELLS_OF(b), BD_BITS_OF(cells)  bitboard to rules_cells and back
 *   BD_AHEAD(color, c)  the cell one pawn step ahead of c for color
 *   BD_ON_BOARD(c)      whether such a step stayed on the board
 *   BD_START(color), BD_LAST(color)    the pawns' start and promotion cells
 *   BD_PROMOTIONS(p, color)            the types (1 << type) a pawn may become
 *   BD_PROMOTION_ORDER                 the order promotions are listed in
 *   BD_KINGS_MISSING(p, ksq)           no board moves: a king is not on the board
 *   BD_DROPS            1 where men are dropped from a reserve
 *   BD_RESERVE(p, color, type)         men in reserve (0 without drops)
 *   BD_KEY_SET, BD_MAN_KEY(code)       where the variant's repetition keys lie
 *   BD_VARIANT, BD_GEOMETRY             the variant's table and notation geometry
 *   BD_TEXT_NAME, BD_CELL_WORD          "fen" and "square", or "hfen" and "cell"
 *   BD_VALID(c)                         whether any cell number c is on the board
 */
#ifndef KORP_BOARD_GENERIC_H
#define KORP_BOARD_GENERIC_H

#define BD_CONST(pos) ((const BD_POS *)(const void *)(pos)->opaque)
#define BD_MUT(pos) ((BD_POS *)(void *)(pos)->opaque)
#define BD_TYPE(code) ((code) & 7)
#define BD_COLOR(code) ((code) >> 3)

/* The cells a man of `type` and `color` on `cell` attacks. */
static inline BD_BITS man_attacks(int type, int color, int cell, BD_BITS occ)
{
    switch (type) {
    case RULES_PAWN: return BD(pawn_attacks)(color, cell);
    case RULES_KNIGHT: return BD(knight_attacks)(cell);
    case RULES_BISHOP: return BD(bishop_attacks)(cell, occ);
    case RULES_ROOK: return BD(rook_attacks)(cell, occ);
    case RULES_QUEEN: return BD(bishop_attacks)(cell, occ) | BD(rook_attacks)(cell, occ);
    default: return BD(king_attacks)(cell);
    }
}

/* The position's side of a notation geometry (notation_int.h). */
static inline int board_piece_at(const struct rules_position *pos, int cell)
{
    uint8_t code = BD_CONST(pos)->board[cell];
    return code == BD_EMPTY ? -1 : BD_TYPE(code);
}

static inline int board_color_at(const struct rules_position *pos, int cell)
{
    uint8_t code = BD_CONST(pos)->board[cell];
    return code == BD_EMPTY ? -1 : BD_COLOR(code);
}

static inline void board_apply(struct rules_position *pos, struct rules_move m)
{
    BD(apply)(BD_MUT(pos), m);
}

static inline int board_pseudo_moves(const struct rules_position *pos, struct rules_move *out)
{
    return BD(pseudo_moves)(BD_CONST(pos), out);
}

#endif
