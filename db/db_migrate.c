/*
 * db_migrate.c — applies the numbered migrations in db/migrations/ once
 * each, in order, recording them in schema_migrations, then db/functions.sql
 * (the functions replaced at every start).  An applied migration is never
 * edited; a change is a new file.
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

int db_schema_version(void)
{
    int n = db_migration_count();
    return n > 0 ? db_migrations[n - 1].version : 0;
}

struct migration_run {
    const struct db_migration *list;
    const char *functions;       /* db_functions_sql, or NULL: none */
};

/*
 * Applies functions.sql after the migrations, unless the database has a
 * migration this korpd does not know (a newer korpd's functions stand), or
 * the same text was applied last (nothing to replace: no catalog churn).
 */
static enum db_status apply_functions(struct db_tx *tx, const struct db_migration *list,
                                      const char *sql)
{
    char newest[16];
    const char *params[2] = { newest, sql };
    PGresult *res = NULL;
    enum db_status rc;
    bool skip;
    int n = 0;

    while (list[n].version != 0)
        n++;
    snprintf(newest, sizeof newest, "%d", n > 0 ? list[n - 1].version : 0);
    if ((rc = db_exec_sql(tx,
                          "CREATE TABLE IF NOT EXISTS schema_functions ("
                          " only_row boolean PRIMARY KEY DEFAULT true CHECK (only_row),"
                          " digest text NOT NULL,"
                          " applied_at timestamptz NOT NULL DEFAULT now())",
                          0, NULL, NULL)) != DB_OK ||
        (rc = db_exec_sql(tx,
                          "SELECT (SELECT coalesce(max(version), 0) FROM schema_migrations)"
                          " > $1::int"
                          " OR md5($2) IS NOT DISTINCT FROM (SELECT digest FROM schema_functions)"
                          " AS skip",
                          2, params, &res)) != DB_OK)
        return rc;
    skip = db_row_bool(&(struct db_row){ res, 0 }, "skip");
    PQclear(res);
    if (skip)
        return DB_OK;
    if ((rc = db_exec_sql(tx, sql, 0, NULL, NULL)) != DB_OK) {
        char context[512];
        snprintf(context, sizeof context, "%s", tx->err->text);
        base_err_set(tx->err, "functions.sql: %s", context);
        return rc;
    }
    return db_exec_sql(tx,
                       "INSERT INTO schema_functions (digest) VALUES (md5($1))"
                       " ON CONFLICT (only_row) DO UPDATE SET digest = EXCLUDED.digest,"
                       " applied_at = now()",
                       1, &sql, NULL);
}

static enum db_status apply(struct db_tx *tx, void *arg)
{
    const struct migration_run *run = arg;
    const struct db_migration *list = run->list;
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
    return run->functions != NULL ? apply_functions(tx, list, run->functions) : DB_OK;
}

enum db_status db_migrate_list(struct db_pool *pool, const struct db_migration *list,
                               struct base_err *err)
{
    struct migration_run run = { list, NULL };
    return db_run_tx(pool, apply, &run, err);
}

enum db_status db_migrate(struct db_pool *pool, struct base_err *err)
{
    struct migration_run run = { db_migrations, db_functions_sql };
    return db_run_tx(pool, apply, &run, err);
}
