/*
 * games.h — the life of a game: every state change (accepting a challenge,
 * a move, a draw claim or offer, resignation, abort, adjudication, time
 * running out) as one transaction that locks the game row, asks rules/ on
 * the stored position, saves the game, appends the move and writes the
 * events it owes.  No history is replayed: the game row holds the position
 * and the repetition keys since the last irreversible move.
 *
 * Where each lives: games_core.c (the frame: locking, refusing, ending),
 * games_moves.c, games_claims.c (claims and draw offers), games_endings.c
 * (resignation, abort, adjudication), games_clock.c (deadlines and the
 * sweeper), games_challenges.c, games_analysis.c.
 */
#ifndef KORP_GAMES_H
#define KORP_GAMES_H

#include "db.h"
#include "rules.h"

#include <stdbool.h>

/* Why a state change was refused (or GAMES_OK). */
enum games_outcome {
    GAMES_OK = 0,
    GAMES_NOT_FOUND,        /* no such game or challenge */
    GAMES_FORBIDDEN,        /* the caller may not do this to it */
    GAMES_CONFLICT,         /* not in a state that allows it */
    GAMES_NOT_YOUR_TURN,
    GAMES_GAME_OVER,
    GAMES_PLY_MISMATCH,
    GAMES_ILLEGAL,          /* the move is illegal or unreadable */
    GAMES_DRAW_NOT_ALLOWED,
    GAMES_ANSWERED_BEFORE,  /* the before hook found the request answered */
    GAMES_DB_ERROR          /* see db and err */
};

/* What a state change answers: the outcome, words for a person, and the
 * game as it stands after it. */
struct games_result {
    enum games_outcome outcome;
    char detail[256];
    enum rules_reason reason;   /* GAMES_ILLEGAL: the rule broken */
    int ply;                    /* plies played when the request came */
    bool claim_accepted;        /* claims: whether the claim held */
    struct db_game game;        /* owned: games_result_clear */
    enum db_status db;          /* GAMES_DB_ERROR */
    struct base_err err;        /* GAMES_DB_ERROR: the database's words */
};

/* Frees what a result owns. */
void games_result_clear(struct games_result *r);

/* Accepts a challenge as its opponent: makes the game (colours drawn for
 * "random") and returns it. */
void games_challenge_accept(struct db_pool *pool, const char *player_id,
                            const char *challenge_id, struct games_result *out);

/* Declines (as the opponent) or cancels (as the challenger) a challenge;
 * out->detail holds nothing on success. */
void games_challenge_close(struct db_pool *pool, const char *player_id,
                           const char *challenge_id, bool decline, struct db_challenge *c,
                           struct games_result *out);

/*
 * Work the caller adds to a state change's transaction: `before` runs
 * first (DB_CONFLICT from it stops the change with GAMES_ANSWERED_BEFORE),
 * `after` runs last with the outcome (not on a database error), so that
 * what it writes commits with the change or not at all.  Either may be
 * NULL; both may run more than once (retries).
 */
struct games_hooks {
    enum db_status (*before)(struct db_tx *tx, void *arg);
    enum db_status (*after)(struct db_tx *tx, const struct games_result *r, void *arg);
    void *arg;
};

/* Plays a move given in any notation the variant reads; `ply` is the
 * plies the caller believes were played, or -1 not to check.  hooks may
 * be NULL. */
void games_move(struct db_pool *pool, const char *player_id, const char *game_id,
                const char *move, int ply, const struct games_hooks *hooks,
                struct games_result *out);

enum games_claim { GAMES_CLAIM_THREEFOLD = 0, GAMES_CLAIM_FIFTY_MOVE };

/*
 * Claims a draw, optionally together with a move (the position after it is
 * the one claimed about).  An accepted claim ends the game 1/2-1/2 without
 * playing the move (the chess convention); a rejected one changes nothing.  claim_accepted and
 * detail say which and why.
 */
void games_claim(struct db_pool *pool, const char *player_id, const char *game_id,
                 enum games_claim kind, const char *move, struct games_result *out);

