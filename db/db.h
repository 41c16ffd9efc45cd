/*
 * db.h — korp's PostgreSQL layer: a connection pool, the schema migrations
 * and the queries the server runs.  Only this module speaks SQL.
 */
#ifndef KORP_DB_H
#define KORP_DB_H

#include <stddef.h>

enum db_status {
    DB_OK = 0,
    DB_UNREACHABLE,   /* no connection to the server */
    DB_HARD_ERROR     /* the server answered with an error */
};

struct db_pool;

/*
 * Makes a pool of up to `size` connections to `url` (a libpq connection
 * string or URI).  Connections open lazily.  Returns NULL on bad arguments
 * or memory shortage, with a message in err.
 */
struct db_pool *db_pool_new(const char *url, int size, char *err, size_t errsize);

/* Closes every connection and frees the pool.  NULL is a no-op. */
void db_pool_free(struct db_pool *pool);

/*
 * Checks that the database answers a query; on success *latency_ms holds
 * the round trip and *schema_version the newest applied migration.
 */
enum db_status db_ping(struct db_pool *pool, double *latency_ms,
                       int *schema_version, char *err, size_t errsize);

/*
 * Applies the migrations not yet applied, in order, in one transaction
 * under an advisory lock (safe when several korpd start at once).
 */
enum db_status db_migrate(struct db_pool *pool, char *err, size_t errsize);

/* Number of migrations this build knows. */
int db_migration_count(void);

#endif
