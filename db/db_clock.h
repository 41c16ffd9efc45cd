/*
 * db_clock.h — clocks: their kinds, the game time given, a game's time
 * worked out from its row, and korp's own clock; in db_clock.c,
 * db_names.c, db_games.c, db_challenges.c and db_settings.c.  db.h
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

/* A stretch of leave that stops a game's clocks: [start, end), in whole
 * seconds since 1970. */
struct db_pause {
    long long start, end;
};

/* Seconds of running time in [t0, t1): the time no pause covers.  The
 * pauses are in order of start, and may overlap. */
long long db_clock_run_seconds(const struct db_pause *p, int n, long long t0, long long t1);

/* When `budget` seconds of running time from t0 are used up. */
long long db_clock_run_out(const struct db_pause *p, int n, long long t0, long long budget);

/* The end of the pause in force at `now` (overlapping and adjacent ones
 * joined), or 0 when the clocks run. */
long long db_clock_paused_until(const struct db_pause *p, int n, long long now);

/* "2026-11-29T05:49:49Z" */
void db_time_text(long long unix_seconds, char out[DB_TIME_SIZE]);

/* korp's clock (the test clock included), in Unix seconds. */
enum db_status db_clock_now(struct db_pool *pool, long long *now, struct base_err *err);

/* Moves the one clock forward to `offset_seconds` past the database's own;
 * *now gets the new time. */
enum db_status db_clock_set(struct db_pool *pool, long long offset_seconds,
                            char now[DB_TIME_SIZE], struct base_err *err);

#endif
