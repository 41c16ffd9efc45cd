/*
 * test_db.c — the db module against a real PostgreSQL: migrations apply
 * once and a failing one rolls back, the pool's deadline, the retries of
 * db_run_tx (serialization failures, a connection killed under it), the
 * connection settings and their overrides, an unreachable server, and the
 * statement list (each text's parameters as PostgreSQL counts them), and
 * db/functions.sql applied after the migrations.
 */
#include <setjmp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <cmocka.h>

#include <ctype.h>
#include <libpq-fe.h>
#include <stdio.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "base.h"
#include "db_int.h"
#include "test_env.h"

static const char *url;

static PGresult *sql(const char *text)
{
    PGconn *conn = PQconnectdb(url);
    PGresult *res;
    assert_int_equal(PQstatus(conn), CONNECTION_OK);
    res = PQexec(conn, text);
    if (PQresultStatus(res) != PGRES_TUPLES_OK && PQresultStatus(res) != PGRES_COMMAND_OK)
        fail_msg("%s: %s", text, PQresultErrorMessage(res));
    PQfinish(conn);
    return res;
}

static long long scalar(const char *text)
{
    PGresult *res = sql(text);
    long long v = atoll(PQgetvalue(res, 0, 0));
    PQclear(res);
    return v;
}

static struct db_pool *pool_of(const char *with_url, int size, int timeout_ms)
{
    struct base_err err = { "" };
    struct db_pool_config config = { with_url, size, timeout_ms, false };
    struct db_pool *pool = db_pool_new(&config, &err);
    if (pool == NULL)
        fail_msg("db_pool_new: %s", err.text);
    return pool;
}

static void test_db_migrations_apply_once(void **state)
{
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 2, 0);
    double latency = -1;
    int version = -1;
    (void)state;
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate: %s", err.text);
    /* A second run (another korpd starting) finds nothing to do. */
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate again: %s", err.text);
    assert_int_equal(scalar("SELECT count(*) FROM schema_migrations WHERE version < 9000"),
                     db_migration_count());
    assert_int_equal(scalar("SELECT count(*) FROM variants WHERE name IN ('korpalski', 'glinski')"), 2);
    assert_int_equal(db_ping(pool, &latency, &version, &err), DB_OK);
    assert_int_equal(version, db_migrations[db_migration_count() - 1].version);
    assert_true(latency >= 0);
    db_pool_free(pool);
}

static void test_db_failed_migration_rolls_back(void **state)
{
    static const struct db_migration list[] = {
        { 9001, "creates_a_table", "CREATE TABLE migration_probe (x int)" },
        { 9002, "fails", "SELECT no_such_column FROM migration_probe" },
        { 0, NULL, NULL },
    };
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 1, 0);
    (void)state;
    assert_int_equal(db_migrate_list(pool, list, &err), DB_HARD_ERROR);
    assert_non_null(strstr(err.text, "migration 9002 (fails)"));
    /* Neither the table of 9001 nor its record survived. */
    assert_int_equal(scalar("SELECT count(*) FROM pg_tables WHERE tablename = 'migration_probe'"), 0);
    assert_int_equal(scalar("SELECT count(*) FROM schema_migrations WHERE version >= 9000"), 0);
    db_pool_free(pool);
}

static void test_db_pool_wait_has_a_deadline(void **state)
{
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 1, 300);
    struct db_tx held, other;
    int64_t start;
    (void)state;
    assert_int_equal(db_pool_acquire(pool, &held, &err), DB_OK);
    start = base_monotonic_ms();
    assert_int_equal(db_pool_acquire(pool, &other, &err), DB_BUSY);
    int64_t waited = base_monotonic_ms() - start;
    assert_true(waited >= 250 && waited < 3000);
    assert_non_null(strstr(err.text, "came free"));
    db_pool_release(&held);
    /* Released: the next one gets it at once. */
    assert_int_equal(db_pool_acquire(pool, &other, &err), DB_OK);
    db_pool_release(&other);
    db_pool_free(pool);
}

struct attempts {
    int runs;
    int fail_runs;          /* fail this many runs first */
    const char *failing_sql;
};

static enum db_status flaky(struct db_tx *tx, void *arg)
{
    struct attempts *a = arg;
    if (a->runs++ < a->fail_runs)
        return db_exec_sql(tx, a->failing_sql, 0, NULL, NULL);
    return db_exec_sql(tx, "SELECT 1", 0, NULL, NULL);
}

