/*
 * db_tournaments.c — round-robin tournaments as stored: the
 * tournament, its players and their numbers, its games, its events, and
 * what the sweeper finds due (a start at starts_at, the end at ends_at).
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void tournament_read(void *out, const struct db_row *row)
{
    struct db_tournament *t = out;
    memset(t, 0, sizeof *t);
    db_row_text(row, "id", t->id, sizeof t->id);
    db_row_text(row, "name", t->name, sizeof t->name);
    t->variant = db_variant_parse(db_row_value(row, "variant"));
    db_row_text(row, "director_id", t->director_id, sizeof t->director_id);
    db_row_text(row, "director_name", t->director_name, sizeof t->director_name);
    db_tournament_status_parse(db_row_value(row, "status"), &t->status);
    t->days_per_move = db_row_int(row, "days_per_move");
    db_row_text(row, "clock", t->clock, sizeof t->clock);
    t->rated = db_row_bool(row, "rated");
    t->engines_allowed = db_row_bool(row, "engines_allowed");
    t->double_round = db_row_bool(row, "double");
    t->max_players = db_row_int(row, "max_players");
    t->leave_allowed = db_row_bool(row, "leave_allowed");
    db_clock_read(row, t->days_per_move, &t->game_clock);
    t->has_min_rating = !db_row_is_null(row, "min_rating");
    t->min_rating = db_row_double(row, "min_rating");
    t->has_max_rating = !db_row_is_null(row, "max_rating");
    t->max_rating = db_row_double(row, "max_rating");
    t->has_max_timeout = !db_row_is_null(row, "max_timeout_percent");
    t->max_timeout_percent = db_row_int(row, "max_timeout_percent");
    db_row_text(row, "starts_at", t->starts_at, sizeof t->starts_at);
    db_row_text(row, "ends_at", t->ends_at, sizeof t->ends_at);
    db_row_text(row, "created_at", t->created_at, sizeof t->created_at);
    t->player_count = db_row_int(row, "player_count");
}

static enum db_status changed(struct db_tx *tx, enum db_stmt stmt, const char *const *params,
                              enum db_status none);

enum db_status db_tournament_insert(struct db_tx *tx, struct db_tournament *t)
{
    char days[16], max[16], min_r[32], max_r[32], timeout[16];
    const char *params[16] = {
        t->id, t->name, t->variant->name, t->director_id,
        t->days_per_move > 0 ? days : NULL, t->clock[0] ? t->clock : NULL,
        t->rated ? "true" : "false", t->double_round ? "true" : "false", max,
        t->leave_allowed ? "true" : "false", t->has_min_rating ? min_r : NULL,
        t->has_max_rating ? max_r : NULL, t->has_max_timeout ? timeout : NULL,
        t->starts_at[0] ? t->starts_at : NULL, t->ends_at[0] ? t->ends_at : NULL,
        t->engines_allowed ? "true" : "false",
    };
    const char *get[1] = { t->id };
    enum db_status rc;

    if (!db_new_id(t->id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    snprintf(days, sizeof days, "%d", t->days_per_move);
    snprintf(max, sizeof max, "%d", t->max_players);
    snprintf(min_r, sizeof min_r, "%.17g", t->min_rating);
    snprintf(max_r, sizeof max_r, "%.17g", t->max_rating);
    snprintf(timeout, sizeof timeout, "%d", t->max_timeout_percent);
    if ((rc = db_exec(tx, DB_STMT_TOURNAMENT_INSERT, params, NULL)) != DB_OK)
        return rc;
    return db_exec_row(tx, DB_STMT_TOURNAMENT_GET, get, tournament_read, t);
}

/* A director's guard as the statement names it. */
static void guard_read(void *out, const struct db_row *row)
{
    struct db_tournament_guard *g = out;
    g->last_day = db_row_int(row, "today");
    g->wait = db_row_int(row, "wait");
}

enum db_status db_tournament_guard(struct db_tx *tx, const char *director_id,
                                   struct db_tournament_guard *out)
{
    const char *params[1] = { director_id };
    /* The lock first: the guard's own statement then reads what every
     * creation before it committed. */
    enum db_status rc = db_exec(tx, DB_STMT_TOURNAMENT_DIRECTOR_LOCK, params, NULL);
    return rc == DB_OK ? db_exec_row(tx, DB_STMT_TOURNAMENT_GUARD, params, guard_read, out)
                       : rc;
}

enum db_status db_tournament_get(struct db_pool *pool, const char *id, struct db_tournament *out,
                                 struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_row(pool, DB_STMT_TOURNAMENT_GET, params, tournament_read, out, err);
}

enum db_status db_tournament_lock(struct db_tx *tx, const char *id, struct db_tournament *out)
{
    const char *params[1] = { id };
    /* Under READ COMMITTED a statement that waits for a lock still reads
     * from its snapshot of before the wait: the players another joining
     * just committed would be missed.  The row is read by a statement of
     * its own once the lock is held. */
    enum db_status rc = changed(tx, DB_STMT_TOURNAMENT_LOCK, params, DB_NOT_FOUND);
    return rc == DB_OK ? db_exec_row(tx, DB_STMT_TOURNAMENT_GET, params, tournament_read, out)
                       : rc;
}

