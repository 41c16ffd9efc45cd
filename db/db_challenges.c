/*
 * db_challenges.c — challenges: made, listed, and locked for a change of
 * status (accepting one makes a game in the same transaction).
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void challenge_read(struct db_challenge *c, const PGresult *res, int row)
{
    memset(c, 0, sizeof *c);
    db_copy(c->id, sizeof c->id, res, row, 0);
    db_copy(c->variant, sizeof c->variant, res, row, 1);
    db_copy(c->challenger_id, sizeof c->challenger_id, res, row, 2);
    db_copy(c->challenger_name, sizeof c->challenger_name, res, row, 3);
    db_copy(c->opponent_id, sizeof c->opponent_id, res, row, 4);
    db_copy(c->opponent_name, sizeof c->opponent_name, res, row, 5);
    db_copy(c->color, sizeof c->color, res, row, 6);
    c->days_per_move = atoi(PQgetvalue(res, row, 7));
    c->fifty_move_rule = PQgetvalue(res, row, 8)[0] == 't';
    db_copy(c->status, sizeof c->status, res, row, 9);
    db_copy(c->game_id, sizeof c->game_id, res, row, 10);
    db_copy(c->created_at, sizeof c->created_at, res, row, 11);
}

static enum db_status challenge_create(struct db_tx *tx, void *arg)
{
    struct db_challenge *c = arg;
    char days[16];
    const char *params[7] = { c->id, c->variant, c->challenger_id,
                              c->opponent_id[0] ? c->opponent_id : NULL, c->color,
                              c->days_per_move > 0 ? days : NULL,
                              c->fifty_move_rule ? "true" : "false" };
    const char *get[1] = { c->id };
    PGresult *res = NULL;
    enum db_status rc;

    if (!db_new_id(c->id)) {
        snprintf(tx->err, tx->errsize, "the random generator failed");
        return DB_HARD_ERROR;
    }
    snprintf(days, sizeof days, "%d", c->days_per_move);
    rc = db_exec(tx, DB_STMT_CHALLENGE_INSERT, params, &res);
    if (rc == DB_OK && strcmp(PQcmdTuples(res), "0") == 0)
        rc = DB_NOT_FOUND;   /* no such opponent */
    PQclear(res);
    res = NULL;
    if (rc == DB_OK)
        rc = db_challenge_event(tx, c->id, DB_EVENT_CHALLENGE);
    if (rc == DB_OK)
        rc = db_exec(tx, DB_STMT_CHALLENGE_GET, get, &res);
    if (rc == DB_OK)
        challenge_read(c, res, 0);
    PQclear(res);
    return rc;
}

enum db_status db_challenge_create(struct db_pool *pool, struct db_challenge *c, char *err,
                                   size_t errsize)
{
    return db_run_tx(pool, challenge_create, c, err, errsize);
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
        bool incoming = strcmp(PQgetvalue(res, i, 4), l->player_id) == 0;
        if (incoming && *l->count_in < l->max_in)
            challenge_read(&l->in[(*l->count_in)++], res, i);
        else if (!incoming && *l->count_out < l->max_out)
            challenge_read(&l->out[(*l->count_out)++], res, i);
    }
    PQclear(res);
    return rc;
}

enum db_status db_challenge_list(struct db_pool *pool, const char *player_id,
                                 struct db_challenge *incoming, int max_in, int *count_in,
                                 struct db_challenge *outgoing, int max_out, int *count_out,
                                 char *err, size_t errsize)
{
    struct challenge_list l = { player_id, incoming, outgoing, max_in, max_out, count_in,
                                count_out };
    return db_run_once(pool, challenge_list, &l, err, errsize);
}

enum db_status db_challenge_lock(struct db_tx *tx, const char *id, struct db_challenge *out)
{
    const char *params[1] = { id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_CHALLENGE_LOCK, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK)
        challenge_read(out, res, 0);
    PQclear(res);
    return rc;
}

