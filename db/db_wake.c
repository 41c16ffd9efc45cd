/*
 * db_wake.c — telling every korpd that events were committed, after the
 * commit and outside it.
 *
 * Why not NOTIFY inside the transaction: PostgreSQL takes one cluster-wide
 * lock for a NOTIFYing transaction from just before its commit record until
 * after it is flushed, so every move that NOTIFYed committed one after
 * another instead of in the WAL writer's groups.  Instead:
 *
 *   - a statement that writes events answers their ids (db_exec_events);
 *     the transaction keeps them (db_tx_wake) and, once COMMIT has
 *     succeeded, hands them to this process's waker (db_wake_committed);
 *   - the waker, a thread with a connection of its own and
 *     synchronous_commit off, sends what gathered meanwhile as one NOTIFY
 *     on korp_events (ids, comma-separated; split below the payload limit)
 *     at most once per interval (KORP_WAKE_INTERVAL_MS): many moves, one
 *     NOTIFY, and only this one session ever waits for the NOTIFY lock;
 *     with it a NOTIFY on korp_deliveries for each channel with a delivery
 *     due (the events' trigger owes them; migration 011 took its NOTIFY
 *     out), which wakes that channel's workers only;
 *   - every korpd LISTENs as before (db_events.c), so a move committed by
 *     process A wakes the streams held by process B.
 *
 * What can be lost: the wake-up, never an event.  The events table stays
 * the record and streams read it from their last id; if korpd dies
 * between COMMIT and the NOTIFY (or the waker cannot reach the database),
 * the streams concerned in other processes see the events at their next
 * periodic read (KORP_EVENTS_BACKSTOP_MS, api_events.c) and the notify
 * workers at their next look (at most 5 s, notify_worker.c).  A waker that
 * gathered more than it can keep sends "*": every stream reads.
 *
 * A pool without a waker (tests, `korpd admin`) NOTIFYs on the same
 * connection right after the COMMIT: still outside the commit, not
 * coalesced.
 */
#include "db_int.h"

#include "base.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

/* A NOTIFY's payload must be under 8000 bytes. */
#define PAYLOAD_MAX 7000
/* More ids than this waiting (the database unreachable): "*" instead. */
#define GATHER_MAX (256 * 1024)

/* One statement: the ids' NOTIFYs, and the workers', one for each channel
 * with a delivery due (looking at the first thousand due at most), so that
 * only the workers of that channel look. */
static const char wake_sql[] =
    "SELECT pg_notify('" DB_EVENTS_CHANNEL "', c) FROM unnest($1::text[]) c"
    " UNION ALL SELECT pg_notify('" DB_DELIVERIES_CHANNEL "', due.channel)"
    " FROM (SELECT DISTINCT channel FROM (SELECT channel FROM deliveries"
    " WHERE status = 'pending' AND next_attempt_at <= korp_now() LIMIT 1000) d) due";

struct db_waker {
    struct db_pool *pool;
    int interval_ms;
    pthread_mutex_t lock;
    char *ids;                 /* gathered, comma-separated; NULL when none */
    size_t len, cap;
    bool everyone;             /* too many gathered: "*" */
    struct base_worker *worker;
};

/* Appends "a,b,c" to a growing comma-separated list; false: no memory. */
static bool list_append(char **list, size_t *len, size_t *cap, const char *ids)
{
    size_t n = strlen(ids), need = *len + n + 2;
    if (n == 0)
        return true;
    if (need > *cap) {
        size_t cap2 = *cap ? *cap : 256;
        while (cap2 < need)
            cap2 *= 2;
        char *bigger = realloc(*list, cap2);
        if (bigger == NULL)
            return false;
        *list = bigger;
        *cap = cap2;
    }
    if (*len > 0)
        (*list)[(*len)++] = ',';
    memcpy(*list + *len, ids, n + 1);
    *len += n;
    return true;
}

void db_tx_wake(struct db_tx *tx, const char *ids)
{
    if (ids != NULL && !list_append(&tx->wake, &tx->wake_len, &tx->wake_cap, ids))
        tx->wake_everyone = true;
}

enum db_status db_exec_events(struct db_tx *tx, enum db_stmt id, const char *const *params)
{
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, id, params, &res);
    if (rc == DB_OK && PQntuples(res) > 0) {
        const struct db_row r = { res, 0 };
        db_tx_wake(tx, db_row_value(&r, "ids"));
    }
    PQclear(res);
    return rc;
}

/*
 * The array literal of payloads for wake_sql: ids cut at commas into
 * pieces under PAYLOAD_MAX, or {"*"}.  malloc'd; NULL: no memory.
 */
static char *payloads(const char *ids, bool everyone)
{
    size_t n = everyone ? 1 : strlen(ids);
    char *out = malloc(n + n / PAYLOAD_MAX * 3 + 8);
    size_t o = 0;
    if (out == NULL)
        return NULL;
    out[o++] = '{';
    if (everyone) {
        memcpy(out + o, "\"*\"", 3);
        o += 3;
    }
    for (size_t i = 0; !everyone && i < n;) {
        size_t end = i + PAYLOAD_MAX < n ? i + PAYLOAD_MAX : n;
        while (end < n && ids[end] != ',')
            end--;
        if (i > 0)
            out[o++] = ',';
        out[o++] = '"';
        memcpy(out + o, ids + i, end - i);
        o += end - i;
        out[o++] = '"';
        i = end + 1;
    }
    out[o++] = '}';
    out[o] = '\0';
    return out;
}

