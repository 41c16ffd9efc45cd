/*
 * db_statements.c — every prepared statement korpd runs, in one table
 * indexed by enum db_stmt.  Each connection prepares a statement the first
 * time it runs it (after a reconnect, again).
 */
#include "db_int.h"

/* The columns db_game_read reads, in its order, and where they come from. */
#define GAME_HEAD                                                                    \
    "g.id, g.variant, g.white_id, w.name, g.black_id, b.name, g.fen, g.ply, g.status," \
    " g.result, g.termination, g.adjudication_reason, g.days_per_move,"               \
    " korp_time(g.deadline), g.draw_offer, g.fifty_move_rule, g.key_version, "
#define GAME_TAIL                                                                    \
    " korp_time(g.created_at), korp_time(g.updated_at), g.sans,"                      \
    " g.status = 'active' AND g.deadline IS NOT NULL AND g.deadline <= korp_now()"
/* With the repetition keys (claims, analysis), or without them (a move
 * appends its key in SQL and needs none of them). */
#define GAME_COLUMNS GAME_HEAD "g.repetition_keys," GAME_TAIL
#define GAME_COLUMNS_NO_KEYS GAME_HEAD "NULL," GAME_TAIL
#define GAME_FROM                                                                    \
    " FROM games g JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id"

#define CHALLENGE_COLUMNS                                                              \
    "c.id, c.variant, c.challenger_id, x.name, c.opponent_id, o.name, c.color,"          \
    " c.days_per_move, c.fifty_move_rule, c.status, c.game_id, korp_time(c.created_at)"
#define CHALLENGE_FROM                                                                 \
    " FROM challenges c JOIN players x ON x.id = c.challenger_id"                       \
    " JOIN players o ON o.id = c.opponent_id"

