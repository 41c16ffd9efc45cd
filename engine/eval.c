/*
 * eval.c — the static evaluation, one code path for both variants, read
 * from a variant's table of weights (eval_korpalski.c, eval_glinski.c):
 *
 *   material on the board and in reserve, piece-square tables (the king's
 *   blended from middle game to endgame by the material left), mobility
 *   (attacked cells not holding an own man), and king danger: enemy
 *   attacks on the king's zone (the king's cell and its neighbours), the
 *   empty undefended zone cells the enemy could drop on weighted by what
 *   the enemy holds in reserve, minus the own men sheltering the king; the
 *   danger units are squared, so that attacks that come together count
 *   more than their sum.
 */
#include "engine_int.h"

#include <string.h>

const struct eval_weights *eval_weights_for(const struct rules_variant *v)
{
    return v->cells == eval_glinski.cells ? &eval_glinski : &eval_korpalski;
}

/* Bits set, without relying on a popcount instruction (a plain x86-64
 * build calls a slow library routine for __builtin_popcountll). */
static inline int popcount64(uint64_t x)
{
    x = x - ((x >> 1) & 0x5555555555555555ULL);
    x = (x & 0x3333333333333333ULL) + ((x >> 2) & 0x3333333333333333ULL);
    x = (x + (x >> 4)) & 0x0F0F0F0F0F0F0F0FULL;
    return (int)((x * 0x0101010101010101ULL) >> 56);
}

static inline int count_cells(struct rules_cells c)
{
    return popcount64(c.w[0]) + popcount64(c.w[1]);
}

static inline struct rules_cells cells_and(struct rules_cells a, struct rules_cells b)
{
    return (struct rules_cells){ { a.w[0] & b.w[0], a.w[1] & b.w[1] } };
}

static inline struct rules_cells cells_not(struct rules_cells a)
{
    return (struct rules_cells){ { ~a.w[0], ~a.w[1] } };
}

static inline void cells_add(struct rules_cells *a, int cell)
{
    a->w[cell >> 6] |= 1ULL << (cell & 63);
}

static inline void cells_or(struct rules_cells *a, struct rules_cells b)
{
    a->w[0] |= b.w[0];
    a->w[1] |= b.w[1];
}

/* Whether `side` has a promotion piece waiting in prison (Korpalski: set
 * minus board minus reserve).  Glinski promotes freely: always true. */
static bool prison_holds(const struct rules_variant *v, const struct rules_view *view,
                         const int on_board[2][RULES_PIECE_TYPES], int side)
{
    static const int set[RULES_PIECE_TYPES] = { 8, 2, 2, 2, 1, 1 };
    if (v->cells != 64)
        return true;
    for (int t = RULES_KNIGHT; t <= RULES_QUEEN; t++)
        if (on_board[side][t] + view->reserve[side][t] < set[t])
            return true;
    return false;
}

/* The next cell of a set, removed from it; the set must not be empty. */
static inline int cells_pop(struct rules_cells *c)
{
    if (c->w[0]) {
        int cell = __builtin_ctzll(c->w[0]);
        c->w[0] &= c->w[0] - 1;
        return cell;
    }
    int cell = 64 + __builtin_ctzll(c->w[1]);
    c->w[1] &= c->w[1] - 1;
    return cell;
}

static inline bool cells_any(struct rules_cells c)
{
    return (c.w[0] | c.w[1]) != 0;
}

int eval_position(const struct eval_weights *w, const struct rules_variant *v,
                  const struct rules_position *pos)
{
    struct rules_view view;
    v->view(pos, &view);
    return eval_view(w, v, &view);
}

