/*
 * test_db.c — the db module against a real PostgreSQL: migrations apply
 * once and are recorded, the health query reports them, and an unreachable
 * server is reported as such.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <libpq-fe.h>
#include <string.h>

#include "db.h"
#include "test_env.h"

static const char *url;

static long long scalar(const char *sql)
{
    PGconn *conn = PQconnectdb(url);
    PGresult *res;
    long long v;
    assert_int_equal(PQstatus(conn), CONNECTION_OK);
    res = PQexec(conn, sql);
    if (PQresultStatus(res) != PGRES_TUPLES_OK)
        fail_msg("%s: %s", sql, PQresultErrorMessage(res));
    v = atoll(PQgetvalue(res, 0, 0));
    PQclear(res);
    PQfinish(conn);
    return v;
}

static void test_db_migrations_apply_once(void **state)
{
    char err[512] = "";
    struct db_pool *pool = db_pool_new(url, 2, err, sizeof err);
    double latency = -1;
    int version = -1;
    (void)state;
    assert_non_null(pool);
    if (db_migrate(pool, err, sizeof err) != DB_OK)
        fail_msg("migrate: %s", err);
    /* A second run (another korpd starting) finds nothing to do. */
    if (db_migrate(pool, err, sizeof err) != DB_OK)
        fail_msg("migrate again: %s", err);
    assert_int_equal(scalar("SELECT count(*) FROM schema_migrations"), db_migration_count());
    assert_int_equal(scalar("SELECT count(*) FROM variants WHERE name IN ('korpalski', 'glinski')"), 2);
    assert_int_equal(db_ping(pool, &latency, &version, err, sizeof err), DB_OK);
    assert_int_equal(version, db_migration_count());
    assert_true(latency >= 0);
    db_pool_free(pool);
}

static void test_db_unreachable_is_reported(void **state)
{
    char err[512] = "";
    double latency;
    int version;
    /* Port 1 on loopback: nothing listens there. */
    struct db_pool *pool = db_pool_new("postgresql://korp@127.0.0.1:1/korp", 1, err, sizeof err);
    (void)state;
    assert_non_null(pool);
    assert_int_equal(db_ping(pool, &latency, &version, err, sizeof err), DB_UNREACHABLE);
    assert_true(strlen(err) > 0);
    assert_int_equal(db_migrate(pool, err, sizeof err), DB_UNREACHABLE);
    db_pool_free(pool);
    db_pool_free(NULL);
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_db_migrations_apply_once),
        cmocka_unit_test(test_db_unreachable_is_reported),
    };
    url = test_database_url();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
