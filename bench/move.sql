-- bench/move.sql — pgbench's "move": the SQL korpd runs for one
-- POST /v1/games/{id}/moves, in korpd's order (api/api_routes.c
-- api_authenticate, games/games.c move_checked and play, db/db_games.c
-- db_game_event), statement texts copied verbatim from db/db_statements.c:
--   token_find                   (the caller, outside the transaction)
--   BEGIN
--   game_lock                    (the game row locked; no repetition keys)
--   game_save                    (the move's row written, its key and SAN
--                                 appended in SQL, the clock korpd charged)
--   game_event                   (both players' rows locked in id order,
--                                 then two event rows; their ids answered)
--   conditional_get              (the opponent's conditional moves;
--                                 none here, as in korpd's bench games)
--   COMMIT
-- bench/moves.sh checks, before it runs pgbench, that these texts are
-- still db/db_statements.c's (bench/statements.c prints korpd's), with
-- each :variable in place of a $n.  What korpd does besides: it touches
-- the token's last_used_at once a minute (not here: the bench token's is
-- in the future), and after the COMMIT its waker NOTIFYs the ids, many
-- moves' in one NOTIFY (db/db_wake.c), and its LISTEN
-- connection reads each NOTIFYed event's row back (db/db_events.c
-- dispatch) — work korpd's figures include and pgbench's do not.  This is
-- the database's limit for korpd's move.  moves.sh also runs it with the
-- last statement NOTIFYing inside the transaction, as korpd's move did
-- before the waker took over (pgbench+N; +NL with korpd's LISTEN sessions).
-- Run by bench/moves.sh with -M prepared, -t a multiple of per, and
--   -D base=<first game id - 1> -D per=<games per client> -D nc=<clients>
--   -D ply0=<the set's ply before the run> -D it=0 -D rk=<last ply whose
--   move restarts the keys> -D hash=<token hash, hex> -D fen=.. -D san=..
--   -D uci=.. -D status=active -D result=* -D version=<key version>
--   -D type=move -D detail=<event JSON> -D owner=<a player id>
-- pgbench's \gset cannot take game_lock's answer (its NULL column has no
-- name a variable may have), so the script knows each game's ply instead:
-- client c plays its games base+1+c, base+1+c+nc, ... in turn, one move
-- each per round (as bench/moveload.c does: no lock waits between
-- clients, on games or on players), all of the set's games at ply0 when
-- the run starts; `it` counts the client's moves.  The new position is the
-- set's stored one (pgbench makes no move); the new repetition key
-- repeats with period 4 like the knights' shuffle korpd plays.  The clock
-- korpd charges (db/db_clock.c) is 3 days per move, as in its bench games,
-- from a turn start that moves on with each move.
-- An empty text for the empty fields (pgbench's -D cannot define one).
\if :it = 0
SELECT '' AS none
\gset
\endif
\set g :base + 1 + :client_id + :nc * (:it % :per)
\set next :ply0 + :it / :per + 1
\set reset :next <= :rk
\set key 7000000000000000000 + :next % 4
\set charged 1
\set clock 259200
\set started 1767225600 + :it
\set deadline :started + :clock
SELECT t.id AS token_id, p.id AS player_id, p.name, p.role = 'arbiter' AS arbiter, t.last_used_at IS NULL OR t.last_used_at < korp_now() - interval '1 minute' AS stale FROM tokens t JOIN players p ON p.id = t.player_id WHERE t.hash = decode(:hash, 'hex');
BEGIN;
SELECT g.id, g.variant, g.white_id, w.name AS white_name, g.black_id, b.name AS black_name, g.fen, g.ply, g.status, g.result, g.termination, g.adjudication_reason, g.days_per_move, korp_time(g.deadline) AS deadline, g.draw_offer, g.fifty_move_rule, g.key_version,  g.clock_initial_days, g.clock_increment_days, g.clock_max_days, g.leave_allowed, g.white_seconds, g.black_seconds, korp_epoch(g.turn_started_at) AS turn_started, korp_epoch(korp_now()) AS now, CASE WHEN g.status = 'active' AND g.white_seconds IS NOT NULL AND g.leave_allowed THEN (SELECT string_agg(korp_epoch(l.start_at) || ' ' || korp_epoch(l.end_at), ' ' ORDER BY l.start_at) FROM leaves l WHERE l.player_id IN (g.white_id, g.black_id) AND l.end_at > g.turn_started_at) END AS pauses, g.version, NULL AS repetition_keys, korp_time(g.created_at) AS created_at, korp_time(g.updated_at) AS updated_at, g.sans, g.status = 'active' AND g.deadline IS NOT NULL AND g.deadline <= korp_now() AS overdue, g.rated, g.rating_diff_white, g.rating_diff_black, g.tournament_id, g.engines_allowed FROM games g JOIN players w ON w.id = g.white_id JOIN players b ON b.id = g.black_id WHERE g.id = :g FOR UPDATE OF g;
WITH moved AS (INSERT INTO moves (game_id, ply, san, uci, fen, played_at) SELECT :g, :next::int, :san, :uci, :fen, korp_now() WHERE :san::text IS NOT NULL) UPDATE games SET fen = :fen, ply = :next, status = :status, result = :result, termination = nullif(:none, ''), adjudication_reason = nullif(:none, ''), draw_offer = nullif(:none, ''), repetition_keys = CASE WHEN :key::bigint IS NULL THEN repetition_keys                        WHEN :reset THEN ARRAY[:key::bigint]                        ELSE repetition_keys || :key::bigint END, key_version = CASE WHEN :key::bigint IS NULL THEN key_version ELSE :version END, sans = CASE WHEN :san::text IS NULL THEN sans WHEN sans = '' THEN :san             ELSE sans || ' ' || :san END, white_seconds = CASE WHEN :charged THEN :clock::bigint ELSE white_seconds END, black_seconds = CASE WHEN :charged THEN :clock::bigint ELSE black_seconds END, turn_started_at = CASE WHEN :charged THEN to_timestamp(:started::bigint) ELSE turn_started_at END, deadline = CASE WHEN :charged THEN to_timestamp(:deadline::bigint) WHEN :status <> 'active' THEN NULL                 WHEN white_seconds IS NOT NULL OR :san::text IS NULL THEN deadline                 WHEN days_per_move IS NULL THEN NULL                 ELSE korp_now() + make_interval(days => days_per_move) END, updated_at = korp_now(), version = version + 1 WHERE id = :g RETURNING korp_time(updated_at) AS updated_at, korp_time(deadline) AS deadline, sans, version;
WITH locked AS MATERIALIZED (SELECT 1 FROM players p JOIN games g ON p.id IN (g.white_id, g.black_id) WHERE g.id = :g ORDER BY p.id FOR NO KEY UPDATE OF p), e AS (INSERT INTO events (player_id, game_id, type, payload, created_at) SELECT p, g.id, :type, jsonb_build_object('game_id', g.id, 'variant', g.variant, 'ply', g.ply, 'fen', g.fen, 'to_move', CASE WHEN g.ply % 2 = 0 THEN 'white' ELSE 'black' END, 'status', g.status, 'result', g.result, 'termination', g.termination, 'draw_offer', g.draw_offer) || coalesce(:detail::jsonb, '{}'), korp_now() FROM games g, unnest(ARRAY[g.white_id, g.black_id]) p WHERE g.id = :g AND (SELECT count(*) FROM locked) >= 0 RETURNING id) SELECT string_agg(id::text, ',') AS ids FROM e;
SELECT ply, lines FROM conditional_moves WHERE game_id = :g AND player_id = :owner;
COMMIT;
\set it :it + 1