static const char serialization_failure[] =
    "DO $$ BEGIN RAISE EXCEPTION 'test' USING ERRCODE = '40001'; END $$";

static void test_db_run_tx_retries_serialization_failures(void **state)
{
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 1, 0);
    struct attempts twice = { 0, 2, serialization_failure };
    struct attempts always = { 0, 1000, serialization_failure };
    (void)state;
    assert_int_equal(db_run_tx(pool, flaky, &twice, &err), DB_OK);
    assert_int_equal(twice.runs, 3);
    /* Bounded: a conflict that never ends is reported as busy. */
    assert_int_equal(db_run_tx(pool, flaky, &always, &err), DB_BUSY);
    assert_true(always.runs > 1 && always.runs < 20);
    db_pool_free(pool);
}

/* What a failed statement means, by its SQLSTATE's class: resources short
 * (53: memory, disk, connections) is worth trying again soon, as a
 * timeout is; a statement the server refuses is not. */
static void test_db_failures_by_sqlstate(void **state)
{
    static const struct { const char *code; enum db_status status; } cases[] = {
        { "53200", DB_BUSY },          /* out_of_memory */
        { "53100", DB_BUSY },          /* disk_full */
        { "57014", DB_BUSY },          /* query_canceled (a statement timeout) */
        { "55P03", DB_BUSY },          /* lock_not_available */
        { "23505", DB_CONFLICT },      /* unique_violation */
        { "22012", DB_HARD_ERROR },    /* division_by_zero */
        { "42601", DB_HARD_ERROR },    /* syntax_error */
    };
    struct db_pool *pool = pool_of(url, 1, 0);
    (void)state;
    for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
        char sql[128];
        struct base_err err = { "" };
        snprintf(sql, sizeof sql,
                 "DO $$ BEGIN RAISE EXCEPTION 'test' USING ERRCODE = '%s'; END $$",
                 cases[i].code);
        struct attempts once = { 0, 1, sql };
        enum db_status got = db_run_once(pool, flaky, &once, &err);
        if (got != cases[i].status)
            fail_msg("SQLSTATE %s: %s, not %s", cases[i].code, db_status_text(got),
                     db_status_text(cases[i].status));
    }
    db_pool_free(pool);
}

static void test_db_run_tx_survives_a_killed_connection(void **state)
{
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 1, 0);
    struct attempts killed = { 0, 1, "SELECT pg_terminate_backend(pg_backend_pid())" };
    struct attempts killed_always = { 0, 5, "SELECT pg_terminate_backend(pg_backend_pid())" };
    (void)state;
    /* Killed before COMMIT: run once more on a fresh connection. */
    assert_int_equal(db_run_tx(pool, flaky, &killed, &err), DB_OK);
    assert_int_equal(killed.runs, 2);
    /* Only once: a second loss is reported, not retried forever. */
    assert_int_equal(db_run_tx(pool, flaky, &killed_always, &err), DB_UNREACHABLE);
    assert_int_equal(killed_always.runs, 2);
    db_pool_free(pool);
}

static void test_db_idle_connection_closed_by_server_is_replaced(void **state)
{
    char named[1024], kill[256], gone[256];
    struct base_err err = { "" };
    struct db_pool *pool;
    struct attempts plain = { 0, 0, NULL };
    double latency;
    int version;
    (void)state;
    /* A name of its own, so that no other test's connection is touched. */
    snprintf(named, sizeof named, "%s%sapplication_name=idle-probe-%d", url,
             strchr(url, '?') ? "&" : "?", (int)getpid());
    snprintf(kill, sizeof kill, "SELECT pg_terminate_backend(pid) FROM pg_stat_activity"
             " WHERE application_name = 'idle-probe-%d'", (int)getpid());
    pool = pool_of(named, 1, 0);
    /* What a server restart does to idle connections: the server ends them. */
    assert_int_equal(db_ping(pool, &latency, &version, &err), DB_OK);
    PQclear(sql(kill));
    /* Until the server has ended it: its backend is gone from the list
     * (bounded: 10 s). */
    snprintf(gone, sizeof gone, "SELECT count(*) FROM pg_stat_activity"
             " WHERE application_name = 'idle-probe-%d'", (int)getpid());
    for (int i = 0; scalar(gone) > 0; i++) {
        if (i == 500)
            fail_msg("the terminated backend is still there after 10 s");
        nanosleep(&(struct timespec){ 0, 20 * 1000 * 1000 }, NULL);
    }
    /* Found dead when taken: reconnected before running, so the work runs
     * once (a dead connection would fail it and make it run again). */
    assert_int_equal(db_run_once(pool, flaky, &plain, &err), DB_OK);
    assert_int_equal(plain.runs, 1);
    /* Prepared statements are prepared again on the new connection. */
    assert_int_equal(db_ping(pool, &latency, &version, &err), DB_OK);
    assert_int_equal(version, db_migrations[db_migration_count() - 1].version);
    db_pool_free(pool);
}

