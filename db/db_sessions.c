/*
 * db_sessions.c — people signed in on the web board: finding a player by
 * name for a password check, sessions (the cookie's SHA-256 only), a
 * password change, and how many sign-ups an address made.
 */
#include "db_int.h"

#include "base.h"

#include <stdio.h>
#include <stdlib.h>
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
    int max_days;
    struct db_caller *out;
    char *csrf_out;
};

static enum db_status session_create(struct db_tx *tx, void *arg)
{
    struct session *s = arg;
    char id[BASE_ID_SIZE], hash[BASE_SHA256_HEX_LEN + 1], days[16];
    const char *params[5] = { id, hash, s->player_id, s->csrf, days };
    snprintf(days, sizeof days, "%d", s->max_days);
    if (!db_new_id(id))
        return db_tx_fail(tx, "the random generator failed");
    base_sha256_hex(s->cookie, strlen(s->cookie), hash);
    return db_exec(tx, DB_STMT_SESSION_INSERT, params, NULL);
}

enum db_status db_session_create(struct db_pool *pool, const char *player_id,
                                 const char *cookie, const char *csrf, int max_days,
                                 struct base_err *err)
{
    struct session s = { player_id, cookie, csrf, max_days, NULL, NULL };
    return db_run_once(pool, session_create, &s, err);
}

/* Runs a statement whose first parameter is the cookie's SHA-256 (and
 * second, when days is not NULL, the absolute lifetime); no row is
 * DB_NOT_FOUND (res kept for the caller, who PQclears it). */
static enum db_status by_cookie(struct db_tx *tx, enum db_stmt stmt, const char *cookie,
                                const char *days, PGresult **res)
{
    char hash[BASE_SHA256_HEX_LEN + 1];
    const char *params[2] = { hash, days };
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
    char days[16];
    enum db_status rc;

    snprintf(days, sizeof days, "%d", s->max_days);
    rc = by_cookie(tx, DB_STMT_SESSION_FIND, s->cookie, days, &res);

    if (rc == DB_OK) {
        struct db_caller *c = s->out;
        const struct db_row r = { res, 0 };
        const char *session_id = db_row_value(&r, "session_id");
        memset(c, 0, sizeof *c);
        /* Rate limits and logs name a session like a token: "s-<id>". */
        snprintf(c->token_id, sizeof c->token_id, "s-%.*s", BASE_ID_LEN,
                 session_id ? session_id : "");
        db_row_text(&r, "player_id", c->player_id, sizeof c->player_id);
        db_row_text(&r, "name", c->name, sizeof c->name);
        c->arbiter = db_row_bool(&r, "arbiter");
        c->by_session = true;
        db_row_text(&r, "csrf_token", s->csrf_out, 64);
        if (db_row_bool(&r, "stale")) {
            const char *touch[2] = { session_id, days };
            rc = db_exec(tx, DB_STMT_SESSION_TOUCH, touch, NULL);
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_session_find(struct db_pool *pool, const char *cookie, int max_days,
                               struct db_caller *out, char *csrf, struct base_err *err)
{
    struct session s = { NULL, cookie, NULL, max_days, out, csrf };
    return db_run_once(pool, session_find, &s, err);
}

static enum db_status session_delete(struct db_tx *tx, void *arg)
{
    struct session *s = arg;
    PGresult *res = NULL;
    enum db_status rc = by_cookie(tx, DB_STMT_SESSION_DELETE, s->cookie, NULL, &res);
    PQclear(res);
    return rc;
}

enum db_status db_session_delete(struct db_pool *pool, const char *cookie, struct base_err *err)
{
    struct session s = { NULL, cookie, NULL, 0, NULL, NULL };
    return db_run_once(pool, session_delete, &s, err);
}

#define S(member) DB_TEXT(struct db_session_info, member, #member)
static const struct db_col session_info_cols[] = {
    S(id), S(created_at), S(last_seen_at), S(expires_at), DB_COLS_END
};

DB_READER(session_info_read, struct db_session_info, session_info_cols)

enum db_status db_session_list(struct db_pool *pool, const char *player_id, int max_days,
                               struct db_session_info *out, int max, int *count,
                               struct base_err *err)
{
    char days[16], limit[16];
    const char *params[3] = { player_id, days, limit };
    snprintf(days, sizeof days, "%d", max_days);
    snprintf(limit, sizeof limit, "%d", max);
    return db_get_rows(pool, DB_STMT_SESSION_LIST, params, session_info_read, out, sizeof *out,
                       max, count, err);
}

struct sessions_end {
    const char *player_id, *keep_id, *password_hash;
    int *ended;
};

/* A new password first (when there is one), then the other sessions end. */
static enum db_status sessions_end(struct db_tx *tx, void *arg)
{
    struct sessions_end *e = arg;
    const char *set[2] = { e->player_id, e->password_hash };
    const char *end[2] = { e->player_id, e->keep_id };
    PGresult *res = NULL;
    enum db_status rc = DB_OK;

    if (e->password_hash != NULL) {
        rc = db_exec(tx, DB_STMT_PASSWORD_SET, set, &res);
        if (rc == DB_OK && atoi(PQcmdTuples(res)) == 0)
            rc = DB_NOT_FOUND;
        PQclear(res);
        res = NULL;
    }
    if (rc == DB_OK)
        rc = db_exec(tx, DB_STMT_SESSIONS_END, end, &res);
    if (rc == DB_OK && e->ended != NULL)
        *e->ended = atoi(PQcmdTuples(res));
    PQclear(res);
    return rc;
}

enum db_status db_sessions_end(struct db_pool *pool, const char *player_id, const char *keep_id,
                               int *ended, struct base_err *err)
{
    struct sessions_end e = { player_id, keep_id, NULL, ended };
    return db_run_once(pool, sessions_end, &e, err);
}

enum db_status db_password_change(struct db_pool *pool, const char *player_id,
                                  const char *password_hash, const char *keep_id,
                                  struct base_err *err)
{
    struct sessions_end e = { player_id, keep_id, password_hash, NULL };
    return db_run_tx(pool, sessions_end, &e, err);
}

struct signup {
    const char *address;
    bool *allowed;
    int *wait_s, limit;
};

static void signup_read(void *out, const struct db_row *r)
{
    struct signup *s = out;
    *s->allowed = db_row_int(r, "taken") < s->limit;
    *s->wait_s = db_row_int(r, "wait");
}

/* The address's lock first: two sign-ups from one address at the same
 * moment count one after the other, never both below the limit. */
static enum db_status signup_count(struct db_tx *tx, void *arg)
{
    struct signup *s = arg;
    char max[DB_NUMBER_SIZE];
    const char *params[2] = { s->address, db_number(max, s->limit) };
    enum db_status rc = db_exec(tx, DB_STMT_SIGNUP_LOCK, params, NULL);
    if (rc != DB_OK)
        return rc;
    return db_exec_row(tx, DB_STMT_SIGNUP_COUNT, params, signup_read, s);
}

enum db_status db_signup_count(struct db_pool *pool, const char *address, int limit,
                               bool *allowed, int *wait_s, struct base_err *err)
{
    struct signup s = { address, allowed, wait_s, limit };
    *allowed = true;
    *wait_s = 0;
    return db_run_tx(pool, signup_count, &s, err);
}

enum db_status db_credential_live(struct db_pool *pool, const char *credential, bool *live,
                                  struct base_err *err)
{
    const char *params[1] = { credential };
    long long n = 0;
    enum db_status st = db_get_number(pool, DB_STMT_CREDENTIAL_LIVE, params, "live", false, &n,
                                      err);
    *live = st != DB_OK || n != 0;
    return st;
}