enum games_draw_action { GAMES_DRAW_OFFER = 0, GAMES_DRAW_ACCEPT, GAMES_DRAW_DECLINE };

void games_draw(struct db_pool *pool, const char *player_id, const char *game_id,
                enum games_draw_action action, struct games_result *out);

void games_resign(struct db_pool *pool, const char *player_id, const char *game_id,
                  struct games_result *out);

/* Aborts a game before each side has moved. */
void games_abort(struct db_pool *pool, const char *player_id, const char *game_id,
                 struct games_result *out);

/* An arbiter's ruling: the game ends with that result and reason. */
void games_adjudicate(struct db_pool *pool, const char *game_id, enum rules_result result,
                      const char *reason, struct games_result *out);

/* Ends the games whose deadline has passed (the side to move loses, or
 * draws when the opponent cannot mate); returns how many, or -1 with err. */
int games_sweep(struct db_pool *pool, struct base_err *err);

/* What an arbiter needs to rule on a claim, for a stored game. */
struct games_analysis {
    struct rules_report report;
    enum rules_color to_move;
    int *earlier;                      /* plies where the position occurred before,
                                          oldest first (malloc'd) */
    int earlier_count;
    bool threefold_claimable;
    bool fifty_move_claimable;
};

/* Analyses a game read with db_game_get; false if its position is bad.
 * games_analysis_clear frees what it holds. */
bool games_analyse(const struct db_game *g, struct games_analysis *out);
void games_analysis_clear(struct games_analysis *a);

/* ---- Ratings (issue 19, games_ratings.c) */

/* Days in one Glicko-2 rating period (KORP_RATING_PERIOD_DAYS, default 7):
 * call once before threads start. */
void games_ratings_set_period(int days);

/* ---- The arbiter's queue (issue 19, games_arbiter.c) */

/*
 * A perpetual-check claim by the player to move: `line` (moves to come in
 * any notation the variant reads, the claimant's first) must be legal from
 * the current position, and each of the claimant's moves must give check.
 * A valid claim is queued for an arbiter (claim_id) and the game goes on.
 * Refused with GAMES_ILLEGAL and detail naming the move; *not_check says
 * the move was legal but gave no check.
 */
void games_perpetual_claim(struct db_pool *pool, const char *player_id, const char *game_id,
                           const char *line, bool *not_check, char claim_id[BASE_ID_SIZE],
                           struct games_result *out);

/* A player of the game asks for an arbiter (request_id). */
void games_arbiter_request(struct db_pool *pool, const char *player_id, const char *game_id,
                           const char *text, char request_id[BASE_ID_SIZE],
                           struct games_result *out);

/* An arbiter dismisses an open item with a reason; both players are told. */
void games_arbiter_dismiss(struct db_pool *pool, const char *item_id, const char *reason,
                           struct games_result *out);

/* ---- Round-robin tournaments (issue 19, games_tournaments.c) */

/* Joins an open tournament, its entry conditions checked (GAMES_ILLEGAL
 * with the reason when not met; GAMES_CONFLICT when full or started); *t
 * is the tournament after it. */
void games_tournament_join(struct db_pool *pool, const char *player_id, const char *id,
                           struct db_tournament *t, struct games_result *out);

/* Leaves a tournament before its start, or withdraws after it: every
 * unfinished game of the player ends as their loss (forfeit, unrated). */
void games_tournament_withdraw(struct db_pool *pool, const char *player_id, const char *id,
                               struct db_tournament *t, struct games_result *out);

/* Starts an open tournament (its director, or an arbiter): numbers by lot
 * and every game at once; at least 3 players. */
void games_tournament_start(struct db_pool *pool, const char *caller_id, bool arbiter,
                            const char *id, struct db_tournament *t, struct games_result *out);

/* Starts (or cancels) tournaments whose starts_at has passed, and queues
 * for an arbiter the games still going at ends_at; returns how many
 * tournaments it handled, or -1 with err.  Safe with several korpd. */
int games_tournaments_sweep(struct db_pool *pool, struct base_err *err);

#endif
