/*
 * db_statements.c — every prepared statement korpd runs, in one table
 * indexed by enum db_stmt.  Each connection prepares a statement the first
 * time it runs it (after a reconnect, again).
 */
#include "db_int.h"

const struct db_statement db_statements[] = {
    [DB_STMT_SCHEMA_VERSION] = { DB_STMT_SCHEMA_VERSION, "schema_version",
                                 "SELECT coalesce(max(version), 0) FROM schema_migrations", 0 },

    /* ---- players and tokens */
    [DB_STMT_PLAYER_INSERT] = { DB_STMT_PLAYER_INSERT, "player_insert",
        "INSERT INTO players (id, name, email, role, created_at)"
        " VALUES ($1, $2, $3, $4, korp_now()) RETURNING korp_time(created_at)", 4 },
    [DB_STMT_PLAYER_GET] = { DB_STMT_PLAYER_GET, "player_get",
        "SELECT p.id, p.name, p.email, p.role, korp_time(p.created_at),"
        " count(s.q), count(s.q) FILTER (WHERE s.q > 2), count(s.q) FILTER (WHERE s.q = 2),"
        " count(s.q) FILTER (WHERE s.q < 2), coalesce(sum(s.q), 0)"
        " FROM players p LEFT JOIN LATERAL ("
        "   SELECT CASE WHEN g.white_id = p.id THEN korp_white_quarters(g.result)"
        "               ELSE 4 - korp_white_quarters(g.result) END AS q"
        "   FROM games g WHERE g.status = 'finished' AND (g.white_id = p.id OR g.black_id = p.id)"
        " ) s ON true WHERE p.id = $1 GROUP BY p.id", 1 },
    [DB_STMT_TOKEN_INSERT] = { DB_STMT_TOKEN_INSERT, "token_insert",
        "INSERT INTO tokens (id, player_id, hash, created_at)"
        " VALUES ($1, $2, decode($3, 'hex'), korp_now()) RETURNING korp_time(created_at)", 3 },
    [DB_STMT_TOKEN_FIND] = { DB_STMT_TOKEN_FIND, "token_find",
        "SELECT t.id, p.id, p.name, p.role,"
        " t.last_used_at IS NULL OR t.last_used_at < korp_now() - interval '1 minute'"
        " FROM tokens t JOIN players p ON p.id = t.player_id WHERE t.hash = decode($1, 'hex')", 1 },
    [DB_STMT_TOKEN_TOUCH] = { DB_STMT_TOKEN_TOUCH, "token_touch",
        "UPDATE tokens SET last_used_at = korp_now() WHERE id = $1", 1 },
    [DB_STMT_TOKEN_LIST] = { DB_STMT_TOKEN_LIST, "token_list",
        "SELECT id, korp_time(created_at), korp_time(last_used_at) FROM tokens"
        " WHERE player_id = $1 ORDER BY created_at, id LIMIT $2", 2 },
    [DB_STMT_TOKEN_DELETE] = { DB_STMT_TOKEN_DELETE, "token_delete",
        "DELETE FROM tokens WHERE id = $1 AND player_id = $2", 2 },
};

_Static_assert(sizeof db_statements / sizeof db_statements[0] == DB_STMT_COUNT,
               "one db_statements entry per enum db_stmt");
