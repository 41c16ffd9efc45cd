/*
 * db_leave.c — players' leave: bookings of whole UTC days,
 * counted per calendar year, and the deadlines of the games they stop.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define L(kind, member, name) DB_##kind(struct db_leave, member, name)
static const struct db_col leave_cols[] = {
    L(TEXT, id, "id"), L(TEXT, start, "start_at"), L(TEXT, end, "end_at"), L(INT, days, "days"),
    DB_COLS_END
};

DB_READER(leave_read, struct db_leave, leave_cols)

static void ahead_read(void *out, const struct db_row *r)
{
    int *ahead = out;
    *ahead = db_row_int(r, "ahead");
}

enum db_status db_leave_lock_player(struct db_tx *tx, const char *player_id,
                                    const char *start_day, int *ahead)
{
    const char *params[2] = { player_id, start_day };
    *ahead = 0;
    return db_exec_row(tx, DB_STMT_LEAVE_LOCK_PLAYER, params, ahead_read, ahead);
}

static void count_read(void *out, const struct db_row *r)
{
    int *n = out;
    *n = db_row_int(r, "n");
}

enum db_status db_leave_overlaps(struct db_tx *tx, const char *player_id, const char *start_day,
                                 int days, bool *overlaps)
{
    char n[16];
    const char *params[3] = { player_id, start_day, n };
    int count = 0;
    enum db_status rc;

    snprintf(n, sizeof n, "%d", days);
    rc = db_exec_row(tx, DB_STMT_LEAVE_OVERLAP, params, count_read, &count);
    *overlaps = count > 0;
    return rc;
}

enum db_status db_leave_years(struct db_tx *tx, const char *player_id, const char *start_day,
                              int days, struct db_leave_year *out, int max, int *count)
{
    char n[16];
    const char *params[3] = { player_id, start_day, n };
    PGresult *res = NULL;
    enum db_status rc;

    snprintf(n, sizeof n, "%d", days);
    *count = 0;
    rc = db_exec(tx, DB_STMT_LEAVE_YEARS, params, &res);
    for (int i = 0; rc == DB_OK && i < PQntuples(res) && i < max; i++) {
        const struct db_row r = { res, i };
        out[i].year = db_row_int(&r, "year");
        out[i].days = db_row_int(&r, "days");
        out[i].used = db_row_int(&r, "used");
        (*count)++;
    }
    PQclear(res);
    return rc;
}

enum db_status db_leave_insert(struct db_tx *tx, const char *player_id, const char *start_day,
                               int days, struct db_leave *out)
{
    char n[16];
    const char *params[4] = { out->id, player_id, start_day, n };

    if (!db_new_id(out->id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    snprintf(n, sizeof n, "%d", days);
    return db_exec_row(tx, DB_STMT_LEAVE_INSERT, params, leave_read, out);
}

enum db_status db_leave_games_deadline(struct db_tx *tx, const char *player_id)
{
    const char *params[1] = { player_id };
    return db_exec(tx, DB_STMT_LEAVE_GAMES_DEADLINE, params, NULL);
}

static void state_read(void *out, const struct db_row *r)
{
    enum db_leave_state *state = out;
    *state = db_row_bool(r, "ended")     ? DB_LEAVE_ENDED
             : db_row_bool(r, "started") ? DB_LEAVE_RUNNING
                                         : DB_LEAVE_AHEAD;
}

enum db_status db_leave_lock(struct db_tx *tx, const char *id, const char *player_id,
                             enum db_leave_state *state)
{
    const char *params[2] = { id, player_id };
    return db_exec_row(tx, DB_STMT_LEAVE_LOCK, params, state_read, state);
}

enum db_status db_leave_delete(struct db_tx *tx, const char *id)
{
    const char *params[1] = { id };
    return db_exec(tx, DB_STMT_LEAVE_DELETE, params, NULL);
}

enum db_status db_leave_end_today(struct db_tx *tx, const char *id)
{
    const char *params[1] = { id };
    return db_exec(tx, DB_STMT_LEAVE_END_TODAY, params, NULL);
}

struct leave_list {
    const char *player_id;
    struct db_leave *out;
    int max, *count, *used;
};

static void used_read(void *out, const struct db_row *r)
{
    int *used = out;
    *used = db_row_int(r, "used");
}

static enum db_status leave_list(struct db_tx *tx, void *arg)
{
    struct leave_list *l = arg;
    char most[DB_NUMBER_SIZE];
    const char *params[2] = { l->player_id, db_number(most, l->max) };
    PGresult *res = NULL;
    enum db_status rc = db_exec_row(tx, DB_STMT_LEAVE_USED, params, used_read, l->used);

    *l->count = 0;
    if (rc == DB_OK)
        rc = db_exec(tx, DB_STMT_LEAVE_LIST, params, &res);
    for (int i = 0; rc == DB_OK && i < PQntuples(res) && i < l->max; i++)
        leave_read(&l->out[(*l->count)++], &(struct db_row){ res, i });
    PQclear(res);
    return rc;
}

enum db_status db_leave_list(struct db_pool *pool, const char *player_id, struct db_leave *out,
                             int max, int *count, int *used, struct base_err *err)
{
    struct leave_list l = { player_id, out, max, count, used };
    *count = 0;
    *used = 0;
    return db_run_once(pool, leave_list, &l, err);
}

/* The end of the leave in force, from the bookings not over (db_clock.c). */
static void until_read(void *out, const struct db_row *r)
{
    struct db_pause *pauses = NULL;
    int n = 0;
    long long until = 0;
    char *text = out;
    if (db_pauses_parse(db_row_value(r, "pauses"), &pauses, &n))
        until = db_clock_paused_until(pauses, n, db_row_long(r, "now"));
    free(pauses);
    if (until > 0)
        db_time_text(until, text);
}

enum db_status db_leave_until(struct db_pool *pool, const char *player_id,
                              char until[DB_TIME_SIZE], struct base_err *err)
{
    const char *params[1] = { player_id };
    until[0] = '\0';
    return db_get_row(pool, DB_STMT_LEAVE_UNTIL, params, until_read, until, err);
}
