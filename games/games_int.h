/* games_int.h — what the files of games/ share: the transaction frame every
 * state change runs in, and the steps most of them take. */
#ifndef KORP_GAMES_INT_H
#define KORP_GAMES_INT_H

#include "games.h"
#include "db_idempotency.h"

/* Refuses a state change: the outcome and words for a person; returns
 * DB_OK, so that the transaction commits nothing it has not written. */
enum db_status games_refuse(struct games_result *r, enum games_outcome outcome,
                            const char *fmt, ...) __attribute__((format(printf, 3, 4)));

/* Writes an event's (or a queue item's) JSON into out: a text that would
 * be cut short fails the transaction instead of storing half of it. */
enum db_status games_format(struct db_tx *tx, char *out, size_t size, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

/* A state change's transaction body: what it answers goes into r. */
typedef enum db_status games_body(struct db_tx *tx, struct games_result *r, void *arg);

/* Runs fn as one transaction, r cleared before each run of it (a body may
 * run more than once: db_run_tx retries); a database failure becomes
 * GAMES_DB_ERROR. */
void games_run(struct db_pool *pool, games_body *fn, void *arg, struct games_result *r);

/*
 * A player's change to a game they play: run on the locked, active game
 * (on their turn when needs_turn; with its repetition keys when
 * with_keys), with the position and their colour, and arg.
 */
struct games_step {
    bool needs_turn, with_keys;
    enum db_status (*run)(struct db_tx *tx, struct games_result *r,
                          const struct rules_position *pos, enum rules_color color,
                          const void *arg);
};

/* Runs a step as one transaction (games_lock_for_player first). */
void games_run_step(struct db_pool *pool, const char *player_id, const char *game_id,
                    const struct games_step *step, const void *arg, struct games_result *out);

/* "white" or "black". */
const char *games_color_name(enum rules_color c);

/* Reads the stored position; an unreadable one is a hard error (a stored
 * position is never trusted, never guessed). */
enum db_status games_load(struct db_tx *tx, const struct db_game *g,
                          struct rules_position *pos);

/* Locks the game into r->game (its ply into r->ply), whatever its status;
 * refuses one not found (GAMES_NOT_FOUND). */
enum db_status games_lock_game(struct db_tx *tx, const char *game_id, bool with_keys,
                               struct games_result *r);

/* Whether the player plays the game (either colour). */
bool games_is_player(const struct db_game *g, const char *player_id);

/*
 * Locks the game for a player's state change and checks that they may act
 * on it now: a player of it, the game active (one past its deadline is
 * ended on time first, in this transaction), and when needs_turn, their
 * move.  Refusals are set in r (r->outcome); pos and *color are filled
 * when the game may be acted on.
 */
enum db_status games_lock_for_player(struct db_tx *tx, const char *game_id,
                                     const char *player_id, bool needs_turn, bool with_keys,
                                     struct games_result *r, struct rules_position *pos,
                                     enum rules_color *color);

/* Locks a game that must be active (an arbiter's ruling); refuses one
 * that is not found or over. */
enum db_status games_lock_active(struct db_tx *tx, const char *game_id,
                                 struct games_result *r);

/* Marks the game over with that result and termination (the draw offer lapses). */
void games_finish(struct db_game *g, enum rules_result result, enum db_termination termination);

/* Saves a game that has just ended and tells both players. */
enum db_status games_save_end(struct db_tx *tx, struct db_game *g);

/* What a game's end owes in its transaction once the game is saved: the
 * players' ratings (games_ratings.c), the arbiter's queue (games_arbiter.c),
 * its tournament (games_tournaments.c), the fair-play queue
 * (games_fairplay.c) and the game_end event. */
enum db_status games_announce_end(struct db_tx *tx, struct db_game *g);

/* A rated game that has just ended changes both players' ratings and
 * g->rating_diff (games_ratings.c); nothing for any other game. */
enum db_status games_ratings_game_over(struct db_tx *tx, struct db_game *g);

/* An adjudicated game's open items on the arbiter's queue are resolved,
 * and both players told (games_arbiter.c); nothing for other endings. */
enum db_status games_arbiter_game_over(struct db_tx *tx, struct db_game *g);

/* A tournament game's end finishes its tournament when it was the last
 * (games_tournaments.c); nothing for other games. */
enum db_status games_tournament_game_over(struct db_tx *tx, struct db_game *g);

/* A rated game with engines forbidden that has just ended is queued for
 * the fair-play analysis (games_fairplay.c); nothing for any other game. */
enum db_status games_fairplay_game_over(struct db_tx *tx, struct db_game *g);

/* Ends a locked game whose deadline has passed (games_clock.c). */
enum db_status games_time_out(struct db_tx *tx, struct db_game *g, void *arg);

/* Reads a move in any notation the variant reads (games_moves.c); false
 * with r's outcome, reason and detail set when it is illegal or ambiguous. */
bool games_read_move(const struct rules_variant *v, const struct rules_position *pos,
                     const char *text, struct rules_move *m, struct games_result *r);

/* Plays a legal move on the locked game as any move is played: the move
 * row, the game saved, the events (games_moves.c).  pos becomes the
 * position after it. */
enum db_status games_play(struct db_tx *tx, struct rules_position *pos, struct rules_move m,
                          struct db_game *g);

/* After move m (from the position `before`) was played and saved on g
 * (pos after it): the reply the player to move set for it in conditional
 * moves is played at once, as a move of theirs, and their lines move on
 * or are dropped (games_conditional.c). */
enum db_status games_conditional_answer(struct db_tx *tx, const struct rules_position *before,
                                        struct rules_move m, struct rules_position *pos,
                                        struct db_game *g);

/* A message sent with a move, inside the move's transaction (the game
 * locked): stored at ply; DB_CONFLICT beyond the daily limit
 * (games_messages.c). */
enum db_status games_message_with_move(struct db_tx *tx, const char *player_id,
                                       const char *game_id, int ply, const char *text);

#endif
