/*
 * db_players.c — players, their tokens, and finding a token's owner.
 * Only the SHA-256 of a token reaches the database.
 */
#include "db_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void db_copy(char *dst, size_t size, const PGresult *res, int row, int col)
{
    snprintf(dst, size, "%s", PQgetisnull(res, row, col) ? "" : PQgetvalue(res, row, col));
}

bool db_player_name_valid(const char *name)
{
    size_t n = strlen(name);
    if (n < 2 || n > 30)
        return false;
    for (size_t i = 0; i < n; i++) {
        char c = name[i];
        if (!((c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') ||
              c == '_' || c == '-'))
            return false;
    }
    return true;
}

bool db_new_id(char *id)
{
    return base_random_text(id, 10);
}

struct player_create {
    const char *name, *email, *password_hash, *token;
    bool arbiter;
    struct db_player *out;
};

static enum db_status insert_token(struct db_tx *tx, const char *player_id, const char *token,
                                   struct db_token *out)
{
    char id[DB_ID_SIZE], hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[3] = { id, player_id, hash };
    PGresult *res = NULL;
    enum db_status rc;

    if (!db_new_id(id)) {
        snprintf(tx->err, tx->errsize, "the random generator failed");
        return DB_HARD_ERROR;
    }
    base_sha256_hex(token, strlen(token), hash);
    rc = db_exec(tx, DB_STMT_TOKEN_INSERT, params, &res);
    if (rc == DB_OK && out != NULL) {
        snprintf(out->id, sizeof out->id, "%s", id);
        db_copy(out->created_at, sizeof out->created_at, res, 0, 0);
        out->last_used_at[0] = '\0';
    }
    PQclear(res);
    return rc;
}

static enum db_status player_create(struct db_tx *tx, void *arg)
{
    struct player_create *c = arg;
    struct db_player *p = c->out;
    const char *params[5] = { p->id, c->name, c->email, c->arbiter ? "arbiter" : "player",
                              c->password_hash };
    PGresult *res = NULL;
    enum db_status rc;

    memset(p, 0, sizeof *p);
    if (!db_new_id(p->id)) {
        snprintf(tx->err, tx->errsize, "the random generator failed");
        return DB_HARD_ERROR;
    }
    rc = db_exec(tx, DB_STMT_PLAYER_INSERT, params, &res);
    if (rc == DB_OK) {
        snprintf(p->name, sizeof p->name, "%s", c->name);
        snprintf(p->email, sizeof p->email, "%s", c->email ? c->email : "");
        p->arbiter = c->arbiter;
        db_copy(p->created_at, sizeof p->created_at, res, 0, 0);
        rc = insert_token(tx, p->id, c->token, NULL);
    }
    PQclear(res);
    return rc;
}

enum db_status db_player_create(struct db_pool *pool, const char *name, const char *email,
                                const char *password_hash, bool arbiter, const char *token,
                                struct db_player *out, char *err, size_t errsize)
{
    struct player_create c = { name, email, password_hash, token, arbiter, out };
    return db_run_tx(pool, player_create, &c, err, errsize);
}

struct player_get {
    const char *id;
    struct db_player *out;
};

static enum db_status player_get(struct db_tx *tx, void *arg)
{
    struct player_get *g = arg;
    struct db_player *p = g->out;
    const char *params[1] = { g->id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_PLAYER_GET, params, &res);

    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK) {
        memset(p, 0, sizeof *p);
        db_copy(p->id, sizeof p->id, res, 0, 0);
        db_copy(p->name, sizeof p->name, res, 0, 1);
        db_copy(p->email, sizeof p->email, res, 0, 2);
        p->arbiter = strcmp(PQgetvalue(res, 0, 3), "arbiter") == 0;
        db_copy(p->created_at, sizeof p->created_at, res, 0, 4);
        p->played = atoi(PQgetvalue(res, 0, 5));
        p->won = atoi(PQgetvalue(res, 0, 6));
        p->drawn = atoi(PQgetvalue(res, 0, 7));
        p->lost = atoi(PQgetvalue(res, 0, 8));
        p->quarter_points = atoi(PQgetvalue(res, 0, 9));
    }
    PQclear(res);
    return rc;
}

