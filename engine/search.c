/*
 * search.c — iterative deepening principal variation search.
 *
 * One recursive function (negamax) with its steps in a fixed order:
 *   1. leaf: quiescence search at depth 0;
 *   2. draws (fifty moves, material, repetition) and mate-distance pruning;
 *   3. transposition table cut-off (not at PV nodes);
 *   4. move generation: no legal move is mate or stalemate;
 *   5. check extension;
 *   6. reverse futility pruning and null-move pruning (not in check, not at
 *      PV nodes, not during the king placement, not without pieces);
 *   7. the move loop: ordered moves, late move pruning of quiet moves at
 *      shallow depth, late move reductions, PVS re-searches;
 *   8. history, killers and the table are updated.
 * The quiescence search plays captures and promotions only, or every
 * evasion when in check; drops stay out (docs/engine.md says why).
 * Search state lives in a struct passed down; there are no globals.
 */
#include "engine_int.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

#define INF 32500
#define KEYS_KEPT 256           /* game positions kept for repetitions */
#define HISTORY_MAX 16384
#define QUIETS_MAX 64
#define EVAL_CACHE_SIZE (1 << 15)   /* entries, a power of two */

struct eval_slot {
    uint64_t key;
    int score;
    bool filled;
};

/* The search's tuned numbers, in one place. */
static const struct {
    int rfp_depth;              /* reverse futility pruning up to this depth */
    int rfp_margin;             /* per ply, in centipawns */
    int rfp_margin_drops;       /* per ply, while anyone holds men in reserve */
    int null_min_depth;
    int lmr_min_depth;
    int lmr_min_moves;          /* moves searched at full depth first */
    int lmp_depth;              /* late move pruning up to this depth */
    int lmp_base, lmp_per_depth2;
    int delta_margin;           /* quiescence: a capture must be able to reach alpha */
    int check_extension_plies;  /* extend checks while ply < this × root depth */
} tune = {
    .rfp_depth = 4,
    .rfp_margin = 90,
    .rfp_margin_drops = 160,
    .null_min_depth = 3,
    .lmr_min_depth = 3,
    .lmr_min_moves = 3,
    .lmp_depth = 3,
    .lmp_base = 8,
    .lmp_per_depth2 = 8,
    .delta_margin = 200,
    .check_extension_plies = 2,
};

struct search {
    struct engine *eng;
    const struct rules_variant *v;
    const struct eval_weights *w;
    struct engine_limits lim;
    uint64_t nodes;
    int seldepth;
    int root_depth;
    int64_t start_ms, soft_ms, hard_ms;     /* 0: no limit */
    bool stopped;
    uint64_t keys[KEYS_KEPT + ENGINE_MAX_PLY + 2];
    int key_base;                           /* index of the root's key */
    struct rules_move killers[ENGINE_MAX_PLY + 1][2];
    int history[2][16][128];
    struct rules_move pv[ENGINE_MAX_PLY + 1][ENGINE_MAX_PLY + 1];
    int pv_len[ENGINE_MAX_PLY + 1];
    struct rules_move moves[ENGINE_MAX_PLY + 1][RULES_MAX_MOVES];
    int order[ENGINE_MAX_PLY + 1][RULES_MAX_MOVES];
    struct eval_slot eval_cache[EVAL_CACHE_SIZE];
};

static const struct rules_move no_move = { 0, 0, 0, 0 };

static int64_t now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (int64_t)ts.tv_sec * 1000 + ts.tv_nsec / 1000000;
}

static inline bool move_eq(struct rules_move a, struct rules_move b)
{
    return a.from == b.from && a.to == b.to && a.piece == b.piece && a.flags == b.flags;
}

static inline bool is_quiet(struct rules_move m)
{
    return !(m.flags & (RULES_MOVE_CAPTURE | RULES_MOVE_PROMOTION));
}

