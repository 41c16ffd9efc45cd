/*
 * games.h — the life of a game, and everything that changes the state of
 * games, challenges, tournaments, leave, messages and notes, conditional
 * moves and the arbiter's queue: each change one transaction (games/ is
 * the only module that opens one on them) that locks what it changes, asks
 * rules/ on the stored position, saves, and writes the events it owes.  No
 * history is replayed: the game row holds the position and the repetition
 * keys since the last irreversible move.  Callers get a games_result: one
 * outcome per meaning (api/api_outcomes.c maps each to its HTTP answer).
 *
 * Where each lives: games_core.c (the frame: running a body, locking,
 * refusing, ending), games_moves.c (moves, with their Idempotency-Key and
 * message), games_claims.c (claims and draw offers), games_endings.c
 * (resignation, abort, adjudication), games_clock.c (deadlines, give-time,
 * the sweeper), games_challenges.c, games_conditional.c, games_messages.c,
 * games_leave.c, games_ratings.c, games_arbiter.c, games_tournaments.c,
 * games_analysis.c (an arbiter's view of a position) and games_record.c
 * (a stored game's PGN, the engine-analysis rule).
 */
#ifndef KORP_GAMES_H
#define KORP_GAMES_H

#include "db.h"
#include "rules.h"

#include <stdbool.h>

/*
 * What became of a request: GAMES_OK, or why it was refused.  One value,
 * one meaning, and so one answer (api/api_outcomes.c maps each to its
 * HTTP problem; a contract test holds that table to this list).
 */
enum games_outcome {
    GAMES_OK = 0,
    GAMES_NOT_FOUND,          /* no such game, challenge, tournament, item or booking */
    GAMES_NOT_YOURS,          /* no such game that the caller plays (which it is not told) */
    GAMES_FORBIDDEN,          /* the caller may not do this to it */
    GAMES_CONFLICT,           /* it is not in a state that allows this */
    GAMES_NOT_YOUR_TURN,
    GAMES_GAME_OVER,
    GAMES_PLY_MISMATCH,       /* the caller's ply is not the plies played */
    GAMES_ILLEGAL,            /* the move is illegal, ambiguous or unreadable */
    GAMES_DRAW_NOT_ALLOWED,   /* the variant refuses a draw by agreement here */
    GAMES_LINES_DISAGREE,     /* conditional lines answer one move differently */
    GAMES_CLAIM_LINE_REFUSED, /* a perpetual-check line is not legal, not all checks, or too long */
    GAMES_ENTRY_REFUSED,      /* a tournament's entry condition is not met */
    GAMES_DAILY_LIMIT,        /* as many as a day allows were made: retry_after */
    GAMES_DAY_OUT_OF_RANGE,   /* leave must start today or within a year */
    GAMES_LEAVE_EXCEEDED,     /* over the leave allowance of a year */
    GAMES_OWN_GAME_IN_PLAY,   /* no engine on a game (or position) the caller is playing */
    GAMES_KEY_REUSED,         /* the Idempotency-Key was used for another request */
    GAMES_ANSWERED_BEFORE,    /* the Idempotency-Key's request was answered: its answer stands */
    GAMES_DB_ERROR,           /* see db and err */
    GAMES_OUTCOME_COUNT
};

/* What a state change answers: the outcome, words for a person, and the
 * game as it stands after it. */
struct games_result {
    enum games_outcome outcome;
    char detail[256];
    enum rules_reason reason;   /* GAMES_ILLEGAL: the rule broken */
    const char *code;           /* a refusal's reason code, finer than the outcome's
                                   (a static string; NULL: the outcome's own) */
    int ply;                    /* plies played when the request came */
    int retry_after;            /* GAMES_DAILY_LIMIT: seconds until one more is allowed
                                   (0: not known) */
    bool claim_accepted;        /* claims: whether the claim held */
    struct db_game game;        /* owned: games_result_clear */
    enum db_status db;          /* GAMES_DB_ERROR */
    struct base_err err;        /* GAMES_DB_ERROR: the database's words */
};

/* Frees what a result owns. */
void games_result_clear(struct games_result *r);

/* A player's challenges open to anyone, at most. */
#define GAMES_OPEN_CHALLENGES_MAX 10

/*
 * Makes *c an open challenge from c->challenger_id to c->opponent_id (""
 * : anyone), its id made here and the rest read back as stored.  Refused
 * with GAMES_CONFLICT when one to that opponent is open already or
 * GAMES_OPEN_CHALLENGES_MAX to anyone wait, GAMES_DAILY_LIMIT when the
 * challenger made per_day (0: no cap) in the last 24 hours, and
 * GAMES_NOT_FOUND when the opponent does not exist.
 */
