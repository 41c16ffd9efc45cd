/*
 * db_tx.c — transactions around a callback, with bounded retries.
 *
 * Serialization failures and deadlocks are retried after a short random
 * pause; a connection that broke before COMMIT (the server restarted) is
 * replaced and the work run once more.  A connection that broke during
 * COMMIT is the one case that cannot be retried: the change may already
 * be durable, so the caller hears DB_COMMIT_UNKNOWN.
 */
#include "db_int.h"

#include "base.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#define SERIALIZATION_RETRIES 8

static void pause_before_retry(int attempt)
{
    /* Up to 2, 4, 8 … ms, at random, so that rivals do not collide again. */
    unsigned seed = (unsigned)base_monotonic_ms() ^ (unsigned)(size_t)&attempt;
    long ms = 1 + (long)(rand_r(&seed) % (2 << (attempt < 6 ? attempt : 6)));
    nanosleep(&(struct timespec){ ms / 1000, (ms % 1000) * 1000000L }, NULL);
}

static enum db_status run(struct db_pool *pool, db_tx_fn fn, void *arg, bool transaction,
                          struct base_err *err)
{
    bool reconnected = false;
    int conflicts = 0;

    for (;;) {
        struct db_tx tx;
        bool committing = false;
        enum db_status rc = db_pool_acquire(pool, &tx, err);

        if (rc != DB_OK)
            return rc;
        /* The BEGIN goes with the first statement (db_exec.c); a body
         * that ran none has nothing to commit. */
        tx.begin_pending = transaction;
        rc = fn(&tx, arg);
        if (rc == DB_OK && transaction && !tx.begin_pending) {
            committing = true;
            rc = db_exec_sql(&tx, "COMMIT", 0, NULL, NULL);
        }
        /* Committed (or, without BEGIN, each statement was): now, not
         * inside the commit, everyone may hear of its events.  A COMMIT
         * whose outcome is unknown may have committed: a needless wake-up
         * costs one read. */
        if (rc == DB_OK || (committing && tx.broken))
            db_wake_committed(&tx);
        free(tx.wake);
        bool broken = tx.broken, timed_out = tx.timed_out;
        db_pool_release(&tx);

        if (rc == DB_OK)
            return DB_OK;
        if (broken && committing) {
            db_pool_count(pool, DB_COUNT_ERROR);
            return DB_COMMIT_UNKNOWN;
        }
        if (rc == DB_SERIALIZATION && conflicts < SERIALIZATION_RETRIES) {
            db_pool_count(pool, DB_COUNT_RETRY_CONFLICT);
            pause_before_retry(conflicts++);
            continue;
        }
        if (rc == DB_SERIALIZATION)
            return DB_BUSY;
        /* A connection that died under us (not one that missed its
         * deadline, which would only double the wait) gets one more go. */
        if (broken && !timed_out && rc == DB_UNREACHABLE && !reconnected) {
            db_pool_count(pool, DB_COUNT_RETRY_BROKEN);
            reconnected = true;
            base_log(BASE_LOG_WARN, "database connection lost (%s); retrying once",
                     err ? err->text : "");
            continue;
        }
        /* Answers the caller expects (not found, a conflict) are no errors. */
        if (rc != DB_NOT_FOUND && rc != DB_CONFLICT)
            db_pool_count(pool, DB_COUNT_ERROR);
        return rc;
    }
}

enum db_status db_tx_fail(struct db_tx *tx, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    if (tx->err != NULL)
        vsnprintf(tx->err->text, sizeof tx->err->text, fmt, ap);
    va_end(ap);
    return DB_HARD_ERROR;
}

enum db_status db_run_tx(struct db_pool *pool, db_tx_fn fn, void *arg, struct base_err *err)
{
    return run(pool, fn, arg, true, err);
}

enum db_status db_run_once(struct db_pool *pool, db_tx_fn fn, void *arg, struct base_err *err)
{
    return run(pool, fn, arg, false, err);
}
