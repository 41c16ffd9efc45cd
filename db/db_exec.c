/*
 * db_exec.c — running one statement with a deadline, and turning
 * PostgreSQL's answer into a db_status.
 *
 * libpq's blocking calls wait forever on a server that stopped answering
 * (a SIGSTOPped or frozen host still acknowledges TCP, so keepalives do
 * not notice).  Every statement is therefore sent asynchronously and its
 * answer awaited with poll() until a deadline; a connection that misses it
 * is closed, never reused.
 */
#include "db_int.h"

#include "base.h"

#include <errno.h>
#include <poll.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *db_status_text(enum db_status status)
{
    switch (status) {
    case DB_OK: return "ok";
    case DB_NOT_FOUND: return "not found";
    case DB_CONFLICT: return "conflict";
    case DB_SERIALIZATION: return "serialization failure";
    case DB_BUSY: return "busy";
    case DB_UNREACHABLE: return "unreachable";
    case DB_COMMIT_UNKNOWN: return "commit outcome unknown";
    case DB_HARD_ERROR: return "error";
    }
    return "unknown";
}

/* What a failed result means for the caller, by SQLSTATE. */
static enum db_status classify(struct db_tx *tx, const PGresult *res)
{
    const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;

    if (PQstatus(tx->pg) != CONNECTION_OK) {
        tx->broken = true;
        return DB_UNREACHABLE;
    }
    if (state == NULL)
        return DB_HARD_ERROR;
    if (strcmp(state, "40001") == 0 || strcmp(state, "40P01") == 0)
        return DB_SERIALIZATION;
    if (strcmp(state, "23505") == 0)                 /* unique_violation */
        return DB_CONFLICT;
    if (strcmp(state, "57014") == 0 || strcmp(state, "55P03") == 0 ||
        strncmp(state, "53", 2) == 0)
        return DB_BUSY;         /* statement or lock timeout, resources short (memory, disk) */
    if (strncmp(state, "08", 2) == 0 || strncmp(state, "57P", 3) == 0) {
        tx->broken = true;                           /* connection or shutdown */
        return DB_UNREACHABLE;
    }
    return DB_HARD_ERROR;
}

/* Waits for the whole answer to what was sent; keeps the last result. */
static enum db_status await(struct db_tx *tx, PGresult **out)
{
    int64_t deadline = base_monotonic_ms() + tx->statement_ms;
    PGresult *last = NULL, *r;
    enum db_status rc = DB_OK;

    for (;;) {
        while (PQisBusy(tx->pg)) {
            struct pollfd p = { .fd = PQsocket(tx->pg), .events = POLLIN };
            int64_t left = deadline - base_monotonic_ms();
            int n;
            if (left <= 0) {
                base_err_set(tx->err, "the database did not answer within %d ms",
                         tx->statement_ms);
                tx->broken = true;
                tx->timed_out = true;
                PQclear(last);
                return DB_UNREACHABLE;
            }
            n = poll(&p, 1, (int)left);
            if (n < 0 && errno != EINTR) {
                base_err_set(tx->err, "poll: %s", strerror(errno));
                tx->broken = true;
                PQclear(last);
                return DB_UNREACHABLE;
            }
            if (n > 0 && !PQconsumeInput(tx->pg))
                break;   /* the connection failed: PQgetResult reports it */
        }
        r = PQgetResult(tx->pg);
        if (r == NULL)
            break;
        if (rc == DB_OK && PQresultStatus(r) != PGRES_COMMAND_OK &&
            PQresultStatus(r) != PGRES_TUPLES_OK && PQresultStatus(r) != PGRES_PIPELINE_SYNC) {
            db_error_copy(tx->pg, r, tx->err);
            rc = classify(tx, r);
        }
        PQclear(last);
        last = r;
        if (PQstatus(tx->pg) != CONNECTION_OK)
            break;
    }
    if (rc == DB_OK && PQstatus(tx->pg) != CONNECTION_OK) {
        db_error_copy(tx->pg, NULL, tx->err);
        tx->broken = true;
        rc = DB_UNREACHABLE;
    }
    if (rc == DB_OK && last == NULL) {
        base_err_set(tx->err, "the database sent no result");
        rc = DB_HARD_ERROR;
    }
    if (rc == DB_OK && out != NULL)
        *out = last;
    else
        PQclear(last);
    return rc;
}

