/*
 * db_pool.h — the pool, transactions, migrations and the server's secrets;
 * in db_pool.c, db_tx.c, db_exec.c, db_migrate.c, db_health.c and
 * db_notify.c (secrets).  db.h includes it.
 */
#ifndef KORP_DB_POOL_H
#define KORP_DB_POOL_H

#include "base.h"

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

enum db_status {
    DB_OK = 0,
    DB_NOT_FOUND,       /* no such row */
    DB_CONFLICT,        /* a unique key or the current state forbids it */
    DB_SERIALIZATION,   /* serialization failure or deadlock (db_run_tx retries) */
    DB_BUSY,            /* no connection came free in time, or a lock or
                           statement timeout: worth trying again soon */
    DB_UNREACHABLE,     /* no working connection to the server */
    DB_COMMIT_UNKNOWN,  /* the connection broke during COMMIT: the change
                           may or may not have been made */
    DB_HARD_ERROR       /* the server refused the statement */
};

/* Short English words for a status ("unreachable"), for logs and tests. */
const char *db_status_text(enum db_status status);

struct db_pool_config {
    const char *url;         /* libpq connection URI or conninfo string */
    int size;                /* connections, 1 or more */
    int timeout_ms;          /* longest wait for a free connection, and the
                                default statement_timeout; 0: 5000 */
    bool test_clock;         /* the sessions read the test clock's offset */
};

struct db_pool;

/*
 * Makes a pool.  Connections open lazily, with korpd's defaults placed
 * under the user's settings: any key in the URL wins over ours, and a
 * `-c name=value` in its `options` wins over our statement_timeout,
 * lock_timeout and idle_in_transaction_session_timeout.  Returns NULL with
 * a message in err for an unreadable URL, a size below 1, or no memory.
 */
struct db_pool *db_pool_new(const struct db_pool_config *config, struct base_err *err);

/* Closes every connection and frees the pool.  NULL is a no-op.  No
 * connection may be in use. */
void db_pool_free(struct db_pool *pool);

/* What the pool has done since it was made (counters; for /metrics). */
struct db_pool_stats {
    unsigned long waits;             /* acquisitions that waited for a free connection */
    unsigned long wait_timeouts;     /* ... and gave up (DB_BUSY) */
    unsigned long connects;          /* connections opened (first time or again) */
    unsigned long connect_failures;
    unsigned long retries_conflict;  /* transactions run again after 40001/40P01 */
    unsigned long retries_broken;    /* ... after a connection broke before COMMIT */
    unsigned long errors;            /* calls that ended in an error, any kind */
};

/* Copies the pool's counters. */
void db_pool_stats(struct db_pool *pool, struct db_pool_stats *out);

/* Whether a connection is free this moment (a caller that must not wait
 * for one asks first). */
bool db_pool_has_free(struct db_pool *pool);

/* One transaction in progress, handed to a db_run_tx callback. */
struct db_tx;

/*
 * The work of one transaction.  It may run more than once (db_run_tx
 * retries), so it must not keep state between runs: write results into
 * arg only on the run that returns DB_OK.
 */
typedef enum db_status (*db_tx_fn)(struct db_tx *tx, void *arg);

/*
 * For a transaction body that fails for a reason of its own (not the
 * database's): sets the error text db_run_tx reports and returns
 * DB_HARD_ERROR.
 */
enum db_status db_tx_fail(struct db_tx *tx, const char *fmt, ...)
    __attribute__((format(printf, 2, 3)));

/*
 * Runs fn between BEGIN and COMMIT on a pooled connection.  Retries a
 * serialization failure or deadlock a bounded number of times, and runs
 * once more on a fresh connection when the connection broke before COMMIT
 * (the server restarted).  A break during COMMIT is DB_COMMIT_UNKNOWN.
 * On any failure the transaction is rolled back; err says why (libpq's own
 * words: log them, do not show them to clients).
 */
enum db_status db_run_tx(struct db_pool *pool, db_tx_fn fn, void *arg,
                         struct base_err *err);

/*
 * Checks that the database answers a query; on success *latency_ms holds
 * the round trip and *schema_version the newest applied migration.
 */
enum db_status db_ping(struct db_pool *pool, double *latency_ms,
                       int *schema_version, struct base_err *err);

/*
 * Applies the migrations not yet applied, in order, then db/functions.sql
 * (CREATE OR REPLACE; not when the database has a newer migration than this
 * korpd knows, nor when the same text was applied last), in one transaction
 * under an advisory lock (safe when several korpd start at once).  A
 * failure rolls back everything applied in this run.
 */
enum db_status db_migrate(struct db_pool *pool, struct base_err *err);

/* Number of migrations this build knows, and the newest one's version
 * (the numbers have gaps: the version is not the count). */
int db_migration_count(void);
int db_schema_version(void);

/* The server's own secret `name` (made from `fresh`, `len` bytes, by the
 * first process to ask; the same for every process after that) into out. */
enum db_status db_server_secret(struct db_pool *pool, const char *name,
                                const unsigned char *fresh, size_t len, unsigned char *out,
                                struct base_err *err);

#endif
