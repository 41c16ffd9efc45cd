/*
 * db_statements.c — every prepared statement korpd runs, in one table
 * indexed by enum db_stmt.  Each connection prepares a statement the first
 * time it runs it (after a reconnect, again).
 */
#include "db_int.h"

/* A game's clock (issue 18, migration 007): its settings, each side's time
 * now, and the end of the leave stopping it. */
#define GAME_CLOCK                                                                   \
    " g.clock_initial_days, g.clock_increment_days, g.clock_max_days, g.leave_allowed,"  \
    " korp_clock_left(g, true) AS clock_white, korp_clock_left(g, false) AS clock_black," \
    " CASE WHEN g.status = 'active' AND g.white_seconds IS NOT NULL THEN korp_time("    \
    " korp_paused_until(g.white_id, g.black_id, g.leave_allowed)) END AS paused_until, "
/* The same after an INSERT or UPDATE of games (RETURNING, the row as `games`). */
#define GAME_CLOCK_RETURNING                                                         \
    ", korp_clock_left(games, true) AS clock_white,"                                 \
    " korp_clock_left(games, false) AS clock_black,"                                 \
    " CASE WHEN status = 'active' AND white_seconds IS NOT NULL THEN korp_time("     \
    " korp_paused_until(white_id, black_id, leave_allowed)) END AS paused_until"
/* The columns db_game_read reads, by these names. */
#define GAME_HEAD                                                                    \
    "g.id, g.variant, g.white_id, w.name AS white_name, g.black_id,"                  \
    " b.name AS black_name, g.fen, g.ply, g.status, g.result, g.termination,"         \
    " g.adjudication_reason, g.days_per_move, korp_time(g.deadline) AS deadline,"     \
    " g.draw_offer, g.fifty_move_rule, g.key_version, " GAME_CLOCK
#define GAME_TAIL                                                                    \
    " korp_time(g.created_at) AS created_at, korp_time(g.updated_at) AS updated_at,"  \
    " g.sans, g.status = 'active' AND g.deadline IS NOT NULL"                         \
    " AND g.deadline <= korp_now() AS overdue,"                                      \
    " g.rated, g.rating_diff_white, g.rating_diff_black, g.tournament_id"
/* With the repetition keys (claims, analysis), or without them (a move
 * appends its key in SQL and needs none of them). */
#define GAME_COLUMNS GAME_HEAD "g.repetition_keys," GAME_TAIL
#define GAME_COLUMNS_NO_KEYS GAME_HEAD "NULL AS repetition_keys," GAME_TAIL
#define GAME_FROM                                                                    \
    " FROM games g JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id"

/* The columns challenge_read reads, by these names. */
#define CHALLENGE_COLUMNS                                                              \
    "c.id, c.variant, c.challenger_id, x.name AS challenger_name, c.opponent_id,"        \
    " o.name AS opponent_name, c.color, c.days_per_move, c.fifty_move_rule, c.status,"   \
    " c.game_id, korp_time(c.created_at) AS created_at, c.clock_initial_days,"           \
    " c.clock_increment_days, c.clock_max_days, c.leave_allowed, c.rated"
#define CHALLENGE_FROM                                                                 \
    " FROM challenges c JOIN players x ON x.id = c.challenger_id"                       \
    " LEFT JOIN players o ON o.id = c.opponent_id"

/* A Fischer clock's member as the clock_* column db_clock_read reads, from
 * the clock a tournament was created with (checked then: whole numbers). */
#define TOURNAMENT_FISCHER(member)                                                     \
    " CASE WHEN t.clock->>'type' = 'fischer'"                                          \
    " AND jsonb_typeof(t.clock->'" member "') = 'number'"                              \
    " THEN (t.clock->>'" member "')::numeric::integer END AS clock_" member

/* The columns tournament_read reads (issue 19). */
#define TOURNAMENT_COLUMNS                                                             \
    "t.id, t.name, t.variant, t.director_id, d.name AS director_name, t.status,"         \
    " t.days_per_move, t.clock::text AS clock, t.rated, t.double, t.max_players,"        \
    " t.leave_allowed, t.min_rating, t.max_rating, t.max_timeout_percent,"               \
    " korp_time(t.starts_at) AS starts_at, korp_time(t.ends_at) AS ends_at,"             \
    " korp_time(t.created_at) AS created_at,"                                           \
    " (SELECT count(*) FROM tournament_players tp WHERE tp.tournament_id = t.id)"        \
    " AS player_count," TOURNAMENT_FISCHER("initial_days") ","                      \
    TOURNAMENT_FISCHER("increment_days") "," TOURNAMENT_FISCHER("max_days")
#define TOURNAMENT_FROM " FROM tournaments t JOIN players d ON d.id = t.director_id"

/* A snapshot of the game that every game event carries. */
#define GAME_SNAPSHOT                                                                  \
    "jsonb_build_object('game_id', g.id, 'variant', g.variant, 'ply', g.ply, 'fen', g.fen," \
    " 'to_move', CASE WHEN g.ply % 2 = 0 THEN 'white' ELSE 'black' END,"              \
    " 'status', g.status, 'result', g.result, 'termination', g.termination,"          \
    " 'draw_offer', g.draw_offer)"

/* A player's notification preferences (players p, notification_settings s). */
#define SETTINGS_JSON                                                                  \
    "jsonb_build_object('email_address', p.email,"                                      \
    " 'email_confirmed', p.email IS NOT NULL AND p.email_confirmed_at IS NOT NULL,"      \
    " 'email_enabled', s.email_enabled,"                                                 \
    " 'email_events', to_jsonb(s.email_events), 'webhook_events', to_jsonb(s.webhook_events)," \
    " 'digest', jsonb_build_object('enabled', s.digest, 'hour_utc', s.digest_hour),"    \
    " 'reminder_hours', s.reminder_hours, 'language', p.language)"

/* A webhook as the API shows it (never its secret). */
#define WEBHOOK_JSON                                                                   \
    "jsonb_build_object('id', w.id, 'url', w.url, 'events', to_jsonb(w.events),"        \
    " 'enabled', w.enabled, 'disabled_reason', w.disabled_reason,"                      \
    " 'created_at', korp_time(w.created_at))"

/* A delivery (deliveries d) with its attempts. */
#define DELIVERY_JSON                                                                  \
    "jsonb_build_object('id', 'msg_' || d.id, 'type', d.type, 'status', d.status,"      \
    " 'event_id', d.event_id, 'created_at', korp_time(d.created_at),"                   \
    " 'delivered_at', korp_time(d.delivered_at),"                                       \
    " 'next_attempt_at', CASE WHEN d.status = 'pending' THEN korp_time(d.next_attempt_at) END," \
    " 'last_error', d.last_error,"                                                      \
    " 'attempts', (SELECT coalesce(jsonb_agg(jsonb_build_object('at', korp_time(a.at),"  \
    " 'status_code', a.status_code, 'latency_ms', round(a.latency_ms::numeric, 1),"     \
    " 'error', a.error) ORDER BY a.attempt), '[]') FROM delivery_attempts a"             \
    " WHERE a.delivery_id = d.id))"