struct shown {
    char value[3][64];
};

static enum db_status show_settings(struct db_tx *tx, void *arg)
{
    struct shown *s = arg;
    static const char *const names[] = { "statement_timeout", "lock_timeout",
                                         "application_name" };
    for (int i = 0; i < 3; i++) {
        PGresult *res = NULL;
        char text[64];
        snprintf(text, sizeof text, "SHOW %s", names[i]);
        enum db_status rc = db_exec_sql(tx, text, 0, NULL, &res);
        if (rc != DB_OK)
            return rc;
        snprintf(s->value[i], sizeof s->value[i], "%s", PQgetvalue(res, 0, 0));
        PQclear(res);
    }
    return DB_OK;
}

static void test_db_settings_are_defaults_the_url_overrides(void **state)
{
    char custom[1024];
    struct base_err err = { "" };
    struct shown s;
    struct db_pool *pool = pool_of(url, 1, 4000);
    (void)state;
    assert_int_equal(db_run_once(pool, show_settings, &s, &err), DB_OK);
    assert_string_equal(s.value[0], "4s");
    assert_string_equal(s.value[1], "2s");
    assert_string_equal(s.value[2], "korpd");
    db_pool_free(pool);

    /* The user's URL wins, key by key and -c by -c. */
    snprintf(custom, sizeof custom, "%s%sapplication_name=mine&options=-c%%20lock_timeout%%3D1234",
             url, strchr(url, '?') ? "&" : "?");
    pool = pool_of(custom, 1, 4000);
    assert_int_equal(db_run_once(pool, show_settings, &s, &err), DB_OK);
    assert_string_equal(s.value[0], "4s");
    assert_string_equal(s.value[1], "1234ms");
    assert_string_equal(s.value[2], "mine");
    db_pool_free(pool);
}

static enum db_status leave_open(struct db_tx *tx, void *arg)
{
    (void)arg;
    enum db_status rc = db_exec_sql(tx, "BEGIN", 0, NULL, NULL);
    if (rc == DB_OK)
        rc = db_exec_sql(tx, "CREATE TABLE left_open_probe (x int)", 0, NULL, NULL);
    return rc;
}

static void test_db_transaction_left_open_is_rolled_back(void **state)
{
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 1, 0);
    struct attempts plain = { 0, 0, NULL };
    (void)state;
    assert_int_equal(db_run_once(pool, leave_open, NULL, &err), DB_OK);
    /* The same (only) connection serves a transaction next: it is idle. */
    assert_int_equal(db_run_tx(pool, flaky, &plain, &err), DB_OK);
    assert_int_equal(scalar("SELECT count(*) FROM pg_tables WHERE tablename = 'left_open_probe'"), 0);
    db_pool_free(pool);
}

static void test_db_unreachable_is_reported(void **state)
{
    struct base_err err = { "" };
    double latency;
    int version;
    struct db_pool_config bad = { "postgresql://korp@127.0.0.1:1/korp", 1, 0, false };
    struct db_pool_config unreadable = { "postgresql://[nonsense", 1, 0, false };
    /* Port 1 on loopback: nothing listens there. */
    struct db_pool *pool = db_pool_new(&bad, &err);
    (void)state;
    assert_non_null(pool);
    assert_int_equal(db_ping(pool, &latency, &version, &err), DB_UNREACHABLE);
    assert_true(strlen(err.text) > 0);
    assert_int_equal(db_migrate(pool, &err), DB_UNREACHABLE);
    db_pool_free(pool);
    db_pool_free(NULL);
    assert_null(db_pool_new(&unreadable, &err));
    assert_non_null(strstr(err.text, "KORP_DATABASE_URL"));
}