static enum db_status sent(struct db_tx *tx, int ok, PGresult **res)
{
    if (!ok) {
        db_error_copy(tx->pg, NULL, tx->err);
        tx->broken = true;
        return DB_UNREACHABLE;
    }
    return await(tx, res);
}

/* Sends the BEGIN a transaction deferred (db_tx.c) on its own. */
static enum db_status begin_now(struct db_tx *tx)
{
    tx->begin_pending = false;
    return sent(tx, PQsendQuery(tx->pg, "BEGIN"), NULL);
}

enum db_status db_exec_sql(struct db_tx *tx, const char *sql, int nparams,
                           const char *const *params, PGresult **res)
{
    enum db_status rc;
    if (res != NULL)
        *res = NULL;
    if (tx->begin_pending && (rc = begin_now(tx)) != DB_OK)
        return rc;
    if (nparams == 0 && params == NULL)
        return sent(tx, PQsendQuery(tx->pg, sql), res);
    return sent(tx, PQsendQueryParams(tx->pg, sql, nparams, NULL, params, NULL, NULL, 0), res);
}

/*
 * A transaction's first statement with its BEGIN (and its PREPARE when
 * this connection has not prepared it yet) in one round trip: libpq's
 * pipeline mode, each command's answer read in turn, then the pipeline's
 * end.  The first failure is the answer; after it the server skips to
 * the end, and the transaction, failed, is rolled back on release.
 */
/* Reads the next command's answer of a pipeline; after a failure (rc),
 * its message goes to `later`, not to the caller. */
static enum db_status pipeline_step(struct db_tx *tx, enum db_status rc, struct base_err *later,
                                    PGresult **res)
{
    struct base_err *caller = tx->err;
    enum db_status step;
    if (rc != DB_OK)
        tx->err = later;
    step = await(tx, rc == DB_OK ? res : NULL);
    tx->err = caller;
    return step;
}

static enum db_status exec_with_begin(struct db_tx *tx, enum db_stmt id, int nparams,
                                      const char *const *params, PGresult **res)
{
    const struct db_statement *st = &db_statements[id];
    bool prepare = !tx->prepared[id];
    struct base_err later = { "" };
    PGresult *answer = NULL;
    enum db_status rc, step;

    tx->begin_pending = false;
    if (!PQenterPipelineMode(tx->pg) ||
        !PQsendQueryParams(tx->pg, "BEGIN", 0, NULL, NULL, NULL, NULL, 0) ||
        (prepare && !PQsendPrepare(tx->pg, st->name, st->sql, nparams, NULL)) ||
        !PQsendQueryPrepared(tx->pg, st->name, nparams, params, NULL, NULL, 0) ||
        !PQpipelineSync(tx->pg))
        return sent(tx, 0, NULL);
    /* BEGIN, PREPARE, the statement, the pipeline's end, each answer read
     * in turn: the first failure is told; what follows it (skipped by the
     * server) is read but not told. */
    rc = await(tx, NULL);
    if (prepare) {
        step = pipeline_step(tx, rc, &later, NULL);
        if (step == DB_OK)
            tx->prepared[id] = 1;
        rc = rc == DB_OK ? step : rc;
    }
    step = pipeline_step(tx, rc, &later, res != NULL ? &answer : NULL);
    rc = rc == DB_OK ? step : rc;
    step = pipeline_step(tx, rc, &later, NULL);
    rc = rc == DB_OK ? step : rc;
    if (!tx->broken && !PQexitPipelineMode(tx->pg)) {
        base_err_set(tx->err, "the database connection did not leave pipeline mode");
        tx->broken = true;
        rc = rc == DB_OK ? DB_UNREACHABLE : rc;
    }
    if (rc == DB_OK && res != NULL)
        *res = answer;
    else
        PQclear(answer);
    return rc;
}

enum db_status db_exec_on(struct db_pool *pool, PGconn *pg, const char *sql, int nparams,
                          const char *const *params, PGresult **res, struct base_err *err)
{
    struct db_tx tx = { .pool = pool, .slot = -1, .pg = pg,
                        .statement_ms = db_pool_statement_ms(pool), .err = err };
    enum db_status rc = db_exec_sql(&tx, sql, nparams, params, res);
    return tx.broken ? DB_UNREACHABLE : rc;
}

