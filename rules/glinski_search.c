/*
 * glinski_search.c — what a search needs from a Glinski position: unchecked
 * copy-make, the null move, man lookup, attack sets.  See rules.h, "For
 * search".
 */
#include "glinski_int.h"
#include "report_int.h"

void gl_search_play(struct rules_position *pos, struct rules_move move)
{
    gl_apply(gl_mut(pos), move);
}

void gl_search_null(struct rules_position *pos)
{
    struct gl_pos *p = gl_mut(pos);
    p->ep = GL_NONE;
    counter_step(&p->halfmove);
    if (p->side == RULES_BLACK)
        counter_step(&p->fullmove);
    p->side ^= 1;
}

int gl_search_man_at(const struct rules_position *pos, int cell)
{
    const struct gl_pos *p = gl_const(pos);
    if (cell < 0 || cell >= GL_CELLS || p->board[cell] == GL_EMPTY)
        return RULES_NO_MAN;
    return RULES_MAN(GL_COLOR(p->board[cell]), GL_TYPE(p->board[cell]));
}

int gl_search_reserve(const struct rules_position *pos, enum rules_color side,
                      enum rules_piece type)
{
    (void)pos;
    (void)side;
    (void)type;
    return 0;
}

struct rules_cells gl_search_attacks(const struct rules_position *pos, int cell)
{
    const struct gl_pos *p = gl_const(pos);
    gl_bits occ = p->occupied[0] | p->occupied[1], a = 0;
    struct rules_cells out = { { 0, 0 } };

    if (cell < 0 || cell >= GL_CELLS || p->board[cell] == GL_EMPTY)
        return out;
    switch (GL_TYPE(p->board[cell])) {
    case RULES_PAWN: a = gl_pawn_attacks(GL_COLOR(p->board[cell]), cell); break;
    case RULES_KNIGHT: a = gl_knight_attacks(cell); break;
    case RULES_BISHOP: a = gl_bishop_attacks(cell, occ); break;
    case RULES_ROOK: a = gl_rook_attacks(cell, occ); break;
    case RULES_QUEEN: a = gl_bishop_attacks(cell, occ) | gl_rook_attacks(cell, occ); break;
    default: a = gl_king_attacks(cell); break;
    }
    out.w[0] = (uint64_t)a;
    out.w[1] = (uint64_t)(a >> 64);
    return out;
}

bool gl_search_insufficient(const struct rules_position *pos)
{
    return gl_insufficient_material(gl_const(pos));
}