/* Each statement of db_statements.def is prepared under its name in lower
 * case, and takes the number of parameters db_pool_new counts (its highest
 * $n): PostgreSQL, preparing it without a count, finds the same. */
static void test_db_statements_count_their_parameters(void **state)
{
    static const char *const upper[] = {
#define STMT(NAME, name, sql) #NAME,
#include "db_statements.def"
#undef STMT
    };
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 1, 0);
    PGconn *conn = NULL;
    (void)state;
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate: %s", err.text);
    conn = PQconnectdb(url);
    assert_int_equal(PQstatus(conn), CONNECTION_OK);
    for (int i = 0; i < DB_STMT_COUNT; i++) {
        const struct db_statement *st = &db_statements[i];
        PGresult *res = PQprepare(conn, st->name, st->sql, 0, NULL);
        size_t n = strlen(upper[i]);
        assert_int_equal(strlen(st->name), n);
        for (size_t k = 0; k < n; k++)
            assert_int_equal(st->name[k], tolower((unsigned char)upper[i][k]));
        if (PQresultStatus(res) != PGRES_COMMAND_OK)
            fail_msg("prepare %s: %s", st->name, PQresultErrorMessage(res));
        PQclear(res);
        res = PQdescribePrepared(conn, st->name);
        assert_int_equal(PQresultStatus(res), PGRES_COMMAND_OK);
        if (PQnparams(res) != db_statement_nparams(st->sql) ||
            PQnparams(res) != db_pool_nparams(pool, (enum db_stmt)i))
            fail_msg("%s: PostgreSQL counts %d parameters, db_statement_nparams %d",
                     st->name, PQnparams(res), db_statement_nparams(st->sql));
        PQclear(res);
    }
    PQfinish(conn);
    db_pool_free(pool);
    assert_int_equal(db_statement_nparams("SELECT 1"), 0);
    assert_int_equal(db_statement_nparams("SELECT $2, $1, $10, $3, $4, $5, $6, $7, $8, $9"), 10);
    assert_int_equal(db_statement_nparams("SELECT $1, $3"), -1);
    assert_int_equal(db_statement_nparams("SELECT $0"), -1);
    assert_int_equal(db_statement_nparams("SELECT $65"), -1);
}

/* db/functions.sql is applied after the migrations, again only when its
 * text changed, and never over a database a newer korpd migrated. */
static void test_db_functions_follow_the_migrations(void **state)
{
    struct base_err err = { "" };
    struct db_pool *pool = pool_of(url, 1, 0);
    (void)state;
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate: %s", err.text);
    assert_int_equal(scalar("SELECT count(*) FROM schema_functions"), 1);
    assert_int_equal(scalar("SELECT 'challenge_cancelled' = ANY (korp_notification_types())"
                            "::integer"), 1);
    /* The same text: nothing is replaced. */
    PQclear(sql("UPDATE schema_functions SET applied_at = '2000-01-01'"));
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate again: %s", err.text);
    assert_int_equal(scalar("SELECT count(*) FROM schema_functions"
                            " WHERE applied_at = '2000-01-01'"), 1);
    /* A newer korpd migrated: its functions stand. */
    PQclear(sql("UPDATE schema_functions SET digest = 'newer'"));
    PQclear(sql("INSERT INTO schema_migrations (version, name) VALUES (8999, 'newer')"));
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate under a newer korpd: %s", err.text);
    assert_int_equal(scalar("SELECT count(*) FROM schema_functions WHERE digest = 'newer'"), 1);
    PQclear(sql("DELETE FROM schema_migrations WHERE version = 8999"));
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate once more: %s", err.text);
    assert_int_equal(scalar("SELECT count(*) FROM schema_functions WHERE digest = 'newer'"), 0);
    db_pool_free(pool);
}

/* A database korpd left at migration 013, with the older spelling stored,
 * reads "cancelled" everywhere once migrated (in a schema of its own). */
