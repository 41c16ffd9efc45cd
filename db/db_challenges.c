/*
 * db_challenges.c — challenges: made, listed, and locked for a change of
 * status; one query a function (games/ makes the transactions).
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static const struct db_col challenge_cols[] = {
    DB_TEXT(struct db_challenge, id, "id"),
    DB_TEXT(struct db_challenge, challenger_id, "challenger_id"),
    DB_TEXT(struct db_challenge, challenger_name, "challenger_name"),
    DB_TEXT(struct db_challenge, opponent_id, "opponent_id"),
    DB_TEXT(struct db_challenge, opponent_name, "opponent_name"),
    DB_INT(struct db_challenge, days_per_move, "days_per_move"),
    DB_BOOL(struct db_challenge, fifty_move_rule, "fifty_move_rule"),
    DB_TEXT(struct db_challenge, game_id, "game_id"),
    DB_TEXT(struct db_challenge, created_at, "created_at"),
    DB_BOOL(struct db_challenge, rated, "rated"),
    DB_BOOL(struct db_challenge, engines_allowed, "engines_allowed"),
    DB_COLS_END,
};

static void challenge_read(void *out, const struct db_row *row)
{
    struct db_challenge *c = out;

    db_row_read(row, challenge_cols, c, sizeof *c);
    c->variant = db_variant_parse(db_row_value(row, "variant"));
    db_color_parse(db_row_value(row, "color"), &c->color);
    db_challenge_status_parse(db_row_value(row, "status"), &c->status);
    db_clock_read(row, c->days_per_move, &c->clock);
}

enum db_status db_challenger_lock(struct db_tx *tx, const char *challenger_id)
{
    const char *params[1] = { challenger_id };
    return db_exec(tx, DB_STMT_CHALLENGER_LOCK, params, NULL);
}

static const struct db_col guard_cols[] = {
    DB_TEXT(struct db_challenge_guard, existing_id, "existing_id"),
    DB_INT(struct db_challenge_guard, open_to_anyone, "open_to_anyone"),
    DB_INT(struct db_challenge_guard, last_day, "today"),
    DB_INT(struct db_challenge_guard, wait, "wait"),
    DB_COLS_END,
};
DB_READER(guard_read, struct db_challenge_guard, guard_cols)

enum db_status db_challenge_guard(struct db_tx *tx, const char *challenger_id,
                                  const char *opponent_id, struct db_challenge_guard *out)
{
    const char *params[2] = { challenger_id, opponent_id[0] ? opponent_id : NULL };
    return db_exec_row(tx, DB_STMT_CHALLENGE_GUARD, params, guard_read, out);
}

enum db_status db_challenge_insert(struct db_tx *tx, struct db_challenge *c)
{
    char days[16], initial[16], increment[16], most[16];
    bool fischer = c->clock.type == DB_CLOCK_FISCHER;
    const char *params[13] = { c->id, c->variant->name, c->challenger_id,
                               c->opponent_id[0] ? c->opponent_id : NULL, db_color_text(c->color),
                               c->days_per_move > 0 ? days : NULL,
                               c->fifty_move_rule ? "true" : "false",
                               fischer ? initial : NULL, fischer ? increment : NULL,
                               fischer ? most : NULL, c->clock.leave_allowed ? "true" : "false",
                               c->rated ? "true" : "false",
                               c->engines_allowed ? "true" : "false" };
    PGresult *res = NULL;
    enum db_status rc;

    if (!db_new_id(c->id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    snprintf(days, sizeof days, "%d", c->days_per_move);
    snprintf(initial, sizeof initial, "%d", c->clock.initial_days);
    snprintf(increment, sizeof increment, "%d", c->clock.increment_days);
    snprintf(most, sizeof most, "%d", c->clock.max_days);
    rc = db_exec(tx, DB_STMT_CHALLENGE_INSERT, params, &res);
    if (rc == DB_OK && atoi(PQcmdTuples(res)) == 0)
        rc = DB_NOT_FOUND;
    PQclear(res);
    return rc;
}

enum db_status db_challenges_open(struct db_pool *pool, struct db_challenge *out, int max,
                                  int *count, struct base_err *err)
{
    char most[16];
    const char *params[1] = { most };
    snprintf(most, sizeof most, "%d", max);
    return db_get_rows(pool, DB_STMT_CHALLENGES_OPEN, params, challenge_read, out, sizeof *out,
                       max, count, err);
}

struct challenge_list {
    const char *player_id;
    struct db_challenge *in, *out;
    int max_in, max_out, *count_in, *count_out;
};

static enum db_status challenge_list(struct db_tx *tx, void *arg)
{
    struct challenge_list *l = arg;
    char limit[16];
    const char *params[2] = { l->player_id, limit };
    PGresult *res = NULL;
    enum db_status rc;

    snprintf(limit, sizeof limit, "%d", l->max_in > l->max_out ? l->max_in : l->max_out);
    rc = db_exec(tx, DB_STMT_CHALLENGE_LIST, params, &res);
    *l->count_in = *l->count_out = 0;
    for (int i = 0; rc == DB_OK && i < PQntuples(res); i++) {
        const char *opponent = db_row_value(&(struct db_row){ res, i }, "opponent_id");
        bool incoming = opponent != NULL && strcmp(opponent, l->player_id) == 0;
        if (incoming && *l->count_in < l->max_in)
            challenge_read(&l->in[(*l->count_in)++], &(struct db_row){ res, i });
        else if (!incoming && *l->count_out < l->max_out)
            challenge_read(&l->out[(*l->count_out)++], &(struct db_row){ res, i });
    }
    PQclear(res);
    return rc;
}

enum db_status db_challenge_list(struct db_pool *pool, const char *player_id,
                                 struct db_challenge *incoming, int max_in, int *count_in,
                                 struct db_challenge *outgoing, int max_out, int *count_out,
                                 struct base_err *err)
{
    struct challenge_list l = { player_id, incoming, outgoing, max_in, max_out, count_in,
                                count_out };
    return db_run_once(pool, challenge_list, &l, err);
}

enum db_status db_challenge_lock(struct db_tx *tx, const char *id, struct db_challenge *out)
{
    const char *params[1] = { id };
    return db_exec_row(tx, DB_STMT_CHALLENGE_LOCK, params, challenge_read, out);
}

enum db_status db_challenge_set_status(struct db_tx *tx, const char *id,
                                       enum db_challenge_status status, const char *game_id)
{
    const char *params[3] = { id, db_challenge_status_text(status), game_id ? game_id : "" };
    return db_exec(tx, DB_STMT_CHALLENGE_SET_STATUS, params, NULL);
}

enum db_status db_challenge_event(struct db_tx *tx, const char *challenge_id,
                                  enum db_event event)
{
    const char *params[2] = { challenge_id, db_event_name(event) };
    enum db_status rc = db_exec(tx, DB_STMT_EVENT_LOCK_CHALLENGE, params, NULL);
    if (rc != DB_OK)
        return rc;
    return db_exec_events(tx, DB_STMT_CHALLENGE_EVENT, params);
}

/* ---- The test clock (small enough to live here). */

