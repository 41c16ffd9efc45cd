/* db_int.h — what the files of db/ share. */
#ifndef KORP_DB_INT_H
#define KORP_DB_INT_H

#include "db.h"

#include <libpq-fe.h>

struct db_migration {
    int version;
    const char *name;
    const char *sql;
};

/* Generated from db/migrations/NNN_name.sql, ending in a zero version. */
extern const struct db_migration db_migrations[];

/* A connected connection from the pool (blocks while all are in use), or
 * NULL with a message if the server cannot be reached. */
PGconn *db_pool_acquire(struct db_pool *pool, char *err, size_t errsize);
void db_pool_release(struct db_pool *pool, PGconn *conn);

/* Copies libpq's message for conn without its trailing newline. */
void db_error_copy(PGconn *conn, const PGresult *res, char *err, size_t errsize);

#endif
