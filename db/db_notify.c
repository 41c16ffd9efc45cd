/*
 * db_notify.c — notification preferences, webhooks and the outbox of
 * deliveries.  Deliveries are owed by a trigger on the events table
 * (migration 003), in the transaction that writes the event; workers
 * claim them here, send them (notify/) and record how it went.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ---- The server's own secrets ------------------------------------------ */

struct secret {
    const char *name;
    const unsigned char *fresh;
    size_t len;
    unsigned char *out;
};

static int hex_digit(char c)
{
    return c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 : -1;
}

static enum db_status secret_put(struct db_tx *tx, void *arg)
{
    struct secret *s = arg;
    char hex[2 * 256 + 1];
    const char *params[2] = { s->name, hex };
    PGresult *res = NULL;
    enum db_status rc;

    if (s->len > 256)
        return db_tx_fail(tx, "a secret of %zu bytes is too long", s->len);
    for (size_t i = 0; i < s->len; i++)
        snprintf(hex + 2 * i, 3, "%02x", s->fresh[i]);
    hex[2 * s->len] = '\0';
    rc = db_exec(tx, DB_STMT_SECRET_PUT, params, &res);
    /* Another korpd starting at the same time stored it first: this
     * statement waited for it and wrote nothing, and its snapshot, older,
     * does not show that row; the next statement's does. */
    if (rc == DB_OK && PQntuples(res) == 0) {
        PQclear(res);
        res = NULL;
        rc = db_exec(tx, DB_STMT_SECRET_PUT, params, &res);
    }
    if (rc == DB_OK) {
        const char *got = PQntuples(res) > 0 ? db_row_value(&(struct db_row){ res, 0 }, "hex")
                                              : NULL;
        if (got == NULL)
            got = "";
        if (strlen(got) != 2 * s->len)
            rc = db_tx_fail(tx, "the stored secret %s has another length", s->name);
        for (size_t i = 0; rc == DB_OK && i < s->len; i++)
            s->out[i] = (unsigned char)(hex_digit(got[2 * i]) * 16 + hex_digit(got[2 * i + 1]));
    }
    PQclear(res);
    return rc;
}

enum db_status db_server_secret(struct db_pool *pool, const char *name,
                                const unsigned char *fresh, size_t len, unsigned char *out,
                                struct base_err *err)
{
    struct secret s = { name, fresh, len, out };
    return db_run_tx(pool, secret_put, &s, err);
}

/* ---- Claiming and finishing deliveries --------------------------------- */

void db_deliveries_free(struct db_delivery *d, int count)
{
    for (int i = 0; d != NULL && i < count; i++)
        free(d[i].payload);
    free(d);
}

struct claim {
    int max;
    double lease_s;
    enum db_channel channel;
    struct db_delivery **out;
    int *count;
};

#define D(kind, member) DB_##kind(struct db_delivery, member, #member)
static const struct db_col delivery_cols[] = {
    D(LONG, id), D(TEXT, type), DB_INT(struct db_delivery, attempt, "attempts"),
    D(LONG, created_unix), D(LONG, now_unix), D(TEXT, player_id), D(TEXT, player_name),
    D(TEXT, email), D(BOOL, email_enabled), D(BOOL, email_confirmed), D(TEXT, challenge_status),
    D(TEXT, webhook_id), D(TEXT, url), D(TEXT, secret), D(TEXT, previous_secret),
    D(BOOL, webhook_enabled), D(DOUBLE, failing_seconds), D(TEXT, opponent_name),
    D(TEXT, deadline), D(TEXT, my_color), D(TEXT, language), DB_COLS_END
};

static void delivery_read(struct db_delivery *d, const PGresult *res, int row)
{
    const struct db_row r = { res, row };
    db_row_read(&r, delivery_cols, d, sizeof *d);
    db_channel_parse(db_row_value(&r, "channel"), &d->channel);
}

static enum db_status claim(struct db_tx *tx, void *arg)
{
    struct claim *c = arg;
    char max[DB_NUMBER_SIZE], lease[32];
    const char *params[3] = { db_number(max, c->max), lease, db_channel_text(c->channel) };
    PGresult *res = NULL;
    struct db_delivery *d = NULL;
    enum db_status rc;