/* Sends one wake-up on pg (the waker's own, or a pooled one after its
 * COMMIT: pool's deadline).  DB_UNREACHABLE: pg failed or missed the
 * deadline, and must be closed. */
static enum db_status send_wake(struct db_pool *pool, PGconn *pg, const char *ids,
                                bool everyone)
{
    struct base_err err = { "" };
    char *array = payloads(ids != NULL ? ids : "", everyone);
    const char *params[1] = { array };
    enum db_status rc;
    if (array == NULL)
        return DB_HARD_ERROR;
    rc = db_exec_on(pool, pg, wake_sql, 1, params, NULL, &err);
    if (rc != DB_OK)
        base_log(BASE_LOG_WARN, "waker: cannot NOTIFY: %s", err.text);
    free(array);
    return rc;
}

/* The waker's connection.  A wake-up is no record: its commit need not wait
 * for the disk (nor hold the NOTIFY lock that long). */
static PGconn *connect_waker(struct db_waker *k)
{
    return db_pool_connect_for(k->pool, "waker", "SET synchronous_commit = off");
}

/* Waits ms without letting a wake-up cut it short (the pacing). */
static bool pace(struct base_worker *w, int ms)
{
    int64_t until = base_monotonic_ms() + ms;
    for (int64_t left = ms; left > 0; left = until - base_monotonic_ms())
        if (!base_worker_sleep(w, (int)left))
            return false;
    return true;
}

static void run(struct base_worker *w, void *arg)
{
    struct db_waker *k = arg;
    PGconn *pg = NULL;
    bool stopping = false;

    for (;;) {
        enum db_status sent = DB_OK;
        char *ids;
        bool everyone;

        pthread_mutex_lock(&k->lock);
        ids = k->ids;
        everyone = k->everyone;
        k->ids = NULL;
        k->len = k->cap = 0;
        k->everyone = false;
        pthread_mutex_unlock(&k->lock);

        if (ids == NULL && !everyone) {
            if (stopping)
                break;
            /* Until something is committed, or the stop (then one more
             * look: what came meanwhile is still sent). */
            stopping = !base_worker_sleep(w, 60000);
            continue;
        }
        if (pg != NULL && PQstatus(pg) != CONNECTION_OK) {
            PQfinish(pg);
            pg = NULL;
        }
        if (pg == NULL)
            pg = connect_waker(k);
        if (pg == NULL || (sent = send_wake(k->pool, pg, ids, everyone)) != DB_OK) {
            /* Kept for the next try (the streams' periodic reads and the
             * workers' looks cover the wait); a connection that failed is
             * made again then. */
            pthread_mutex_lock(&k->lock);
            if (k->everyone || everyone || (ids != NULL && k->len + strlen(ids) > GATHER_MAX) ||
                (ids != NULL && !list_append(&k->ids, &k->len, &k->cap, ids))) {
                free(k->ids);
                k->ids = NULL;
                k->len = k->cap = 0;
                k->everyone = true;
            }
            pthread_mutex_unlock(&k->lock);
            free(ids);
            if (pg != NULL && sent == DB_UNREACHABLE) {
                PQfinish(pg);
                pg = NULL;
            }
            if (stopping || !pace(w, 1000))
                break;
            continue;
        }
        free(ids);
        /* Moves committed during the NOTIFY and this pause go together. */
        if (!stopping && k->interval_ms > 0 && !pace(w, k->interval_ms))
            stopping = true;
    }
    PQfinish(pg);
}

struct db_waker *db_waker_start(struct db_pool *pool, int interval_ms, struct base_err *err)
{
    struct db_waker *k = calloc(1, sizeof *k);
    if (k == NULL) {
        base_err_set(err, "out of memory");
        return NULL;
    }
    k->pool = pool;
    k->interval_ms = interval_ms > 0 ? interval_ms : 0;
    pthread_mutex_init(&k->lock, NULL);
    if ((k->worker = base_worker_start("waker", run, k, err)) == NULL) {
        pthread_mutex_destroy(&k->lock);
        free(k);
        return NULL;
    }
    db_pool_waker_set(pool, k);
    return k;
}

void db_waker_stop(struct db_waker *k)
{
    if (k == NULL)
        return;
    db_pool_waker_set(k->pool, NULL);
    base_worker_stop(k->worker);   /* sends what is still gathered first */
    pthread_mutex_destroy(&k->lock);
    free(k->ids);
    free(k);
}

void db_wake_committed(struct db_tx *tx)
{
    struct db_waker *k;
    if (tx->wake == NULL && !tx->wake_everyone)
        return;
    /* KORP_TEST_KILL_AFTER_COMMIT: dies as kill -9 would, between the
     * commit and the wake-up (tests of the periodic read's bound). */
    if (db_pool_test_kill(tx->pool))
        raise(SIGKILL);
    if ((k = db_pool_waker(tx->pool)) == NULL) {
        /* Not the caller's error: the commit succeeded. */
        if (send_wake(tx->pool, tx->pg, tx->wake, tx->wake_everyone) == DB_UNREACHABLE)
            tx->broken = true;
        return;
    }
    pthread_mutex_lock(&k->lock);
    if (tx->wake_everyone || k->len + tx->wake_len > GATHER_MAX ||
        !list_append(&k->ids, &k->len, &k->cap, tx->wake)) {
        free(k->ids);
        k->ids = NULL;
        k->len = k->cap = 0;
        k->everyone = true;
    }
    pthread_mutex_unlock(&k->lock);
    base_worker_wake(k->worker);
}
