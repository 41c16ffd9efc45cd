/*
 * db_clock.h — clocks: their kinds, the game time given, and korp's own clock;
 * in db_names.c, db_games.c, db_challenges.c and db_settings.c.  db.h
 * includes it.
 */
#ifndef KORP_DB_CLOCK_H
#define KORP_DB_CLOCK_H

#include "db_pool.h"
#include "db_names.h"

/* A challenge's or game's kind of clock: none (no time limit), days per
 * move, or a Fischer clock (a time bank with an increment, capped). */
enum db_clock_type { DB_CLOCK_NONE = 0, DB_CLOCK_PER_MOVE, DB_CLOCK_FISCHER };

/* "per_move", "fischer" ("" for none), and back. */
const char *db_clock_type_text(enum db_clock_type type);
bool db_clock_type_parse(const char *text, enum db_clock_type *out);

struct db_clock {
    enum db_clock_type type;
    int days;                                    /* PER_MOVE: days_per_move */
    int initial_days, increment_days, max_days;  /* FISCHER */
    bool leave_allowed;                          /* leave stops it (the default) */
};

/* Adds seconds to the time of the side to move of a locked game with a
 * clock (its deadline later to match); a game without one is unchanged. */
enum db_status db_game_give_time(struct db_tx *tx, const char *game_id, long long seconds);

/* korp's clock (the test clock included), in Unix seconds. */
enum db_status db_clock_now(struct db_pool *pool, long long *now, struct base_err *err);

/* Moves the one clock forward to `offset_seconds` past the database's own;
 * *now gets the new time. */
enum db_status db_clock_set(struct db_pool *pool, long long offset_seconds,
                            char now[DB_TIME_SIZE], struct base_err *err);

#endif
