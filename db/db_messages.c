/*
 * db_messages.c — a player's private note on a game, and the messages
 * the players of a game send each other.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

struct note_call {
    const char *game_id, *player_id, *text;
    char **out;
    char *updated_at;
};

static enum db_status note_read(struct db_tx *tx, PGresult *res, struct note_call *c)
{
    const struct db_row r = { res, 0 };
    const char *text = db_row_value(&r, "text");
    if (PQntuples(res) == 0)
        return DB_NOT_FOUND;
    db_row_text(&r, "updated_at", c->updated_at, DB_TIME_SIZE);
    *c->out = strdup(text != NULL ? text : "");
    return *c->out != NULL ? DB_OK : db_tx_fail(tx, "out of memory");
}

static enum db_status note_get(struct db_tx *tx, void *arg)
{
    struct note_call *c = arg;
    const char *params[2] = { c->game_id, c->player_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_NOTE_GET, params, &res);
    if (rc == DB_OK)
        rc = note_read(tx, res, c);
    PQclear(res);
    return rc;
}

static enum db_status note_put(struct db_tx *tx, void *arg)
{
    struct note_call *c = arg;
    const char *params[3] = { c->game_id, c->player_id, c->text };
    PGresult *res = NULL;
    enum db_status rc;

    free(*c->out);
    *c->out = NULL;
    rc = db_exec(tx, DB_STMT_NOTE_PUT, params, &res);
    if (rc == DB_OK)
        rc = note_read(tx, res, c);
    PQclear(res);
    return rc;
}

enum db_status db_note_get(struct db_pool *pool, const char *game_id, const char *player_id,
                           char **text, char updated_at[DB_TIME_SIZE], struct base_err *err)
{
    struct note_call c = { game_id, player_id, NULL, text, updated_at };
    *text = NULL;
    updated_at[0] = '\0';
    return db_run_once(pool, note_get, &c, err);
}

enum db_status db_note_put(struct db_pool *pool, const char *game_id, const char *player_id,
                           const char *text, char updated_at[DB_TIME_SIZE], struct base_err *err)
{
    char *stored = NULL;
    struct note_call c = { game_id, player_id, text, &stored, updated_at };
    enum db_status rc;
    updated_at[0] = '\0';
    rc = db_run_tx(pool, note_put, &c, err);
    free(stored);
    return rc;
}

enum db_status db_message_insert(struct db_tx *tx, const char *game_id, const char *player_id,
                                 int ply, const char *text, int daily_max, char **json)
{
    char id[BASE_ID_SIZE], n[16], max[16];
    const char *params[6] = { id, game_id, player_id, n, text, max };
    PGresult *res = NULL;
    enum db_status rc;

    *json = NULL;
    if (!db_new_id(id))
        return db_tx_fail(tx, "the random generator failed");
    snprintf(n, sizeof n, "%d", ply);
    snprintf(max, sizeof max, "%d", daily_max);
    rc = db_exec(tx, DB_STMT_MESSAGE_INSERT, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_CONFLICT;
    if (rc == DB_OK) {
        const char *v = db_row_value(&(struct db_row){ res, 0 }, "json");
        *json = strdup(v != NULL ? v : "{}");
        if (*json == NULL)
            rc = db_tx_fail(tx, "out of memory");
    }
    PQclear(res);
    return rc;
}

struct message_count {
    const char *game_id, *player_id;
    int *count, *wait_s;
};

static enum db_status message_count(struct db_tx *tx, void *arg)
{
    struct message_count *c = arg;
    const char *params[2] = { c->game_id, c->player_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_MESSAGE_COUNT, params, &res);
    if (rc == DB_OK && PQntuples(res) > 0) {
        const struct db_row r = { res, 0 };
        *c->count = db_row_int(&r, "n");
        *c->wait_s = db_row_int(&r, "wait");
    }
    PQclear(res);
    return rc;
}

enum db_status db_message_count(struct db_pool *pool, const char *game_id, const char *player_id,
                                int *count, int *wait_s, struct base_err *err)
{
    struct message_count c = { game_id, player_id, count, wait_s };
    *count = 0;
    *wait_s = 1;
    return db_run_once(pool, message_count, &c, err);
}

struct message_list {
    const char *game_id;
    char **json;
};

static enum db_status message_list(struct db_tx *tx, void *arg)
{
    struct message_list *l = arg;
    const char *params[1] = { l->game_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_MESSAGE_LIST, params, &res);
    if (rc == DB_OK) {
        const char *v = PQntuples(res) > 0 ? db_row_value(&(struct db_row){ res, 0 }, "json")
                                           : NULL;
        *l->json = strdup(v != NULL ? v : "{\"messages\":[]}");
        if (*l->json == NULL)
            rc = db_tx_fail(tx, "out of memory");
    }
    PQclear(res);
    return rc;
}

enum db_status db_message_list(struct db_pool *pool, const char *game_id, char **json,
                               struct base_err *err)
{
    struct message_list l = { game_id, json };
    *json = NULL;
    return db_run_once(pool, message_list, &l, err);
}
