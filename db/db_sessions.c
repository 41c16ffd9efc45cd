/*
 * db_sessions.c — people signed in on the web board: finding a player by
 * name for a password check, and sessions (the cookie's SHA-256 only).
 */
#include "db_int.h"

#include "base.h"

#include <stdio.h>
#include <string.h>

struct login {
    char *id, *canonical;
    char *hash;
    size_t hash_size;
};

static void login_read(void *out, const struct db_row *r)
{
    struct login *l = out;
    db_row_text(r, "id", l->id, BASE_ID_SIZE);
    db_row_text(r, "name", l->canonical, DB_NAME_SIZE);
    db_row_text(r, "password_hash", l->hash, l->hash_size);
}

enum db_status db_login_find(struct db_pool *pool, const char *name, char id[BASE_ID_SIZE],
                             char canonical_name[DB_NAME_SIZE], char *password_hash,
                             size_t hash_size, struct base_err *err)
{
    const char *params[1] = { name };
    struct login l = { id, canonical_name, password_hash, hash_size };
    return db_get_row(pool, DB_STMT_LOGIN_FIND, params, login_read, &l, err);
}

struct session {
    const char *player_id, *cookie, *csrf;
    struct db_caller *out;
    char *csrf_out;
};

static enum db_status session_create(struct db_tx *tx, void *arg)
{
    struct session *s = arg;
    char id[BASE_ID_SIZE], hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[4] = { id, hash, s->player_id, s->csrf };
    if (!db_new_id(id))
        return db_tx_fail(tx, "the random generator failed");
    base_sha256_hex(s->cookie, strlen(s->cookie), hash);
    return db_exec(tx, DB_STMT_SESSION_INSERT, params, NULL);
}

enum db_status db_session_create(struct db_pool *pool, const char *player_id,
                                 const char *cookie, const char *csrf, struct base_err *err)
{
    struct session s = { player_id, cookie, csrf, NULL, NULL };
    return db_run_once(pool, session_create, &s, err);
}

/* Runs a statement whose one parameter is the cookie's SHA-256; no row is
 * DB_NOT_FOUND (res kept for the caller, who PQclears it). */
static enum db_status by_cookie(struct db_tx *tx, enum db_stmt stmt, const char *cookie,
                                PGresult **res)
{
    char hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[1] = { hash };
    enum db_status rc;

    base_sha256_hex(cookie, strlen(cookie), hash);
    rc = db_exec(tx, stmt, params, res);
    if (rc == DB_OK && PQntuples(*res) == 0)
        rc = DB_NOT_FOUND;
    return rc;
}

static enum db_status session_find(struct db_tx *tx, void *arg)
{
    struct session *s = arg;
    PGresult *res = NULL;
    enum db_status rc = by_cookie(tx, DB_STMT_SESSION_FIND, s->cookie, &res);

    if (rc == DB_OK) {
        struct db_caller *c = s->out;
        const struct db_row r = { res, 0 };
        const char *session_id = db_row_value(&r, "session_id");
        memset(c, 0, sizeof *c);
        /* Rate limits and logs name a session like a token: "s-<id>". */
        snprintf(c->token_id, sizeof c->token_id, "s-%.10s", session_id ? session_id : "");
        db_row_text(&r, "player_id", c->player_id, sizeof c->player_id);
        db_row_text(&r, "name", c->name, sizeof c->name);
        c->arbiter = db_row_bool(&r, "arbiter");
        c->by_session = true;
        db_row_text(&r, "csrf_token", s->csrf_out, 64);
        if (db_row_bool(&r, "stale")) {
            const char *touch[1] = { session_id };
            rc = db_exec(tx, DB_STMT_SESSION_TOUCH, touch, NULL);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_session_find(struct db_pool *pool, const char *cookie,
                               struct db_caller *out, char *csrf, struct base_err *err)
{
    struct session s = { NULL, cookie, NULL, out, csrf };
    return db_run_once(pool, session_find, &s, err);
}

static enum db_status session_delete(struct db_tx *tx, void *arg)
{
    struct session *s = arg;
    PGresult *res = NULL;
    enum db_status rc = by_cookie(tx, DB_STMT_SESSION_DELETE, s->cookie, &res);
    PQclear(res);
    return rc;
}

enum db_status db_session_delete(struct db_pool *pool, const char *cookie, struct base_err *err)
{
    struct session s = { NULL, cookie, NULL, NULL, NULL };
    return db_run_once(pool, session_delete, &s, err);
}