void games_challenge_create(struct db_pool *pool, struct db_challenge *c, int per_day,
                            struct games_result *out);

/* Accepts a challenge as its opponent: makes the game (colours drawn for
 * "random") and returns it. */
void games_challenge_accept(struct db_pool *pool, const char *player_id,
                            const char *challenge_id, struct games_result *out);

/* Declines (as the opponent) or cancels (as the challenger) a challenge;
 * out->detail holds nothing on success. */
void games_challenge_close(struct db_pool *pool, const char *player_id,
                           const char *challenge_id, bool decline, struct db_challenge *c,
                           struct games_result *out);
/* Declines a challenge as games_challenge_close does, keeping why (one of
 * the words lichess's clients send). */
void games_challenge_decline(struct db_pool *pool, const char *player_id,
                             const char *challenge_id, const char *reason,
                             struct db_challenge *c, struct games_result *out);

/*
 * A request that may come twice: its Idempotency-Key and what names the
 * request (the token, method and path the key belongs to).  The key is
 * claimed in the move's own transaction and the answer stored in it, so a
 * retry running at the same time waits for the first to commit and gets
 * its answer, and a crash loses both or neither.
 *
 * The stored answer is the one `render` writes for the result: the body
 * and its HTTP status, in a malloc'd string (NULL: out of memory, and the
 * transaction fails).  It runs inside the transaction, may run more than
 * once, and touches nothing but its arguments.
 */
struct games_key {
    const char *key, *token_id, *method, *path;
    char *(*render)(const struct games_result *r, const void *arg, int *status);
    const void *render_arg;
    int status;     /* answers: the stored answer's status ... */
    char *body;     /* ... and body (malloc'd, the caller frees it) */
};

/*
 * Plays a move given in any notation the variant reads; `ply` is the
 * plies the caller believes were played, or -1 not to check.  `message`
 * (or NULL) goes to the opponent with the move, at its ply, in the same
 * transaction (one over the daily limit is dropped).  With a key (or
 * NULL), the answer is key->status and key->body whatever the outcome
 * but GAMES_DB_ERROR and GAMES_KEY_REUSED: the stored one when
 * GAMES_ANSWERED_BEFORE (the game untouched), this request's otherwise.
 */
