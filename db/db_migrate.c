/*
 * db_migrate.c — applies the numbered migrations in db/migrations/ once
 * each, in order, recording them in schema_migrations.  An applied
 * migration is never edited; a change is a new file.
 */
#include "db_int.h"

#include <stdio.h>

/* Any fixed number: every korpd takes this advisory lock to migrate. */
#define MIGRATION_LOCK "7201402"

/* Migrations may rewrite large tables: no statement deadline for them. */
#define MIGRATION_DEADLINE_MS (30 * 60 * 1000)

int db_migration_count(void)
{
    int n = 0;
    while (db_migrations[n].version != 0)
        n++;
    return n;
}

static enum db_status apply(struct db_tx *tx, void *arg)
{
    const struct db_migration *list = arg;
    enum db_status rc;
    char context[512];

    tx->statement_ms = MIGRATION_DEADLINE_MS;
    /* A migration may wait for a peer's locks and rewrite large tables. */
    if ((rc = db_exec_sql(tx, "SET LOCAL statement_timeout = 0", 0, NULL, NULL)) != DB_OK ||
        (rc = db_exec_sql(tx, "SET LOCAL lock_timeout = 0", 0, NULL, NULL)) != DB_OK ||
        (rc = db_exec_sql(tx, "SELECT pg_advisory_xact_lock(" MIGRATION_LOCK ")", 0, NULL,
                          NULL)) != DB_OK ||
        (rc = db_exec_sql(tx,
                          "CREATE TABLE IF NOT EXISTS schema_migrations ("
                          " version integer PRIMARY KEY,"
                          " name text NOT NULL,"
                          " applied_at timestamptz NOT NULL DEFAULT now())",
                          0, NULL, NULL)) != DB_OK)
        return rc;
    for (int i = 0; list[i].version != 0; i++) {
        const struct db_migration *m = &list[i];
        char version[16];
        const char *params[2] = { version, m->name };
        PGresult *res = NULL;
        bool applied_before;

        snprintf(version, sizeof version, "%d", m->version);
        rc = db_exec_sql(tx,
                         "INSERT INTO schema_migrations (version, name) VALUES ($1, $2)"
                         " ON CONFLICT (version) DO NOTHING",
                         2, params, &res);
        if (rc != DB_OK)
            return rc;
        applied_before = PQcmdTuples(res)[0] == '0';
        PQclear(res);
        if (applied_before)
            continue;
        if ((rc = db_exec_sql(tx, m->sql, 0, NULL, NULL)) != DB_OK) {
            snprintf(context, sizeof context, "%s", tx->err->text);
            base_err_set(tx->err, "migration %d (%s): %s", m->version, m->name,
                     context);
            return rc;
        }
    }
    return DB_OK;
}

enum db_status db_migrate_list(struct db_pool *pool, const struct db_migration *list,
                               struct base_err *err)
{
    return db_run_tx(pool, apply, (void *)list, err);
}

enum db_status db_migrate(struct db_pool *pool, struct base_err *err)
{
    return db_migrate_list(pool, db_migrations, err);
}
