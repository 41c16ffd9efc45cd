/*
 * db_leave.h — leave: bookings that stop a player's clocks; in db_leave.c.
 * db.h includes it.
 */
#ifndef KORP_DB_LEAVE_H
#define KORP_DB_LEAVE_H

#include "db_pool.h"
#include "db_names.h"

/* A booking of leave: [start, end) (RFC 3339), its days counted. */
struct db_leave {
    char id[BASE_ID_SIZE];
    char start[DB_TIME_SIZE], end[DB_TIME_SIZE];
    int days;
};

/* One calendar year a booking touches: its days there, the days used there. */
struct db_leave_year {
    int year, days, used;
};

/* Where a booking stands now. */
enum db_leave_state { DB_LEAVE_AHEAD = 0, DB_LEAVE_RUNNING, DB_LEAVE_ENDED };

/* Locks the player's bookings (their row); *ahead: days from today (UTC,
 * korpd's clock) to start_day ("YYYY-MM-DD", or NULL). */
enum db_status db_leave_lock_player(struct db_tx *tx, const char *player_id,
                                    const char *start_day, int *ahead);

/* Whether days from start_day overlap a booking of the player's. */
enum db_status db_leave_overlaps(struct db_tx *tx, const char *player_id, const char *start_day,
                                 int days, bool *overlaps);

/* The years days from start_day touch, in order (at most max). */
enum db_status db_leave_years(struct db_tx *tx, const char *player_id, const char *start_day,
                              int days, struct db_leave_year *out, int max, int *count);

/* Books days from start_day (from now when it is today); out gets it. */
enum db_status db_leave_insert(struct db_tx *tx, const char *player_id, const char *start_day,
                               int days, struct db_leave *out);

/* Sets again the deadlines of the player's active games that leave stops. */
enum db_status db_leave_games_deadline(struct db_tx *tx, const char *player_id);

/* Locks one of the player's bookings.  DB_NOT_FOUND if not theirs. */
enum db_status db_leave_lock(struct db_tx *tx, const char *id, const char *player_id,
                             enum db_leave_state *state);

/* Deletes a booking; ends one at the end of today (UTC), its later days given back. */
enum db_status db_leave_delete(struct db_tx *tx, const char *id);
enum db_status db_leave_end_today(struct db_tx *tx, const char *id);

/* The player's bookings with days in this year or later (at most max, in
 * order), and the days used this year. */
enum db_status db_leave_list(struct db_pool *pool, const char *player_id, struct db_leave *out,
                             int max, int *count, int *used, struct base_err *err);

/* The end of the player's leave in force, "" when none. */
enum db_status db_leave_until(struct db_pool *pool, const char *player_id,
                              char until[DB_TIME_SIZE], struct base_err *err);

#endif
