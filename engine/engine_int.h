/*
 * engine_int.h — what the files of engine/ share: the engine handle, the
 * transposition table and the evaluation's tables.
 */
#ifndef KORP_ENGINE_INT_H
#define KORP_ENGINE_INT_H

#include "engine.h"

#include <stdatomic.h>

/* ---- transposition table (tt.c) ----------------------------------------- */

enum tt_bound { TT_NONE = 0, TT_UPPER = 1, TT_LOWER = 2, TT_EXACT = 3 };

struct tt_entry {
    uint64_t key;
    struct rules_move move;
    int16_t score;           /* mate scores relative to this node (tt_score_to) */
    uint8_t depth;
    uint8_t bound;           /* enum tt_bound in the low 2 bits, the search's
                                generation (mod 64) above them */
};

#define TT_BOUND(entry) ((enum tt_bound)((entry)->bound & 3))

/* Two entries per bucket: the first keeps the deepest result, the second
 * always takes the newest. */
struct tt {
    struct tt_entry *entries;
    size_t buckets;          /* a power of two */
    uint8_t generation;      /* of the current search, 0..63 */
};

int tt_init(struct tt *tt, size_t mb);
void tt_free(struct tt *tt);
void tt_clear(struct tt *tt);
/* A new search begins: entries of earlier searches give way in the deep
 * slot (long analyses of many positions would otherwise fill it with
 * results no longer wanted). */
void tt_new_search(struct tt *tt);
/* The entry for key, or NULL. */
const struct tt_entry *tt_probe(const struct tt *tt, uint64_t key);
void tt_store(struct tt *tt, uint64_t key, struct rules_move move, int score,
              int depth, enum tt_bound bound);
/* Mate scores are stored relative to the node, read back relative to the root. */
int tt_score_to(int score, int ply);
int tt_score_from(int score, int ply);

/* ---- the handle (engine.c) ---------------------------------------------- */

struct engine {
    struct tt tt;
    atomic_bool stop;
};

/* ---- evaluation (eval.c, eval_korpalski.c, eval_glinski.c) --------------- */

/*
 * A variant's evaluation as data: every number the evaluation uses, so
 * that tuning changes tables and not code.  Piece-square tables are from
 * White's side, indexed by cell; Black reads them through `mirror`.
 */
struct eval_weights {
    int cells;
    const uint8_t *mirror;                       /* cell seen from Black */
    int value[RULES_PIECE_TYPES];                /* a man on the board */
    int reserve_value[RULES_PIECE_TYPES];        /* a man in reserve */
    const int16_t *pst[RULES_PIECE_TYPES];       /* middle game (king: too) */
    const int16_t *king_endgame;                 /* the king's table with few men left */
    int mobility[RULES_PIECE_TYPES];             /* per attacked cell not own */
    int king_attack[RULES_PIECE_TYPES];          /* danger per zone cell attacked */
    int drop_danger[RULES_PIECE_TYPES];          /* danger per enemy man in reserve */
    int shelter;                                 /* danger removed per own man in zone */
    int danger_scale;                            /* penalty = units^2 / danger_scale */
    int danger_max;
    int pawn_last_ranks_no_prison;               /* pawn on 6th/7th with empty prison: */
    int tempo;
    int phase_full;                              /* non-pawn material of a full set, both sides */
    int stalemate;                               /* score of being stalemated */
};

/*
 * The piece-square tables of a variant's eval_weights, written as its rules
 * PAWN(cell) .. KING(cell) and KING_ENDGAME(cell) applied to each cell of
 * its list LIST(X) (eval_korpalski.c, eval_glinski.c).
 */
#define EVAL_TABLES(LIST)                                                              \
    .pst = { (const int16_t[]){ LIST(PAWN) }, (const int16_t[]){ LIST(KNIGHT) },      \
             (const int16_t[]){ LIST(BISHOP) }, (const int16_t[]){ LIST(ROOK) },      \
             (const int16_t[]){ LIST(QUEEN) }, (const int16_t[]){ LIST(KING) } },     \
    .king_endgame = (const int16_t[]){ LIST(KING_ENDGAME) }

/* The weights both variants share: king danger per attacker (P N B R Q K),
 * the shelter of an own man next to the king, the side to move's tempo. */
#define EVAL_SHARED_WEIGHTS                                                            \
    .king_attack = { 1, 2, 2, 3, 5, 0 }, .shelter = 2, .tempo = 10

extern const struct eval_weights eval_korpalski;
extern const struct eval_weights eval_glinski;

/* The weights for variant v (Korpalski's for an unknown one). */
const struct eval_weights *eval_weights_for(const struct rules_variant *v);

/* Static evaluation for the side to move. */
int eval_position(const struct eval_weights *w, const struct rules_variant *v,
                  const struct rules_position *pos);
/* The same from the variant's view of the position (rules_variant.view). */
int eval_view(const struct eval_weights *w, const struct rules_variant *v,
              const struct rules_view *view);

/* ---- static exchange evaluation (see.c) ---------------------------------- */

/* What the capture (or promotion) m of pos wins in material after the best
 * sequence of recaptures on its target, in the weights' piece values;
 * negative when it loses material.  0 for drops and quiet moves. */
int engine_see(const struct rules_variant *v, const struct eval_weights *w,
               const struct rules_position *pos, struct rules_move m);

#endif
