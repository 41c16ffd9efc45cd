/*
 * db_messages.h — notes and messages on a game; in db_messages.c.  db.h
 * includes it.
 */
#ifndef KORP_DB_MESSAGES_H
#define KORP_DB_MESSAGES_H

#include "db_pool.h"
#include "db_names.h"

/* The player's note on a game (*text malloc'd, NULL when they wrote none;
 * updated_at "" then).  DB_NOT_FOUND when they do not play the game. */
enum db_status db_note_get(struct db_pool *pool, const char *game_id, const char *player_id,
                           char **text, char updated_at[DB_TIME_SIZE], struct base_err *err);
/* Sets it.  DB_NOT_FOUND when they do not play the game. */
enum db_status db_note_put(struct db_pool *pool, const char *game_id, const char *player_id,
                           const char *text, char updated_at[DB_TIME_SIZE], struct base_err *err);
/* Stores a message at ply (the game locked), unless the sender has sent
 * daily_max in this game today (UTC): DB_CONFLICT.  *json is the message
 * as the API shows it (malloc'd). */
enum db_status db_message_insert(struct db_tx *tx, const char *game_id, const char *player_id,
                                 int ply, const char *text, int daily_max, char **json);
/* Messages the player sent in the game today (UTC), and seconds until the
 * next UTC day. */
enum db_status db_message_count(struct db_pool *pool, const char *game_id, const char *player_id,
                                int *count, int *wait_s, struct base_err *err);
/* {"messages": [...]} of a game, oldest first (*json malloc'd). */
enum db_status db_message_list(struct db_pool *pool, const char *game_id, char **json,
                               struct base_err *err);

#endif
