/*
 * engine.h — korp's game-playing search, for both variants, on top of the
 * rules library's variant table.
 *
 * An engine handle owns a transposition table and a stop flag; one search
 * runs on a handle at a time (two handles can search at once).  The search
 * itself is iterative deepening principal variation search with a
 * quiescence search; docs/engine.md explains its choices.  Call
 * rules_init() before any function here.
 *
 * Scores are centipawns from the side to move's point of view; a score
 * beyond ±ENGINE_MATE_BOUND is a mate: ENGINE_MATE - n means the side to
 * move mates n plies from now, -(ENGINE_MATE - n) that it is mated.
 */
#ifndef KORP_ENGINE_H
#define KORP_ENGINE_H

#include "rules.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* The deepest line the search follows, extensions and quiescence included. */
#define ENGINE_MAX_PLY 128
#define ENGINE_MATE 32000
#define ENGINE_MATE_BOUND (ENGINE_MATE - 2 * ENGINE_MAX_PLY)
/* The transposition table's default and largest size, in MiB. */
#define ENGINE_HASH_DEFAULT_MB 16
#define ENGINE_HASH_MAX_MB 4096

/* What bounds a search.  Zero means "no limit" for each field; with no
 * field set the search runs until engine_stop (as with infinite). */
struct engine_limits {
    int depth;               /* iterations, 1..ENGINE_MAX_PLY - 1 */
    uint64_t nodes;          /* positions visited */
    int64_t movetime_ms;     /* time for this move */
    int64_t time_ms[2];      /* the clocks by colour (UCI wtime, btime) */
    int64_t inc_ms[2];       /* increments by colour (UCI winc, binc) */
    int movestogo;           /* moves to the next time control, or 0 */
    int mate;                /* stop once a mate in at most this many moves is found */
    bool infinite;           /* ignore the clocks: stop only on engine_stop,
                                depth or nodes */
    int multipv;             /* lines to find, best first (0 or 1: one); at
                                most ENGINE_MULTIPV_MAX and the legal moves */
};

#define ENGINE_MULTIPV_MAX 64

/* What one finished iteration found; passed to the info callback. */
struct engine_info {
    int multipv;             /* which line: 1 the best, 2 the next, ... */
    int depth;
    int seldepth;            /* deepest ply reached, quiescence included */
    int score;
    uint64_t nodes;
    int64_t time_ms;
    uint64_t nps;
    int pv_length;
    struct rules_move pv[ENGINE_MAX_PLY];
};

/* What a search returns.  has_move is false only when the position has no
 * legal move (or the game is over by the material rule). */
struct engine_result {
    bool has_move;
    struct rules_move best;
    bool has_ponder;
    struct rules_move ponder; /* the expected reply, from the principal variation */
    int score;
    int depth;               /* the last iteration completed */
    uint64_t nodes;
    int64_t time_ms;
};

/* Called after each completed iteration, once per line (multipv 1 first),
 * on the searching thread. */
typedef void engine_info_fn(void *arg, const struct engine_info *info);

struct engine;

/* A new engine with a transposition table of `hash_mb` MiB (clamped to
 * 1..ENGINE_HASH_MAX_MB), or NULL when out of memory.  Free with
 * engine_free. */
struct engine *engine_new(size_t hash_mb);

/* Frees the engine; NULL is a no-op.  No search may be running on it. */
void engine_free(struct engine *e);

/* Resizes (and clears) the transposition table; returns 0, or -1 when out
 * of memory (the old table is kept).  Not while a search runs. */
int engine_hash_resize(struct engine *e, size_t hash_mb);

/* Forgets everything learnt (table, move-ordering statistics): for a new
 * game.  Not while a search runs. */
void engine_clear(struct engine *e);

/* Asks the running search to return as soon as it can; callable from any
 * thread, also before the search starts (it then returns at once with
 * whatever it has: at least a legal move). */
void engine_stop(struct engine *e);

/* Clears the stop flag: call before starting a search (and before handing
 * it to another thread, so that an early engine_stop is not lost). */
void engine_stop_reset(struct engine *e);

/* Whether engine_stop was called since the last engine_stop_reset. */
bool engine_stop_requested(const struct engine *e);

/*
 * Searches `pos` of variant `v` within `limits` and fills *out.
 * `history` holds the repetition keys (v->repetition_key) of the game's
 * positions since the last irreversible move, oldest first, the current
 * position last, as rules_repetition_count takes them; it may be NULL with
 * count 0.  `on_info` (may be NULL) hears of every completed iteration.
 * Does not clear the stop flag (see engine_stop_reset).  Returns 0, or -1
 * when out of memory (*out then holds no move).
 */
int engine_search(struct engine *e, const struct rules_variant *v,
                  const struct rules_position *pos, const uint64_t *history,
                  int history_count, const struct engine_limits *limits,
                  engine_info_fn *on_info, void *arg, struct engine_result *out);

/* The static evaluation of `pos` in centipawns for the side to move. */
int engine_evaluate(const struct rules_variant *v, const struct rules_position *pos);

/* For a mate score: the moves to mate, positive when the side to move
 * mates, negative when it is mated (UCI's "score mate N"); 0 otherwise. */
int engine_mate_moves(int score);

/*
 * A small seeded generator (xorshift64) for self-play openings that are the
 * same on every machine (korp-tune, the engine's tests): the state starts as
 * engine_rng_seed(seed), never 0; engine_rng_next advances it.
 */
static inline uint64_t engine_rng_seed(uint64_t seed)
{
    return seed * 0x9E3779B97F4A7C15ULL + 1;
}

static inline uint64_t engine_rng_next(uint64_t *state)
{
    *state ^= *state << 13;
    *state ^= *state >> 7;
    *state ^= *state << 17;
    return *state;
}

#endif
