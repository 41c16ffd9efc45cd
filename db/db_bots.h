/*
 * db_bots.h — bot accounts (the players who play through the API of bots
 * written for lichess); in db_bots.c.  db.h includes it.
 */
#ifndef KORP_DB_BOTS_H
#define KORP_DB_BOTS_H

#include "db_pool.h"
#include "db_names.h"

/* Enough for any of lichess's reasons to decline, with its NUL. */
#define DB_REASON_SIZE 16

/* Whether the player's account is a bot account.  DB_NOT_FOUND if no such
 * player. */
enum db_status db_bot_get(struct db_pool *pool, const char *player_id, bool *bot,
                          struct base_err *err);

/* Makes the player's account a bot account, unless it has played a game
 * (as a person): then *refused and nothing changes.  An account that is a
 * bot already stays one. */
enum db_status db_bot_upgrade(struct db_pool *pool, const char *player_id, bool *refused,
                              struct base_err *err);

/* A bot account: its id and name. */
struct db_bot {
    char id[BASE_ID_SIZE], name[DB_NAME_SIZE];
};

/* The bot accounts seen within the last within_ms (db_bot_seen), by name,
 * at most max into out. */
enum db_status db_bot_list(struct db_pool *pool, int within_ms, struct db_bot *out, int max,
                           int *count, struct base_err *err);

/* Whether player_id is a bot account seen within the last within_ms. */
enum db_status db_bot_online(struct db_pool *pool, const char *player_id, int within_ms,
                             bool *online, struct base_err *err);

/* Enough for a stamp of db_bot_seen's, with its NUL. */
#define DB_STAMP_SIZE 48

/* The bot account player_id has a stream open now: its stamp (the time,
 * as text) into stamp.  DB_NOT_FOUND when it is not a bot account.
 * db_bot_gone clears the stamp if it is still the one written. */
enum db_status db_bot_seen(struct db_pool *pool, const char *player_id,
                           char stamp[DB_STAMP_SIZE], struct base_err *err);
enum db_status db_bot_gone(struct db_pool *pool, const char *player_id, const char *stamp,
                           struct base_err *err);

/* The player named `name` (any case), or else whose id it is: lichess's
 * clients name players by user name.  DB_NOT_FOUND if none. */
enum db_status db_player_by_name(struct db_pool *pool, const char *name, char id[BASE_ID_SIZE],
                                 char canonical[DB_NAME_SIZE], struct base_err *err);

/* Keeps why a challenge was declined (a word of lichess's clients), in the
 * transaction that declines it; reads it back ("" when none kept). */
enum db_status db_challenge_set_decline_reason(struct db_tx *tx, const char *id,
                                               const char *reason);
enum db_status db_challenge_decline_reason(struct db_pool *pool, const char *id,
                                           char reason[DB_REASON_SIZE], struct base_err *err);

#endif
