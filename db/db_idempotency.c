/*
 * db_idempotency.c — Idempotency-Keys (db_idempotency.h): claimed and
 * answered inside the caller's transaction, pruned after 24 hours.
 */
#include "db_int.h"
#include "db_idempotency.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

enum db_status db_idempotency_claim(struct db_tx *tx, const char *token_id, const char *key,
                                    const char *method, const char *path,
                                    enum db_idempotency *found, int *status, char **body)
{
    const char *params[4] = { token_id, key, method, path };
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_IDEMPOTENCY_CLAIM, params, &res);

    *found = DB_KEY_NEW;
    *body = NULL;
    if (rc != DB_OK || PQntuples(res) == 1) {
        PQclear(res);
        return rc;
    }
    PQclear(res);
    res = NULL;
    rc = db_exec(tx, DB_STMT_IDEMPOTENCY_GET, params, &res);
    if (rc == DB_OK && PQntuples(res) == 1) {
        const struct db_row r = { res, 0 };
        if (!db_row_bool(&r, "same_request")) {
            *found = DB_KEY_OTHER_REQUEST;
        } else {
            *found = DB_KEY_ANSWERED;
            *status = db_row_int(&r, "status");
            if ((*body = strdup(db_row_value(&r, "body") ? db_row_value(&r, "body") : "")) == NULL)
                rc = DB_HARD_ERROR;
        }
    }
    PQclear(res);
    return rc;
}

enum db_status db_idempotency_store(struct db_tx *tx, const char *token_id, const char *key,
                                    int status, const char *body)
{
    char code[16];
    const char *params[4] = { token_id, key, code, body };
    snprintf(code, sizeof code, "%d", status);
    return db_exec(tx, DB_STMT_IDEMPOTENCY_STORE, params, NULL);
}

static enum db_status prune(struct db_tx *tx, void *arg)
{
    PGresult *res = NULL;
    enum db_status rc = db_exec(tx, DB_STMT_IDEMPOTENCY_PRUNE, NULL, &res);
    if (rc == DB_OK)
        *(int *)arg = atoi(PQcmdTuples(res));
    PQclear(res);
    return rc;
}

enum db_status db_idempotency_prune(struct db_pool *pool, int *deleted, struct base_err *err)
{
    *deleted = 0;
    return db_run_once(pool, prune, deleted, err);
}