/* Counts a node; true when the search must stop. */
static bool count_node(struct search *s)
{
    s->nodes++;
    if (s->lim.nodes && s->nodes >= s->lim.nodes)
        s->stopped = true;
    if ((s->nodes & 1023) == 0) {
        if (engine_stop_requested(s->eng))
            s->stopped = true;
        else if (s->hard_ms && now_ms() - s->start_ms >= s->hard_ms)
            s->stopped = true;
    }
    return s->stopped;
}

/* The static evaluation through a small cache keyed by the position's
 * hash key: the evaluation is the dearest step of a node, and the search
 * meets the same positions again (transpositions, re-searches, the next
 * iteration). */
static int evaluate_keyed(struct search *s, const struct rules_position *pos, uint64_t key)
{
    struct eval_slot *slot = &s->eval_cache[key & (EVAL_CACHE_SIZE - 1)];
    if (slot->key == key && slot->filled)
        return slot->score;
    slot->key = key;
    slot->score = eval_position(s->w, s->v, pos);
    slot->filled = true;
    return slot->score;
}

static int evaluate(struct search *s, const struct rules_position *pos)
{
    return evaluate_keyed(s, pos, s->v->repetition_key(pos));
}

/* The type that moves (or is dropped), 8 more for drops: history's index. */
static int history_kind(const struct search *s, const struct rules_position *pos,
                        struct rules_move m)
{
    if (m.flags & RULES_MOVE_DROP)
        return 8 + (m.piece & 7);
    return RULES_MAN_TYPE(s->v->man_at(pos, m.from));
}

static int victim_value(const struct search *s, const struct rules_position *pos,
                        struct rules_move m)
{
    int value = 0;
    if (m.flags & RULES_MOVE_EN_PASSANT)
        value = s->w->value[RULES_PAWN];
    else if (m.flags & RULES_MOVE_CAPTURE) {
        int man = s->v->man_at(pos, m.to);
        if (man != RULES_NO_MAN)
            value = s->w->value[RULES_MAN_TYPE(man)];
    }
    if (m.flags & RULES_MOVE_PROMOTION)
        value += s->w->value[m.piece & 7] - s->w->value[RULES_PAWN];
    return value;
}

/* Ordering: the table's move, captures and promotions by most valuable
 * victim then least valuable attacker, killers, then quiet moves by
 * history. */
static void score_moves(struct search *s, const struct rules_position *pos, int ply,
                        int n, struct rules_move tt_move)
{
    struct rules_move *moves = s->moves[ply];
    int *order = s->order[ply];
    int side = s->v->side_to_move(pos);

    for (int i = 0; i < n; i++) {
        struct rules_move m = moves[i];
        if (move_eq(m, tt_move))
            order[i] = 1 << 30;
        else if (!is_quiet(m))
            order[i] = (1 << 28) + victim_value(s, pos, m) * 16 -
                       RULES_MAN_TYPE(s->v->man_at(pos, m.from));
        else if (move_eq(m, s->killers[ply][0]))
            order[i] = (1 << 27);
        else if (move_eq(m, s->killers[ply][1]))
            order[i] = (1 << 27) - 1;
        else
            order[i] = s->history[side][history_kind(s, pos, m)][m.to & 127];
    }
}

/* Brings the best-ordered of moves i..n-1 to i. */
static void pick(struct search *s, int ply, int n, int i)
{
    struct rules_move *moves = s->moves[ply];
    int *order = s->order[ply];
    int best = i;
    for (int j = i + 1; j < n; j++)
        if (order[j] > order[best])
            best = j;
    if (best != i) {
        struct rules_move m = moves[i];
        int o = order[i];
        moves[i] = moves[best];
        order[i] = order[best];
        moves[best] = m;
        order[best] = o;
    }
}

static void history_add(int *h, int bonus)
{
    *h += bonus - *h * abs(bonus) / HISTORY_MAX;
}

