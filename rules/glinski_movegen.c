/*
 * glinski_movegen.c — legal move generation and perft on the hexagonal
 * board (movegen_generic.h): pawns step along the files, start on their
 * own cells and promote to any piece; there are no drops.
 */
#include "glinski_int.h"

#define MG_POS struct gl_pos
#define MG_BITS gl_bits
#define MG_CELLS GL_CELLS
#define MG_NONE GL_NONE
#define MG_BIT gl_bit
#define MG_POP gl_pop
#define MG_COUNT gl_count
#define MG_LSB gl_lsb
#define MG_KNIGHT gl_knight_attacks
#define MG_KING gl_king_attacks
#define MG_PAWN gl_pawn_attacks
#define MG_BISHOP gl_bishop_attacks
#define MG_ROOK gl_rook_attacks
#define MG_BETWEEN gl_between
#define MG_LINE gl_line
#define MG_ATTACKERS gl_attackers
#define MG_KING_CELL gl_king_cell
#define MG_APPLY gl_apply
#define MG_AHEAD(color, cell) gl_step((color) == RULES_WHITE ? GL_NORTH : GL_SOUTH, (cell))
#define MG_ON_BOARD(cell) ((cell) != GL_NONE)
#define MG_START gl_start_cells
#define MG_LAST gl_last_cells
#define MG_PROMOTIONS(p, color) \
    ((1u << RULES_KNIGHT) | (1u << RULES_BISHOP) | (1u << RULES_ROOK) | (1u << RULES_QUEEN))
#define MG_PROMOTION_ORDER { RULES_QUEEN, RULES_ROOK, RULES_BISHOP, RULES_KNIGHT }
#define MG_KINGS_MISSING(p, ksq) ((ksq) == GL_NONE)
#define MG_DROPS 0

#include "movegen_generic.h"

int gl_generate(const struct gl_pos *p, struct rules_move *out) { return generate(p, out); }

int gl_generate_noisy(const struct gl_pos *p, struct rules_move *out)
{
    return generate_noisy(p, out);
}

bool gl_move_legal_fast(const struct gl_pos *p, struct rules_move m)
{
    return move_legal_fast(p, m);
}

bool gl_ep_capture_legal(const struct gl_pos *p, int ep) { return ep_capture_legal(p, ep); }

uint64_t gl_perft(const struct gl_pos *p, int depth) { return perft(p, depth); }

int gl_pseudo_moves(const struct gl_pos *p, struct rules_move *out)
{
    return pseudo_moves(p, out);
}
