/*
 * korpalski_movegen.c — legal move generation and perft on the 8x8 board
 * (movegen_generic.h), with what only Korpalski has: drops and the king
 * placement phase.  Drops are target sets: empty squares (or the squares
 * that block a single sliding check) minus the squares from which the
 * dropped man would attack the enemy king.  A pawn promotes only to a
 * type in its prison.
 */
#include "korpalski_board.h"

unsigned kp_prison_types(const struct kp_pos *p, int color)
{
    unsigned types = 0;
    for (int t = RULES_KNIGHT; t <= RULES_QUEEN; t++)
        if (kp_set_count[t] > bb_count(p->pieces[color][t]) + p->reserve[color][t])
            types |= 1u << t;
    return types;
}

uint64_t kp_checking_squares(const struct kp_pos *p, int type, int color, int sq)
{
    /* Attacks are symmetric but for the pawn's, which look the other way. */
    return man_attacks(type, color ^ 1, sq, p->occupied[0] | p->occupied[1]);
}

struct gen;
static void gen_drops(struct gen *g, const struct kp_pos *p, uint64_t where);
static void gen_placement(struct gen *g, const struct kp_pos *p);

#include "movegen_generic.h"

static inline void add_drops(struct gen *g, int type, uint64_t targets)
{
    if (!g->out) {
        g->n += bb_count(targets);
        return;
    }
    while (targets)
        add(g, 0, bb_pop(&targets), type, RULES_MOVE_DROP);
}

static void gen_drops(struct gen *g, const struct kp_pos *p, uint64_t where)
{
    int us = p->side;
    int eksq = kp_king_cell(p, us ^ 1);
    if (g->noisy)
        return;
    for (int t = RULES_PAWN; t <= RULES_QUEEN; t++) {
        if (!p->reserve[us][t] || !(g->drop_types & (1u << t)))
            continue;
        uint64_t targets = where & ~kp_checking_squares(p, t, us, eksq);
        if (t == RULES_PAWN)
            targets &= ~(KP_RANK_1 | KP_RANK_8);
        add_drops(g, t, targets);
    }
}

/* The king placement phase: the side's king is still in reserve. */
static void gen_placement(struct gen *g, const struct kp_pos *p)
{
    int eksq = kp_king_cell(p, p->side ^ 1);
    uint64_t where = ~(p->occupied[0] | p->occupied[1]) & g->to_ok;
    if (!p->reserve[p->side][RULES_KING] || g->noisy ||
        !(g->drop_types & (1u << RULES_KING)))
        return;
    if (eksq != KP_NO_SQUARE)
        where &= ~kp_king_attacks(eksq);
    add_drops(g, RULES_KING, where);
}
