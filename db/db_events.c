/*
 * db_events.c — the event log as streams read it, and the listener that
 * hears every korpd's commits (LISTEN on a connection of its own, outside
 * the pool: a LISTEN cannot go through a pooled, shared connection).  The
 * NOTIFYs come from each korpd's waker after the commits (db_wake.c).
 */
#include "db_int.h"

#include "base.h"

#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

void db_event_rows_free(struct db_event_row *rows, int count)
{
    for (int i = 0; rows != NULL && i < count; i++)
        free(rows[i].payload);
    free(rows);
}

struct since {
    const char *player_id, *game_id;
    long long after_id;
    int max;
    struct db_event_row **rows;
    int *count;
};

static enum db_status since(struct db_tx *tx, void *arg)
{
    struct since *s = arg;
    char after[DB_NUMBER_SIZE], max[DB_NUMBER_SIZE];
    const char *params[4] = { s->player_id, s->game_id, db_number(after, s->after_id),
                              db_number(max, s->max) };
    PGresult *res = NULL;
    struct db_event_row *rows = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_EVENTS_SINCE, params, &res);

    if (rc == DB_OK && (rows = db_rows_new(tx, res, sizeof *rows)) == NULL)
        rc = DB_HARD_ERROR;
    if (rc == DB_OK) {
        int n = PQntuples(res);
        for (int i = 0; i < n; i++) {
            const struct db_row r = { res, i };
            const char *payload = db_row_value(&r, "payload");
            rows[i].id = db_row_long(&r, "id");
            db_row_text(&r, "type", rows[i].type, sizeof rows[i].type);
            rows[i].payload = strdup(payload != NULL ? payload : "{}");
            if (rows[i].payload == NULL) {
                db_event_rows_free(rows, i);
                PQclear(res);
                return db_tx_fail(tx, "out of memory");
            }
        }
        *s->rows = rows;
        *s->count = n;
    }
    PQclear(res);
    return rc;
}

enum db_status db_events_since(struct db_pool *pool, const char *player_id,
                               const char *game_id, long long after_id, int max,
                               struct db_event_row **rows, int *count, struct base_err *err)
{
    struct since s = { player_id, game_id, after_id, max, rows, count };
    *rows = NULL;
    *count = 0;
    return db_run_once(pool, since, &s, err);
}

enum db_status db_events_last(struct db_pool *pool, const char *player_id,
                              const char *game_id, long long *id, struct base_err *err)
{
    const char *params[2] = { player_id, game_id };
    return db_get_number(pool, DB_STMT_EVENTS_LAST, params, "id", false, id, err);
}

/* ---- The listener ------------------------------------------------------ */

/* An events listener (on_event set) reads who each event concerns; a
 * wake-up listener (on_event NULL) only calls on_reconnect, for every
 * notification as after a reconnection. */
struct db_listener {
    struct db_pool *pool;
    const char *channel;
    db_event_fn on_event;
    void (*on_reconnect)(void *arg);
    void *arg;
    struct base_worker *worker;
    db_revoked_fn on_revoked;    /* a revocations listener (korp_revocations) */
    db_wake_fn on_wake;          /* a wake-up listener: told each payload */
};

/* Everything may have been missed (at start, after a reconnect, or a
 * waker that could not keep every id). */
static void missed(struct db_listener *l)
{
    if (l->on_wake != NULL)
        l->on_wake(l->arg, "");
    else
        l->on_reconnect(l->arg);
}

/* Reads "<player id> <credential>" (migration 005) for on_revoked. */
static void revoked(struct db_listener *l, const char *payload)
{
    char player[BASE_ID_SIZE], credential[BASE_ID_SIZE + 2];
    const char *space = strchr(payload, ' ');
    if (space == NULL || (size_t)(space - payload) >= sizeof player ||
        strlen(space + 1) >= sizeof credential)
        return;
    memcpy(player, payload, (size_t)(space - payload));
    player[space - payload] = '\0';
    snprintf(credential, sizeof credential, "%s", space + 1);
    l->on_revoked(l->arg, player, credential);
}

/* Asks who the notified events concern (the payload has their ids only).
 * DB_UNREACHABLE: the connection failed or missed its deadline. */
static enum db_status dispatch(struct db_listener *l, PGconn *pg, const char *ids)
{
    struct base_err err = { "" };
    char array[8200];
    const char *params[1] = { array };
    PGresult *res = NULL;
    enum db_status rc;

    snprintf(array, sizeof array, "{%s}", ids);
    rc = db_exec_on(l->pool, pg,
                    "SELECT id, player_id, coalesce(game_id, '') AS game_id FROM events"
                    " WHERE id = ANY ($1::bigint[])",
                    1, params, &res, &err);
    for (int i = 0; rc == DB_OK && i < PQntuples(res); i++) {
        const struct db_row r = { res, i };
        const char *player = db_row_value(&r, "player_id"), *game = db_row_value(&r, "game_id");
        l->on_event(l->arg, db_row_long(&r, "id"), player ? player : "", game ? game : "");
    }
    if (rc != DB_OK)
        base_log(BASE_LOG_WARN, "listener on %s: cannot read events %s: %s", l->channel, ids,
                 err.text);
    PQclear(res);
    return rc;
}