enum db_status db_exec(struct db_tx *tx, enum db_stmt id, const char *const *params,
                       PGresult **res)
{
    const struct db_statement *st = &db_statements[id];
    int nparams = db_pool_nparams(tx->pool, id);
    enum db_status rc;

    if (res != NULL)
        *res = NULL;
    if (tx->begin_pending)
        return exec_with_begin(tx, id, nparams, params, res);
    if (!tx->prepared[id]) {
        rc = sent(tx, PQsendPrepare(tx->pg, st->name, st->sql, nparams, NULL), NULL);
        if (rc != DB_OK)
            return rc;
        tx->prepared[id] = 1;
    }
    return sent(tx, PQsendQueryPrepared(tx->pg, st->name, nparams, params, NULL, NULL, 0),
                res);
}

PGconn *db_pool_connect_for(struct db_pool *pool, const char *who, const char *setup)
{
    struct base_err err = { "" };
    PGconn *pg = db_pool_connect(pool, &err);
    if (pg == NULL) {
        base_log(BASE_LOG_WARN, "%s: cannot connect: %s", who, err.text);
        return NULL;
    }
    if (db_exec_on(pool, pg, setup, 0, NULL, NULL, &err) != DB_OK) {
        base_log(BASE_LOG_WARN, "%s: %s failed: %s", who, setup, err.text);
        PQfinish(pg);
        return NULL;
    }
    return pg;
}

const char *db_number(char buf[DB_NUMBER_SIZE], long long v)
{
    snprintf(buf, DB_NUMBER_SIZE, "%lld", v);
    return buf;
}

void *db_rows_new(struct db_tx *tx, const PGresult *res, size_t size)
{
    int n = PQntuples(res);
    void *rows = calloc((size_t)(n > 0 ? n : 1), size);
    if (rows == NULL)
        db_tx_fail(tx, "out of memory");
    return rows;
}

enum db_status db_exec_row(struct db_tx *tx, enum db_stmt id, const char *const *params,
                           db_read_fn read, void *out)
{
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, id, params, &res);
    if (rc == DB_OK && PQntuples(res) == 0)
        rc = DB_NOT_FOUND;
    if (rc == DB_OK)
        read(out, &(struct db_row){ res, 0 });
    PQclear(res);
    return rc;
}

struct row_get {
    enum db_stmt id;
    const char *const *params;
    db_read_fn read;
    void *out;
};

static enum db_status row_get(struct db_tx *tx, void *arg)
{
    struct row_get *g = arg;
    return db_exec_row(tx, g->id, g->params, g->read, g->out);
}

enum db_status db_get_row(struct db_pool *pool, enum db_stmt id, const char *const *params,
                          db_read_fn read, void *out, struct base_err *err)
{
    struct row_get g = { id, params, read, out };
    return db_run_once(pool, row_get, &g, err);
}

struct rows_get {
    enum db_stmt id;
    const char *const *params;
    db_read_fn read;
    char *out;
    size_t size;
    int max, *count;
};

static enum db_status rows_get(struct db_tx *tx, void *arg)
{
    struct rows_get *g = arg;
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, g->id, g->params, &res);
    *g->count = 0;
    for (int i = 0; rc == DB_OK && i < PQntuples(res) && i < g->max; i++)
        g->read(g->out + (size_t)(*g->count)++ * g->size, &(struct db_row){ res, i });
    PQclear(res);
    return rc;
}

enum db_status db_get_rows(struct db_pool *pool, enum db_stmt id, const char *const *params,
                           db_read_fn read, void *out, size_t size, int max, int *count,
                           struct base_err *err)
{
    struct rows_get g = { id, params, read, out, size, max, count };
    *count = 0;
    return db_run_once(pool, rows_get, &g, err);
}

struct number_get {
    enum db_stmt id;
    const char *const *params;
    const char *column;
    long long *out;
};

static enum db_status number_get(struct db_tx *tx, void *arg)
{
    struct number_get *g = arg;
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, g->id, g->params, &res);
    *g->out = rc == DB_OK && PQntuples(res) > 0
                  ? db_row_long(&(struct db_row){ res, 0 }, g->column) : 0;
    PQclear(res);
    return rc;
}

enum db_status db_get_number(struct db_pool *pool, enum db_stmt id, const char *const *params,
                             const char *column, bool writes, long long *out,
                             struct base_err *err)
{
    struct number_get g = { id, params, column, out };
    *out = 0;
    return writes ? db_run_tx(pool, number_get, &g, err) : db_run_once(pool, number_get, &g, err);
}
