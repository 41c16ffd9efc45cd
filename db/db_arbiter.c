/*
 * db_arbiter.c — the arbiter's queue: items added (perpetual
 * claims, players' requests, tournament games at the tournament's end),
 * listed oldest first, dismissed one by one or resolved by an adjudication
 * of their game.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum db_status db_queue_add(struct db_tx *tx, enum db_queue_kind kind, const char *game_id,
                            const char *player_id, const char *details_json,
                            const char *text, char id[BASE_ID_SIZE])
{
    const char *params[6] = { id, db_queue_kind_text(kind), game_id,
                              player_id && player_id[0] ? player_id : NULL,
                              details_json ? details_json : "{}", text };
    PGresult *res = NULL;
    enum db_status rc;
    if (!db_new_id(id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    rc = db_exec(tx, DB_STMT_QUEUE_ADD, params, &res);
    PQclear(res);
    return rc;
}

static void item_read(void *out, const struct db_row *row)
{
    struct db_queue_item *q = out;
    const char *details = db_row_value(row, "details");
    memset(q, 0, sizeof *q);
    db_row_text(row, "id", q->id, sizeof q->id);
    db_queue_kind_parse(db_row_value(row, "kind"), &q->kind);
    db_row_text(row, "game_id", q->game_id, sizeof q->game_id);
    db_row_text(row, "created_at", q->created_at, sizeof q->created_at);
    q->open = db_row_bool(row, "open");
    db_row_text(row, "player_id", q->player_id, sizeof q->player_id);
    q->details = strdup(details ? details : "{}");
    db_row_text(row, "created_us", q->created_us, sizeof q->created_us);
}

void db_queue_item_clear(struct db_queue_item *q)
{
    if (q == NULL)
        return;
    free(q->details);
    q->details = NULL;
}

enum db_status db_queue_list(struct db_pool *pool, const char *after_us, const char *after_id,
                             struct db_queue_item *out, int max, int *count, bool *more,
                             struct base_err *err)
{
    char limit[16];
    const char *params[3] = { after_us, after_id, limit };
    enum db_status rc;

    /* One more than asked, into the room the caller left for it: whether
     * another page follows. */
    snprintf(limit, sizeof limit, "%d", max + 1);
    rc = db_get_rows(pool, DB_STMT_QUEUE_LIST, params, item_read, out, sizeof *out, max + 1,
                     count, err);
    *more = rc == DB_OK && *count > max;
    if (*more) {
        db_queue_item_clear(&out[max]);
        *count = max;
    }
    return rc;
}

/* A player's request guard as the statement names it. */
static void guard_read(void *out, const struct db_row *row)
{
    struct db_queue_request_guard *g = out;
    db_row_text(row, "open_id", g->open_id, sizeof g->open_id);
    g->last_day = db_row_int(row, "today");
    g->wait = db_row_int(row, "wait");
}

enum db_status db_queue_request_guard(struct db_tx *tx, const char *player_id,
                                      const char *game_id, struct db_queue_request_guard *out)
{
    const char *params[2] = { player_id, game_id };
    /* The lock first: the guard's own statement then reads what every
     * request before it committed. */
    enum db_status rc = db_exec(tx, DB_STMT_QUEUE_REQUESTER_LOCK, params, NULL);
    return rc == DB_OK ? db_exec_row(tx, DB_STMT_QUEUE_REQUEST_GUARD, params, guard_read, out)
                       : rc;
}

enum db_status db_queue_lock(struct db_tx *tx, const char *id, struct db_queue_item *out)
{
    const char *params[1] = { id };
    return db_exec_row(tx, DB_STMT_QUEUE_LOCK, params, item_read, out);
}

/* Reads the event detail a closing statement built. */
static enum db_status closed(struct db_tx *tx, enum db_stmt stmt, const char *const *params,
                             int *count, char *detail, size_t size)
{
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, stmt, params, &res);
    if (rc == DB_OK && PQntuples(res) > 0) {
        const struct db_row r = { res, 0 };
        *count = db_row_int(&r, "n");
        db_row_text(&r, "detail", detail, size);
    } else {
        *count = 0;
    }
    PQclear(res);
    return rc;
}