    /* A transaction run again (db_run_tx retries) starts afresh. */
    db_deliveries_free(*c->out, *c->count);
    *c->out = NULL;
    *c->count = 0;
    snprintf(lease, sizeof lease, "%.3f", c->lease_s);
    rc = db_exec(tx, DB_STMT_DELIVERY_CLAIM, params, &res);
    if (rc == DB_OK && (d = db_rows_new(tx, res, sizeof *d)) == NULL)
        rc = DB_HARD_ERROR;
    if (rc == DB_OK) {
        int n = PQntuples(res);
        for (int i = 0; i < n; i++) {
            delivery_read(&d[i], res, i);
            const char *payload = db_row_value(&(struct db_row){ res, i }, "payload");
            if ((d[i].payload = strdup(payload != NULL ? payload : "{}")) == NULL) {
                db_deliveries_free(d, i);
                PQclear(res);
                return db_tx_fail(tx, "out of memory");
            }
        }
        *c->out = d;
        *c->count = n;
    }
    PQclear(res);
    return rc;
}

enum db_status db_deliveries_claim(struct db_pool *pool, int max, double lease_s,
                                   enum db_channel channel, struct db_delivery **out, int *count,
                                   struct base_err *err)
{
    struct claim c = { max, lease_s, channel, out, count };
    enum db_status rc;
    *out = NULL;
    *count = 0;
    rc = db_run_tx(pool, claim, &c, err);
    if (rc != DB_OK) {      /* claimed in a transaction that did not commit */
        db_deliveries_free(*out, *count);
        *out = NULL;
        *count = 0;
    }
    return rc;
}

struct extend {
    const struct db_delivery *d;
    double lease_s;
    bool *ours;
};

static enum db_status extend(struct db_tx *tx, void *arg)
{
    struct extend *e = arg;
    char id[24], attempt[16], lease[32];
    const char *params[3] = { id, attempt, lease };
    PGresult *res = NULL;
    enum db_status rc;

    snprintf(id, sizeof id, "%lld", e->d->id);
    snprintf(attempt, sizeof attempt, "%d", e->d->attempt);
    snprintf(lease, sizeof lease, "%.3f", e->lease_s);
    rc = db_exec(tx, DB_STMT_DELIVERY_EXTEND, params, &res);
    if (rc == DB_OK)
        *e->ours = PQntuples(res) == 1;
    PQclear(res);
    return rc;
}

enum db_status db_delivery_extend(struct db_pool *pool, const struct db_delivery *d,
                                  double lease_s, bool *ours, struct base_err *err)
{
    struct extend e = { d, lease_s, ours };
    *ours = false;
    return db_run_once(pool, extend, &e, err);
}

struct defer {
    const struct db_delivery *d;
    double delay_s;
};

static enum db_status defer(struct db_tx *tx, void *arg)
{
    struct defer *f = arg;
    char id[24], attempt[16], delay[32];
    const char *params[3] = { id, attempt, delay };

    snprintf(id, sizeof id, "%lld", f->d->id);
    snprintf(attempt, sizeof attempt, "%d", f->d->attempt);
    snprintf(delay, sizeof delay, "%.3f", f->delay_s);
    return db_exec(tx, DB_STMT_DELIVERY_DEFER, params, NULL);
}

enum db_status db_delivery_defer(struct db_pool *pool, const struct db_delivery *d,
                                 double delay_s, struct base_err *err)
{
    struct defer f = { d, delay_s };
    return db_run_once(pool, defer, &f, err);
}

struct finish {
    const struct db_delivery *d;
    const struct db_attempt *a;
};

static enum db_status finish(struct db_tx *tx, void *arg)
{
    struct finish *f = arg;
    char id[24], attempt[16], code[16], latency[32], retry[32];
    const char *error = f->a->error;
    const char *attempt_params[5] = { id, attempt, code, latency, error };
    /* Each outcome is recorded only while this attempt still holds the
     * delivery: a worker whose lease ran out must not overwrite the state
     * its successor sets. */
    enum db_status rc;

