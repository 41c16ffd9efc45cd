/*
 * db_statements.c — every prepared statement korpd runs, in one table
 * indexed by enum db_stmt.  Each connection prepares a statement the first
 * time it runs it (after a reconnect, again).
 */
#include "db_int.h"

const struct db_statement db_statements[] = {
    [DB_STMT_SCHEMA_VERSION] = { DB_STMT_SCHEMA_VERSION, "schema_version",
                                 "SELECT coalesce(max(version), 0) FROM schema_migrations", 0 },
};

_Static_assert(sizeof db_statements / sizeof db_statements[0] == DB_STMT_COUNT,
               "one db_statements entry per enum db_stmt");
