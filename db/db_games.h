/*
 * db_games.h — games, their moves, conditional moves and positions under
 * analysis; in db_games.c, db_conditional.c and db_analysis.c.  db.h
 * includes it.
 */
#ifndef KORP_DB_GAMES_H
#define KORP_DB_GAMES_H

#include "db_clock.h"
#include "db_kinds.h"

/* A game as stored, with its players' names. */
struct db_game {
    char id[BASE_ID_SIZE];
    const struct rules_variant *variant;
    char white_id[BASE_ID_SIZE], white_name[DB_NAME_SIZE];
    char black_id[BASE_ID_SIZE], black_name[DB_NAME_SIZE];
    char fen[DB_FEN_SIZE];
    int ply;
    enum db_game_status status;
    enum rules_result result;     /* RULES_RESULT_NONE ("*") while active */
    enum db_termination termination;
    char adjudication_reason[512];
    int days_per_move;            /* 0: no deadline */
    char deadline[DB_TIME_SIZE];  /* "" when none */
    enum db_color draw_offer;     /* NONE, WHITE or BLACK: who offers a draw */
    bool fifty_move_rule;
    int key_version;
    /* Repetition keys since the last irreversible move, the current
     * position's last.  Owned (db_game_clear frees). */
    uint64_t *keys;
    int key_count;
    char created_at[DB_TIME_SIZE];
    char updated_at[DB_TIME_SIZE];
    /* SAN of every move, space-separated; owned. */
    char *sans;
    /* A move to record with db_game_save: its SAN ("" for none) and UCI,
     * and the repetition key of the position after it, appended to the
     * stored keys, or starting them again when reset_keys. */
    char move_san[32], move_uci[32];
    uint64_t move_key;
    bool reset_keys;
    /* The move to record is a reply from conditional moves: its event says
     * "conditional": true (games_conditional.c). */
    bool move_conditional;
    /* Active with its deadline passed (the sweeper has not come yet). */
    bool overdue;
    /* Its clock, each side's whole seconds now (the side to move's counting
     * down), and the end of the leave stopping it ("" when running). */
    struct db_clock clock;
    long long remaining_white, remaining_black;
    char paused_until[DB_TIME_SIZE];
    /* The clock as stored (clocked: it has one): each side's seconds at
     * the start of the turn, when the turn began, and the time of the read
     * (korp's clock), all in seconds since 1970; the leave that stops it
     * from the turn's start on (owned); whether it was active when read.
     * db_game_save charges the turn from these (db_clock.c). */
    bool clocked, was_active;
    long long white_seconds, black_seconds, turn_started, now;
    struct db_pause *pauses;
    int pause_count;
    /* Its version: one more at each change of what the API shows of it,
     * the game's entity tag with paused_until (api_etag.c). */
    long long version;
    /* db_game_list only: created_at in microseconds since 1970, with id
     * the keyset position of the game for the next page. */
    char created_us[24];
    /* Whether it changes ratings, and once a rated game is over,
     * each side's rating after minus before (by colour: [0] White). */
    bool rated;
    /* Whether its players may have an engine analyse it while it is played. */
    bool engines_allowed;
    bool has_rating_diff;
    double rating_diff[2];
    /* Its round-robin tournament ("" for none) and, when made,
     * its round in the Berger tables. */
    char tournament_id[BASE_ID_SIZE];
    int tournament_round;
};

/* Frees what a db_game owns.  Safe on a zeroed or cleared game. */
void db_game_clear(struct db_game *g);

/* Creates a game from its first position, from the challenge accepted (or
 * NULL); its id is g->id, or one made here when g->id is "". */
enum db_status db_game_insert(struct db_tx *tx, struct db_game *g, const char *challenge_id);

/* Locks a game row for a state change, with its repetition keys when
 * asked (claims) or without (a move appends its key in SQL).
 * DB_NOT_FOUND if none. */
enum db_status db_game_lock(struct db_tx *tx, const char *id, bool with_keys,
                            struct db_game *out);

/*
 * Saves a game's state: position, ply, status, result, termination,
 * adjudication reason, draw offer; with a move (move_san set), writes its
 * row (at ply, with the new position) and appends its SAN and repetition
 * key (or restarts the keys).  A game with a clock is charged for the turn
 * a move or an end closes (db_clock.c: the next turn and its deadline start
 * now); one without has days_per_move from the move on.  The deadline is
 * cleared when the game is over.  Fills updated_at, deadline, sans, version
 * and the clock back; clears move_san.
 */
enum db_status db_game_save(struct db_tx *tx, struct db_game *g);

