/*
 * db_idempotency.h — Idempotency-Keys (db_idempotency.c): a request's
 * answer kept under its key, per token, for 24 hours.  The claim and the
 * store run inside the caller's transaction, so that the answer commits
 * with the change it answers, or neither does.  Included by db.h.
 */
#ifndef KORP_DB_IDEMPOTENCY_H
#define KORP_DB_IDEMPOTENCY_H

#include "db_pool.h"

/* What claiming an idempotency key found. */
enum db_idempotency {
    DB_KEY_NEW = 0,       /* first use: the request runs, its answer is stored */
    DB_KEY_ANSWERED,      /* used before for this request: its answer is given */
    DB_KEY_OTHER_REQUEST  /* used before for another method or path */
};

/*
 * Claims (token, key) for a request, inside its transaction.  A request
 * with the same key running at once waits here until the first commits.
 * On DB_KEY_ANSWERED, *status and *body (malloc'd; caller frees) are the
 * first answer.
 */
enum db_status db_idempotency_claim(struct db_tx *tx, const char *token_id, const char *key,
                                    const char *method, const char *path,
                                    enum db_idempotency *found, int *status, char **body);

/* Deletes up to 1000 answers older than 24 hours; *deleted says how many. */
enum db_status db_idempotency_prune(struct db_pool *pool, int *deleted, struct base_err *err);

/* Stores the answer of a request that claimed its key (same transaction). */
enum db_status db_idempotency_store(struct db_tx *tx, const char *token_id, const char *key,
                                    int status, const char *body);

#endif
