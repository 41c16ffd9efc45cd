/*
 * db_challenges.h — challenges, one query a function; in db_challenges.c.
 * db.h includes it.
 */
#ifndef KORP_DB_CHALLENGES_H
#define KORP_DB_CHALLENGES_H

#include "db_clock.h"
#include "db_kinds.h"

/* A challenge as stored, with the names of its two players. */
struct db_challenge {
    char id[BASE_ID_SIZE];
    const struct rules_variant *variant;
    char challenger_id[BASE_ID_SIZE], challenger_name[DB_NAME_SIZE];
    char opponent_id[BASE_ID_SIZE], opponent_name[DB_NAME_SIZE];
    enum db_color color;      /* the challenger's: white, black or random */
    int days_per_move;        /* 0: no deadline */
    bool fifty_move_rule;
    struct db_clock clock;    /* days_per_move is clock.days for PER_MOVE */
    enum db_challenge_status status;
    char game_id[BASE_ID_SIZE]; /* "" until accepted */
    char created_at[DB_TIME_SIZE];
    bool rated;               /* its game changes ratings */
    bool engines_allowed;     /* its game's players may have an engine analyse it */
};

/* What stands in the way of a new challenge (db_challenge_guard). */
struct db_challenge_guard {
    char existing_id[BASE_ID_SIZE]; /* the challenger's open one to that opponent, or "" */
    int open_to_anyone;             /* the challenger's open to anyone */
    int last_day;                   /* the challenger's made in the last 24 hours */
    int wait;                       /* seconds until the oldest of those is 24 hours old */
};

/* Until the transaction ends, one challenge at a time per challenger. */
enum db_status db_challenger_lock(struct db_tx *tx, const char *challenger_id);

/* What stands in the way of a challenge from challenger_id to opponent_id
 * ("" : anyone); under db_challenger_lock. */
enum db_status db_challenge_guard(struct db_tx *tx, const char *challenger_id,
                                  const char *opponent_id, struct db_challenge_guard *out);

/* Inserts c as an open challenge (id made here): DB_NOT_FOUND when its
 * opponent does not exist, DB_CONFLICT when one to them is open already
 * (the unique index).  c's names and times are not filled: read it back
 * with db_challenge_lock. */
enum db_status db_challenge_insert(struct db_tx *tx, struct db_challenge *c);

/* One challenge.  DB_NOT_FOUND if none. */
enum db_status db_challenge_get(struct db_pool *pool, const char *id, struct db_challenge *out,
                                struct base_err *err);

/* The open challenges a player received or sent, newest first. */
enum db_status db_challenge_list(struct db_pool *pool, const char *player_id,
                                 struct db_challenge *incoming, int max_in, int *count_in,
                                 struct db_challenge *outgoing, int max_out, int *count_out,
                                 struct base_err *err);

/* Locks a challenge for a state change.  DB_NOT_FOUND if none. */
enum db_status db_challenge_lock(struct db_tx *tx, const char *id, struct db_challenge *out);

/* Makes the player the opponent of an open challenge (locked), filling
 * c's opponent.  DB_CONFLICT when it has an opponent already. */
enum db_status db_challenge_take(struct db_tx *tx, struct db_challenge *c,
                                 const char *player_id);

/* Sets a challenge's status (and game id, "" or NULL for none). */
enum db_status db_challenge_set_status(struct db_tx *tx, const char *id,
                                       enum db_challenge_status status, const char *game_id);

/* Records an event for the two players of a challenge. */
enum db_status db_challenge_event(struct db_tx *tx, const char *challenge_id,
                                  enum db_event event);

/* Challenges open to anyone, newest first: at most max into out. */
enum db_status db_challenges_open(struct db_pool *pool, struct db_challenge *out, int max,
                                  int *count, struct base_err *err);

#endif