enum db_status db_queue_dismiss(struct db_tx *tx, const char *id, const char *reason,
                                char *detail, size_t size)
{
    const char *params[2] = { id, reason };
    int n = 0;
    return closed(tx, DB_STMT_QUEUE_DISMISS, params, &n, detail, size);
}

enum db_status db_queue_resolve_game(struct db_tx *tx, const char *game_id, const char *reason,
                                     int *count, char *detail, size_t size)
{
    const char *params[2] = { game_id, reason };
    return closed(tx, DB_STMT_QUEUE_RESOLVE_GAME, params, count, detail, size);
}

enum db_status db_queue_resolve(struct db_tx *tx, const char *id, const char *reason)
{
    const char *params[2] = { id, reason };
    return db_exec(tx, DB_STMT_QUEUE_RESOLVE, params, NULL);
}

enum db_status db_arbiter_log_add(struct db_tx *tx, const struct db_arbiter_entry *e,
                                  char id[BASE_ID_SIZE])
{
    const char *params[8] = { id, e->arbiter_id, e->action, e->player_id, e->item_id,
                              e->reason, e->message, e->details };
    if (!db_new_id(id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    return db_exec(tx, DB_STMT_ARBITER_LOG_ADD, params, NULL);
}

static void closed_before_read(void *out, const struct db_row *row)
{
    *(bool *)out = db_row_bool(row, "closed_before");
}

enum db_status db_player_rated_close(struct db_tx *tx, const char *player_id, bool close,
                                     bool *before)
{
    const char *params[2] = { player_id, close ? "true" : "false" };
    *before = false;
    return db_exec_row(tx, DB_STMT_PLAYER_RATED_CLOSE, params, closed_before_read, before);
}

enum db_status db_player_rated(struct db_tx *tx, enum db_rated_kind kind, const char *player_id,
                               char (*ids)[BASE_ID_SIZE], bool *started, int max, int *count)
{
    static const enum db_stmt stmts[] = {
        [DB_RATED_GAMES] = DB_STMT_PLAYER_RATED_GAMES,
        [DB_RATED_CHALLENGES] = DB_STMT_PLAYER_RATED_CHALLENGES,
        [DB_RATED_TOURNAMENTS] = DB_STMT_PLAYER_RATED_TOURNAMENTS,
    };
    char limit[DB_NUMBER_SIZE];
    const char *params[2] = { player_id, db_number(limit, max) };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, stmts[kind], params, &res);

    *count = 0;
    for (int i = 0; rc == DB_OK && i < PQntuples(res) && i < max; i++) {
        const struct db_row row = { res, i };
        db_row_text(&row, "id", ids[i], BASE_ID_SIZE);
        started[i] = db_row_bool(&row, "started");
        (*count)++;
    }
    PQclear(res);
    return rc;
}

static void names_read(void *out, const struct db_row *row)
{
    struct { char *text; size_t size; } *n = out;
    db_row_text(row, "closed", n->text, n->size);
}

enum db_status db_rated_play_closed(struct db_tx *tx, const char *const *ids, int count,
                                    char *names, size_t size)
{
    struct base_text array = { 0 };
    struct { char *text; size_t size; } n = { names, size };
    const char *params[1];
    char *text;
    enum db_status rc;

    /* A PostgreSQL array of ids: letters and digits, nothing to quote. */
    base_text_str(&array, "{");
    for (int i = 0; i < count; i++)
        base_text_put(&array, "%s%s", i > 0 ? "," : "", ids[i]);
    base_text_str(&array, "}");
    if ((text = base_text_take(&array)) == NULL) {
        base_err_set(tx->err, "out of memory");
        return DB_HARD_ERROR;
    }
    params[0] = text;
    names[0] = '\0';
    rc = db_exec_row(tx, DB_STMT_RATED_PLAY_CLOSED, params, names_read, &n);
    free(text);
    return rc;
}