struct clock_set {
    long long offset;
    char *now;
};

static enum db_status clock_set(struct db_tx *tx, void *arg)
{
    struct clock_set *c = arg;
    char offset[32];
    const char *params[1] = { offset };
    PGresult *res = NULL;
    enum db_status rc;
    snprintf(offset, sizeof offset, "%lld", c->offset);
    rc = db_exec(tx, DB_STMT_CLOCK_SET, params, &res);
    if (rc == DB_OK)
        db_row_text(&(struct db_row){ res, 0 }, "now", c->now, DB_TIME_SIZE);
    PQclear(res);
    return rc;
}

enum db_status db_clock_set(struct db_pool *pool, long long offset_seconds,
                            char now[DB_TIME_SIZE], struct base_err *err)
{
    struct clock_set c = { offset_seconds, now };
    return db_run_tx(pool, clock_set, &c, err);
}

enum db_status db_challenge_take(struct db_tx *tx, struct db_challenge *c,
                                 const char *player_id)
{
    const char *params[2] = { c->id, player_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_CHALLENGE_TAKE, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_CONFLICT;
    if (rc == DB_OK) {
        snprintf(c->opponent_id, sizeof c->opponent_id, "%s", player_id);
        db_row_text(&(struct db_row){ res, 0 }, "name", c->opponent_name, sizeof c->opponent_name);
    }
    PQclear(res);
    return rc;
}

enum db_status db_challenge_get(struct db_pool *pool, const char *id, struct db_challenge *out,
                                struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_row(pool, DB_STMT_CHALLENGE_GET, params, challenge_read, out, err);
}
