/*
 * see.c — static exchange evaluation: what a capture wins or loses when
 * both sides go on capturing on its target cell, each with its least
 * valuable man, and each may stop when going on would lose.  Men behind
 * the capturers (x-rays) join as the men in front leave: the rules
 * library's attackers_to takes the men that have captured away.  Pins are
 * not seen; a Korpalski drop cannot capture, so drops take no part.
 */
#include "engine_int.h"

#define SEE_KING 20000

static int man_value(const struct eval_weights *w, int type)
{
    return type == RULES_KING ? SEE_KING : w->value[type];
}

static void cells_add(struct rules_cells *c, int cell)
{
    c->w[cell >> 6] |= 1ULL << (cell & 63);
}

int engine_see(const struct rules_variant *v, const struct eval_weights *w,
               const struct rules_position *pos, struct rules_move m)
{
    int gain[64], d = 0;
    struct rules_cells removed = { { 0, 0 } };

    if (m.flags & RULES_MOVE_DROP)
        return 0;
    int mover = v->man_at(pos, m.from);
    if (mover == RULES_NO_MAN)
        return 0;
    int side = RULES_MAN_COLOR(mover);
    int on_target = RULES_MAN_TYPE(mover);
    /* En passant takes a pawn beside the target; the cell it empties is
     * left alone (it can only hide a rook behind it: rare, and small). */
    if (m.flags & RULES_MOVE_EN_PASSANT) {
        gain[0] = w->value[RULES_PAWN];
    } else {
        int victim = v->man_at(pos, m.to);
        gain[0] = victim == RULES_NO_MAN ? 0 : man_value(w, RULES_MAN_TYPE(victim));
    }
    if (m.flags & RULES_MOVE_PROMOTION) {
        gain[0] += w->value[m.piece & 7] - w->value[RULES_PAWN];
        on_target = m.piece & 7;
    }
    cells_add(&removed, m.from);

    /* gain[d]: what the side making capture d has, if the other side
     * stops after it; the last entry is what a recapture would give. */
    int value_on_target = man_value(w, on_target);
    for (side ^= 1; d < 62; side ^= 1) {
        d++;
        gain[d] = value_on_target - gain[d - 1];
        struct rules_cells atk = v->attackers_to(pos, m.to, removed);
        int best = -1, best_value = 0;
        for (int k = 0; k < 2; k++)
            for (uint64_t bits = atk.w[k]; bits; bits &= bits - 1) {
                int cell = k * 64 + __builtin_ctzll(bits);
                int man = v->man_at(pos, cell);
                if (RULES_MAN_COLOR(man) != side)
                    continue;
                int val = man_value(w, RULES_MAN_TYPE(man));
                if (best < 0 || val < best_value) {
                    best = cell;
                    best_value = val;
                }
            }
        if (best < 0)
            break;
        value_on_target = best_value;
        cells_add(&removed, best);
    }
    while (--d > 0) {
        int stop = -gain[d - 1];
        gain[d - 1] = -(stop > gain[d] ? stop : gain[d]);
    }
    return gain[0];
}