const struct db_statement db_statements[] = {
    [DB_STMT_SCHEMA_VERSION] = { DB_STMT_SCHEMA_VERSION, "schema_version",
                                 "SELECT coalesce(max(version), 0) AS version FROM schema_migrations", 0 },

    /* ---- players and tokens */
    [DB_STMT_PLAYER_INSERT] = { DB_STMT_PLAYER_INSERT, "player_insert",
        "WITH p AS (INSERT INTO players (id, name, email, role, password_hash, created_at,"
        " email_confirmed_at, language)"
        " VALUES ($1, $2, $3, $4, $5, korp_now(),"
        "         CASE WHEN $6::boolean AND $3::text IS NOT NULL THEN korp_now() END,"
        "         coalesce($7::text, 'en'))"
        " RETURNING id, email, email_confirmed_at, created_at),"
        " s AS (INSERT INTO notification_settings (player_id) SELECT id FROM p)"
        " SELECT korp_time(created_at) AS created_at,"
        " email_confirmed_at IS NOT NULL AS email_confirmed,"
        " email IS NOT NULL AND email_confirmed_at IS NULL"
        " AND korp_email_confirmation_owe(id, email) AS confirmation_owed FROM p", 7 },
    [DB_STMT_PLAYER_GET] = { DB_STMT_PLAYER_GET, "player_get",
        "SELECT p.id, p.name, p.email, p.role = 'arbiter' AS arbiter,"
        " p.email IS NOT NULL AND p.email_confirmed_at IS NOT NULL AS email_confirmed,"
        " korp_time(p.created_at) AS created_at, count(s.q) AS played,"
        " count(s.q) FILTER (WHERE s.q > 2) AS won, count(s.q) FILTER (WHERE s.q = 2) AS drawn,"
        " count(s.q) FILTER (WHERE s.q < 2) AS lost, coalesce(sum(s.q), 0) AS quarter_points"
        " FROM players p LEFT JOIN LATERAL ("
        "   SELECT CASE WHEN g.white_id = p.id THEN korp_white_quarters(g.result)"
        "               ELSE 4 - korp_white_quarters(g.result) END AS q"
        "   FROM games g WHERE g.status = 'finished' AND (g.white_id = p.id OR g.black_id = p.id)"
        " ) s ON true WHERE p.id = $1 GROUP BY p.id", 1 },
    [DB_STMT_TOKEN_INSERT] = { DB_STMT_TOKEN_INSERT, "token_insert",
        "INSERT INTO tokens (id, player_id, hash, created_at)"
        " VALUES ($1, $2, decode($3, 'hex'), korp_now())"
        " RETURNING korp_time(created_at) AS created_at", 3 },
    [DB_STMT_TOKEN_FIND] = { DB_STMT_TOKEN_FIND, "token_find",
        "SELECT t.id AS token_id, p.id AS player_id, p.name, p.role = 'arbiter' AS arbiter,"
        " t.last_used_at IS NULL OR t.last_used_at < korp_now() - interval '1 minute' AS stale"
        " FROM tokens t JOIN players p ON p.id = t.player_id WHERE t.hash = decode($1, 'hex')", 1 },
    [DB_STMT_TOKEN_TOUCH] = { DB_STMT_TOKEN_TOUCH, "token_touch",
        "UPDATE tokens SET last_used_at = korp_now() WHERE id = $1", 1 },
    [DB_STMT_TOKEN_LIST] = { DB_STMT_TOKEN_LIST, "token_list",
        "SELECT id, korp_time(created_at) AS created_at, korp_time(last_used_at) AS last_used_at"
        " FROM tokens"
        " WHERE player_id = $1 ORDER BY tokens.created_at, tokens.id LIMIT $2", 2 },
    [DB_STMT_TOKEN_DELETE] = { DB_STMT_TOKEN_DELETE, "token_delete",
        "DELETE FROM tokens WHERE id = $1 AND player_id = $2", 2 },

    /* ---- challenges */
    [DB_STMT_CHALLENGE_INSERT] = { DB_STMT_CHALLENGE_INSERT, "challenge_insert",
        "INSERT INTO challenges (id, variant, challenger_id, opponent_id, color,"
        " days_per_move, fifty_move_rule, created_at, clock_initial_days,"
        " clock_increment_days, clock_max_days, leave_allowed, rated)"
        " SELECT $1, $2, $3, $4, $5, $6, $7, korp_now(), $8, $9, $10, $11, $12"
        " WHERE $4::text IS NULL AND (SELECT count(*) FROM challenges WHERE challenger_id = $3"
        "       AND opponent_id IS NULL AND status = 'open') < 10"
        " OR EXISTS (SELECT 1 FROM players WHERE id = $4)", 12 },
    /* An open challenge's opponent: whoever accepts it first. */
    [DB_STMT_CHALLENGE_TAKE] = { DB_STMT_CHALLENGE_TAKE, "challenge_take",
        "UPDATE challenges c SET opponent_id = p.id FROM players p"
        " WHERE c.id = $1 AND c.opponent_id IS NULL AND p.id = $2 RETURNING p.name AS name", 2 },
    [DB_STMT_CHALLENGES_OPEN] = { DB_STMT_CHALLENGES_OPEN, "challenges_open",
        "SELECT " CHALLENGE_COLUMNS CHALLENGE_FROM
        " WHERE c.id IN (SELECT id FROM challenges WHERE status = 'open' AND opponent_id IS NULL"
        " ORDER BY created_at DESC, id LIMIT $1) ORDER BY c.created_at DESC, c.id", 1 },
    [DB_STMT_CHALLENGE_GET] = { DB_STMT_CHALLENGE_GET, "challenge_get",
        "SELECT " CHALLENGE_COLUMNS CHALLENGE_FROM " WHERE c.id = $1", 1 },
    [DB_STMT_CHALLENGE_LOCK] = { DB_STMT_CHALLENGE_LOCK, "challenge_lock",
        "SELECT " CHALLENGE_COLUMNS CHALLENGE_FROM " WHERE c.id = $1 FOR UPDATE OF c", 1 },
    /* Newest first, at most $2 in each direction (so that many incoming
     * challenges cannot hide a player's own). */
    [DB_STMT_CHALLENGE_LIST] = { DB_STMT_CHALLENGE_LIST, "challenge_list",
        "SELECT * FROM (SELECT " CHALLENGE_COLUMNS ", row_number() OVER ("
        " PARTITION BY c.opponent_id = $1 ORDER BY c.created_at DESC, c.id DESC) AS n,"
        " c.created_at AS created_exact"
        CHALLENGE_FROM " WHERE c.status = 'open' AND (c.opponent_id = $1 OR c.challenger_id = $1)"
        ") l WHERE n <= $2 ORDER BY created_exact DESC, id DESC", 2 },
    [DB_STMT_CHALLENGE_SET_STATUS] = { DB_STMT_CHALLENGE_SET_STATUS, "challenge_set_status",
        "UPDATE challenges SET status = $2, game_id = nullif($3, '') WHERE id = $1", 3 },
    /* Statements that write events answer their ids: once the transaction
     * has committed they are NOTIFYed (db_wake.c), and every korpd LISTENs
     * and wakes the streams concerned. */
    [DB_STMT_CHALLENGE_EVENT] = { DB_STMT_CHALLENGE_EVENT, "challenge_event",
        "WITH e AS (INSERT INTO events (player_id, game_id, type, payload, created_at)"
        " SELECT p, NULL, $2, jsonb_build_object('challenge_id', c.id, 'status', c.status,"
        " 'variant', c.variant, 'challenger', c.challenger_id, 'opponent', c.opponent_id,"
        " 'game_id', c.game_id),"
        " korp_now() FROM challenges c, unnest(ARRAY[c.challenger_id, c.opponent_id]) p"
        " WHERE c.id = $1 AND p IS NOT NULL RETURNING id)"
        " SELECT string_agg(id::text, ',') AS ids FROM e", 2 },

    /* ---- games and moves */
    /* Each side starts with its clock's time ($11: Fischer's initial days,
     * else days_per_move), the deadline at the end of White's (leave
     * counted: a player may be on leave already). */
    [DB_STMT_GAME_INSERT] = { DB_STMT_GAME_INSERT, "game_insert",
        "WITH n AS (SELECT date_trunc('second', korp_now()) AS t,"
        " coalesce($11::int, $7::int)::bigint * 86400 AS s)"
        " INSERT INTO games (id, variant, white_id, black_id, fen, fifty_move_rule,"
        " days_per_move, deadline, repetition_keys, key_version, challenge_id,"
        " created_at, updated_at, clock_initial_days, clock_increment_days, clock_max_days,"
        " leave_allowed, white_seconds, black_seconds, turn_started_at, rated, tournament_id,"
        " tournament_round)"
        " SELECT $1, $2, $3, $4, $5, $6, $7::int,"
        " CASE WHEN n.s IS NOT NULL THEN korp_run_out($3, $4, $14, n.t, n.s) END,"
        " $8::bigint[], $9, nullif($10, ''), korp_now(), korp_now(), $11, $12, $13, $14,"
        " n.s, n.s, n.t, $15, nullif($16, ''), $17::int FROM n"
        " RETURNING korp_time(created_at) AS created_at, korp_time(updated_at) AS updated_at,"
        " korp_time(deadline) AS deadline" GAME_CLOCK_RETURNING, 17 },
    [DB_STMT_GAME_LOCK] = { DB_STMT_GAME_LOCK, "game_lock",
        "SELECT " GAME_COLUMNS_NO_KEYS GAME_FROM " WHERE g.id = $1 FOR UPDATE OF g", 1 },
    [DB_STMT_GAME_LOCK_KEYS] = { DB_STMT_GAME_LOCK_KEYS, "game_lock_keys",
        "SELECT " GAME_COLUMNS GAME_FROM " WHERE g.id = $1 FOR UPDATE OF g", 1 },
    [DB_STMT_GAME_GET] = { DB_STMT_GAME_GET, "game_get",
        "SELECT " GAME_COLUMNS GAME_FROM " WHERE g.id = $1", 1 },
    [DB_STMT_GAME_LIST] = { DB_STMT_GAME_LIST, "game_list",
        "SELECT " GAME_COLUMNS_NO_KEYS ","
        " (extract(epoch FROM g.created_at) * 1000000)::bigint AS created_us" GAME_FROM
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
        " RETURNING korp_time(updated_at) AS updated_at, korp_time(deadline) AS deadline, sans"
        GAME_CLOCK_RETURNING, 12 },
    [DB_STMT_GAME_EVENT] = { DB_STMT_GAME_EVENT, "game_event",
        "WITH e AS (INSERT INTO events (player_id, game_id, type, payload, created_at)"
        " SELECT p, g.id, $2, " GAME_SNAPSHOT " || coalesce($3::jsonb, '{}'), korp_now()"
        " FROM games g, unnest(ARRAY[g.white_id, g.black_id]) p WHERE g.id = $1 RETURNING id)"
        " SELECT string_agg(id::text, ',') AS ids FROM e", 3 },
    /* A player's events after an id (all their games and challenges, or one
     * game); or, with no player, one game's events as a spectator sees them
     * (one row per event: White's copy). */
    [DB_STMT_EVENTS_SINCE] = { DB_STMT_EVENTS_SINCE, "events_since",
        "SELECT e.id, e.type, e.payload::text AS payload FROM events e"
        " WHERE e.id > $3::bigint AND ($2::text IS NULL OR e.game_id = $2)"
        " AND ($1::text IS NOT NULL AND e.player_id = $1"
        "      OR $1::text IS NULL AND e.player_id = (SELECT white_id FROM games WHERE id = $2)"
        "         AND e.type <> 'message')"
        " ORDER BY e.id LIMIT $4", 4 },
    /* Where a new stream starts: the newest event it would show. */
    [DB_STMT_EVENTS_LAST] = { DB_STMT_EVENTS_LAST, "events_last",
        "SELECT coalesce(max(e.id), 0) AS id FROM events e"
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
        "SELECT g.id, m.ply, m.san, m.uci, m.fen, korp_time(m.played_at) AS at, m.conditional"
        " FROM games g LEFT JOIN moves m ON m.game_id = g.id WHERE g.id = $1 ORDER BY m.ply", 1 },

    /* ---- the clock and idempotency keys */
    [DB_STMT_CLOCK_SET] = { DB_STMT_CLOCK_SET, "clock_set",
        "UPDATE clock SET offset_seconds = $1"
        " RETURNING korp_time(now() + make_interval(secs => offset_seconds)) AS now", 1 },
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
        "SELECT status, body, method = $3 AND path = $4 AS same_request FROM idempotency_keys"
        " WHERE token_id = $1 AND key = $2", 4 },
    [DB_STMT_IDEMPOTENCY_PRUNE] = { DB_STMT_IDEMPOTENCY_PRUNE, "idempotency_prune",
        "DELETE FROM idempotency_keys WHERE ctid = ANY (ARRAY(SELECT ctid FROM idempotency_keys"
        " WHERE created_at < korp_now() - interval '24 hours' LIMIT 1000))", 0 },
    [DB_STMT_IDEMPOTENCY_STORE] = { DB_STMT_IDEMPOTENCY_STORE, "idempotency_store",
        "UPDATE idempotency_keys SET status = $3, body = $4 WHERE token_id = $1 AND key = $2", 4 },

    /* ---- notifications (db_notify.c): preferences, webhooks, the outbox */
    [DB_STMT_SETTINGS_GET] = { DB_STMT_SETTINGS_GET, "settings_get",
        "SELECT " SETTINGS_JSON "::text AS json FROM players p"
        " JOIN notification_settings s ON s.player_id = p.id WHERE p.id = $1", 1 },
    [DB_STMT_SETTINGS_PUT] = { DB_STMT_SETTINGS_PUT, "settings_put",
        "WITH p AS (UPDATE players SET email = CASE WHEN $2::boolean THEN $3 ELSE email END,"
        /* A new address is unconfirmed (confirmed at once with $10:
         * KORP_EMAIL_CONFIRMATION=off). */
        " email_confirmed_at = CASE WHEN NOT $2::boolean OR $3 IS NOT DISTINCT FROM email"
        "     THEN email_confirmed_at WHEN $10::boolean AND $3 IS NOT NULL THEN korp_now() END,"
        " language = coalesce($11::text, language)"
        " WHERE id = $1 RETURNING id, email, email_confirmed_at, language),"
        " s AS (UPDATE notification_settings SET"
        " email_enabled = coalesce($4::boolean, email_enabled),"
        " email_events = coalesce($5::text[], email_events),"
        " webhook_events = coalesce($6::text[], webhook_events),"
        " digest = coalesce($7::boolean, digest), digest_hour = coalesce($8::int, digest_hour),"
        " reminder_hours = coalesce($9::int, reminder_hours)"
        " WHERE player_id = $1 RETURNING *)"
        " SELECT " SETTINGS_JSON "::text AS json,"
        " $2::boolean AND p.email IS NOT NULL AND p.email_confirmed_at IS NULL"
        " AND korp_email_confirmation_owe(p.id, p.email) AS confirmation_owed"
        " FROM p JOIN s ON s.player_id = p.id", 11 },
    [DB_STMT_WEBHOOK_CREATE] = { DB_STMT_WEBHOOK_CREATE, "webhook_create",
        "INSERT INTO webhooks AS w (id, player_id, url, events, secret, created_at)"
        " SELECT $1, $2, $3, $4::text[], $5, korp_now()"
        " WHERE (SELECT count(*) FROM webhooks WHERE player_id = $2) < $6::int"
        " RETURNING (" WEBHOOK_JSON " || jsonb_build_object('secret', w.secret))::text AS json", 6 },
    [DB_STMT_WEBHOOK_LIST] = { DB_STMT_WEBHOOK_LIST, "webhook_list",
        "SELECT jsonb_build_object('webhooks', coalesce(jsonb_agg(" WEBHOOK_JSON
        " ORDER BY w.created_at, w.id), '[]'))::text AS json FROM webhooks w"
        " WHERE w.player_id = $1", 1 },
    [DB_STMT_WEBHOOK_GET] = { DB_STMT_WEBHOOK_GET, "webhook_get",
        "SELECT " WEBHOOK_JSON "::text AS json FROM webhooks w"
        " WHERE w.player_id = $1 AND w.id = $2", 2 },
    [DB_STMT_WEBHOOK_DELETE] = { DB_STMT_WEBHOOK_DELETE, "webhook_delete",
        "DELETE FROM webhooks WHERE player_id = $1 AND id = $2 RETURNING '{}' AS json", 2 },
    [DB_STMT_WEBHOOK_ROTATE] = { DB_STMT_WEBHOOK_ROTATE, "webhook_rotate",
        "UPDATE webhooks w SET previous_secret = secret,"
        " previous_until = korp_now() + interval '24 hours', secret = $3"
        " WHERE w.player_id = $1 AND w.id = $2"
        " RETURNING jsonb_build_object('id', w.id, 'secret', w.secret)::text AS json", 3 },
    [DB_STMT_WEBHOOK_ENABLE] = { DB_STMT_WEBHOOK_ENABLE, "webhook_enable",
        "UPDATE webhooks w SET enabled = true, disabled_reason = NULL, failing_since = NULL"
        " WHERE w.player_id = $1 AND w.id = $2 RETURNING " WEBHOOK_JSON "::text AS json", 2 },
    /* Newest first; no row when the webhook is not the player's. */
    [DB_STMT_DELIVERY_LIST] = { DB_STMT_DELIVERY_LIST, "delivery_list",
        "SELECT jsonb_build_object('deliveries', coalesce(jsonb_agg(" DELIVERY_JSON
        " ORDER BY d.id DESC), '[]'))::text AS json FROM (SELECT * FROM deliveries"
        " WHERE webhook_id = $2 ORDER BY id DESC LIMIT $3) d"
        " HAVING EXISTS (SELECT 1 FROM webhooks WHERE id = $2 AND player_id = $1)", 3 },
    [DB_STMT_DELIVERY_RETRY] = { DB_STMT_DELIVERY_RETRY, "delivery_retry",
        "WITH d AS (UPDATE deliveries d SET status = 'pending', next_attempt_at = korp_now(),"
        " delivered_at = NULL FROM webhooks w"
        " WHERE d.id = $3::bigint AND d.webhook_id = $2 AND w.id = d.webhook_id"
        " AND w.player_id = $1 AND (d.status <> 'pending' OR d.next_attempt_at <= korp_now())"
        " RETURNING d.*)"
        " SELECT " DELIVERY_JSON "::text AS json, pg_notify('" DB_DELIVERIES_CHANNEL "', '')"
        " FROM d", 3 },
    [DB_STMT_EMAIL_OFF] = { DB_STMT_EMAIL_OFF, "email_off",
        "UPDATE notification_settings s SET email_enabled = false FROM players p"
        " WHERE s.player_id = $1 AND p.id = s.player_id"
        " RETURNING jsonb_build_object('name', p.name)::text AS json", 1 },
    [DB_STMT_SECRET_PUT] = { DB_STMT_SECRET_PUT, "secret_put",
        "WITH n AS (INSERT INTO server_secrets (name, value) VALUES ($1, decode($2, 'hex'))"
        " ON CONFLICT (name) DO NOTHING RETURNING value)"
        " SELECT encode(value, 'hex') AS hex FROM n UNION ALL"
        " SELECT encode(value, 'hex') FROM server_secrets WHERE name = $1", 2 },
    /* Claims due deliveries for $2 seconds (the lease) and reads what
     * sending them needs: the recipient, the webhook, the opponent. */
    [DB_STMT_DELIVERY_CLAIM] = { DB_STMT_DELIVERY_CLAIM, "delivery_claim",
        "WITH c AS (UPDATE deliveries d"
        " SET next_attempt_at = korp_now() + make_interval(secs => $2::float8),"
        " attempts = d.attempts + 1"
        " FROM (SELECT x.id FROM deliveries x LEFT JOIN webhooks xw ON xw.id = x.webhook_id"
        "       WHERE x.status = 'pending' AND x.next_attempt_at <= korp_now()"
        "       AND x.channel = $3"
        /* Deliveries to endpoints that are failing wait until the others
         * have been claimed: one dead endpoint does not hold the rest. */
        "       ORDER BY xw.failing_since IS NOT NULL, x.next_attempt_at LIMIT $1"
        "       FOR UPDATE OF x SKIP LOCKED) due WHERE d.id = due.id RETURNING d.*)"
        " SELECT c.id, c.channel, c.type, c.payload::text AS payload, c.attempts,"
        " extract(epoch FROM c.created_at)::bigint AS created_unix,"
        " extract(epoch FROM korp_now())::bigint AS now_unix,"
        " p.id AS player_id, p.name AS player_name, coalesce(p.email, '') AS email,"
        " p.language,"
        " s.email_enabled, p.email_confirmed_at IS NOT NULL AS email_confirmed,"
        " coalesce(ch.status, '') AS challenge_status,"
        " coalesce(c.webhook_id, '') AS webhook_id,"
        " coalesce(w.url, '') AS url, coalesce(w.secret, '') AS secret,"
        " CASE WHEN w.previous_until > korp_now() THEN w.previous_secret ELSE '' END"
        " AS previous_secret, coalesce(w.enabled, false) AS webhook_enabled,"
        " coalesce(extract(epoch FROM korp_now() - w.failing_since), -1) AS failing_seconds,"
        " coalesce(CASE WHEN g.white_id = c.player_id THEN bp.name ELSE wp.name END,"
        "          CASE WHEN ch.challenger_id = c.player_id THEN op.name ELSE cp.name END, '')"
        " AS opponent_name, coalesce(korp_time(g.deadline), '') AS deadline,"
        " CASE WHEN g.white_id = c.player_id THEN 'white'"
        "      WHEN g.black_id = c.player_id THEN 'black' ELSE '' END AS my_color"
        " FROM c JOIN players p ON p.id = c.player_id"
        " JOIN notification_settings s ON s.player_id = c.player_id"
        " LEFT JOIN webhooks w ON w.id = c.webhook_id"
        " LEFT JOIN games g ON g.id = c.payload->>'game_id'"
        " LEFT JOIN players wp ON wp.id = g.white_id LEFT JOIN players bp ON bp.id = g.black_id"
        " LEFT JOIN challenges ch ON ch.id = c.payload->>'challenge_id'"
        " LEFT JOIN players cp ON cp.id = ch.challenger_id"
        " LEFT JOIN players op ON op.id = ch.opponent_id ORDER BY c.id", 3 },
    /* A claimed delivery's lease made longer, if it is still this attempt's. */
    [DB_STMT_DELIVERY_EXTEND] = { DB_STMT_DELIVERY_EXTEND, "delivery_extend",
        "UPDATE deliveries SET next_attempt_at = korp_now() + make_interval(secs => $3::float8)"
        " WHERE id = $1 AND status = 'pending' AND attempts = $2 RETURNING 1", 3 },
    /* A claimed delivery given back unsent (its endpoint is busy or pushed
     * back): the claim's attempt is undone and it is due again after $3
     * seconds, if this claim still holds it. */
    [DB_STMT_DELIVERY_DEFER] = { DB_STMT_DELIVERY_DEFER, "delivery_defer",
        "UPDATE deliveries SET attempts = attempts - 1,"
        " next_attempt_at = korp_now() + make_interval(secs => $3::float8)"
        " WHERE id = $1 AND status = 'pending' AND attempts = $2", 3 },
    [DB_STMT_ATTEMPT_INSERT] = { DB_STMT_ATTEMPT_INSERT, "attempt_insert",
        "INSERT INTO delivery_attempts (delivery_id, attempt, at, status_code, latency_ms, error)"
        " VALUES ($1, $2, korp_now(), nullif($3::int, 0), $4, $5)"
        " ON CONFLICT (delivery_id, attempt) DO NOTHING", 5 },
    [DB_STMT_DELIVERY_DONE] = { DB_STMT_DELIVERY_DONE, "delivery_done",
        "WITH d AS (UPDATE deliveries SET status = 'delivered', delivered_at = korp_now(),"
        " last_error = NULL WHERE id = $1 AND status = 'pending' AND attempts = $2"
        " RETURNING webhook_id)"
        " UPDATE webhooks SET failing_since = NULL"
        " WHERE id = (SELECT webhook_id FROM d) AND failing_since IS NOT NULL", 2 },
    [DB_STMT_DELIVERY_RETRY_LATER] = { DB_STMT_DELIVERY_RETRY_LATER, "delivery_retry_later",
        "WITH d AS (UPDATE deliveries SET last_error = $2,"
        " next_attempt_at = korp_now() + make_interval(secs => $3::float8)"
        " WHERE id = $1 AND status = 'pending' AND attempts = $4 RETURNING webhook_id)"
        " UPDATE webhooks SET failing_since = korp_now()"
        " WHERE id = (SELECT webhook_id FROM d) AND failing_since IS NULL", 4 },
    [DB_STMT_DELIVERY_FAIL] = { DB_STMT_DELIVERY_FAIL, "delivery_fail",
        "UPDATE deliveries SET status = 'failed', last_error = $2"
        " WHERE id = $1 AND status = 'pending' AND attempts = $3", 3 },
    /* Disables a webhook ($1), fails what it still owes, and owes its
     * owner an email saying so (when they take email). */
    [DB_STMT_WEBHOOK_DISABLE] = { DB_STMT_WEBHOOK_DISABLE, "webhook_disable",
        "WITH w AS (UPDATE webhooks SET enabled = false, disabled_reason = $2"
        " WHERE id = $1 AND enabled RETURNING id, player_id, url),"
        " f AS (UPDATE deliveries SET status = 'failed', last_error = 'the endpoint was disabled'"
        " WHERE webhook_id = $1 AND status = 'pending'),"
        " m AS (INSERT INTO deliveries (player_id, channel, type, payload, next_attempt_at,"
        " created_at) SELECT w.player_id, 'email', 'webhook_disabled',"
        " jsonb_build_object('webhook_id', w.id, 'url', w.url, 'reason', $2::text),"
        " korp_now(), korp_now() FROM w JOIN players p ON p.id = w.player_id"
        " JOIN notification_settings s ON s.player_id = w.player_id"
        " WHERE s.email_enabled AND coalesce(p.email, '') <> '' RETURNING 1)"
        " SELECT pg_notify('" DB_DELIVERIES_CHANNEL "', '') FROM m", 2 },
    [DB_STMT_DELIVERY_NEXT] = { DB_STMT_DELIVERY_NEXT, "delivery_next",
        "SELECT extract(epoch FROM min(next_attempt_at) - korp_now()) AS seconds"
        " FROM deliveries WHERE status = 'pending' AND channel = $1", 1 },
    /* A game whose player to move has less time left than they asked to be
     * reminded at (when a move's time is no longer than that, halfway: a
     * one-day game is not reminded the moment the turn begins), and has not
     * been reminded at this ply. */
    [DB_STMT_REMINDER_DUE] = { DB_STMT_REMINDER_DUE, "reminder_due",
        "SELECT g.id AS game_id, CASE WHEN g.ply % 2 = 0 THEN g.white_id ELSE g.black_id END"
        " AS player_id"
        " FROM games g JOIN notification_settings s"
        " ON s.player_id = CASE WHEN g.ply % 2 = 0 THEN g.white_id ELSE g.black_id END"
        " WHERE g.status = 'active' AND g.deadline > korp_now()"
        " AND g.reminded_ply IS DISTINCT FROM g.ply AND s.reminder_hours > 0"
        " AND g.deadline <= korp_now() + make_interval(hours =>"
        "     CASE WHEN g.days_per_move * 24 > s.reminder_hours THEN s.reminder_hours"
        "          ELSE g.days_per_move * 12 END)"
        " ORDER BY g.deadline LIMIT 1 FOR UPDATE OF g SKIP LOCKED", 0 },
    [DB_STMT_REMINDER_EVENT] = { DB_STMT_REMINDER_EVENT, "reminder_event",
        "WITH r AS (UPDATE games SET reminded_ply = ply WHERE id = $1),"
        " e AS (INSERT INTO events (player_id, game_id, type, payload, created_at)"
        " SELECT $2, g.id, 'deadline_near', " GAME_SNAPSHOT
        " || jsonb_build_object('deadline', korp_time(g.deadline)), korp_now()"
        " FROM games g WHERE g.id = $1 RETURNING id)"
        " SELECT string_agg(id::text, ',') AS ids FROM e", 2 },
    /* Players whose digest hour (UTC) has come today and who were not sent
     * one yet: an email listing the games where it is their move. */
    [DB_STMT_DIGEST_OWE] = { DB_STMT_DIGEST_OWE, "digest_owe",
        "WITH due AS (SELECT s.player_id FROM notification_settings s"
        " WHERE s.digest AND s.email_enabled"
        " AND s.digest_hour <= extract(hour FROM korp_now() AT TIME ZONE 'UTC')"
        " AND s.digest_sent_on IS DISTINCT FROM (korp_now() AT TIME ZONE 'UTC')::date"
        " LIMIT 100 FOR UPDATE SKIP LOCKED),"
        " mark AS (UPDATE notification_settings s"
        " SET digest_sent_on = (korp_now() AT TIME ZONE 'UTC')::date"
        " FROM due WHERE s.player_id = due.player_id),"
        " mine AS (SELECT due.player_id, jsonb_agg(jsonb_build_object('game_id', g.id,"
        " 'variant', g.variant, 'ply', g.ply, 'fen', g.fen,"
        " 'opponent', CASE WHEN g.white_id = due.player_id THEN bp.name ELSE wp.name END,"
        " 'deadline', korp_time(g.deadline)) ORDER BY g.deadline NULLS LAST, g.id) AS games"
        " FROM due JOIN games g ON g.status = 'active'"
        " AND due.player_id = CASE WHEN g.ply % 2 = 0 THEN g.white_id ELSE g.black_id END"
        " JOIN players wp ON wp.id = g.white_id JOIN players bp ON bp.id = g.black_id"
        " GROUP BY due.player_id),"
        " ins AS (INSERT INTO deliveries (player_id, channel, type, payload, next_attempt_at,"
        " created_at) SELECT mine.player_id, 'email', 'digest',"
        " jsonb_build_object('games', mine.games), korp_now(), korp_now()"
        " FROM mine JOIN players p ON p.id = mine.player_id"
        " WHERE coalesce(p.email, '') <> '' RETURNING 1)"
        " SELECT count(*) AS owed, pg_notify('" DB_DELIVERIES_CHANNEL "', '') FROM ins"
        " HAVING count(*) > 0", 0 },

    /* ---- people on the web board: search, passwords, sessions */
    [DB_STMT_PLAYER_SEARCH] = { DB_STMT_PLAYER_SEARCH, "player_search",
        "SELECT jsonb_build_object('players', coalesce(jsonb_agg(jsonb_build_object("
        " 'id', p.id, 'name', p.name) ORDER BY lower(p.name)), '[]'))::text AS json"
        " FROM (SELECT id, name FROM players WHERE lower(name) LIKE $1"
        " ORDER BY lower(name) LIMIT $2) p", 2 },
    [DB_STMT_LOGIN_FIND] = { DB_STMT_LOGIN_FIND, "login_find",
        "SELECT id, name, coalesce(password_hash, '') AS password_hash FROM players"
        " WHERE lower(name) = lower($1)", 1 },
    [DB_STMT_SESSION_INSERT] = { DB_STMT_SESSION_INSERT, "session_insert",
        "INSERT INTO sessions (id, hash, player_id, csrf_token, created_at, expires_at,"
        " last_seen_at) VALUES ($1, decode($2, 'hex'), $3, $4, korp_now(),"
        " korp_now() + least(interval '30 days', make_interval(days => $5::int)), korp_now())", 5 },
    [DB_STMT_SESSION_FIND] = { DB_STMT_SESSION_FIND, "session_find",
        "SELECT s.id AS session_id, p.id AS player_id, p.name, p.role = 'arbiter' AS arbiter,"
        " s.csrf_token, s.last_seen_at < korp_now() - interval '1 minute' AS stale"
        " FROM sessions s JOIN players p ON p.id = s.player_id"
        " WHERE s.hash = decode($1, 'hex') AND s.expires_at > korp_now()"
        " AND s.created_at > korp_now() - make_interval(days => $2::int)", 2 },
    /* A session in use lasts 30 days from its last use, and never longer
     * than its absolute lifetime ($2 days, KORP_SESSION_MAX_DAYS) from its
     * sign-in. */
    [DB_STMT_SESSION_TOUCH] = { DB_STMT_SESSION_TOUCH, "session_touch",
        "UPDATE sessions SET last_seen_at = korp_now(), expires_at = least("
        " korp_now() + interval '30 days', created_at + make_interval(days => $2::int))"
        " WHERE id = $1", 2 },
    [DB_STMT_SESSION_DELETE] = { DB_STMT_SESSION_DELETE, "session_delete",
        "DELETE FROM sessions WHERE hash = decode($1, 'hex') RETURNING id", 1 },
    /* Old records: deliveries done or given up 30 days ago, ended sessions. */
    [DB_STMT_DELIVERY_PRUNE] = { DB_STMT_DELIVERY_PRUNE, "delivery_prune",
        "WITH d AS (DELETE FROM deliveries WHERE id = ANY (ARRAY(SELECT id FROM deliveries"
        " WHERE status <> 'pending' AND created_at < korp_now() - interval '30 days'"
        " LIMIT 1000)) RETURNING 1),"
        " s AS (DELETE FROM sessions WHERE ctid = ANY (ARRAY(SELECT ctid FROM sessions"
        " WHERE expires_at < korp_now() LIMIT 1000)) RETURNING 1),"
        " u AS (DELETE FROM signups WHERE ctid = ANY (ARRAY(SELECT ctid FROM signups"
        " WHERE at < korp_now() - interval '1 hour' LIMIT 1000)) RETURNING 1)"
        " SELECT (SELECT count(*) FROM d) + (SELECT count(*) FROM s)"
        " + (SELECT count(*) FROM u) AS deleted", 0 },

    /* ---- accounts: the token cap, sign-ups per address, passwords, sessions */
    /* Taking the player's row first makes concurrent token creations count
     * one at a time (READ COMMITTED: the count below sees the others). */
    [DB_STMT_TOKEN_LOCK_PLAYER] = { DB_STMT_TOKEN_LOCK_PLAYER, "token_lock_player",
        "SELECT id FROM players WHERE id = $1 FOR UPDATE", 1 },
    /* No row when the player holds $4 tokens already. */
    [DB_STMT_TOKEN_INSERT_CAPPED] = { DB_STMT_TOKEN_INSERT_CAPPED, "token_insert_capped",
        "INSERT INTO tokens (id, player_id, hash, created_at)"
        " SELECT $1, $2, decode($3, 'hex'), korp_now()"
        " WHERE (SELECT count(*) FROM tokens WHERE player_id = $2) < $4::int"
        " RETURNING korp_time(created_at) AS created_at", 4 },
    /* Counts a sign-up from address $1 unless $2 were made from there in the
     * last hour; `taken` is how many were (before this one), `wait` the
     * seconds until the oldest of them is an hour old. */
    [DB_STMT_SIGNUP_COUNT] = { DB_STMT_SIGNUP_COUNT, "signup_count",
        "WITH gone AS (DELETE FROM signups WHERE address = $1"
        " AND at <= korp_now() - interval '1 hour'),"
        " recent AS (SELECT count(*) AS n, min(at) AS oldest FROM signups WHERE address = $1"
        " AND at > korp_now() - interval '1 hour'),"
        " ins AS (INSERT INTO signups (address, at) SELECT $1, korp_now() FROM recent"
        " WHERE recent.n < $2::int)"
        " SELECT n AS taken, coalesce(ceil(extract(epoch FROM oldest + interval '1 hour'"
        " - korp_now())), 0)::int AS wait FROM recent", 2 },
    [DB_STMT_PASSWORD_SET] = { DB_STMT_PASSWORD_SET, "password_set",
        "UPDATE players SET password_hash = $2 WHERE id = $1", 2 },
    /* Ends the player's sessions but the one with id $2 (NULL: all). */
    [DB_STMT_SESSIONS_END] = { DB_STMT_SESSIONS_END, "sessions_end",
        "DELETE FROM sessions WHERE player_id = $1 AND id IS DISTINCT FROM $2", 2 },
    /* The player's live sessions, oldest first; $2 the absolute lifetime
     * in days. */
    [DB_STMT_SESSION_LIST] = { DB_STMT_SESSION_LIST, "session_list",
        "SELECT id, korp_time(created_at) AS created_at, korp_time(last_seen_at) AS last_seen_at,"
        " korp_time(least(expires_at, created_at + make_interval(days => $2::int)))"
        " AS expires_at FROM sessions WHERE player_id = $1 AND expires_at > korp_now()"
        " AND created_at > korp_now() - make_interval(days => $2::int)"
        " ORDER BY sessions.created_at, sessions.id LIMIT $3", 3 },
    /* Whether a token ("<id>") or a session ("s-<id>") still lets its
     * holder in. */
    [DB_STMT_CREDENTIAL_LIVE] = { DB_STMT_CREDENTIAL_LIVE, "credential_live",
        "SELECT (EXISTS (SELECT 1 FROM tokens WHERE id = $1)"
        " OR EXISTS (SELECT 1 FROM sessions WHERE 's-' || id = $1"
        " AND expires_at > korp_now()))::int AS live", 1 },

    /* ---- inboxes (issue 17): challenge guards, address confirmation */
    /* Until the transaction ends, one challenge at a time per challenger
     * (a lock of its own: the players' rows are the events'). */
    [DB_STMT_CHALLENGER_LOCK] = { DB_STMT_CHALLENGER_LOCK, "challenger_lock",
        "SELECT pg_advisory_xact_lock(hashtext('korp challenges ' || $1))", 1 },
    /* The open challenge from $1 to $2 (or ''), and $1's challenges of the
     * last 24 hours: how many, and in how many seconds the oldest leaves. */
    [DB_STMT_CHALLENGE_GUARD] = { DB_STMT_CHALLENGE_GUARD, "challenge_guard",
        "SELECT coalesce((SELECT id FROM challenges WHERE challenger_id = $1"
        " AND opponent_id = $2 AND status = 'open' LIMIT 1), '') AS existing_id,"
        " count(*) AS today, coalesce(ceil(extract(epoch FROM min(created_at)"
        " + interval '24 hours' - korp_now())), 0)::int AS wait"
        " FROM challenges WHERE challenger_id = $1"
        " AND created_at > korp_now() - interval '24 hours'", 2 },
    [DB_STMT_CLOCK_NOW] = { DB_STMT_CLOCK_NOW, "clock_now",
        "SELECT extract(epoch FROM korp_now())::bigint AS now", 0 },
    /* A player's address, whether it is confirmed, and the time. */
    [DB_STMT_EMAIL_CONFIRM_STATE] = { DB_STMT_EMAIL_CONFIRM_STATE, "email_confirm_state",
        "SELECT coalesce(email, '') AS email, email_confirmed_at IS NOT NULL AS confirmed,"
        " extract(epoch FROM korp_now())::bigint AS now FROM players WHERE id = $1", 1 },
    [DB_STMT_EMAIL_CONFIRM] = { DB_STMT_EMAIL_CONFIRM, "email_confirm",
        "UPDATE players SET email_confirmed_at = korp_now()"
        " WHERE id = $1 AND email = $2 AND email_confirmed_at IS NULL RETURNING 1 AS done", 2 },
    /* No row: nothing to confirm; owed false: three were sent in 24 hours. */
    [DB_STMT_EMAIL_CONFIRM_RESEND] = { DB_STMT_EMAIL_CONFIRM_RESEND, "email_confirm_resend",
        "SELECT korp_email_confirmation_owe(id, email) AS owed FROM players"
        " WHERE id = $1 AND email IS NOT NULL AND email_confirmed_at IS NULL", 1 },

    /* ---- conditional moves, notes and messages (issue 18) */
    [DB_STMT_CONDITIONAL_GET] = { DB_STMT_CONDITIONAL_GET, "conditional_get",
        "SELECT ply, lines FROM conditional_moves WHERE game_id = $1 AND player_id = $2", 2 },
    [DB_STMT_CONDITIONAL_PUT] = { DB_STMT_CONDITIONAL_PUT, "conditional_put",
        "INSERT INTO conditional_moves (game_id, player_id, ply, lines, updated_at)"
        " VALUES ($1, $2, $3, $4, korp_now()) ON CONFLICT (game_id, player_id)"
        " DO UPDATE SET ply = EXCLUDED.ply, lines = EXCLUDED.lines,"
        " updated_at = EXCLUDED.updated_at", 4 },
    [DB_STMT_CONDITIONAL_DELETE] = { DB_STMT_CONDITIONAL_DELETE, "conditional_delete",
        "DELETE FROM conditional_moves WHERE game_id = $1 AND ($2::text IS NULL OR player_id = $2)",
        2 },
    [DB_STMT_MOVE_MARK_CONDITIONAL] = { DB_STMT_MOVE_MARK_CONDITIONAL, "move_mark_conditional",
        "UPDATE moves SET conditional = true WHERE game_id = $1 AND ply = $2", 2 },
    /* The notifications of the player's newest move event in the game
     * (at ply $3), written in this transaction: next_attempt_at is the
     * event's korp_now(), which lets the pending index find them. */
    [DB_STMT_MOVE_NOTICE_DROP] = { DB_STMT_MOVE_NOTICE_DROP, "move_notice_drop",
        "DELETE FROM deliveries d WHERE d.status = 'pending' AND d.next_attempt_at = korp_now()"
        " AND d.player_id = $2 AND d.type = 'move' AND d.payload->>'game_id' = $1"
        " AND (d.payload->>'ply')::int = $3::int", 3 },
    /* A player's note: a row with a NULL text when they play the game and
     * wrote none; no row when they do not play it. */
    [DB_STMT_NOTE_GET] = { DB_STMT_NOTE_GET, "note_get",
        "SELECT n.text, korp_time(n.updated_at) AS updated_at FROM games g"
        " LEFT JOIN game_notes n ON n.game_id = g.id AND n.player_id = $2"
        " WHERE g.id = $1 AND $2 IN (g.white_id, g.black_id)", 2 },
    [DB_STMT_NOTE_PUT] = { DB_STMT_NOTE_PUT, "note_put",
        "INSERT INTO game_notes (game_id, player_id, text, updated_at)"
        " SELECT g.id, $2, $3, korp_now() FROM games g"
        " WHERE g.id = $1 AND $2 IN (g.white_id, g.black_id)"
        " ON CONFLICT (game_id, player_id) DO UPDATE SET text = EXCLUDED.text,"
        " updated_at = EXCLUDED.updated_at"
        " RETURNING text, korp_time(updated_at) AS updated_at", 3 },
    /* A message, unless the sender has sent $6 today (UTC) in this game
     * (the game row is locked: counts do not race); answers the message
     * as the API shows it. */
    [DB_STMT_MESSAGE_INSERT] = { DB_STMT_MESSAGE_INSERT, "message_insert",
        "INSERT INTO game_messages (id, game_id, player_id, ply, text, created_at)"
        " SELECT $1, g.id, $3, $4, $5, korp_now() FROM games g WHERE g.id = $2"
        " AND (SELECT count(*) FROM game_messages m WHERE m.game_id = $2 AND m.player_id = $3"
        "      AND m.created_at >= date_trunc('day', korp_now() AT TIME ZONE 'UTC')"
        "          AT TIME ZONE 'UTC') < $6::int"
        " RETURNING jsonb_build_object('id', id, 'ply', ply, 'from',"
        " (SELECT CASE WHEN g.white_id = $3 THEN 'white' ELSE 'black' END FROM games g"
        "  WHERE g.id = $2), 'text', text, 'created_at', korp_time(created_at))::text AS json", 6 },
    /* Messages the player sent today (UTC) in the game, and the seconds
     * until the next UTC day. */
    [DB_STMT_MESSAGE_COUNT] = { DB_STMT_MESSAGE_COUNT, "message_count",
        "SELECT count(*) AS n, ceil(extract(epoch FROM (date_trunc('day', korp_now()"
        " AT TIME ZONE 'UTC') + interval '1 day') AT TIME ZONE 'UTC' - korp_now()))::int AS wait"
        " FROM game_messages WHERE game_id = $1 AND player_id = $2"
        " AND created_at >= date_trunc('day', korp_now() AT TIME ZONE 'UTC') AT TIME ZONE 'UTC'", 2 },
    [DB_STMT_MESSAGE_LIST] = { DB_STMT_MESSAGE_LIST, "message_list",
        "SELECT jsonb_build_object('messages', coalesce(jsonb_agg(jsonb_build_object("
        " 'id', m.id, 'ply', m.ply, 'from', CASE WHEN g.white_id = m.player_id THEN 'white'"
        " ELSE 'black' END, 'text', m.text, 'created_at', korp_time(m.created_at))"
        " ORDER BY m.created_at, m.id), '[]'::jsonb))::text AS json"
        " FROM games g JOIN game_messages m ON m.game_id = g.id WHERE g.id = $1", 1 },
    /* ---- clocks and leave (issue 18, migration 007).  A booking of day $2
     * for $3 days is [LEAVE_START, LEAVE_END): whole UTC days, from now when
     * it starts today. */
