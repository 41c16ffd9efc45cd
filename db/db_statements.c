/*
 * db_statements.c — the table of every prepared statement korpd runs,
 * indexed by enum db_stmt, built from db_statements.def with the column
 * macros below.  Each connection prepares a statement the first time it runs
 * it (after a reconnect, again).  This file stands alone (bench/statements.c
 * is built with it to print the texts).
 */
#include "db_int.h"

/* The leave that stops a game's clocks from its turn's start on (row
 * prefix r: "g." or "games."): both players' bookings ending after it, as
 * "start end start end …" in whole seconds since 1970, in order of start. */
#define GAME_PAUSES(r)                                                               \
    "CASE WHEN " r "status = 'active' AND " r "white_seconds IS NOT NULL AND "       \
    r "leave_allowed THEN (SELECT string_agg(korp_epoch(l.start_at) || ' ' ||"      \
    " korp_epoch(l.end_at), ' ' ORDER BY l.start_at) FROM leaves l"                 \
    " WHERE l.player_id IN (" r "white_id, " r "black_id)"                          \
    " AND l.end_at > " r "turn_started_at) END AS pauses"
/* A game's clock as stored (row prefix r), with the time of the read:
 * each side's seconds at the start of the turn, the turn's start, and its
 * pauses; korpd works out the time left from these (db_clock.c).  With
 * the game's version. */
#define GAME_CLOCK_STORED(r)                                                         \
    r "white_seconds, " r "black_seconds, korp_epoch(" r "turn_started_at)"          \
    " AS turn_started, korp_epoch(korp_now()) AS now, " GAME_PAUSES(r) ", "          \
    r "version"
#define GAME_CLOCK                                                                   \
    " g.clock_initial_days, g.clock_increment_days, g.clock_max_days, g.leave_allowed, " \
    GAME_CLOCK_STORED("g.") ", "
/* The same after an INSERT of games (RETURNING). */
#define GAME_CLOCK_RETURNING ", " GAME_CLOCK_STORED("games.")
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
    " g.rated, g.rating_diff_white, g.rating_diff_black, g.tournament_id,"            \
    " g.engines_allowed"
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
    " c.clock_increment_days, c.clock_max_days, c.leave_allowed, c.rated,"            \
    " c.engines_allowed"
#define CHALLENGE_FROM                                                                 \
    " FROM challenges c JOIN players x ON x.id = c.challenger_id"                       \
    " LEFT JOIN players o ON o.id = c.opponent_id"

/* A Fischer clock's member as the clock_* column db_clock_read reads, from
 * the clock a tournament was created with (checked then: whole numbers). */
#define TOURNAMENT_FISCHER(member)                                                     \
    " CASE WHEN t.clock->>'type' = 'fischer'"                                          \
    " AND jsonb_typeof(t.clock->'" member "') = 'number'"                              \
    " THEN (t.clock->>'" member "')::numeric::integer END AS clock_" member

/* The columns tournament_read reads. */
#define TOURNAMENT_COLUMNS                                                             \
    "t.id, t.name, t.variant, t.director_id, d.name AS director_name, t.status,"         \
    " t.days_per_move, t.clock::text AS clock, t.rated, t.engines_allowed, t.double,"   \
    " t.max_players,"                                                                   \
    " t.leave_allowed, t.min_rating, t.max_rating, t.max_timeout_percent,"               \
    " korp_time(t.starts_at) AS starts_at, korp_time(t.ends_at) AS ends_at,"             \
    " korp_time(t.created_at) AS created_at,"                                           \
    " (SELECT count(*) FROM tournament_players tp WHERE tp.tournament_id = t.id)"        \
    " AS player_count," TOURNAMENT_FISCHER("initial_days") ","                      \
    TOURNAMENT_FISCHER("increment_days") "," TOURNAMENT_FISCHER("max_days")
#define TOURNAMENT_FROM " FROM tournaments t JOIN players d ON d.id = t.director_id"

/* The rows of a game's players (the game's id: id), locked in id order
 * (no deadlock): a player's events are written one transaction at a time. */
#define GAME_PLAYERS_LOCK(id)                                                          \
    "SELECT 1 FROM players p JOIN games g ON p.id IN (g.white_id, g.black_id)"          \
    " WHERE g.id = " id " ORDER BY p.id FOR NO KEY UPDATE OF p"

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
    " 'push_events', to_jsonb(s.push_events),"                                           \
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
#define STMT(NAME, name, sql) [DB_STMT_##NAME] = { #name, sql },
#include "db_statements.def"
#undef STMT
};

_Static_assert(sizeof db_statements / sizeof db_statements[0] == DB_STMT_COUNT,
               "one db_statements entry per enum db_stmt");

int db_statement_nparams(const char *sql)
{
    unsigned long long seen = 0;
    int highest = 0;

    for (const char *p = sql; *p != '\0'; p++) {
        int n = 0;
        if (*p != '$' || p[1] < '0' || p[1] > '9')
            continue;
        while (p[1] >= '0' && p[1] <= '9' && n <= 64)
            n = n * 10 + (*++p - '0');
        if (n < 1 || n > 64)
            return -1;
        seen |= 1ULL << (n - 1);
        if (n > highest)
            highest = n;
    }
    return seen == (highest == 64 ? ~0ULL : (1ULL << highest) - 1) ? highest : -1;
}