int eval_view(const struct eval_weights *w, const struct rules_variant *v,
              const struct rules_view *view)
{
    const int8_t *man = view->man;
    const struct rules_cells *attacks = view->attacks;
    const struct rules_cells *occupied = view->occupied;
    struct rules_cells attacked[2] = { { { 0, 0 } }, { { 0, 0 } } };
    int on_board[2][RULES_PIECE_TYPES];
    int score[2] = { 0, 0 }, phase = 0, king_mg[2] = { 0, 0 }, king_eg[2] = { 0, 0 };
    int side = view->side;
    struct rules_cells all = { { occupied[0].w[0] | occupied[1].w[0],
                                 occupied[0].w[1] | occupied[1].w[1] } };

    memset(on_board, 0, sizeof on_board);
    /* Only Korpalski's prison needs the counts (prison_holds). */
    for (struct rules_cells left = all; v->cells == 64 && cells_any(left);) {
        int c = cells_pop(&left);
        on_board[RULES_MAN_COLOR(man[c])][RULES_MAN_TYPE(man[c])]++;
    }
    /* Reserves: what can still come onto the board. */
    for (int color = 0; color < 2; color++)
        for (int t = RULES_PAWN; t < RULES_KING; t++) {
            int n = view->reserve[color][t];
            score[color] += n * w->reserve_value[t];
            if (t != RULES_PAWN)
                phase += n * w->value[t];
        }

    bool promotes[2] = { prison_holds(v, view, (const int(*)[RULES_PIECE_TYPES])on_board, 0),
                         prison_holds(v, view, (const int(*)[RULES_PIECE_TYPES])on_board, 1) };

    for (struct rules_cells left = all; cells_any(left);) {
        int c = cells_pop(&left);
        int color = RULES_MAN_COLOR(man[c]), type = RULES_MAN_TYPE(man[c]);
        int rel = color == RULES_WHITE ? c : w->mirror[c];
        cells_or(&attacked[color], attacks[c]);
        if (type == RULES_KING) {
            king_mg[color] = w->pst[RULES_KING][rel];
            king_eg[color] = w->king_endgame[rel];
            continue;
        }
        int pst = w->pst[type][rel];
        /* A pawn near the last rank with nothing to promote to is stuck. */
        if (type == RULES_PAWN && !promotes[color] && pst > w->pawn_last_ranks_no_prison)
            pst = w->pawn_last_ranks_no_prison;
        score[color] += w->value[type] + pst;
        if (type != RULES_PAWN)
            phase += w->value[type];
        score[color] += w->mobility[type] *
                        count_cells(cells_and(attacks[c], cells_not(occupied[color])));
    }

    /* King danger, for each side's king. */
    for (int color = 0; color < 2 && view->king[0] >= 0 && view->king[1] >= 0; color++) {
        int them = color ^ 1, units = 0, king = view->king[color];
        struct rules_cells zone = attacks[king];
        cells_add(&zone, king);
        for (struct rules_cells left = occupied[them]; cells_any(left);) {
            int c = cells_pop(&left);
            struct rules_cells hit = cells_and(attacks[c], zone);
            if (cells_any(hit))
                units += w->king_attack[RULES_MAN_TYPE(man[c])] * count_cells(hit);
        }
        int reserve_units = 0;
        for (int t = RULES_PAWN; t < RULES_KING; t++)
            reserve_units += w->drop_danger[t] * view->reserve[them][t];
        if (reserve_units > 0) {
            struct rules_cells empty = cells_not(all);
            struct rules_cells open = cells_and(cells_and(zone, empty),
                                                cells_not(attacked[color]));
            if (reserve_units > 12)
                reserve_units = 12;
            units += count_cells(open) * reserve_units / 2;
        }
        units -= w->shelter * count_cells(cells_and(zone, occupied[color]));
        if (units > 0) {
            int pen = units * units / w->danger_scale;
            score[color] -= pen > w->danger_max ? w->danger_max : pen;
        }
    }

    /* The king's table moves from shelter to centre as material goes. */
    if (phase > w->phase_full)
        phase = w->phase_full;
    for (int color = 0; color < 2; color++)
        score[color] += (king_mg[color] * phase + king_eg[color] * (w->phase_full - phase)) /
                        w->phase_full;

    return score[side] - score[side ^ 1] + w->tempo;
}
