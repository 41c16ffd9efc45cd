/*
 * korpalski_search.c — what a search needs from a Korpalski position and
 * the checked functions do not give cheaply: unchecked copy-make, the null
 * move, man and reserve lookup, attack sets.  See rules.h, "For search".
 */
#include "korpalski_int.h"
#include "report_int.h"

void kp_search_play(struct rules_position *pos, struct rules_move move)
{
    kp_apply(kp_mut(pos), move);
}

void kp_search_null(struct rules_position *pos)
{
    struct kp_pos *p = kp_mut(pos);
    p->ep = KP_NO_SQUARE;
    counter_step(&p->halfmove);
    if (p->side == RULES_BLACK)
        counter_step(&p->fullmove);
    p->side ^= 1;
}

int kp_search_man_at(const struct rules_position *pos, int cell)
{
    const struct kp_pos *p = kp_const(pos);
    if (cell < 0 || cell >= 64 || p->board[cell] == KP_EMPTY)
        return RULES_NO_MAN;
    return RULES_MAN(KP_COLOR(p->board[cell]), KP_TYPE(p->board[cell]));
}

int kp_search_reserve(const struct rules_position *pos, enum rules_color side,
                      enum rules_piece type)
{
    if ((unsigned)side > 1 || (unsigned)type >= RULES_PIECE_TYPES)
        return 0;
    return kp_const(pos)->reserve[side][type];
}

struct rules_cells kp_search_attacks(const struct rules_position *pos, int cell)
{
    const struct kp_pos *p = kp_const(pos);
    uint64_t occ = p->occupied[0] | p->occupied[1], a = 0;
    struct rules_cells out = { { 0, 0 } };

    if (cell < 0 || cell >= 64 || p->board[cell] == KP_EMPTY)
        return out;
    switch (KP_TYPE(p->board[cell])) {
    case RULES_PAWN: a = kp_pawn_attacks(KP_COLOR(p->board[cell]), cell); break;
    case RULES_KNIGHT: a = kp_knight_attacks(cell); break;
    case RULES_BISHOP: a = kp_bishop_attacks(cell, occ); break;
    case RULES_ROOK: a = kp_rook_attacks(cell, occ); break;
    case RULES_QUEEN: a = kp_bishop_attacks(cell, occ) | kp_rook_attacks(cell, occ); break;
    default: a = kp_king_attacks(cell); break;
    }
    out.w[0] = a;
    return out;
}

bool kp_search_insufficient(const struct rules_position *pos)
{
    return kp_insufficient_material(kp_const(pos));
}
