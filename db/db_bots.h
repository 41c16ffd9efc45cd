/*
 * db_bots.h — bot accounts (the players who play through the API of bots
 * written for lichess); in db_bots.c.  db.h includes it.
 */
#ifndef KORP_DB_BOTS_H
#define KORP_DB_BOTS_H

#include "db_pool.h"
#include "db_names.h"

/* Whether the player's account is a bot account.  DB_NOT_FOUND if no such
 * player. */
enum db_status db_bot_get(struct db_pool *pool, const char *player_id, bool *bot,
                          struct base_err *err);

/* Makes the player's account a bot account, unless it has played a game
 * (as a person): then *refused and nothing changes.  An account that is a
 * bot already stays one. */
enum db_status db_bot_upgrade(struct db_pool *pool, const char *player_id, bool *refused,
                              struct base_err *err);

/* The player named `name` (any case), or else whose id it is: lichess's
 * clients name players by user name.  DB_NOT_FOUND if none. */
enum db_status db_player_by_name(struct db_pool *pool, const char *name, char id[BASE_ID_SIZE],
                                 char canonical[DB_NAME_SIZE], struct base_err *err);

#endif
