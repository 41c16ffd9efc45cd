/*
 * db_health.c — the database part of the health check.
 */
#include "db_int.h"

#include "base.h"

#include <stdlib.h>

struct ping {
    double latency_ms;
    int schema_version;
};

static enum db_status ping(struct db_tx *tx, void *arg)
{
    struct ping *p = arg;
    PGresult *res = NULL;
    int64_t start = base_monotonic_us();
    enum db_status rc = db_exec(tx, DB_STMT_SCHEMA_VERSION, NULL, &res);

    if (rc == DB_OK) {
        p->latency_ms = (double)(base_monotonic_us() - start) / 1000.0;
        p->schema_version = db_row_int(&(struct db_row){ res, 0 }, "version");
    }
    PQclear(res);
    return rc;
}

enum db_status db_ping(struct db_pool *pool, double *latency_ms, int *schema_version,
                       struct base_err *err)
{
    struct ping p = { 0, 0 };
    enum db_status rc = db_run_once(pool, ping, &p, err);
    if (rc == DB_OK) {
        *latency_ms = p.latency_ms;
        *schema_version = p.schema_version;
    }
    return rc;
}