static void update_pv(struct search *s, int ply, struct rules_move m)
{
    s->pv[ply][0] = m;
    int len = s->pv_len[ply + 1];
    if (len > ENGINE_MAX_PLY - 1)
        len = ENGINE_MAX_PLY - 1;
    memcpy(&s->pv[ply][1], s->pv[ply + 1], (size_t)len * sizeof(struct rules_move));
    s->pv_len[ply] = len + 1;
}

/* Whether the position at `ply` repeats one since the last irreversible
 * move (one repetition is enough inside the search). */
static bool repeated(const struct search *s, int ply, int halfmove)
{
    int here = s->key_base + ply;
    int oldest = here - halfmove;
    if (oldest < 0)
        oldest = 0;
    for (int i = here - 4; i >= oldest; i -= 2)
        if (s->keys[i] == s->keys[here])
            return true;
    return false;
}

/* Korpalski's king placement: some king still in reserve. */
static bool placing_kings(const struct search *s, const struct rules_position *pos)
{
    return s->v->reserve_count(pos, RULES_WHITE, RULES_KING) > 0 ||
           s->v->reserve_count(pos, RULES_BLACK, RULES_KING) > 0;
}

static bool anyone_holds_reserve(const struct search *s, const struct rules_position *pos)
{
    return s->v->can_drop(pos, RULES_WHITE) || s->v->can_drop(pos, RULES_BLACK);
}

/* Whether the side to move has a piece (not a pawn, not the king) on the
 * board or anything in reserve: then a pass is rarely the best it has, and
 * the null move is safe enough. */
static bool has_pieces(const struct search *s, const struct rules_position *pos)
{
    int side = s->v->side_to_move(pos);
    if (s->v->can_drop(pos, (enum rules_color)side))
        return true;
    for (int c = 0; c < s->v->cells; c++) {
        int man = s->v->man_at(pos, c);
        if (man != RULES_NO_MAN && RULES_MAN_COLOR(man) == side &&
            RULES_MAN_TYPE(man) != RULES_PAWN && RULES_MAN_TYPE(man) != RULES_KING)
            return true;
    }
    return false;
}

static int quiesce(struct search *s, const struct rules_position *pos, int alpha, int beta,
                   int ply)
{
    const struct rules_variant *v = s->v;
    s->pv_len[ply] = 0;
    if (count_node(s))
        return 0;
    if (ply > s->seldepth)
        s->seldepth = ply;
    if (ply >= ENGINE_MAX_PLY - 1)
        return evaluate(s, pos);

    /* Standing pat comes before the move generator: most quiescence nodes
     * end here, and the generator (drops included) is the dearest step.
     * A stalemate that stands pat at or above beta is missed, as in most
     * engines; mates are not (in check there is no standing pat). */
    struct rules_move *moves = s->moves[ply];
    bool in_check = v->in_check(pos);
    int best = -INF, stand = 0;
    if (v->insufficient_material(pos))
        return 0;
    if (!in_check) {
        stand = evaluate(s, pos);
        if (stand >= beta)
            return stand;
    }
    int n = v->moves_legal(pos, moves);
    if (n == 0)
        return in_check ? -ENGINE_MATE + ply : s->w->stalemate;
    if (!in_check) {
        if (stand > alpha)
            alpha = stand;
        best = stand;
        /* Only captures and promotions are for us: drop the rest (most of
         * the list, with drops) before ordering. */
        int kept = 0;
        for (int i = 0; i < n; i++)
            if (!is_quiet(moves[i]))
                moves[kept++] = moves[i];
        n = kept;
    }
    score_moves(s, pos, ply, n, no_move);
    for (int i = 0; i < n; i++) {
        pick(s, ply, n, i);
        struct rules_move m = moves[i];
        /* Captures and promotions come first: the rest is not for us,
         * unless we must get out of check. */
        if (!in_check && is_quiet(m))
            break;
        if (!in_check && !(m.flags & RULES_MOVE_PROMOTION) &&
            stand + victim_value(s, pos, m) + tune.delta_margin <= alpha)
            continue;
        struct rules_position next = *pos;
        v->move_play(&next, m);
        int score = -quiesce(s, &next, -beta, -alpha, ply + 1);
        if (s->stopped)
            return 0;
        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                update_pv(s, ply, m);
                if (alpha >= beta)
                    break;
            }
        }
    }
    return best;
}