#define LEAVE_TODAY "(korp_now() AT TIME ZONE 'UTC')::date"
#define LEAVE_START(d) "greatest(" d "::date::timestamp AT TIME ZONE 'UTC', date_trunc('second', korp_now()))"
#define LEAVE_END(d, n) "((" d "::date + " n "::int)::timestamp AT TIME ZONE 'UTC')"
    /* $2 seconds more for the side to move, its deadline later to match. */
    [DB_STMT_GAME_GIVE_TIME] = { DB_STMT_GAME_GIVE_TIME, "game_give_time",
        "UPDATE games SET"
        " white_seconds = white_seconds + CASE WHEN ply % 2 = 0 THEN $2::bigint ELSE 0 END,"
        " black_seconds = black_seconds + CASE WHEN ply % 2 = 1 THEN $2::bigint ELSE 0 END,"
        " deadline = korp_run_out(white_id, black_id, leave_allowed, turn_started_at,"
        " CASE WHEN ply % 2 = 0 THEN white_seconds ELSE black_seconds END + $2::bigint),"
        " updated_at = korp_now() WHERE id = $1 AND white_seconds IS NOT NULL", 2 },
    /* A player's bookings one at a time; `ahead`: days from today to $2. */
    [DB_STMT_LEAVE_LOCK_PLAYER] = { DB_STMT_LEAVE_LOCK_PLAYER, "leave_lock_player",
        "SELECT $2::date - " LEAVE_TODAY " AS ahead FROM players WHERE id = $1"
        " FOR NO KEY UPDATE", 2 },
    [DB_STMT_LEAVE_OVERLAP] = { DB_STMT_LEAVE_OVERLAP, "leave_overlap",
        "SELECT count(*)::int AS n FROM leaves WHERE player_id = $1"
        " AND start_at < " LEAVE_END("$2", "$3") " AND end_at > " LEAVE_START("$2"), 3 },
    /* Each year a booking touches: its days there, and the days used there. */
    [DB_STMT_LEAVE_YEARS] = { DB_STMT_LEAVE_YEARS, "leave_years",
        "SELECT y::int AS year, count(*)::int AS days, korp_leave_days_in_year($1, y::int) AS used"
        " FROM generate_series($2::date::timestamp, ($2::date + $3::int - 1)::timestamp,"
        " interval '1 day') d, extract(year FROM d) y GROUP BY y ORDER BY y", 3 },
    [DB_STMT_LEAVE_INSERT] = { DB_STMT_LEAVE_INSERT, "leave_insert",
        "INSERT INTO leaves (id, player_id, start_day, days, start_at, end_at, created_at)"
        " VALUES ($1, $2, $3::date, $4::int, " LEAVE_START("$3") ", " LEAVE_END("$3", "$4")
        ", korp_now()) RETURNING id, korp_time(start_at) AS start_at,"
        " korp_time(end_at) AS end_at, days", 4 },
    /* The deadlines of the player's games that leave stops, again. */
    [DB_STMT_LEAVE_GAMES_DEADLINE] = { DB_STMT_LEAVE_GAMES_DEADLINE, "leave_games_deadline",
        "UPDATE games g SET deadline = korp_game_deadline(g) WHERE g.status = 'active'"
        " AND g.white_seconds IS NOT NULL AND g.leave_allowed"
        " AND (g.white_id = $1 OR g.black_id = $1)", 1 },
    /* Bookings with days in this year or later, in order. */
    [DB_STMT_LEAVE_LIST] = { DB_STMT_LEAVE_LIST, "leave_list",
        "SELECT id, korp_time(start_at) AS start_at, korp_time(end_at) AS end_at, days"
        " FROM leaves WHERE player_id = $1"
        " AND start_day + days > date_trunc('year', " LEAVE_TODAY ")::date"
        " ORDER BY leaves.start_at LIMIT $2", 2 },
    [DB_STMT_LEAVE_USED] = { DB_STMT_LEAVE_USED, "leave_used",
        "SELECT korp_leave_days_in_year($1, extract(year FROM " LEAVE_TODAY ")::int) AS used", 1 },
    [DB_STMT_LEAVE_LOCK] = { DB_STMT_LEAVE_LOCK, "leave_lock",
        "SELECT start_at <= korp_now() AS started, end_at <= korp_now() AS ended FROM leaves"
        " WHERE id = $1 AND player_id = $2 FOR UPDATE", 2 },
    [DB_STMT_LEAVE_DELETE] = { DB_STMT_LEAVE_DELETE, "leave_delete",
        "DELETE FROM leaves WHERE id = $1", 1 },
    /* A booking in progress ends at the end of today (UTC); later days come back. */
    [DB_STMT_LEAVE_END_TODAY] = { DB_STMT_LEAVE_END_TODAY, "leave_end_today",
        "UPDATE leaves SET end_at = least(end_at, " LEAVE_END(LEAVE_TODAY, "1") "),"
        " days = least(days, " LEAVE_TODAY " + 1 - start_day) WHERE id = $1", 1 },
    /* The end of the player's leave in force (adjacent bookings joined), or NULL. */
    [DB_STMT_LEAVE_UNTIL] = { DB_STMT_LEAVE_UNTIL, "leave_until",
        "SELECT korp_time(korp_paused_until($1, $1, true)) AS until", 1 },