static PGconn *listen_on(struct db_listener *l)
{
    char who[64], listen[96];
    snprintf(who, sizeof who, "listener on %s", l->channel);
    snprintf(listen, sizeof listen, "LISTEN %s", l->channel);
    return db_pool_connect_for(l->pool, who, listen);
}

static void run(struct base_worker *w, void *arg)
{
    struct db_listener *l = arg;
    PGconn *pg = NULL;
    bool lost = false;

    while (!base_worker_stopping(w)) {
        struct pollfd p;
        PGnotify *n;

        /* A connection that failed inside libpq (its socket closed) is as
         * lost as one poll() reports. */
        if (pg != NULL && (PQstatus(pg) != CONNECTION_OK || PQsocket(pg) < 0)) {
            base_log(BASE_LOG_WARN, "listener on %s: connection lost", l->channel);
            PQfinish(pg);
            pg = NULL;
            lost = true;
        }
        if (pg == NULL) {
            if ((pg = listen_on(l)) == NULL) {
                base_worker_sleep(w, 1000);
                continue;
            }
            if (lost)
                base_log(BASE_LOG_INFO, "listener on %s: reconnected", l->channel);
            /* Events committed while nobody listened (at start, or while
             * reconnecting) were not heard: every stream reads again. */
            missed(l);
        }
        /* Wakes twice a second to see whether it should stop. */
        p = (struct pollfd){ .fd = PQsocket(pg), .events = POLLIN };
        if (poll(&p, 1, 500) > 0 && !PQconsumeInput(pg)) {
            base_log(BASE_LOG_WARN, "listener on %s: connection lost: %s", l->channel,
                     PQerrorMessage(pg));
            PQfinish(pg);
            pg = NULL;
            lost = true;
            continue;
        }
        while ((n = PQnotifies(pg)) != NULL) {
            /* "*": a waker that could not keep every id (db_wake.c). */
            bool everyone = l->on_event != NULL && n->extra != NULL && n->extra[0] == '*';
            enum db_status rc = l->on_event == NULL || n->extra == NULL ||
                                n->extra[0] == '\0' || everyone
                                    ? DB_OK : dispatch(l, pg, n->extra);
            if (everyone)
                missed(l);
            else if (l->on_revoked != NULL)
                revoked(l, n->extra != NULL ? n->extra : "");
            else if (l->on_wake != NULL)
                l->on_wake(l->arg, n->extra != NULL ? n->extra : "");
            else if (l->on_event == NULL)
                missed(l);
            PQfreemem(n);
            if (rc != DB_OK) {
                missed(l);   /* who it concerned is unknown: all read */
                if (rc == DB_UNREACHABLE) {
                    /* Failed or missed its deadline (a frozen server): an
                     * answer may still come on it, so it is made again. */
                    PQfinish(pg);
                    pg = NULL;
                    lost = true;
                }
                break;
            }
        }
    }
    PQfinish(pg);
}

/* A listener on channel; at most one of on_event and on_revoked is set (a
 * wake-up listener has neither). */
static struct db_listener *listener_start(struct db_pool *pool, const char *channel,
                                          const char *what, db_event_fn on_event,
                                          db_revoked_fn on_revoked, db_wake_fn on_wake,
                                          void (*on_reconnect)(void *arg), void *arg,
                                          struct base_err *err)
{
    struct db_listener *l = calloc(1, sizeof *l);
    if (l == NULL) {
        base_err_set(err, "out of memory");
        return NULL;
    }
    *l = (struct db_listener){ pool, channel, on_event, on_reconnect, arg, NULL, on_revoked,
                               on_wake };
    l->worker = base_worker_start(what, run, l, err);
    if (l->worker == NULL) {
        free(l);
        return NULL;
    }
    return l;
}

struct db_listener *db_listener_start(struct db_pool *pool, db_event_fn on_event,
                                      void (*on_reconnect)(void *arg), void *arg,
                                      struct base_err *err)
{
    return listener_start(pool, DB_EVENTS_CHANNEL, "event listener", on_event, NULL, NULL,
                          on_reconnect, arg, err);
}

struct db_listener *db_wakeup_start(struct db_pool *pool, const char *channel, db_wake_fn wake,
                                    void *arg, struct base_err *err)
{
    return listener_start(pool, channel, "wake-up listener", NULL, NULL, wake, NULL, arg, err);
}

struct db_listener *db_revocations_start(struct db_pool *pool, db_revoked_fn on_revoked,
                                         void (*on_reconnect)(void *arg), void *arg,
                                         struct base_err *err)
{
    return listener_start(pool, DB_REVOCATIONS_CHANNEL, "revocations listener", NULL,
                          on_revoked, NULL, on_reconnect, arg, err);
}

void db_listener_stop(struct db_listener *l)
{
    if (l == NULL)
        return;
    base_worker_stop(l->worker);
    free(l);
}