static int negamax(struct search *s, const struct rules_position *pos, int alpha, int beta,
                   int depth, int ply, bool null_ok)
{
    const struct rules_variant *v = s->v;
    bool pv_node = beta - alpha > 1;

    /* 1. Leaf. */
    if (depth <= 0)
        return quiesce(s, pos, alpha, beta, ply);
    s->pv_len[ply] = 0;
    if (count_node(s))
        return 0;
    if (ply > s->seldepth)
        s->seldepth = ply;
    if (ply >= ENGINE_MAX_PLY - 1)
        return evaluate(s, pos);

    /* 2. Draws and mate distance. */
    uint64_t key = v->repetition_key(pos);
    s->keys[s->key_base + ply] = key;
    if (ply > 0) {
        int halfmove = v->halfmove_clock(pos);
        if (halfmove >= 100 || v->insufficient_material(pos) || repeated(s, ply, halfmove))
            return 0;
        if (alpha < -ENGINE_MATE + ply)
            alpha = -ENGINE_MATE + ply;
        if (beta > ENGINE_MATE - ply - 1)
            beta = ENGINE_MATE - ply - 1;
        if (alpha >= beta)
            return alpha;
    }

    /* 3. The table. */
    struct rules_move tt_move = no_move;
    const struct tt_entry *te = tt_probe(&s->eng->tt, key);
    if (te != NULL) {
        tt_move = te->move;
        int score = tt_score_from(te->score, ply);
        if (!pv_node && te->depth >= depth &&
            (te->bound == TT_EXACT || (te->bound == TT_LOWER && score >= beta) ||
             (te->bound == TT_UPPER && score <= alpha)))
            return score;
    }

    /* 4. Moves; none is mate or stalemate. */
    struct rules_move *moves = s->moves[ply];
    int n = v->moves_legal(pos, moves);
    bool in_check = v->in_check(pos);
    if (n == 0)
        return in_check ? -ENGINE_MATE + ply : s->w->stalemate;

    /* 5. Check extension, bounded so that checks cannot run away. */
    if (in_check && ply < tune.check_extension_plies * s->root_depth)
        depth++;

    /* 6. Pruning before the moves. */
    /* Only the pruning below uses it, and not at PV nodes. */
    int static_eval = in_check || pv_node ? -INF : evaluate_keyed(s, pos, key);
    bool placing = placing_kings(s, pos);
    if (!pv_node && !in_check && !placing && depth <= tune.rfp_depth &&
        beta > -ENGINE_MATE_BOUND && beta < ENGINE_MATE_BOUND) {
        int margin = anyone_holds_reserve(s, pos) ? tune.rfp_margin_drops : tune.rfp_margin;
        if (static_eval - margin * depth >= beta)
            return static_eval;
    }
    if (!pv_node && !in_check && !placing && null_ok && depth >= tune.null_min_depth &&
        static_eval >= beta && beta < ENGINE_MATE_BOUND && beta > -ENGINE_MATE_BOUND &&
        has_pieces(s, pos)) {
        struct rules_position next = *pos;
        int r = 2 + depth / 4;
        v->null_play(&next);
        int score = -negamax(s, &next, -beta, -beta + 1, depth - 1 - r, ply + 1, false);
        if (s->stopped)
            return 0;
        if (score >= beta)
            return score >= ENGINE_MATE_BOUND ? beta : score;
    }

    /* 7. The moves. */
    score_moves(s, pos, ply, n, tt_move);
    int side = v->side_to_move(pos);
    int best = -INF, orig_alpha = alpha, searched = 0, quiet_count = 0;
    struct rules_move best_move = no_move;
    struct rules_move quiets[QUIETS_MAX];

    for (int i = 0; i < n; i++) {
        pick(s, ply, n, i);
        struct rules_move m = moves[i];
        bool quiet = is_quiet(m);
        bool killer = move_eq(m, s->killers[ply][0]) || move_eq(m, s->killers[ply][1]);

        /* Late quiet moves near the leaves are not searched at all; checks
         * are, because mates hide among them.  A drop never gives check
         * (Korpalski forbids it; Glinski has none), so a late drop is
         * pruned before it is even played. */
        bool drop = (m.flags & RULES_MOVE_DROP) != 0;
        bool late = !pv_node && !in_check && quiet && !killer && depth <= tune.lmp_depth &&
                    best > -ENGINE_MATE_BOUND &&
                    searched >= tune.lmp_base + tune.lmp_per_depth2 * depth * depth;
        if (late && drop)
            continue;
        struct rules_position next = *pos;
        v->move_play(&next, m);
        bool gives_check = !drop && v->in_check(&next);
        if (late && !gives_check)
            continue;
        int new_depth = depth - 1, score;

        if (searched == 0) {
            score = -negamax(s, &next, -beta, -alpha, new_depth, ply + 1, true);
        } else {
            int r = 0;
            if (depth >= tune.lmr_min_depth && searched >= tune.lmr_min_moves && quiet &&
                !in_check && !gives_check && !killer) {
                r = 1 + (searched >= 8) + (searched >= 32) + (depth >= 8);
                if (pv_node)
                    r--;
                if (r > new_depth - 1)
                    r = new_depth - 1;
                if (r < 0)
                    r = 0;
            }
            score = -negamax(s, &next, -alpha - 1, -alpha, new_depth - r, ply + 1, true);
            if (r > 0 && score > alpha && !s->stopped)
                score = -negamax(s, &next, -alpha - 1, -alpha, new_depth, ply + 1, true);
            if (score > alpha && score < beta && !s->stopped)
                score = -negamax(s, &next, -beta, -alpha, new_depth, ply + 1, true);
        }
        if (s->stopped)
            return 0;
        searched++;

        if (score > best) {
            best = score;
            if (score > alpha) {
                alpha = score;
                best_move = m;
                update_pv(s, ply, m);
                if (alpha >= beta) {
                    /* 8. A cut: remember what made it. */
                    if (quiet) {
                        int bonus = depth * depth;
                        if (!move_eq(m, s->killers[ply][0])) {
                            s->killers[ply][1] = s->killers[ply][0];
                            s->killers[ply][0] = m;
                        }
                        history_add(&s->history[side][history_kind(s, pos, m)][m.to & 127],
                                    bonus);
                        for (int q = 0; q < quiet_count; q++)
                            history_add(&s->history[side][history_kind(s, pos, quiets[q])]
                                                   [quiets[q].to & 127], -bonus);
                    }
                    break;
                }
            }
        }
        if (quiet && quiet_count < QUIETS_MAX)
            quiets[quiet_count++] = m;
    }

    enum tt_bound bound = best >= beta ? TT_LOWER : best > orig_alpha ? TT_EXACT : TT_UPPER;
    tt_store(&s->eng->tt, key, best_move, tt_score_to(best, ply), depth, bound);
    return best;
}

