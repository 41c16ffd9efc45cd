/*
 * db_migrate.c — applies the numbered migrations in db/migrations/ once
 * each, in order, recording them in schema_migrations.  An applied
 * migration is never edited; a change is a new file.
 */
#include "db_int.h"

#include <stdio.h>

/* Any fixed number: every korpd takes this advisory lock to migrate. */
#define MIGRATION_LOCK "7201402"

int db_migration_count(void)
{
    int n = 0;
    while (db_migrations[n].version != 0)
        n++;
    return n;
}

static enum db_status run(PGconn *conn, const char *sql, char *err, size_t errsize)
{
    PGresult *res = PQexec(conn, sql);
    enum db_status rc = DB_OK;
    if (PQresultStatus(res) != PGRES_COMMAND_OK && PQresultStatus(res) != PGRES_TUPLES_OK) {
        db_error_copy(conn, res, err, errsize);
        rc = DB_HARD_ERROR;
    }
    PQclear(res);
    return rc;
}

enum db_status db_migrate(struct db_pool *pool, char *err, size_t errsize)
{
    enum db_status rc = DB_UNREACHABLE;
    PGresult *res = NULL;
    PGconn *conn = db_pool_acquire(pool, err, errsize);
    char context[512];

    if (conn == NULL)
        return DB_UNREACHABLE;
    if ((rc = run(conn, "BEGIN", err, errsize)) != DB_OK ||
        (rc = run(conn, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")", err, errsize)) != DB_OK ||
        (rc = run(conn,
                  "CREATE TABLE IF NOT EXISTS schema_migrations ("
                  " version integer PRIMARY KEY,"
                  " name text NOT NULL,"
                  " applied_at timestamptz NOT NULL DEFAULT now())",
                  err, errsize)) != DB_OK)
        goto done;
    for (int i = 0; db_migrations[i].version != 0; i++) {
        const struct db_migration *m = &db_migrations[i];
        char version[16];
        const char *params[2] = { version, m->name };

        snprintf(version, sizeof version, "%d", m->version);
        PQclear(res);
        res = PQexecParams(conn,
                           "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)"
                           " ON CONFLICT (version) DO NOTHING",
                           2, NULL, params, NULL, NULL, 0);
        if (PQresultStatus(res) != PGRES_COMMAND_OK) {
            db_error_copy(conn, res, err, errsize);
            rc = DB_HARD_ERROR;
            goto done;
        }
        if (PQcmdTuples(res)[0] == '0')
            continue;   /* applied before */
        if ((rc = run(conn, m->sql, context, sizeof context)) != DB_OK) {
            snprintf(err, errsize, "migration %d (%s): %s", m->version, m->name, context);
            goto done;
        }
    }
    rc = run(conn, "COMMIT", err, errsize);
done:
    if (rc != DB_OK)
        PQclear(PQexec(conn, "ROLLBACK"));
    PQclear(res);
    db_pool_release(pool, conn);
    return rc;
}