#define P(kind, member) DB_##kind(struct db_tournament_player, member, #member)
static const struct db_col player_cols[] = {
    P(TEXT, id), P(TEXT, name), P(INT, number), P(BOOL, withdrawn), DB_COLS_END
};

DB_READER(player_read, struct db_tournament_player, player_cols)

enum db_status db_tournament_players(struct db_pool *pool, const char *id,
                                     struct db_tournament_player *out, int max, int *count,
                                     struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_rows(pool, DB_STMT_TOURNAMENT_PLAYERS, params, player_read, out, sizeof *out,
                       max, count, err);
}

enum db_status db_tournament_players_tx(struct db_tx *tx, const char *id,
                                        struct db_tournament_player *out, int max, int *count)
{
    const char *params[1] = { id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_TOURNAMENT_PLAYERS, params, &res);
    *count = 0;
    for (int i = 0; rc == DB_OK && i < PQntuples(res) && i < max; i++)
        player_read(&out[(*count)++], &(struct db_row){ res, i });
    PQclear(res);
    return rc;
}

#define G(kind, member, name) DB_##kind(struct db_tournament_game, member, name)
static const struct db_col game_cols[] = {
    G(TEXT, id, "id"), G(TEXT, white_id, "white_id"), G(TEXT, black_id, "black_id"),
    G(INT, round, "tournament_round"), DB_COLS_END
};

static void game_read(void *out, const struct db_row *row)
{
    struct db_tournament_game *g = out;
    db_row_read(row, game_cols, out, sizeof *g);
    db_game_status_parse(db_row_value(row, "status"), &g->status);
    rules_result_parse(db_row_value(row, "result"), &g->result);
}

enum db_status db_tournament_games(struct db_pool *pool, const char *id,
                                   struct db_tournament_game *out, int max, int *count,
                                   struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_rows(pool, DB_STMT_TOURNAMENT_GAMES, params, game_read, out, sizeof *out, max,
                       count, err);
}

#define R(kind, member) DB_##kind(struct db_game, member, #member)
static const struct db_col record_cols[] = {
    R(TEXT, id), R(TEXT, white_name), R(TEXT, black_name), R(INT, ply), R(INT, days_per_move),
    R(TEXT, created_at), R(BOOL, engines_allowed), DB_COLS_END
};

/* What a game's PGN needs of its row; the rest stays zero. */
static void record_read(void *out, const struct db_row *row)
{
    struct db_tournament_record *r = out;
    struct db_game *g = &r->game;
    const char *sans = db_row_value(row, "sans");
    static const char *const rating_cols[2] = { "white_rating_start", "black_rating_start" };

    memset(r, 0, sizeof *r);
    db_row_read(row, record_cols, g, sizeof *g);
    g->variant = db_variant_parse(db_row_value(row, "variant"));
    db_game_status_parse(db_row_value(row, "status"), &g->status);
    rules_result_parse(db_row_value(row, "result"), &g->result);
    db_termination_parse(db_row_value(row, "termination"), &g->termination);
    g->sans = strdup(sans != NULL ? sans : "");
    r->round = db_row_int(row, "tournament_round");
    r->board = db_row_int(row, "board");
    for (int side = 0; side < 2; side++) {
        r->has_rating[side] = !db_row_is_null(row, rating_cols[side]);
        r->rating[side] = db_row_double(row, rating_cols[side]);
    }
}

enum db_status db_tournament_records(struct db_pool *pool, const char *id,
                                     struct db_tournament_record *out, int max, int *count,
                                     struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_rows(pool, DB_STMT_TOURNAMENT_PGN_GAMES, params, record_read, out,
                       sizeof *out, max, count, err);
}

/* The version's text, cut to fit (an md5 in hex: 32 characters). */
struct version_out {
    char *text;
    size_t size;
};

static void version_read(void *out, const struct db_row *row)
{
    struct version_out *v = out;
    db_row_text(row, "version", v->text, v->size);
}

enum db_status db_tournament_pgn_version(struct db_pool *pool, const char *id,
                                         char *version, size_t size, struct base_err *err)
{
    const char *params[1] = { id };
    struct version_out out = { version, size };
    return db_get_row(pool, DB_STMT_TOURNAMENT_PGN_VERSION, params, version_read, &out, err);
}

enum db_status db_tournament_game_start(struct db_tx *tx, const char *game_id, int board,
                                        double start)
{
    char rating[32], number[16];
    const char *params[3] = { game_id, rating, number };
    snprintf(rating, sizeof rating, "%.17g", start);
    snprintf(number, sizeof number, "%d", board);
    return db_exec(tx, DB_STMT_TOURNAMENT_GAME_START, params, NULL);
}