static void test_db_cancelled_spelt_one_way_after_upgrade(void **state)
{
    struct db_migration upto[64];
    struct base_err err = { "" };
    char with[1024];
    struct db_pool *pool;
    int n = 0;
    (void)state;
    for (; db_migrations[n].version != 0 && db_migrations[n].version <= 13; n++)
        upto[n] = db_migrations[n];
    upto[n] = (struct db_migration){ 0, NULL, NULL };
    PQclear(sql("DROP SCHEMA IF EXISTS upgrade CASCADE"));
    PQclear(sql("CREATE SCHEMA upgrade"));
    snprintf(with, sizeof with, "%s%coptions=-c%%20search_path%%3Dupgrade", url,
             strchr(url, '?') ? '&' : '?');
    pool = pool_of(with, 1, 0);
    if (db_migrate_list(pool, upto, &err) != DB_OK)
        fail_msg("migrate to 013: %s", err.text);
    PQclear(sql("SET search_path = upgrade;"
                "INSERT INTO players (id, name, role, created_at)"
                " VALUES ('p1', 'alice', 'player', now());"
                "INSERT INTO notification_settings (player_id, email_events, webhook_events)"
                " VALUES ('p1', ARRAY['challenge_canceled', 'move'],"
                " ARRAY['challenge_canceled']);"
                "INSERT INTO webhooks (id, player_id, url, events, secret, created_at)"
                " VALUES ('w1', 'p1', 'https://example.org/', ARRAY['challenge_canceled'], 's',"
                " now());"
                "INSERT INTO events (player_id, type, payload, created_at)"
                " VALUES ('p1', 'challenge_canceled', '{\"opponent\": \"p1\"}', now());"
                "INSERT INTO tournaments (id, name, variant, director_id, status, rated, double,"
                " max_players, leave_allowed, created_at)"
                " VALUES ('t1', 'cup', 'glinski', 'p1', 'canceled', false, false, 3, true,"
                " now())"));
    assert_int_equal(scalar("SELECT count(*) FROM upgrade.deliveries"
                            " WHERE type = 'challenge_canceled'"), 1);
    if (db_migrate(pool, &err) != DB_OK)
        fail_msg("migrate from 013: %s", err.text);
    assert_int_equal(scalar("SELECT count(*) FROM upgrade.notification_settings"
                            " WHERE email_events = ARRAY['challenge_cancelled', 'move']"
                            " AND webhook_events = ARRAY['challenge_cancelled']"), 1);
    assert_int_equal(scalar("SELECT count(*) FROM upgrade.webhooks"
                            " WHERE events = ARRAY['challenge_cancelled']"), 1);
    assert_int_equal(scalar("SELECT count(*) FROM upgrade.events"
                            " WHERE type = 'challenge_cancelled'"), 1);
    assert_int_equal(scalar("SELECT count(*) FROM upgrade.deliveries"
                            " WHERE type = 'challenge_cancelled'"), 1);
    assert_int_equal(scalar("SELECT count(*) FROM upgrade.tournaments"
                            " WHERE status = 'cancelled'"), 1);
    /* The trigger of functions.sql owes the new kind as the old one was. */
    PQclear(sql("SET search_path = upgrade;"
                "INSERT INTO events (player_id, type, payload, created_at)"
                " VALUES ('p1', 'challenge_cancelled', '{\"opponent\": \"p1\"}', now())"));
    assert_int_equal(scalar("SELECT count(*) FROM upgrade.deliveries"
                            " WHERE type = 'challenge_cancelled' AND channel = 'webhook'"), 2);
    db_pool_free(pool);
    PQclear(sql("DROP SCHEMA upgrade CASCADE"));
}

int main(void)
{
    const struct CMUnitTest tests[] = {
        cmocka_unit_test(test_db_migrations_apply_once),
        cmocka_unit_test(test_db_failed_migration_rolls_back),
        cmocka_unit_test(test_db_pool_wait_has_a_deadline),
        cmocka_unit_test(test_db_run_tx_retries_serialization_failures),
        cmocka_unit_test(test_db_failures_by_sqlstate),
        cmocka_unit_test(test_db_run_tx_survives_a_killed_connection),
        cmocka_unit_test(test_db_idle_connection_closed_by_server_is_replaced),
        cmocka_unit_test(test_db_settings_are_defaults_the_url_overrides),
        cmocka_unit_test(test_db_transaction_left_open_is_rolled_back),
        cmocka_unit_test(test_db_unreachable_is_reported),
        cmocka_unit_test(test_db_statements_count_their_parameters),
        cmocka_unit_test(test_db_functions_follow_the_migrations),
        cmocka_unit_test(test_db_cancelled_spelt_one_way_after_upgrade),
    };
    url = test_database_url();
    return cmocka_run_group_tests(tests, NULL, NULL);
}