/* Adds seconds to the time of the side to move of a locked game with a
 * clock (its deadline later to match), in the database and in g; a game
 * without one is unchanged. */
enum db_status db_game_give_time(struct db_tx *tx, struct db_game *g, long long seconds);

/* Takes a game's deadline away (a game the sweeper cannot end waits for an
 * arbiter instead of stopping the sweep). */
enum db_status db_game_clear_deadline(struct db_tx *tx, const char *game_id);

/* Records an event for both players of a game, with a snapshot of its
 * state (id, ply, fen, to_move, status, result, termination, draw offer);
 * `detail` is a JSON object text merged in (or NULL). */
enum db_status db_game_event(struct db_tx *tx, const char *game_id, enum db_event event,
                             const char *detail);

/* A game with its moves' SAN, without its repetition keys (key_count 0),
 * or with them.  DB_NOT_FOUND if none. */
enum db_status db_game_get(struct db_pool *pool, const char *id, struct db_game *out,
                           struct base_err *err);
enum db_status db_game_get_keys(struct db_pool *pool, const char *id, struct db_game *out,
                                struct base_err *err);

struct db_game_filter {
    const char *player_id;    /* NULL: any */
    const enum db_game_status *status;           /* NULL: any */
    const struct rules_variant *variant;         /* NULL: any */
    const char *after_us;     /* keyset cursor: created_us and id of the */
    const char *after_id;     /* last game of the previous page; NULL: first */
    int limit;
    /* A player's queue instead: the active games where they are to move,
     * soonest deadline first (player_id, status and the cursor unused). */
    const char *to_move;
};

/* Games newest first, by keyset; out[max] each cleared by the caller
 * (db_game_clear).  *more is true when another page follows. */
enum db_status db_game_list(struct db_pool *pool, const struct db_game_filter *f,
                            struct db_game *out, int max, int *count, bool *more,
                            struct base_err *err);

struct db_move {
    int ply;
    char san[32];
    char uci[32];
    char fen[DB_FEN_SIZE];
    char at[DB_TIME_SIZE];
    bool conditional;             /* played from the mover's conditional moves */
};

/* All moves of a game in order, into a malloc'd array (*moves; caller
 * frees).  DB_NOT_FOUND if the game does not exist. */
enum db_status db_move_list(struct db_pool *pool, const char *game_id, struct db_move **moves,
                            int *count, struct base_err *err);

/* Ends up to `max` active games whose deadline has passed, each by the
 * callback in its own transaction (FOR UPDATE SKIP LOCKED), and returns
 * how many were ended in *ended. */
typedef enum db_status (*db_game_fn)(struct db_tx *tx, struct db_game *g, void *arg);
enum db_status db_games_overdue(struct db_pool *pool, int max, db_game_fn end, void *arg,
                                int *ended, struct base_err *err);

/* ---- Conditional moves (db_conditional.c): these run inside the caller's
 * transaction, which holds the game row. */

/* A player's conditional moves in a game: the plies played when they were
 * set, and their lines (UCI, a line per row, moves separated by spaces;
 * malloc'd).  DB_NOT_FOUND when none. */
enum db_status db_conditional_get(struct db_tx *tx, const char *game_id, const char *player_id,
                                  int *ply, char **lines);
/* Sets (replaces) them. */
enum db_status db_conditional_put(struct db_tx *tx, const char *game_id, const char *player_id,
                                  int ply, const char *lines);
/* Removes the player's (NULL: every player's in the game). */
enum db_status db_conditional_delete(struct db_tx *tx, const char *game_id,
                                     const char *player_id);
/* Marks the move at ply as a reply from conditional moves. */
enum db_status db_move_mark_conditional(struct db_tx *tx, const char *game_id, int ply);
/* Drops the notifications owed to the player for the move event of the
 * game at ply written in this transaction (a conditional reply followed
 * it: that one tells them). */
enum db_status db_move_notice_drop(struct db_tx *tx, const char *game_id, const char *player_id,
                                   int ply);

/* ---- Positions under engine analysis (db_analysis.c) */

struct db_active_position {
    char game_id[BASE_ID_SIZE];
    const struct rules_variant *variant;
    char fen[DB_FEN_SIZE];
};

/* Up to max of the player's active games in variant whose board (the FEN's
 * first field without Korpalski's `[reserves]`) is `board`'s: the candidates
 * for "this is the position of a game they are playing". */
enum db_status db_active_positions(struct db_pool *pool, const char *player_id,
                                   const struct rules_variant *variant, const char *board,
                                   struct db_active_position *out, int max, int *count,
                                   struct base_err *err);

#endif
