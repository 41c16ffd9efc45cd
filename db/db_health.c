/*
 * db_health.c — the database part of the health check.
 */
#include "db_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <time.h>

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

enum db_status db_ping(struct db_pool *pool, double *latency_ms,
                       int *schema_version, char *err, size_t errsize)
{
    enum db_status rc = DB_HARD_ERROR;
    PGresult *res = NULL;
    PGconn *conn = db_pool_acquire(pool, err, errsize);
    double start = now_ms();

    if (conn == NULL)
        return DB_UNREACHABLE;
    res = PQexec(conn, "SELECT coalesce(max(version), 0) FROM schema_migrations");
    if (PQresultStatus(res) != PGRES_TUPLES_OK) {
        db_error_copy(conn, res, err, errsize);
        rc = PQstatus(conn) == CONNECTION_OK ? DB_HARD_ERROR : DB_UNREACHABLE;
        goto done;
    }
    *latency_ms = now_ms() - start;
    *schema_version = atoi(PQgetvalue(res, 0, 0));
    rc = DB_OK;
done:
    PQclear(res);
    db_pool_release(pool, conn);
    return rc;
}