enum db_status db_player_get(struct db_pool *pool, const char *id, struct db_player *out,
                             char *err, size_t errsize)
{
    struct player_get g = { id, out };
    return db_run_once(pool, player_get, &g, err, errsize);
}

struct caller_find {
    const char *token;
    struct db_caller *out;
};

static enum db_status caller_find(struct db_tx *tx, void *arg)
{
    struct caller_find *f = arg;
    char hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[1] = { hash };
    PGresult *res = NULL;
    enum db_status rc;

    base_sha256_hex(f->token, strlen(f->token), hash);
    rc = db_exec(tx, DB_STMT_TOKEN_FIND, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK) {
        struct db_caller *c = f->out;
        db_copy(c->token_id, sizeof c->token_id, res, 0, 0);
        db_copy(c->player_id, sizeof c->player_id, res, 0, 1);
        db_copy(c->name, sizeof c->name, res, 0, 2);
        c->arbiter = strcmp(PQgetvalue(res, 0, 3), "arbiter") == 0;
        /* Last use is noted at most once a minute: a write per request
         * would cost more than the request. */
        if (PQgetvalue(res, 0, 4)[0] == 't') {
            const char *touch[1] = { c->token_id };
            rc = db_exec(tx, DB_STMT_TOKEN_TOUCH, touch, NULL);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_caller_find(struct db_pool *pool, const char *token, struct db_caller *out,
                              char *err, size_t errsize)
{
    struct caller_find f = { token, out };
    return db_run_once(pool, caller_find, &f, err, errsize);
}

struct token_create {
    const char *player_id, *token;
    struct db_token *out;
};

static enum db_status token_create(struct db_tx *tx, void *arg)
{
    struct token_create *c = arg;
    return insert_token(tx, c->player_id, c->token, c->out);
}

enum db_status db_token_create(struct db_pool *pool, const char *player_id, const char *token,
                               struct db_token *out, char *err, size_t errsize)
{
    struct token_create c = { player_id, token, out };
    return db_run_once(pool, token_create, &c, err, errsize);
}

struct token_list {
    const char *player_id;
    struct db_token *out;
    int max, *count;
};

static enum db_status token_list(struct db_tx *tx, void *arg)
{
    struct token_list *l = arg;
    char limit[16];
    const char *params[2] = { l->player_id, limit };
    PGresult *res = NULL;
    enum db_status rc;

    snprintf(limit, sizeof limit, "%d", l->max);
    rc = db_exec(tx, DB_STMT_TOKEN_LIST, params, &res);
    if (rc == DB_OK) {
        *l->count = PQntuples(res);
        for (int i = 0; i < *l->count; i++) {
            db_copy(l->out[i].id, sizeof l->out[i].id, res, i, 0);
            db_copy(l->out[i].created_at, sizeof l->out[i].created_at, res, i, 1);
            db_copy(l->out[i].last_used_at, sizeof l->out[i].last_used_at, res, i, 2);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_token_list(struct db_pool *pool, const char *player_id, struct db_token *out,
                             int max, int *count, char *err, size_t errsize)
{
    struct token_list l = { player_id, out, max, count };
    return db_run_once(pool, token_list, &l, err, errsize);
}

struct token_revoke {
    const char *player_id, *token_id;
};

static enum db_status token_revoke(struct db_tx *tx, void *arg)
{
    struct token_revoke *r = arg;
    const char *params[2] = { r->token_id, r->player_id };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_TOKEN_DELETE, params, &res);
    if (rc == DB_OK && strcmp(PQcmdTuples(res), "0") == 0)
        rc = DB_NOT_FOUND;
    PQclear(res);
    return rc;
}

enum db_status db_token_revoke(struct db_pool *pool, const char *player_id,
                               const char *token_id, char *err, size_t errsize)
{
    struct token_revoke r = { player_id, token_id };
    return db_run_once(pool, token_revoke, &r, err, errsize);
}