/* Time for this move: hard is the deadline, soft the point after which no
 * new iteration starts. */
static void plan_time(struct search *s, int side)
{
    const struct engine_limits *l = &s->lim;
    if (l->infinite)
        return;
    if (l->movetime_ms > 0) {
        s->hard_ms = l->movetime_ms > 20 ? l->movetime_ms - 5 : l->movetime_ms;
        return;
    }
    if (l->time_ms[side] > 0) {
        int64_t t = l->time_ms[side], inc = l->inc_ms[side] > 0 ? l->inc_ms[side] : 0;
        int mtg = l->movestogo > 0 ? (l->movestogo < 30 ? l->movestogo : 30) : 30;
        int64_t reserve = t / 20 < 100 ? t / 20 : 100;
        int64_t alloc = t / mtg + inc * 3 / 4;
        s->hard_ms = alloc * 4 < t - reserve ? alloc * 4 : t - reserve;
        if (s->hard_ms < 1)
            s->hard_ms = 1;
        s->soft_ms = alloc < s->hard_ms ? alloc : s->hard_ms;
    }
}

int engine_search(struct engine *e, const struct rules_variant *v,
                  const struct rules_position *pos, const uint64_t *history,
                  int history_count, const struct engine_limits *limits,
                  engine_info_fn *on_info, void *arg, struct engine_result *out)
{
    struct rules_move root_moves[RULES_MAX_MOVES];
    struct search *s = NULL;
    struct engine_info *info = NULL;
    int rc = -1;

    memset(out, 0, sizeof *out);
    s = calloc(1, sizeof *s);
    info = calloc(1, sizeof *info);
    if (s == NULL || info == NULL)
        goto done;
    s->eng = e;
    s->v = v;
    s->w = eval_weights_for(v);
    s->lim = *limits;
    s->start_ms = now_ms();
    plan_time(s, v->side_to_move(pos));

    /* The game's keys, the root's last. */
    int kept = history_count < KEYS_KEPT ? history_count : KEYS_KEPT;
    if (history != NULL && kept > 0)
        memcpy(s->keys, history + history_count - kept, (size_t)kept * sizeof *s->keys);
    s->key_base = kept > 0 ? kept - 1 : 0;

    rc = 0;
    int n = v->moves_legal(pos, root_moves);
    if (n == 0 || v->insufficient_material(pos))
        goto done;
    out->has_move = true;
    out->best = root_moves[0];

    int max_depth = ENGINE_MAX_PLY - 1;
    if (s->lim.depth > 0 && s->lim.depth < max_depth)
        max_depth = s->lim.depth;
    for (int depth = 1; depth <= max_depth; depth++) {
        s->root_depth = depth;
        s->seldepth = 0;
        int score = negamax(s, pos, -INF, INF, depth, 0, false);
        if (s->stopped && (depth > 1 || s->pv_len[0] == 0)) {
            /* A stopped iteration's score is not kept, but its best move is
             * when the root searched the previous best first (the table's
             * move, as a rule) and another move then beat it: that one is
             * better by a deeper search. */
            if (depth > 1 && s->pv_len[0] > 0 && move_eq(s->moves[0][0], out->best) &&
                !move_eq(s->pv[0][0], out->best)) {
                out->best = s->pv[0][0];
                out->has_ponder = s->pv_len[0] > 1;
                out->ponder = out->has_ponder ? s->pv[0][1] : no_move;
            }
            break;
        }
        if (s->pv_len[0] > 0) {
            out->best = s->pv[0][0];
            out->has_ponder = s->pv_len[0] > 1;
            out->ponder = out->has_ponder ? s->pv[0][1] : no_move;
        }
        out->score = score;
        out->depth = depth;

        int64_t elapsed = now_ms() - s->start_ms;
        if (on_info != NULL) {
            info->depth = depth;
            info->seldepth = s->seldepth;
            info->score = score;
            info->nodes = s->nodes;
            info->time_ms = elapsed;
            info->nps = s->nodes * 1000 / (uint64_t)(elapsed > 0 ? elapsed : 1);
            info->pv_length = s->pv_len[0];
            memcpy(info->pv, s->pv[0], (size_t)s->pv_len[0] * sizeof *info->pv);
            on_info(arg, info);
        }
        if (s->stopped)
            break;
        if (s->lim.mate > 0 && engine_mate_moves(score) > 0 &&
            engine_mate_moves(score) <= s->lim.mate)
            break;
        if (s->soft_ms && elapsed >= s->soft_ms / 2)
            break;
    }

done:
    if (s != NULL) {
        out->nodes = s->nodes;
        out->time_ms = now_ms() - s->start_ms;
    }
    free(info);
    free(s);
    return rc;
}