void games_move(struct db_pool *pool, const char *player_id, const char *game_id,
                const char *move, int ply, const char *message, struct games_key *key,
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

/* ---- Read from a stored game (games_record.c) */

/* The PGN of a game read with db_game_get (*pgn malloc'd; DB_OK with *pgn
 * NULL: out of memory), written from the moves' SAN as stored (the row's list, or
 * the moves' rows when the list falls short of the ply), without playing
 * them again: what the HTTP records serve.  DB_HARD_ERROR when the
 * variant's start position cannot be read. */
enum db_status games_pgn(struct db_pool *pool, const struct db_game *g, char **pgn,
                         struct base_err *err);

/* The PGN of tournament `id`: its games by round, each headed by the
 * tournament's name (Event), `site` (Site; "korp" when NULL or ""), its
 * round and board ("3.2"), and each side's rating when it began (WhiteElo,
 * BlackElo, where known).  *pgn malloc'd ("" before the start); DB_OK with
 * *pgn NULL: out of memory; DB_NOT_FOUND: no such tournament. */
enum db_status games_tournament_pgn(struct db_pool *pool, const char *id, const char *site,
                                    char **pgn, struct base_err *err);

/*
 * Whether a player may have an engine analyse pos (of variant v): not when
 * game_id (or NULL) names a game they play that is still going
 * (GAMES_OWN_GAME_IN_PLAY; GAMES_NOT_FOUND when there is no such game),
 * nor when pos stands in any of their active games.  Arbiters are judged
 * alike.  out->game holds nothing.
 */
void games_analysis_allowed(struct db_pool *pool, const char *player_id,
                            const struct rules_variant *v, const struct rules_position *pos,
                            const char *game_id, struct games_result *out);

/* ---- Conditional moves, notes and messages ----------------------------- */

#define GAMES_LINES_MAX 64        /* lines a player may set */
#define GAMES_LINE_MOVES_MAX 40   /* moves in a line: 2 to 40, an even number */

/* A player's conditional moves: lines alternating the opponent's move and
 * the player's reply, starting with the opponent's next move.  Given in
 * any notation the variant reads; answered in SAN. */
struct games_lines {
    int count;
    int length[GAMES_LINES_MAX];
    char move[GAMES_LINES_MAX][GAMES_LINE_MOVES_MAX][RULES_MOVE_TEXT_MAX];
    int expect_ply;     /* given: the plies the caller believes were played, or -1 */
    int ply;            /* answers: plies played when they hold */
    bool conflict;      /* refused: two lines answer one move differently */
    int bad_line;       /* refused (illegal or conflict): the line, from 0 */
    int bad_index;      /* ... and the move in it, from 0 */
};

/* Replaces the player's lines (none: removes them) while their opponent
 * is to move (GAMES_PLY_MISMATCH when expect_ply is not the plies played:
 * lines meant for another position are never stored); every move is
 * checked in sequence from the current position
 * (GAMES_ILLEGAL with bad_line and bad_index), and lines sharing a prefix
 * must give one reply (GAMES_CONFLICT with conflict set); on one's own
 * turn: GAMES_CONFLICT.  lines become SAN. */
void games_conditional_put(struct db_pool *pool, const char *player_id, const char *game_id,
                           struct games_lines *lines, struct games_result *out);

/* The player's own lines in SAN (none once the game is over). */
void games_conditional_get(struct db_pool *pool, const char *player_id, const char *game_id,
                           struct games_lines *lines, struct games_result *out);

/* Removes the player's lines. */
void games_conditional_delete(struct db_pool *pool, const char *player_id, const char *game_id,
                              struct games_result *out);

/* Sets the player's private note on a game they play (GAMES_NOT_YOURS
 * otherwise); updated_at is when. */
void games_note_put(struct db_pool *pool, const char *player_id, const char *game_id,
                    const char *text, char updated_at[DB_TIME_SIZE], struct games_result *out);

/* Messages: at most this many per player per game per UTC day; 1 to
 * GAMES_MESSAGE_CHARS characters. */
#define GAMES_MESSAGES_PER_DAY 20
#define GAMES_MESSAGE_CHARS 500

/* Whether text may be a message: 1 to 500 characters of valid UTF-8 that
 * base_text_fit accepts (newlines allowed); why says what is wrong otherwise. */
bool games_message_valid(const char *text, char *why, size_t size);

/* Sends a message to the opponent (any status of the game): stored with
 * the plies played, and the event "message".  GAMES_FORBIDDEN for one
 * who does not play the game, GAMES_CONFLICT beyond the daily limit.
 * *json is the message (malloc'd). */
void games_message_send(struct db_pool *pool, const char *player_id, const char *game_id,
                        const char *text, char **json, struct games_result *out);

/* ---- Clocks and leave: games_clock.c, games_leave.c. */

/* Gives the opponent (to move) days more: on their deadline, or on their
 * Fischer time.  Refused on one's own turn and in a game without a clock. */
void games_give_time(struct db_pool *pool, const char *player_id, const char *game_id,
                     int days, struct games_result *out);

/* What leave answers besides the outcome. */
struct games_leave {
    int year, left;              /* GAMES_LEAVE_EXCEEDED: the year, its days left */
    struct db_leave booking;     /* the booking made */
};

/* Books leave: `days` whole UTC days from start_day ("YYYY-MM-DD"), within
 * `allowance` days per calendar year; the deadlines of the player's games
 * move in the same transaction.  Refused with GAMES_DAY_OUT_OF_RANGE (not
 * today or up to 365 days ahead), GAMES_CONFLICT (it overlaps a booking)
 * or GAMES_LEAVE_EXCEEDED (l->year, l->left). */
void games_leave_book(struct db_pool *pool, const char *player_id, const char *start_day,
                      int days, int allowance, struct games_leave *l, struct games_result *out);

/* Cancels a booking not started, or ends one in progress at the end of
 * today (UTC); the days not used come back.  GAMES_NOT_FOUND for no
 * booking of the player's, GAMES_CONFLICT for one that has ended. */
void games_leave_cancel(struct db_pool *pool, const char *player_id, const char *leave_id,
                        struct games_result *out);
/* ---- Ratings (games_ratings.c) */

/* Days in one Glicko-2 rating period (KORP_RATING_PERIOD_DAYS, default 7):
 * call once before threads start. */
void games_ratings_set_period(int days);

/* ---- The arbiter's queue (games_arbiter.c) */

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

/* A player's requests for an arbiter in 24 hours, at most. */
#define GAMES_ARBITER_REQUESTS_PER_DAY 3

/* A player of the game asks for an arbiter (request_id).  Refused with
 * GAMES_CONFLICT while their request about the game is open, and with
 * GAMES_DAILY_LIMIT (retry_after) past GAMES_ARBITER_REQUESTS_PER_DAY. */
void games_arbiter_request(struct db_pool *pool, const char *player_id, const char *game_id,
                           const char *text, char request_id[BASE_ID_SIZE],
                           struct games_result *out);

/* An arbiter dismisses an open item with a reason; both players are told. */
void games_arbiter_dismiss(struct db_pool *pool, const char *item_id, const char *reason,
                           struct games_result *out);

/* The same by a named arbiter: the dismissal is recorded in the arbiters'
 * log (log_id) with who dismissed it and why. */
void games_arbiter_dismiss_logged(struct db_pool *pool, const char *arbiter_id,
                                  const char *item_id, const char *reason,
                                  char log_id[BASE_ID_SIZE], struct games_result *out);

/* What becomes of a closed player's active rated games: lost by forfeit,
 * unrated (no rating changes, as a tournament withdrawal), or lost by the
 * arbiter's adjudication, rated as any adjudication. */
enum games_closure_games { GAMES_CLOSURE_FORFEIT = 0, GAMES_CLOSURE_ADJUDICATE };

/* An arbiter's closure of a player's account for rated play: why (for the
 * log, and as the adjudications' reason), what the player is shown, the
 * open item it answers (NULL: none). */
struct games_closure {
    const char *arbiter_id, *player_id, *item_id, *reason, *message;
    enum games_closure_games games;
};

/*
 * Closes a player's account for rated play, in one transaction: their
 * active rated games end as c->games says, their open rated challenges
 * (made or received) are cancelled, they leave the rated tournaments they
 * are entered in (withdrawn from one under way), the item (if any) is
 * resolved and the closure logged (log_id).  Earlier games and the
 * opponents' ratings stay as they are.  *details is what it did, a JSON
 * object {"games": [...], "challenges": [...], "tournaments": [...]}
 * (malloc'd).  Refused: no such player or item (GAMES_NOT_FOUND), closed
 * already or the item not open (GAMES_CONFLICT).
 */
void games_rated_close(struct db_pool *pool, const struct games_closure *c,
                       char log_id[BASE_ID_SIZE], char **details, struct games_result *out);

/* Reopens a closed account for rated play, logged (log_id) with why and what
 * the player is shown (message, or NULL).  What the closure ended stays
 * ended.  Refused: no such player (GAMES_NOT_FOUND), not closed
 * (GAMES_CONFLICT). */
void games_rated_reopen(struct db_pool *pool, const char *arbiter_id, const char *player_id,
                        const char *reason, const char *message, char log_id[BASE_ID_SIZE],
                        struct games_result *out);

/* In a transaction that makes rated play for the count players (ids): refuses
 * it (GAMES_CONFLICT, code "rated-play-closed") when one of them is closed
 * for rated play.  Their rows stay locked, so that a closure cannot pass
 * between the check and the commit. */
enum db_status games_rated_play_check(struct db_tx *tx, const char *const *ids, int count,
                                      struct games_result *r);

/* In the transaction that stored game_id's fair-play figures: each of its
 * players whose figures now pass review gets one `fairplay-review` item on
 * the arbiter's queue, with the games behind them (games_fairplay.c). */
enum db_status games_fairplay_review(struct db_tx *tx, const char *game_id,
                                     const struct db_fairplay_review *review);

/* An arbiter answers an open fair-play review with a warning the player is
 * shown (message) and a reason for the log: the item resolved, the action
 * logged (log_id).  Refused when the item is not an open review. */
void games_fairplay_warn(struct db_pool *pool, const char *arbiter_id, const char *item_id,
                         const char *reason, const char *message, char log_id[BASE_ID_SIZE],
                         struct games_result *out);

/* ---- Round-robin tournaments (games_tournaments.c) */

/* Creates *t (checked by the caller) as an open tournament, its id made
 * here.  Refused with GAMES_DAILY_LIMIT (retry_after) when its director
 * created per_day (0: no cap) in the last 24 hours. */
void games_tournament_create_limited(struct db_pool *pool, struct db_tournament *t, int per_day,
                                     struct games_result *out);
/* The same without a cap (korpd's own tools and tests). */
void games_tournament_create(struct db_pool *pool, struct db_tournament *t,
                             struct games_result *out);

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
