/*
 * db_players.c — players, their tokens, and finding a token's owner.
 * Only the SHA-256 of a token reaches the database.
 */
#include "db_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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
    return base_random_text(id, BASE_ID_LEN);
}

struct player_create {
    const char *name, *email, *password_hash, *token;
    bool email_confirmed, arbiter;
    struct db_player *out;
    const char *language;      /* "en", "pl", "hu"; NULL: English */
};

static enum db_status insert_token(struct db_tx *tx, const char *player_id, const char *token,
                                   struct db_token *out)
{
    char id[BASE_ID_SIZE], hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[3] = { id, player_id, hash };
    PGresult *res = NULL;
    enum db_status rc;

    if (!db_new_id(id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    base_sha256_hex(token, strlen(token), hash);
    rc = db_exec(tx, DB_STMT_TOKEN_INSERT, params, &res);
    if (rc == DB_OK && out != NULL) {
        snprintf(out->id, sizeof out->id, "%s", id);
        db_row_text(&(struct db_row){ res, 0 }, "created_at", out->created_at,
                    sizeof out->created_at);
        out->last_used_at[0] = '\0';
    }
    PQclear(res);
    return rc;
}

static enum db_status player_create(struct db_tx *tx, void *arg)
{
    struct player_create *c = arg;
    struct db_player *p = c->out;
    const char *params[7] = { p->id, c->name, c->email, c->arbiter ? "arbiter" : "player",
                              c->password_hash, c->email_confirmed ? "true" : "false",
                              c->language };
    PGresult *res = NULL;
    enum db_status rc;

    memset(p, 0, sizeof *p);
    if (!db_new_id(p->id)) {
        base_err_set(tx->err, "the random generator failed");
        return DB_HARD_ERROR;
    }
    rc = db_exec(tx, DB_STMT_PLAYER_INSERT, params, &res);
    if (rc == DB_OK) {
        snprintf(p->name, sizeof p->name, "%s", c->name);
        snprintf(p->email, sizeof p->email, "%s", c->email ? c->email : "");
        p->arbiter = c->arbiter;
        p->email_confirmed = db_row_bool(&(struct db_row){ res, 0 }, "email_confirmed");
        db_row_text(&(struct db_row){ res, 0 }, "created_at", p->created_at,
                    sizeof p->created_at);
        rc = insert_token(tx, p->id, c->token, NULL);
    }
    PQclear(res);
    return rc;
}

enum db_status db_player_create(struct db_pool *pool, const char *name, const char *email,
                                bool email_confirmed, const char *password_hash, bool arbiter,
                                const char *token, struct db_player *out, struct base_err *err)
{
    return db_player_create_in(pool, name, email, email_confirmed, password_hash, arbiter, token,
                               NULL, out, err);
}

enum db_status db_player_create_in(struct db_pool *pool, const char *name, const char *email,
                                   bool email_confirmed, const char *password_hash, bool arbiter,
                                   const char *token, const char *language,
                                   struct db_player *out, struct base_err *err)
{
    struct player_create c = { name, email, password_hash, token, email_confirmed, arbiter, out,
                               language };
    return db_run_tx(pool, player_create, &c, err);
}

#define P(kind, member) DB_##kind(struct db_player, member, #member)
static const struct db_col player_cols[] = {
    P(TEXT, id), P(TEXT, name), P(TEXT, email), P(BOOL, email_confirmed), P(BOOL, arbiter),
    P(TEXT, created_at), P(INT, played), P(INT, won), P(INT, drawn), P(INT, lost),
    P(INT, quarter_points), DB_COLS_END
};

DB_READER(player_read, struct db_player, player_cols)

enum db_status db_player_get(struct db_pool *pool, const char *id, struct db_player *out,
                             struct base_err *err)
{
    const char *params[1] = { id };
    return db_get_row(pool, DB_STMT_PLAYER_GET, params, player_read, out, err);
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
        const struct db_row r = { res, 0 };
        db_row_text(&r, "token_id", c->token_id, sizeof c->token_id);
        db_row_text(&r, "player_id", c->player_id, sizeof c->player_id);
        db_row_text(&r, "name", c->name, sizeof c->name);
        c->arbiter = db_row_bool(&r, "arbiter");
        /* Last use is noted at most once a minute: a write per request
         * would cost more than the request. */
        if (db_row_bool(&r, "stale")) {
            const char *touch[1] = { c->token_id };
            rc = db_exec(tx, DB_STMT_TOKEN_TOUCH, touch, NULL);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_caller_find(struct db_pool *pool, const char *token, struct db_caller *out,
                              struct base_err *err)
{
    struct caller_find f = { token, out };
    return db_run_once(pool, caller_find, &f, err);
}

struct token_create {
    const char *player_id, *token;
    int max;
    struct db_token *out;
};

/* Counts the player's tokens under their row's lock, then inserts one if
 * fewer than max: two creations at once cannot both take the last place. */
static enum db_status token_create(struct db_tx *tx, void *arg)
{
    struct token_create *c = arg;
    char id[BASE_ID_SIZE], hash[BASE_SHA256_HEX_LEN + 1], max[16];
    const char *lock[1] = { c->player_id };
    const char *params[4] = { id, c->player_id, hash, max };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_TOKEN_LOCK_PLAYER, lock, &res);

    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    PQclear(res);
    res = NULL;
    if (rc != DB_OK)
        return rc;
    if (!db_new_id(id))
        return db_tx_fail(tx, "the random generator failed");
    base_sha256_hex(c->token, strlen(c->token), hash);
    snprintf(max, sizeof max, "%d", c->max);
    rc = db_exec(tx, DB_STMT_TOKEN_INSERT_CAPPED, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_CONFLICT;
    if (rc == DB_OK) {
        snprintf(c->out->id, sizeof c->out->id, "%s", id);
        db_row_text(&(struct db_row){ res, 0 }, "created_at", c->out->created_at,
                    sizeof c->out->created_at);
        c->out->last_used_at[0] = '\0';
    }
    PQclear(res);
    return rc;
}

enum db_status db_token_create(struct db_pool *pool, const char *player_id, const char *token,
                               int max, struct db_token *out, struct base_err *err)
{
    struct token_create c = { player_id, token, max, out };
    return db_run_tx(pool, token_create, &c, err);
}

#define T(member) DB_TEXT(struct db_token, member, #member)
static const struct db_col token_cols[] = {
    T(id), T(created_at), T(last_used_at), DB_COLS_END
};

DB_READER(token_read, struct db_token, token_cols)

enum db_status db_token_list(struct db_pool *pool, const char *player_id, struct db_token *out,
                             int max, int *count, struct base_err *err)
{
    char limit[16];
    const char *params[2] = { player_id, limit };
    snprintf(limit, sizeof limit, "%d", max);
    return db_get_rows(pool, DB_STMT_TOKEN_LIST, params, token_read, out, sizeof *out, max,
                       count, err);
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
    if (rc == DB_OK && atoi(PQcmdTuples(res)) == 0)
        rc = DB_NOT_FOUND;
    PQclear(res);
    return rc;
}

enum db_status db_token_revoke(struct db_pool *pool, const char *player_id,
                               const char *token_id, struct base_err *err)
{
    struct token_revoke r = { player_id, token_id };
    return db_run_once(pool, token_revoke, &r, err);
}
