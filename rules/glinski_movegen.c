/*
 * glinski_movegen.c — legal move generation and perft on the hexagonal
 * board (movegen_generic.h): pawns step along the files, start on their
 * own cells and promote to any piece; there are no drops.
 */
#include "glinski_board.h"

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
