/*
 * search.c — iterative deepening principal variation search.
 *
 * One recursive function (negamax) with its steps in a fixed order:
 *   1. leaf: quiescence search at depth 0;
 *   2. draws (fifty moves, material, repetition) and mate-distance pruning;
 *   3. transposition table cut-off (not at PV nodes);
 *   4. check extension;
 *   5. reverse futility pruning and null-move pruning (not in check, not at
 *      PV nodes, not during the king placement, not without pieces);
 *   6. the move loop over staged moves (the table's move, tested alone;
 *      then the captures and promotions that do not lose material by
 *      static exchange; then the rest, the losing captures after the
 *      killers): late move pruning of quiet moves at shallow depth, late
 *      move reductions, PVS re-searches; no legal move is mate or
 *      stalemate;
 *   7. history, killers and the table are updated.
 * The quiescence search plays captures and promotions only (from the rules
 * library's own generator of them), those that lose material by static
 * exchange left out, or every evasion when in check; drops stay out
 * (docs/engine.md says why).  Hash keys are carried down and updated by
 * the cells a move changes.  Search state lives in a struct passed down;
 * there are no globals.
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


/* The search's tuned numbers, in one place. */
static const struct {
    int rfp_depth;              /* reverse futility pruning up to this depth */
    int rfp_margin;             /* per ply, in centipawns */
    int rfp_margin_drops;       /* per ply, while anyone holds men in reserve */
    int null_min_depth;
    int null_min_depth_drops;   /* the same while anyone holds men in reserve */
    int lmr_min_depth;
    int lmr_min_moves;          /* moves searched at full depth first */
    int lmp_depth;              /* late move pruning up to this depth */
    int lmp_base, lmp_per_depth2;
    int delta_margin;           /* quiescence: a capture must be able to reach alpha */
    int check_extension_plies;  /* extend checks while ply < this × root depth */
    int aspiration_min_depth;   /* a window around the last score from this depth */
    int aspiration_delta;       /* its first half-width, doubled on each failure */
} tune = {
    .rfp_depth = 4,
    .rfp_margin = 90,
    .rfp_margin_drops = 160,
    .null_min_depth = 3,
    .null_min_depth_drops = 3,
    .lmr_min_depth = 3,
    .lmr_min_moves = 3,
    .lmp_depth = 3,
    .lmp_base = 8,
    .lmp_per_depth2 = 8,
    .delta_margin = 200,
    .check_extension_plies = 2,
    .aspiration_min_depth = 5,
    .aspiration_delta = 25,
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
    struct rules_move noisy[ENGINE_MAX_PLY + 1][RULES_MAX_MOVES];
    int noisy_order[ENGINE_MAX_PLY + 1][RULES_MAX_MOVES];
    struct rules_move root_first;           /* the first move the root searched */
    /* Root moves not to search (MultiPV: the lines already found). */
    struct rules_move root_skip[RULES_MAX_MOVES];
    int root_skip_count;
    /* The evaluation cache: the key's upper 48 bits and the score's 16 in
     * one word (0: empty), so that the cache stays small enough for the
     * processor's caches. */
    uint64_t eval_cache[EVAL_CACHE_SIZE];
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
    uint64_t *slot = &s->eval_cache[key & (EVAL_CACHE_SIZE - 1)];
    uint64_t tag = key & ~(uint64_t)0xFFFF;
    if (*slot != 0 && (*slot & ~(uint64_t)0xFFFF) == tag)
        return (int16_t)(uint16_t)(*slot & 0xFFFF);
    int score = eval_position(s->w, s->v, pos);
    if (score > INT16_MAX)
        score = INT16_MAX;
    if (score < INT16_MIN)
        score = INT16_MIN;
    *slot = tag | (uint16_t)(int16_t)score;
    return score;
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
static void pick_from(struct rules_move *moves, int *order, int n, int i)
{
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

static void pick(struct search *s, int ply, int n, int i)
{
    pick_from(s->moves[ply], s->order[ply], n, i);
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

/* ---- staged moves ------------------------------------------------------- */

enum stage { STAGE_TT, STAGE_NOISY_GEN, STAGE_NOISY, STAGE_REST_GEN, STAGE_REST, STAGE_DONE };

#define ORDER_BAD_CAPTURE (1 << 26)
#define ORDER_SEE_LOSES (-(1 << 30))   /* marks a capture kept for the last stage */

/* The moves of one node, produced stage by stage, so that a cut by the
 * table's move or a capture is made before the quiet moves and drops (in
 * Korpalski: hundreds) are generated at all. */
struct picker {
    enum stage stage;
    struct rules_move tt;
    bool tt_ok;               /* the table's move is legal here */
    int n_noisy, i_noisy;
    int n, i;
    int legal;                /* legal moves of the node: known at STAGE_REST */
};

static void picker_init(struct picker *pk, struct rules_move tt)
{
    memset(pk, 0, sizeof *pk);
    pk->tt = tt;
    pk->legal = -1;
}

static bool root_skipped(const struct search *s, int ply, struct rules_move m)
{
    if (ply != 0)
        return false;
    for (int i = 0; i < s->root_skip_count; i++)
        if (move_eq(s->root_skip[i], m))
            return true;
    return false;
}

/* The next move to search, or false when there is none left. */
static bool next_move(struct search *s, struct picker *pk, const struct rules_position *pos,
                      int ply, struct rules_move *out)
{
    const struct rules_variant *v = s->v;
    switch (pk->stage) {
    case STAGE_TT:
        pk->stage = STAGE_NOISY_GEN;
        if (!move_eq(pk->tt, no_move) && v->move_is_legal_fast(pos, pk->tt)) {
            pk->tt_ok = true;
            if (!root_skipped(s, ply, pk->tt)) {
                *out = pk->tt;
                return true;
            }
        }
        /* fall through */
    case STAGE_NOISY_GEN: {
        struct rules_move *noisy = s->noisy[ply];
        int *order = s->noisy_order[ply];
        pk->n_noisy = v->moves_noisy(pos, noisy);
        for (int i = 0; i < pk->n_noisy; i++)
            order[i] = victim_value(s, pos, noisy[i]) * 16 -
                       RULES_MAN_TYPE(v->man_at(pos, noisy[i].from));
        pk->stage = STAGE_NOISY;
    }
        /* fall through */
    case STAGE_NOISY:
        while (pk->i_noisy < pk->n_noisy) {
            struct rules_move *noisy = s->noisy[ply];
            int *order = s->noisy_order[ply];
            int i = pk->i_noisy++;
            pick_from(noisy, order, pk->n_noisy, i);
            struct rules_move m = noisy[i];
            if ((pk->tt_ok && move_eq(m, pk->tt)) || root_skipped(s, ply, m))
                continue;
            /* A capture of a man worth less than the capturer may lose
             * material: by static exchange it waits for the last stage. */
            if (!(m.flags & RULES_MOVE_PROMOTION) &&
                victim_value(s, pos, m) < s->w->value[RULES_MAN_TYPE(v->man_at(pos, m.from))] &&
                engine_see(v, s->w, pos, m) < 0) {
                order[i] = ORDER_SEE_LOSES;
                continue;
            }
            *out = m;
            return true;
        }
        pk->stage = STAGE_REST_GEN;
        /* fall through */
    case STAGE_REST_GEN: {
        struct rules_move *moves = s->moves[ply];
        int *order = s->order[ply];
        int side = v->side_to_move(pos);
        int n = v->moves_legal(pos, moves), kept = 0;
        pk->legal = n;
        for (int i = 0; i < n; i++) {
            struct rules_move m = moves[i];
            if (!is_quiet(m) || (pk->tt_ok && move_eq(m, pk->tt)) || root_skipped(s, ply, m))
                continue;
            moves[kept] = m;
            if (move_eq(m, s->killers[ply][0]))
                order[kept] = 1 << 27;
            else if (move_eq(m, s->killers[ply][1]))
                order[kept] = (1 << 27) - 1;
            else
                order[kept] = s->history[side][history_kind(s, pos, m)][m.to & 127];
            kept++;
        }
        for (int i = 0; i < pk->n_noisy; i++)
            if (s->noisy_order[ply][i] == ORDER_SEE_LOSES) {
                moves[kept] = s->noisy[ply][i];
                order[kept++] = ORDER_BAD_CAPTURE + victim_value(s, pos, s->noisy[ply][i]);
            }
        pk->n = kept;
        pk->stage = STAGE_REST;
    }
        /* fall through */
    case STAGE_REST:
        if (pk->i < pk->n) {
            pick(s, ply, pk->n, pk->i);
            *out = s->moves[ply][pk->i++];
            return true;
        }
        pk->stage = STAGE_DONE;
        /* fall through */
    case STAGE_DONE:
        break;
    }
    return false;
}

/* Every node's entry: counts it, clears its line, and ends it (true, with
 * its score in *score) when the search stops or the ply limit is reached. */
static inline bool node_ends(struct search *s, const struct rules_position *pos,
                             uint64_t key, int ply, int *score)
{
    s->pv_len[ply] = 0;
    if (count_node(s)) {
        *score = 0;
        return true;
    }
    if (ply > s->seldepth)
        s->seldepth = ply;
    if (ply >= ENGINE_MAX_PLY - 1) {
        *score = evaluate_keyed(s, pos, key);
        return true;
    }
    return false;
}

/* `check` is whether the side to move is in check when the caller knows
 * it (it computed it to decide on a reduction), else -1. */
static int quiesce(struct search *s, const struct rules_position *pos, uint64_t key,
                   int alpha, int beta, int ply, int check)
{
    const struct rules_variant *v = s->v;
    int ends;
    if (node_ends(s, pos, key, ply, &ends))
        return ends;

    /* Standing pat comes before any move is generated: most quiescence
     * nodes end here.  A stalemate that stands pat at or above beta is
     * missed, as in most engines; mates are not (in check there is no
     * standing pat). */
    struct rules_move *moves = s->moves[ply];
    bool in_check = check >= 0 ? check != 0 : v->in_check(pos);
    int best = -INF, stand = 0, n;
    if (v->insufficient_material(pos))
        return 0;
    if (!in_check) {
        stand = evaluate_keyed(s, pos, key);
        if (stand >= beta)
            return stand;
        if (stand > alpha)
            alpha = stand;
        best = stand;
        /* Only captures and promotions, from their own generator. */
        n = v->moves_noisy(pos, moves);
        if (n == 0 && v->perft(pos, 1) == 0)
            return s->w->stalemate;
    } else {
        n = v->moves_legal(pos, moves);
        if (n == 0)
            return -ENGINE_MATE + ply;
    }
    score_moves(s, pos, ply, n, no_move);
    for (int i = 0; i < n; i++) {
        pick(s, ply, n, i);
        struct rules_move m = moves[i];
        if (!in_check && !(m.flags & RULES_MOVE_PROMOTION)) {
            /* Delta pruning: the capture cannot bring the score near alpha. */
            if (stand + victim_value(s, pos, m) + tune.delta_margin <= alpha)
                continue;
            /* A capture that loses material by static exchange. */
            if (victim_value(s, pos, m) < s->w->value[RULES_MAN_TYPE(v->man_at(pos, m.from))] &&
                engine_see(v, s->w, pos, m) < 0)
                continue;
        }
        struct rules_position next = *pos;
        v->move_play(&next, m);
        int score = -quiesce(s, &next, v->key_after(pos, key, m, &next), -beta, -alpha,
                             ply + 1, -1);
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

static int negamax(struct search *s, const struct rules_position *pos, uint64_t key,
                   int alpha, int beta, int depth, int ply, bool null_ok, int check)
{
    const struct rules_variant *v = s->v;
    bool pv_node = beta - alpha > 1;

    /* 1. Leaf. */
    if (depth <= 0)
        return quiesce(s, pos, key, alpha, beta, ply, check);
    int ends;
    if (node_ends(s, pos, key, ply, &ends))
        return ends;

    /* 2. Draws and mate distance. */
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
            (TT_BOUND(te) == TT_EXACT || (TT_BOUND(te) == TT_LOWER && score >= beta) ||
             (TT_BOUND(te) == TT_UPPER && score <= alpha)))
            return score;
    }

    /* 4. Check extension, bounded so that checks cannot run away. */
    bool in_check = check >= 0 ? check != 0 : v->in_check(pos);
    if (in_check && ply < tune.check_extension_plies * s->root_depth)
        depth++;

    /* 5. Pruning before the moves. */
    /* Only the pruning below uses it, and not at PV nodes. */
    int static_eval = in_check || pv_node ? -INF : evaluate_keyed(s, pos, key);
    bool placing = placing_kings(s, pos);
    if (!pv_node && !in_check && !placing && depth <= tune.rfp_depth &&
        beta > -ENGINE_MATE_BOUND && beta < ENGINE_MATE_BOUND) {
        int margin = anyone_holds_reserve(s, pos) ? tune.rfp_margin_drops : tune.rfp_margin;
        if (static_eval - margin * depth >= beta)
            return static_eval;
    }
    int null_min_depth = anyone_holds_reserve(s, pos) ? tune.null_min_depth_drops
                                                      : tune.null_min_depth;
    if (!pv_node && !in_check && !placing && null_ok && depth >= null_min_depth &&
        static_eval >= beta && beta < ENGINE_MATE_BOUND && beta > -ENGINE_MATE_BOUND &&
        has_pieces(s, pos)) {
        struct rules_position next = *pos;
        int r = 2 + depth / 4;
        v->null_play(&next);
        int score = -negamax(s, &next, v->repetition_key(&next), -beta, -beta + 1,
                             depth - 1 - r, ply + 1, false, 0);
        if (s->stopped)
            return 0;
        if (score >= beta)
            return score >= ENGINE_MATE_BOUND ? beta : score;
    }

    /* 6. The moves, stage by stage. */
    int side = v->side_to_move(pos);
    int best = -INF, orig_alpha = alpha, searched = 0, quiet_count = 0;
    struct rules_move best_move = no_move, m;
    struct rules_move quiets[QUIETS_MAX];
    struct picker pk;
    picker_init(&pk, tt_move);

    while (next_move(s, &pk, pos, ply, &m)) {
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
        uint64_t next_key = v->key_after(pos, key, m, &next);
        int new_depth = depth - 1, score;

        if (searched == 0) {
            if (ply == 0)
                s->root_first = m;
            score = -negamax(s, &next, next_key, -beta, -alpha, new_depth, ply + 1, true,
                             gives_check);
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
            score = -negamax(s, &next, next_key, -alpha - 1, -alpha, new_depth - r, ply + 1,
                             true, gives_check);
            if (r > 0 && score > alpha && !s->stopped)
                score = -negamax(s, &next, next_key, -alpha - 1, -alpha, new_depth, ply + 1,
                                 true, gives_check);
            if (score > alpha && score < beta && !s->stopped)
                score = -negamax(s, &next, next_key, -beta, -alpha, new_depth, ply + 1, true,
                                 gives_check);
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
                    /* 7. A cut: remember what made it. */
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
    /* All stages done without a move: none is legal (the root's skipped
     * moves aside), mate or stalemate. */
    if (pk.stage == STAGE_DONE && searched == 0 && pk.legal == 0)
        return in_check ? -ENGINE_MATE + ply : s->w->stalemate;
    if (searched == 0 && best == -INF)
        return alpha;

    enum tt_bound bound = best >= beta ? TT_LOWER : best > orig_alpha ? TT_EXACT : TT_UPPER;
    tt_store(&s->eng->tt, key, best_move, tt_score_to(best, ply), depth, bound);
    return best;
}

/* The root at `depth`: with an aspiration window around the previous
 * iteration's score when `aspire` (widened on each side it fails, until it
 * holds the score), else the full window. */
static int search_root(struct search *s, const struct rules_position *pos, uint64_t key,
                       int depth, bool aspire, int guess)
{
    int delta = tune.aspiration_delta, alpha = -INF, beta = INF;
    if (aspire && depth >= tune.aspiration_min_depth && guess > -ENGINE_MATE_BOUND &&
        guess < ENGINE_MATE_BOUND) {
        alpha = guess - delta;
        beta = guess + delta;
    }
    for (;;) {
        int score = negamax(s, pos, key, alpha, beta, depth, 0, false, -1);
        if (s->stopped)
            return score;
        if (score <= alpha && alpha > -INF) {
            alpha = score - delta > -ENGINE_MATE_BOUND ? score - delta : -INF;
        } else if (score >= beta && beta < INF) {
            beta = score + delta < ENGINE_MATE_BOUND ? score + delta : INF;
        } else {
            return score;
        }
        delta *= 2;
    }
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

    uint64_t root_key = v->repetition_key(pos);
    int max_depth = ENGINE_MAX_PLY - 1;
    if (s->lim.depth > 0 && s->lim.depth < max_depth)
        max_depth = s->lim.depth;
    int lines = s->lim.multipv > 1 ? s->lim.multipv : 1;
    if (lines > ENGINE_MULTIPV_MAX)
        lines = ENGINE_MULTIPV_MAX;
    if (lines > n)
        lines = n;
    int stable = 0;                 /* iterations in a row with the same best move */
    tt_new_search(&e->tt);
    for (int depth = 1; depth <= max_depth; depth++) {
        struct rules_move before = out->best;
        bool finished = true;
        s->root_depth = depth;
        s->root_skip_count = 0;
        for (int line = 1; line <= lines && finished; line++) {
            s->seldepth = 0;
            int score = search_root(s, pos, root_key, depth, line == 1 && depth > 1,
                                    out->score);
            if (s->stopped && (depth > 1 || s->pv_len[0] == 0)) {
                /* A stopped iteration's score is not kept, but its best move
                 * is when the root searched the previous best first (the
                 * table's move, as a rule) and another move then beat it:
                 * that one is better by a deeper search. */
                if (line == 1 && depth > 1 && s->pv_len[0] > 0 &&
                    move_eq(s->root_first, out->best) && !move_eq(s->pv[0][0], out->best)) {
                    out->best = s->pv[0][0];
                    out->has_ponder = s->pv_len[0] > 1;
                    out->ponder = out->has_ponder ? s->pv[0][1] : no_move;
                }
                finished = false;
                break;
            }
            if (s->pv_len[0] == 0)
                break;
            if (line == 1) {
                out->best = s->pv[0][0];
                out->has_ponder = s->pv_len[0] > 1;
                out->ponder = out->has_ponder ? s->pv[0][1] : no_move;
                out->score = score;
                out->depth = depth;
            }
            s->root_skip[s->root_skip_count++] = s->pv[0][0];
            if (on_info != NULL) {
                int64_t elapsed = now_ms() - s->start_ms;
                info->multipv = line;
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
                finished = false;
        }
        if (!finished)
            break;
        if (s->lim.mate > 0 && engine_mate_moves(out->score) > 0 &&
            engine_mate_moves(out->score) <= s->lim.mate)
            break;
        /* With a clock: no new iteration after half of the soft limit,
         * which shrinks while the best move stays and grows (up to the
         * hard limit) when it has just changed. */
        stable = move_eq(before, out->best) ? stable + 1 : 0;
        if (s->soft_ms) {
            int64_t soft = s->soft_ms * (stable == 0 ? 3 : stable >= 4 ? 1 : 2) / 2;
            if (soft > s->hard_ms)
                soft = s->hard_ms;
            if (now_ms() - s->start_ms >= soft / 2)
                break;
        }
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