    snprintf(id, sizeof id, "%lld", f->d->id);
    snprintf(attempt, sizeof attempt, "%d", f->d->attempt);
    snprintf(code, sizeof code, "%d", f->a->status_code);
    snprintf(latency, sizeof latency, "%.3f", f->a->latency_ms);
    snprintf(retry, sizeof retry, "%.3f", f->a->retry_s);
    /* Losing this record in a crash costs a repeated delivery, which
     * at-least-once allows: no need to wait for the disk. */
    if ((rc = db_exec_sql(tx, "SET LOCAL synchronous_commit = off", 0, NULL, NULL)) != DB_OK ||
        (rc = db_exec(tx, DB_STMT_ATTEMPT_INSERT, attempt_params, NULL)) != DB_OK)
        return rc;
    switch (f->a->outcome) {
    case DB_DELIVERED: {
        const char *params[2] = { id, attempt };
        return db_exec(tx, DB_STMT_DELIVERY_DONE, params, NULL);
    }
    case DB_RETRY: {
        const char *params[4] = { id, error ? error : "", retry, attempt };
        return db_exec(tx, DB_STMT_DELIVERY_RETRY_LATER, params, NULL);
    }
    case DB_FAILED: {
        const char *params[3] = { id, error ? error : "", attempt };
        return db_exec(tx, DB_STMT_DELIVERY_FAIL, params, NULL);
    }
    case DB_ENDPOINT_GONE: {
        const char *params[3] = { id, error ? error : "", attempt };
        const char *disable[2] = { f->d->webhook_id, f->a->reason ? f->a->reason : "" };
        if ((rc = db_exec(tx, DB_STMT_DELIVERY_FAIL, params, NULL)) != DB_OK)
            return rc;
        return f->d->webhook_id[0] ? db_exec(tx, DB_STMT_WEBHOOK_DISABLE, disable, NULL) : DB_OK;
    }
    }
    return db_tx_fail(tx, "unknown delivery outcome %d", (int)f->a->outcome);
}

enum db_status db_delivery_finish(struct db_pool *pool, const struct db_delivery *d,
                                  const struct db_attempt *a, struct base_err *err)
{
    struct finish f = { d, a };
    return db_run_tx(pool, finish, &f, err);
}

struct next {
    enum db_channel channel;
    double *seconds;
    bool *any;
};

static enum db_status next(struct db_tx *tx, void *arg)
{
    struct next *n = arg;
    PGresult *res = NULL;
    const char *params[1] = { db_channel_text(n->channel) };
    enum db_status rc = db_exec(tx, DB_STMT_DELIVERY_NEXT, params, &res);
    if (rc == DB_OK) {
        const struct db_row r = { res, 0 };
        *n->any = !db_row_is_null(&r, "seconds");
        *n->seconds = db_row_double(&r, "seconds");
    }
    PQclear(res);
    return rc;
}

enum db_status db_deliveries_next(struct db_pool *pool, enum db_channel channel,
                                  double *seconds, bool *any, struct base_err *err)
{
    struct next n = { channel, seconds, any };
    *any = false;
    return db_run_once(pool, next, &n, err);
}

/* ---- Reminders and digests --------------------------------------------- */

/* One game's reminder, in a transaction of its own (the players are locked
 * first, as for every event: see event_lock_game). */
static enum db_status remind_one(struct db_tx *tx, void *arg)
{
    bool *sent = arg;
    PGresult *res = NULL;
    char game[BASE_ID_SIZE], player[BASE_ID_SIZE];
    const char *params[2] = { game, player };
    enum db_status rc = db_exec(tx, DB_STMT_REMINDER_DUE, NULL, &res);

    *sent = false;
    if (rc != DB_OK || PQntuples(res) == 0) {
        PQclear(res);
        return rc;
    }
    db_row_text(&(struct db_row){ res, 0 }, "game_id", game, sizeof game);
    db_row_text(&(struct db_row){ res, 0 }, "player_id", player, sizeof player);
    PQclear(res);
    if ((rc = db_exec(tx, DB_STMT_EVENT_LOCK_GAME, params, NULL)) != DB_OK ||
        (rc = db_exec_events(tx, DB_STMT_REMINDER_EVENT, params)) != DB_OK)
        return rc;
    *sent = true;
    return DB_OK;
}

enum db_status db_reminders_send(struct db_pool *pool, int max, int *sent, struct base_err *err)
{
    enum db_status rc = DB_OK;
    *sent = 0;
    for (int i = 0; i < max; i++) {
        bool one = false;
        if ((rc = db_run_tx(pool, remind_one, &one, err)) != DB_OK || !one)
            break;
        (*sent)++;
    }
    return rc;
}

enum db_status db_digests_owe(struct db_pool *pool, int *owed, struct base_err *err)
{
    long long n = 0;
    enum db_status rc = db_get_number(pool, DB_STMT_DIGEST_OWE, NULL, "owed", true, &n, err);
    *owed = (int)n;
    return rc;
}

enum db_status db_records_prune(struct db_pool *pool, int *deleted, struct base_err *err)
{
    long long n = 0;
    enum db_status rc = db_get_number(pool, DB_STMT_DELIVERY_PRUNE, NULL, "deleted", true, &n,
                                      err);
    *deleted = (int)n;
    return rc;
}