/* A snapshot of the game that every game event carries. */
#define GAME_SNAPSHOT                                                                  \
    "jsonb_build_object('game_id', g.id, 'variant', g.variant, 'ply', g.ply, 'fen', g.fen," \
    " 'to_move', CASE WHEN g.ply % 2 = 0 THEN 'white' ELSE 'black' END,"              \
    " 'status', g.status, 'result', g.result, 'termination', g.termination,"          \
    " 'draw_offer', g.draw_offer)"

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

    /* ---- challenges */
    [DB_STMT_CHALLENGE_INSERT] = { DB_STMT_CHALLENGE_INSERT, "challenge_insert",
        "INSERT INTO challenges (id, variant, challenger_id, opponent_id, color,"
        " days_per_move, fifty_move_rule, created_at)"
        " SELECT $1, $2, $3, p.id, $5, $6, $7, korp_now() FROM players p WHERE p.id = $4", 7 },
    [DB_STMT_CHALLENGE_GET] = { DB_STMT_CHALLENGE_GET, "challenge_get",
        "SELECT " CHALLENGE_COLUMNS CHALLENGE_FROM " WHERE c.id = $1", 1 },
    [DB_STMT_CHALLENGE_LOCK] = { DB_STMT_CHALLENGE_LOCK, "challenge_lock",
        "SELECT " CHALLENGE_COLUMNS CHALLENGE_FROM " WHERE c.id = $1 FOR UPDATE OF c", 1 },
    /* Newest first, at most $2 in each direction (so that many incoming
     * challenges cannot hide a player's own). */
    [DB_STMT_CHALLENGE_LIST] = { DB_STMT_CHALLENGE_LIST, "challenge_list",
        "SELECT * FROM (SELECT " CHALLENGE_COLUMNS ", row_number() OVER ("
        " PARTITION BY c.opponent_id = $1 ORDER BY c.created_at DESC, c.id DESC) AS n"
        CHALLENGE_FROM " WHERE c.status = 'open' AND (c.opponent_id = $1 OR c.challenger_id = $1)"
        ") l WHERE n <= $2 ORDER BY 12 DESC, 1 DESC", 2 },
    [DB_STMT_CHALLENGE_SET_STATUS] = { DB_STMT_CHALLENGE_SET_STATUS, "challenge_set_status",
        "UPDATE challenges SET status = $2, game_id = nullif($3, '') WHERE id = $1", 3 },
    /* Events are NOTIFYed (payload: their ids) with the transaction that
     * writes them: every korpd LISTENs and wakes the streams concerned. */
    [DB_STMT_CHALLENGE_EVENT] = { DB_STMT_CHALLENGE_EVENT, "challenge_event",
        "WITH e AS (INSERT INTO events (player_id, game_id, type, payload, created_at)"
        " SELECT p, NULL, $2, jsonb_build_object('challenge_id', c.id, 'status', c.status,"
        " 'variant', c.variant, 'challenger', c.challenger_id, 'opponent', c.opponent_id,"
        " 'game_id', c.game_id),"
        " korp_now() FROM challenges c, unnest(ARRAY[c.challenger_id, c.opponent_id]) p"
        " WHERE c.id = $1 RETURNING id)"
        " SELECT pg_notify('" DB_EVENTS_CHANNEL "', string_agg(id::text, ',')) FROM e", 2 },

    /* ---- games and moves */
    [DB_STMT_GAME_INSERT] = { DB_STMT_GAME_INSERT, "game_insert",
        "INSERT INTO games (id, variant, white_id, black_id, fen, fifty_move_rule,"
        " days_per_move, deadline, repetition_keys, key_version, challenge_id,"
        " created_at, updated_at)"
        " VALUES ($1, $2, $3, $4, $5, $6, $7::int,"
        " korp_now() + make_interval(days => $7::int), $8::bigint[], $9, nullif($10, ''),"
        " korp_now(), korp_now())"
        " RETURNING korp_time(created_at), korp_time(updated_at), korp_time(deadline)", 10 },
    [DB_STMT_GAME_LOCK] = { DB_STMT_GAME_LOCK, "game_lock",
        "SELECT " GAME_COLUMNS_NO_KEYS GAME_FROM " WHERE g.id = $1 FOR UPDATE OF g", 1 },
    [DB_STMT_GAME_LOCK_KEYS] = { DB_STMT_GAME_LOCK_KEYS, "game_lock_keys",
        "SELECT " GAME_COLUMNS GAME_FROM " WHERE g.id = $1 FOR UPDATE OF g", 1 },
    [DB_STMT_GAME_GET] = { DB_STMT_GAME_GET, "game_get",
        "SELECT " GAME_COLUMNS GAME_FROM " WHERE g.id = $1", 1 },
    [DB_STMT_GAME_LIST] = { DB_STMT_GAME_LIST, "game_list",
        "SELECT " GAME_COLUMNS_NO_KEYS ","
        " (extract(epoch FROM g.created_at) * 1000000)::bigint" GAME_FROM
        " WHERE ($1::text IS NULL OR g.white_id = $1 OR g.black_id = $1)"
        " AND ($2::text IS NULL OR g.status = $2) AND ($3::text IS NULL OR g.variant = $3)"
        " AND ($4::bigint IS NULL OR (g.created_at, g.id) <"
        " (timestamptz 'epoch' + $4::bigint * interval '1 microsecond', $5::text))"
        " ORDER BY g.created_at DESC, g.id DESC LIMIT $6", 6 },
    /* A move's key and SAN ($9, $12; NULL when no move) are appended here,
     * so that a move costs the same at ply 300 as at ply 3; $10 restarts
     * the keys after an irreversible move (or a new key version, $11). */
    [DB_STMT_GAME_SAVE] = { DB_STMT_GAME_SAVE, "game_save",
        "UPDATE games SET fen = $2, ply = $3, status = $4, result = $5,"
        " termination = nullif($6, ''), adjudication_reason = nullif($7, ''),"
        " draw_offer = nullif($8, ''),"
        " repetition_keys = CASE WHEN $9::bigint IS NULL THEN repetition_keys"
        "                        WHEN $10 THEN ARRAY[$9::bigint]"
        "                        ELSE repetition_keys || $9::bigint END,"
        " key_version = CASE WHEN $9::bigint IS NULL THEN key_version ELSE $11 END,"
        " sans = CASE WHEN $12::text IS NULL THEN sans WHEN sans = '' THEN $12"
        "             ELSE sans || ' ' || $12 END,"
        " deadline = CASE WHEN $4 <> 'active' OR days_per_move IS NULL THEN NULL"
        "                 WHEN $12::text IS NOT NULL"
        "                 THEN korp_now() + make_interval(days => days_per_move)"
        "                 ELSE deadline END,"
        " updated_at = korp_now() WHERE id = $1"
        " RETURNING korp_time(updated_at), korp_time(deadline), sans", 12 },
    [DB_STMT_GAME_EVENT] = { DB_STMT_GAME_EVENT, "game_event",
        "WITH e AS (INSERT INTO events (player_id, game_id, type, payload, created_at)"
        " SELECT p, g.id, $2, " GAME_SNAPSHOT " || coalesce($3::jsonb, '{}'), korp_now()"
        " FROM games g, unnest(ARRAY[g.white_id, g.black_id]) p WHERE g.id = $1 RETURNING id)"
        " SELECT pg_notify('" DB_EVENTS_CHANNEL "', string_agg(id::text, ',')) FROM e", 3 },
    /* A player's events after an id (all their games and challenges, or one
     * game); or, with no player, one game's events as a spectator sees them
     * (one row per event: White's copy). */
    [DB_STMT_EVENTS_SINCE] = { DB_STMT_EVENTS_SINCE, "events_since",
        "SELECT e.id, e.type, e.payload::text FROM events e"
        " WHERE e.id > $3::bigint AND ($2::text IS NULL OR e.game_id = $2)"
        " AND ($1::text IS NOT NULL AND e.player_id = $1"
        "      OR $1::text IS NULL AND e.player_id = (SELECT white_id FROM games WHERE id = $2))"
        " ORDER BY e.id LIMIT $4", 4 },
    /* Where a new stream starts: the newest event it would show. */
    [DB_STMT_EVENTS_LAST] = { DB_STMT_EVENTS_LAST, "events_last",
        "SELECT coalesce(max(e.id), 0) FROM events e"
        " WHERE ($2::text IS NULL OR e.game_id = $2)"
        " AND ($1::text IS NOT NULL AND e.player_id = $1"
        "      OR $1::text IS NULL AND e.player_id = (SELECT white_id FROM games WHERE id = $2))", 2 },
    /* A player's events must take their ids in commit order, or a stream
     * reading "after id N" would skip one committed late with a smaller
     * id.  Locking the players concerned (in id order, no deadlock) before
     * the events are written makes each player's events one at a time. */
    [DB_STMT_EVENT_LOCK_GAME] = { DB_STMT_EVENT_LOCK_GAME, "event_lock_game",
        "SELECT 1 FROM players p JOIN games g ON p.id IN (g.white_id, g.black_id)"
        " WHERE g.id = $1 ORDER BY p.id FOR NO KEY UPDATE OF p", 1 },
    [DB_STMT_EVENT_LOCK_CHALLENGE] = { DB_STMT_EVENT_LOCK_CHALLENGE, "event_lock_challenge",
        "SELECT 1 FROM players p JOIN challenges c ON p.id IN (c.challenger_id, c.opponent_id)"
        " WHERE c.id = $1 ORDER BY p.id FOR NO KEY UPDATE OF p", 1 },

    [DB_STMT_GAME_OVERDUE] = { DB_STMT_GAME_OVERDUE, "game_overdue",
        "SELECT " GAME_COLUMNS_NO_KEYS GAME_FROM
        " WHERE g.status = 'active' AND g.deadline < korp_now()"
        " ORDER BY g.deadline LIMIT 1 FOR UPDATE OF g SKIP LOCKED", 0 },
    [DB_STMT_GAME_CLEAR_DEADLINE] = { DB_STMT_GAME_CLEAR_DEADLINE, "game_clear_deadline",
        "UPDATE games SET deadline = NULL WHERE id = $1", 1 },
    [DB_STMT_MOVE_INSERT] = { DB_STMT_MOVE_INSERT, "move_insert",
        "INSERT INTO moves (game_id, ply, san, uci, fen, played_at)"
        " VALUES ($1, $2, $3, $4, $5, korp_now())", 5 },
    [DB_STMT_MOVE_LIST] = { DB_STMT_MOVE_LIST, "move_list",
        "SELECT g.id, m.ply, m.san, m.uci, m.fen, korp_time(m.played_at)"
        " FROM games g LEFT JOIN moves m ON m.game_id = g.id WHERE g.id = $1 ORDER BY m.ply", 1 },

    /* ---- the clock and idempotency keys */
    [DB_STMT_CLOCK_SET] = { DB_STMT_CLOCK_SET, "clock_set",
        "UPDATE clock SET offset_seconds = $1"
        " RETURNING korp_time(now() + make_interval(secs => offset_seconds))", 1 },
    /* Claiming a key inserts its row (status 0) in the request's own
     * transaction: a concurrent request with the same key waits on the
     * unique index until the first commits, then finds its answer.  A key
     * older than 24 hours is taken over. */
    [DB_STMT_IDEMPOTENCY_CLAIM] = { DB_STMT_IDEMPOTENCY_CLAIM, "idempotency_claim",
        "INSERT INTO idempotency_keys (token_id, key, method, path, status, body, created_at)"
        " VALUES ($1, $2, $3, $4, 0, '', korp_now()) ON CONFLICT (token_id, key) DO UPDATE"
        " SET method = $3, path = $4, status = 0, body = '', created_at = korp_now()"
        " WHERE idempotency_keys.created_at <= korp_now() - interval '24 hours'"
        " RETURNING 1", 4 },
    [DB_STMT_IDEMPOTENCY_GET] = { DB_STMT_IDEMPOTENCY_GET, "idempotency_get",
        "SELECT status, body, method = $3 AND path = $4 FROM idempotency_keys"
        " WHERE token_id = $1 AND key = $2", 4 },
    [DB_STMT_IDEMPOTENCY_PRUNE] = { DB_STMT_IDEMPOTENCY_PRUNE, "idempotency_prune",
        "DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(SELECT ctid FROM idempotency_keys"
        " WHERE created_at < korp_now() - interval '24 hours' LIMIT 1000))", 0 },
    [DB_STMT_IDEMPOTENCY_STORE] = { DB_STMT_IDEMPOTENCY_STORE, "idempotency_store",
        "UPDATE idempotency_keys SET status = $3, body = $4 WHERE token_id = $1 AND key = $2", 4 },
};

_Static_assert(sizeof db_statements / sizeof db_statements[0] == DB_STMT_COUNT,
               "one db_statements entry per enum db_stmt");