enum db_status db_challenge_set_status(struct db_tx *tx, const char *id, const char *status,
                                       const char *game_id)
{
    const char *params[3] = { id, status, game_id ? game_id : "" };
    return db_exec(tx, DB_STMT_CHALLENGE_SET_STATUS, params, NULL);
}

enum db_status db_challenge_event(struct db_tx *tx, const char *challenge_id,
                                  enum db_event event)
{
    const char *params[2] = { challenge_id, db_event_name(event) };
    enum db_status rc = db_exec(tx, DB_STMT_EVENT_LOCK_CHALLENGE, params, NULL);
    if (rc != DB_OK)
        return rc;
    return db_exec(tx, DB_STMT_CHALLENGE_EVENT, params, NULL);
}

/* ---- The clock and idempotency keys (small enough to live here). */

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
        db_copy(c->now, DB_TIME_SIZE, res, 0, 0);
    PQclear(res);
    return rc;
}

enum db_status db_clock_set(struct db_pool *pool, long long offset_seconds,
                            char now[DB_TIME_SIZE], char *err, size_t errsize)
{
    struct clock_set c = { offset_seconds, now };
    return db_run_tx(pool, clock_set, &c, err, errsize);
}

enum db_status db_idempotency_claim(struct db_tx *tx, const char *token_id, const char *key,
                                    const char *method, const char *path,
                                    enum db_idempotency *found, int *status, char **body)
{
    const char *params[4] = { token_id, key, method, path };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_IDEMPOTENCY_CLAIM, params, &res);

    *found = DB_KEY_NEW;
    *body = NULL;
    if (rc != DB_OK || PQntuples(res) == 1) {
        PQclear(res);
        return rc;
    }
    PQclear(res);
    res = NULL;
    rc = db_exec(tx, DB_STMT_IDEMPOTENCY_GET, params, &res);
    if (rc == DB_OK && PQntuples(res) == 1) {
        if (PQgetvalue(res, 0, 2)[0] != 't') {
            *found = DB_KEY_OTHER_REQUEST;
        } else {
            *found = DB_KEY_ANSWERED;
            *status = atoi(PQgetvalue(res, 0, 0));
            if ((*body = strdup(PQgetvalue(res, 0, 1))) == NULL)
                rc = DB_HARD_ERROR;
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_idempotency_store(struct db_tx *tx, const char *token_id, const char *key,
                                    int status, const char *body)
{
    char code[16];
    const char *params[4] = { token_id, key, code, body };
    snprintf(code, sizeof code, "%d", status);
    return db_exec(tx, DB_STMT_IDEMPOTENCY_STORE, params, NULL);
}

static enum db_status prune(struct db_tx *tx, void *arg)
{
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_IDEMPOTENCY_PRUNE, NULL, &res);
    if (rc == DB_OK)
        *(int *)arg = atoi(PQcmdTuples(res));
    PQclear(res);
    return rc;
}

enum db_status db_idempotency_prune(struct db_pool *pool, int *deleted, char *err,
                                    size_t errsize)
{
    *deleted = 0;
    return db_run_once(pool, prune, deleted, err, errsize);
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
        db_copy(c->opponent_name, sizeof c->opponent_name, res, 0, 0);
    }
    PQclear(res);
    return rc;
}

struct challenge_get {
    const char *id;
    struct db_challenge *out;
};

static enum db_status challenge_get(struct db_tx *tx, void *arg)
{
    struct challenge_get *g = arg;
    const char *params[1] = { g->id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_CHALLENGE_GET, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK)
        challenge_read(g->out, res, 0);
    PQclear(res);
    return rc;
}

enum db_status db_challenge_get(struct db_pool *pool, const char *id, struct db_challenge *out,
                                char *err, size_t errsize)
{
    struct challenge_get g = { id, out };
    return db_run_once(pool, challenge_get, &g, err, errsize);
}