/* Runs a statement that answers a row when it changed (or locked) one; DB_NOT_FOUND
 * (or `none`) when it answers none. */
static enum db_status changed(struct db_tx *tx, enum db_stmt stmt, const char *const *params,
                              enum db_status none)
{
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, stmt, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = none;
    PQclear(res);
    return rc;
}

enum db_status db_tournament_join(struct db_tx *tx, const char *id, const char *player_id)
{
    const char *params[2] = { id, player_id };
    return changed(tx, DB_STMT_TOURNAMENT_JOIN, params, DB_CONFLICT);
}

enum db_status db_tournament_leave(struct db_tx *tx, const char *id, const char *player_id,
                                   bool after_start)
{
    const char *params[2] = { id, player_id };
    return changed(tx, after_start ? DB_STMT_TOURNAMENT_WITHDRAW : DB_STMT_TOURNAMENT_REMOVE,
                   params, DB_NOT_FOUND);
}

enum db_status db_tournament_number(struct db_tx *tx, const char *id, const char *player_id,
                                    int number)
{
    char n[DB_NUMBER_SIZE];
    const char *params[3] = { id, player_id, db_number(n, number) };
    return db_exec(tx, DB_STMT_TOURNAMENT_NUMBER, params, NULL);
}

enum db_status db_tournament_set_status(struct db_tx *tx, const char *id,
                                        enum db_tournament_status status)
{
    const char *params[2] = { id, db_tournament_status_text(status) };
    return db_exec(tx, DB_STMT_TOURNAMENT_SET_STATUS, params, NULL);
}

enum db_status db_tournament_open_games(struct db_tx *tx, const char *id, const char *player_id,
                                        char (*out)[BASE_ID_SIZE], int max, int *count)
{
    const char *params[2] = { id, player_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_TOURNAMENT_OPEN_GAMES, params, &res);
    *count = 0;
    for (int i = 0; rc == DB_OK && i < PQntuples(res) && *count < max; i++)
        db_row_text(&(struct db_row){ res, i }, "id", out[(*count)++], BASE_ID_SIZE);
    PQclear(res);
    return rc;
}

enum db_status db_game_unrate(struct db_tx *tx, const char *game_id)
{
    const char *params[1] = { game_id };
    return db_exec(tx, DB_STMT_GAME_UNRATE, params, NULL);
}

enum db_status db_tournament_event(struct db_tx *tx, const char *id, enum db_event event)
{
    const char *params[2] = { id, db_event_name(event) };
    enum db_status rc = db_exec(tx, DB_STMT_TOURNAMENT_EVENT_LOCK, params, NULL);
    return rc == DB_OK ? db_exec_events(tx, DB_STMT_TOURNAMENT_EVENT, params) : rc;
}

enum db_status db_tournament_due_start(struct db_tx *tx, struct db_tournament *out)
{
    return db_exec_row(tx, DB_STMT_TOURNAMENT_DUE_START, NULL, tournament_read, out);
}

enum db_status db_tournament_due_end(struct db_tx *tx, struct db_tournament *out)
{
    return db_exec_row(tx, DB_STMT_TOURNAMENT_DUE_END, NULL, tournament_read, out);
}

enum db_status db_tournament_end_queue(struct db_tx *tx, const char *id)
{
    const char *params[1] = { id };
    return db_exec(tx, DB_STMT_TOURNAMENT_END_QUEUE, params, NULL);
}

struct list {
    const enum db_tournament_status *status;
    const char *after_us, *after_id;
    struct db_tournament *out;
    int max, *count;
    bool *more;
};

static enum db_status tournament_list(struct db_tx *tx, void *arg)
{
    struct list *l = arg;
    char limit[16];
    const char *params[4] = { l->status ? db_tournament_status_text(*l->status) : NULL,
                              l->after_us, l->after_id, limit };
    PGresult *res = NULL;
    enum db_status rc;

    /* One more than asked: whether another page follows. */
    snprintf(limit, sizeof limit, "%d", l->max + 1);
    rc = db_exec(tx, DB_STMT_TOURNAMENT_LIST, params, &res);
    if (rc == DB_OK) {
        int n = PQntuples(res);
        *l->more = n > l->max;
        *l->count = n > l->max ? l->max : n;
        for (int i = 0; i < *l->count; i++) {
            const struct db_row r = { res, i };
            tournament_read(&l->out[i], &r);
            db_row_text(&r, "created_us", l->out[i].created_us, sizeof l->out[i].created_us);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_tournament_list(struct db_pool *pool, const enum db_tournament_status *status,
                                  const char *after_us, const char *after_id,
                                  struct db_tournament *out, int max, int *count, bool *more,
                                  struct base_err *err)
{
    struct list l = { status, after_us, after_id, out, max, count, more };
    *count = 0;
    *more = false;
    return db_run_once(pool, tournament_list, &l, err);
}