#undef LEAVE_TODAY
#undef LEAVE_START
#undef LEAVE_END
    /* ---- ratings (issue 19) */
    /* A player's rating in a variant, made at the starting values ($3-$5)
     * if they have none, locked for the game's ending transaction; with the
     * days since their last rated game (NULL: none). */
    [DB_STMT_RATING_LOCK] = { DB_STMT_RATING_LOCK, "rating_lock",
        "INSERT INTO ratings (player_id, variant, rating, rd, volatility)"
        " VALUES ($1, $2, $3::float8, $4::float8, $5::float8)"
        " ON CONFLICT (player_id, variant) DO UPDATE SET games = ratings.games"
        " RETURNING variant, rating, rd, volatility, games,"
        " extract(epoch FROM korp_now() - last_rated_at) / 86400.0 AS idle_days", 5 },
    [DB_STMT_RATING_RECORD] = { DB_STMT_RATING_RECORD, "rating_record",
        "WITH u AS (UPDATE ratings SET rating = $4::float8, rd = $5::float8,"
        " volatility = $6::float8, games = games + 1, last_rated_at = korp_now()"
        " WHERE player_id = $1 AND variant = $2)"
        " INSERT INTO rating_history (player_id, variant, game_id, at, rating, rd)"
        " VALUES ($1, $2, $3, korp_now(), $4::float8, $5::float8)", 6 },
    [DB_STMT_GAME_RATING_DIFF] = { DB_STMT_GAME_RATING_DIFF, "game_rating_diff",
        "UPDATE games SET rating_diff_white = $2::float8, rating_diff_black = $3::float8"
        " WHERE id = $1", 3 },
    [DB_STMT_PLAYER_RATINGS] = { DB_STMT_PLAYER_RATINGS, "player_ratings",
        "SELECT variant, rating, rd, volatility, games, NULL AS idle_days FROM ratings"
        " WHERE player_id = $1 ORDER BY variant", 1 },
    /* The newest $3 points, oldest first. */
    [DB_STMT_RATING_HISTORY] = { DB_STMT_RATING_HISTORY, "rating_history",
        "SELECT * FROM (SELECT game_id, korp_time(at) AS at, rating, rd, at AS t"
        " FROM rating_history WHERE player_id = $1 AND variant = $2"
        " ORDER BY at DESC, game_id DESC LIMIT $3) h ORDER BY t, game_id", 3 },
    [DB_STMT_LEADERBOARD] = { DB_STMT_LEADERBOARD, "leaderboard",
        "SELECT r.player_id, p.name, r.rating, r.rd, r.games FROM ratings r"
        " JOIN players p ON p.id = r.player_id"
        " WHERE r.variant = $1 AND r.games > 0 AND r.rd <= $2::float8"
        " ORDER BY r.rating DESC, r.player_id LIMIT $3", 3 },
    /* Games finished, and lost on time, in the last 90 days. */
    [DB_STMT_PLAYER_STATS] = { DB_STMT_PLAYER_STATS, "player_stats",
        "SELECT count(*) AS finished_90d, count(*) FILTER (WHERE g.termination = 'timeout'"
        " AND (g.white_id = $1 AND g.result = '0-1' OR g.black_id = $1 AND g.result = '1-0'))"
        " AS timeouts_90d FROM games g WHERE g.status = 'finished'"
        " AND (g.white_id = $1 OR g.black_id = $1)"
        " AND g.updated_at > korp_now() - interval '90 days'", 1 },

    /* ---- the arbiter's queue (issue 19) */
    [DB_STMT_QUEUE_ADD] = { DB_STMT_QUEUE_ADD, "queue_add",
        "INSERT INTO arbiter_queue (id, kind, game_id, player_id, details, created_at)"
        " VALUES ($1, $2, $3, $4, $5::jsonb || CASE WHEN $6::text IS NULL THEN '{}'::jsonb"
        " ELSE jsonb_build_object('text', $6::text) END, korp_now())", 6 },
    [DB_STMT_QUEUE_LIST] = { DB_STMT_QUEUE_LIST, "queue_list",
        "SELECT id, kind, game_id, korp_time(created_at) AS created_at, details::text AS details,"
        " true AS open FROM arbiter_queue WHERE status = 'open'"
        " ORDER BY arbiter_queue.created_at, id LIMIT $1", 1 },
    [DB_STMT_QUEUE_LOCK] = { DB_STMT_QUEUE_LOCK, "queue_lock",
        "SELECT id, kind, game_id, korp_time(created_at) AS created_at, details::text AS details,"
        " status = 'open' AS open FROM arbiter_queue WHERE id = $1 FOR UPDATE", 1 },
    /* Both build the `arbiter` event's detail for the game's players. */
    [DB_STMT_QUEUE_DISMISS] = { DB_STMT_QUEUE_DISMISS, "queue_dismiss",
        "WITH u AS (UPDATE arbiter_queue SET status = 'dismissed', reason = $2,"
        " resolved_at = korp_now() WHERE id = $1 AND status = 'open' RETURNING id, kind)"
        " SELECT count(*) AS n, jsonb_build_object('decision', 'dismissed', 'reason', $2::text,"
        " 'items', coalesce(jsonb_agg(jsonb_build_object('id', id, 'kind', kind)), '[]'))::text"
        " AS detail FROM u", 2 },
    [DB_STMT_QUEUE_RESOLVE_GAME] = { DB_STMT_QUEUE_RESOLVE_GAME, "queue_resolve_game",
        "WITH u AS (UPDATE arbiter_queue SET status = 'resolved', reason = $2,"
        " resolved_at = korp_now() WHERE game_id = $1 AND status = 'open' RETURNING id, kind)"
        " SELECT count(*) AS n, jsonb_build_object('decision', 'adjudicated', 'reason', $2::text,"
        " 'items', coalesce(jsonb_agg(jsonb_build_object('id', id, 'kind', kind)"
        " ORDER BY id), '[]'))::text AS detail FROM u", 2 },

    /* ---- tournaments (issue 19) */
    [DB_STMT_TOURNAMENT_INSERT] = { DB_STMT_TOURNAMENT_INSERT, "tournament_insert",
        "INSERT INTO tournaments (id, name, variant, director_id, days_per_move, clock, rated,"
        " double, max_players, leave_allowed, min_rating, max_rating, max_timeout_percent,"
        " starts_at, ends_at, created_at)"
        " VALUES ($1, $2, $3, $4, $5::int, $6::jsonb, $7, $8, $9::int, $10, $11::float8,"
        " $12::float8, $13::int, $14::timestamptz, $15::timestamptz, korp_now())", 15 },
    [DB_STMT_TOURNAMENT_GET] = { DB_STMT_TOURNAMENT_GET, "tournament_get",
        "SELECT " TOURNAMENT_COLUMNS TOURNAMENT_FROM " WHERE t.id = $1", 1 },
    [DB_STMT_TOURNAMENT_LOCK] = { DB_STMT_TOURNAMENT_LOCK, "tournament_lock",
        "SELECT " TOURNAMENT_COLUMNS TOURNAMENT_FROM " WHERE t.id = $1 FOR UPDATE OF t", 1 },
    [DB_STMT_TOURNAMENT_PLAYERS] = { DB_STMT_TOURNAMENT_PLAYERS, "tournament_players",
        "SELECT p.id, p.name, tp.number, tp.withdrawn FROM tournament_players tp"
        " JOIN players p ON p.id = tp.player_id WHERE tp.tournament_id = $1"
        " ORDER BY tp.number NULLS LAST, tp.joined_at, p.id", 1 },
    [DB_STMT_TOURNAMENT_GAMES] = { DB_STMT_TOURNAMENT_GAMES, "tournament_games",
        "SELECT id, white_id, black_id, status, result, tournament_round FROM games"
        " WHERE tournament_id = $1 ORDER BY tournament_round, id", 1 },
    [DB_STMT_TOURNAMENT_JOIN] = { DB_STMT_TOURNAMENT_JOIN, "tournament_join",
        "INSERT INTO tournament_players (tournament_id, player_id, joined_at)"
        " VALUES ($1, $2, korp_now()) ON CONFLICT DO NOTHING RETURNING player_id", 2 },
    [DB_STMT_TOURNAMENT_REMOVE] = { DB_STMT_TOURNAMENT_REMOVE, "tournament_remove",
        "DELETE FROM tournament_players WHERE tournament_id = $1 AND player_id = $2"
        " RETURNING player_id", 2 },
    [DB_STMT_TOURNAMENT_WITHDRAW] = { DB_STMT_TOURNAMENT_WITHDRAW, "tournament_withdraw",
        "UPDATE tournament_players SET withdrawn = true WHERE tournament_id = $1"
        " AND player_id = $2 AND NOT withdrawn RETURNING player_id", 2 },
    [DB_STMT_TOURNAMENT_NUMBER] = { DB_STMT_TOURNAMENT_NUMBER, "tournament_number",
        "UPDATE tournament_players SET number = $3::int WHERE tournament_id = $1"
        " AND player_id = $2", 3 },
    [DB_STMT_TOURNAMENT_SET_STATUS] = { DB_STMT_TOURNAMENT_SET_STATUS, "tournament_set_status",
        "UPDATE tournaments SET status = $2 WHERE id = $1", 2 },
    [DB_STMT_TOURNAMENT_OPEN_GAMES] = { DB_STMT_TOURNAMENT_OPEN_GAMES, "tournament_open_games",
        "SELECT id FROM games WHERE tournament_id = $1 AND status = 'active'"
        " AND ($2::text IS NULL OR white_id = $2 OR black_id = $2)"
        " ORDER BY tournament_round, id", 2 },
    /* Players' rows first, in one order, so that each player's event ids
     * follow commit order (as for games). */
    [DB_STMT_TOURNAMENT_EVENT_LOCK] = { DB_STMT_TOURNAMENT_EVENT_LOCK, "tournament_event_lock",
        "SELECT 1 FROM players p JOIN tournament_players tp ON tp.player_id = p.id"
        " WHERE tp.tournament_id = $1 ORDER BY p.id FOR NO KEY UPDATE OF p", 1 },
    [DB_STMT_TOURNAMENT_EVENT] = { DB_STMT_TOURNAMENT_EVENT, "tournament_event",
        "WITH e AS (INSERT INTO events (player_id, game_id, type, payload, created_at)"
        " SELECT tp.player_id, NULL, $2, jsonb_build_object('tournament_id', t.id,"
        " 'name', t.name, 'variant', t.variant, 'status', t.status), korp_now()"
        " FROM tournaments t JOIN tournament_players tp ON tp.tournament_id = t.id"
        " WHERE t.id = $1 RETURNING id)"
        " SELECT string_agg(id::text, ',') AS ids FROM e", 2 },
    [DB_STMT_TOURNAMENT_DUE_START] = { DB_STMT_TOURNAMENT_DUE_START, "tournament_due_start",
        "SELECT " TOURNAMENT_COLUMNS TOURNAMENT_FROM " WHERE t.status = 'open'"
        " AND t.starts_at <= korp_now() ORDER BY t.starts_at, t.id LIMIT 1"
        " FOR UPDATE OF t SKIP LOCKED", 0 },
    [DB_STMT_TOURNAMENT_DUE_END] = { DB_STMT_TOURNAMENT_DUE_END, "tournament_due_end",
        "SELECT " TOURNAMENT_COLUMNS TOURNAMENT_FROM " WHERE t.status = 'active'"
        " AND NOT t.ends_at_handled AND t.ends_at <= korp_now() ORDER BY t.ends_at, t.id"
        " LIMIT 1 FOR UPDATE OF t SKIP LOCKED", 0 },
    [DB_STMT_TOURNAMENT_END_QUEUE] = { DB_STMT_TOURNAMENT_END_QUEUE, "tournament_end_queue",
        "WITH h AS (UPDATE tournaments SET ends_at_handled = true WHERE id = $1)"
        " INSERT INTO arbiter_queue (id, kind, game_id, details, created_at)"
        " SELECT 'te' || substr(md5(g.id || $1), 1, 8), 'tournament-end', g.id,"
        " jsonb_build_object('tournament_id', $1::text), korp_now()"
        " FROM games g WHERE g.tournament_id = $1 AND g.status = 'active'"
        " ON CONFLICT (id) DO NOTHING", 1 },
    [DB_STMT_TOURNAMENT_LIST] = { DB_STMT_TOURNAMENT_LIST, "tournament_list",
        "SELECT " TOURNAMENT_COLUMNS ","
        " (extract(epoch FROM t.created_at) * 1000000)::bigint AS created_us" TOURNAMENT_FROM
        " WHERE ($1::text IS NULL OR t.status = $1)"
        " AND ($2::bigint IS NULL OR (t.created_at, t.id) <"
        " (timestamptz 'epoch' + $2::bigint * interval '1 microsecond', $3::text))"
        " ORDER BY t.created_at DESC, t.id DESC LIMIT $4", 4 },
    [DB_STMT_GAME_UNRATE] = { DB_STMT_GAME_UNRATE, "game_unrate",
        "UPDATE games SET rated = false WHERE id = $1", 1 },

    /* ---- pruning what only grows (issue 22, db_prune.c): at most $2 rows
     * older than $1 days, oldest first, through their created_at indexes
     * (migration 012). */
    /* Events no delivery names any more; the highest id gone is noted. */
    [DB_STMT_EVENTS_PRUNE] = { DB_STMT_EVENTS_PRUNE, "events_prune",
        "WITH gone AS (DELETE FROM events e WHERE e.id = ANY (ARRAY("
        " SELECT id FROM events WHERE created_at < korp_now() - make_interval(days => $1::int)"
        " ORDER BY created_at LIMIT $2))"
        " AND NOT EXISTS (SELECT FROM deliveries d WHERE d.event_id = e.id) RETURNING e.id),"
        " mark AS (UPDATE event_retention SET pruned_through ="
        " greatest(pruned_through, (SELECT max(id) FROM gone)) WHERE EXISTS (SELECT FROM gone))"
        " SELECT count(*) AS pruned FROM gone", 2 },
    /* Deliveries done with (delivered or failed), with their attempts. */
    [DB_STMT_DELIVERIES_PRUNE] = { DB_STMT_DELIVERIES_PRUNE, "deliveries_prune",
        "WITH gone AS (DELETE FROM deliveries WHERE id = ANY (ARRAY("
        " SELECT id FROM deliveries WHERE status <> 'pending'"
        " AND created_at < korp_now() - make_interval(days => $1::int)"
        " ORDER BY created_at LIMIT $2)) RETURNING 1) SELECT count(*) AS pruned FROM gone", 2 },
    [DB_STMT_EVENTS_PRUNED_THROUGH] = { DB_STMT_EVENTS_PRUNED_THROUGH, "events_pruned_through",
        "SELECT pruned_through FROM event_retention", 0 },
    /* Issue 23: a player's active games standing on a board (the FEN's
     * first field), for engine analysis to refuse. */
    [DB_STMT_ACTIVE_POSITIONS] = { DB_STMT_ACTIVE_POSITIONS, "active_positions",
        "SELECT id, variant, fen FROM games WHERE status = 'active'"
        " AND (white_id = $1 OR black_id = $1) AND variant = $2"
        " AND split_part(fen, ' ', 1) = $3 ORDER BY id LIMIT $4", 4 },
};

_Static_assert(sizeof db_statements / sizeof db_statements[0] == DB_STMT_COUNT,
               "one db_statements entry per enum db_stmt");
