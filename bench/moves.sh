#!/usr/bin/env bash
# bench/moves.sh — moves over HTTP: korpd against pgbench running the same
# SQL, on short games (ply ~3) and long ones (ply ~300), 1, 8 and 32
# clients, in one invocation.
#
# Issue 8: a move "must cost the same at ply 300 as at ply 3: never replay
# the game's history".  The long/short ratio of moves/s says whether it does
# (1.0: no history-proportional cost); korpd/pgbench says what the HTTP,
# rules and JSON layers cost on top of the database's own work.  Issue 9:
# at 32 clients korpd should reach 0.8 of pgbench's rate, and a move's
# latency at ply 300 be within 10% of that at ply ~10.
#
# What it does, all on loopback, everything stopped by PID on exit:
#   - a throwaway PostgreSQL (fsync on, C.UTF-8) in a temp dir and korpd
#     (Release, built into build-bench/), each on a random free port in
#     20000-31999 (below the kernel's ephemeral range);
#   - through the API (bench/moves_setup.py): PAIRS pairs of players and
#     SHORT_GAMES + LONG_GAMES Korpalski games (3 days per move), game i
#     between pair i % PAIRS (with PAIRS a multiple of the clients, no two
#     clients share a player: a move locks its players' rows); kings
#     placed, a knight dropped each, then the knights shuffle for ever
#     (bench/moveload.c with bench/loadclient.c, a C client on keep-alive
#     connections, one per client thread, each client on its own games);
#   - the long games are played to LONG_PLY first, the short ones to ply 3;
#   - the pgbench baseline: pgbench -M prepared -f bench/move.sql (korpd's
#     statements for a move, token lookup included, checked against the
#     benchmarked db/db_statements.c before the runs) on a copy of the
#     schema (db/migrations/*.sql) in another database of the same
#     cluster, with as many games as korpd's sets at the same plies,
#     between as many pairs of players (with the notification settings
#     korpd gives every player), each set's games given the fen, `sans`
#     and repetition keys of one of korpd's games (their moves rows
#     interleaved as if played over time); a third set "longk": the long
#     games, but with a pawn move or capture at every move (the keys
#     restart each move, as in korpd after an irreversible move), so that
#     long vs longk is the cost of the keys array alone;
#   - issue 22: korpd's move no longer NOTIFYs inside its transaction (its
#     waker NOTIFYs after the commit, many moves in one NOTIFY:
#     db/db_wake.c), so "pgbench" (bench/move.sql, korpd's statements) is
#     the same move SQL without pg_notify: the database's limit for korpd's
#     move.  "pgbench+N" runs it with the last statement NOTIFYing the ids
#     inside the transaction, as korpd's move did before (made from
#     move.sql by sed); "pgbench+NL" the same with korpd's LISTEN sessions
#     on its database (bench/listen.c): PostgreSQL signals every listening
#     session of a database at each NOTIFY, so this was the old design's
#     whole work per move in the database;
#   - event-stream latency during korpd's runs (issue 22): SSE_STREAMS
#     (4) players' streams held open by bench/sse_listen.py, each move
#     event's arrival against the time the move's answer came back
#     (moveload's MOVELOG), p50/p99/max in ms;
#   - measured: MOVES_1 moves with 1 client, MOVES_8 with 8 and MOVES_32
#     with 32, on each set, spread evenly over the set's games (one move
#     per game per round), each korpd run followed by the pgbench runs on
#     the same set; all of it REPEAT times, the best run of each kind
#     counting (other work on the machine only slows runs down);
#   - CPU per move of korpd, of PostgreSQL (the whole cluster) and of the
#     client, from /proc, and their sums compared; WAL bytes per move;
#     korpd's answer size; with WAL_RECORDS=1 also each pgbench run's WAL
#     by record type (pg_walinspect).
# The last lines are the summary table.
#
# usage: bench/moves.sh                  (korpd from the working tree)
#        BENCH_REV=HEAD bench/moves.sh   (korpd from a committed revision;
#          BENCH_OVERLAY="api/api_events.c" with that file of the working
#          tree; bench/lib.sh)
#   (SHORT_GAMES=768 LONG_GAMES=192 LONG_PLY=300 PAIRS=32 MOVES_1=1536
#    MOVES_8=3072 MOVES_32=6144 REPEAT=3 CLIENTS="1 8 32"; korpd's
#    KORP_DB_POOL_SIZE=POOL and KORP_HTTP_THREADS=THREADS, POOL=32 and
#    THREADS=POOL by default: one database connection per client at 32
#    clients, as many sessions as pgbench's)
#   PGBENCH_LISTEN=0 leaves out the pgbench+NL runs, PGBENCH_NOTIFY=0 the
#   pgbench+N runs.  WAKE_MS: korpd's KORP_WAKE_INTERVAL_MS (default 5).
#   SSE_STREAMS=0: no streams.  WAITS=1: the sessions' wait events at the
#   most clients (waits_start below).  BACKENDS=1: the database's CPU per
#   move by session at the most clients (backends_snap).  STATEMENTS=1:
#   what the database ran per move at the most clients (stmts_start).  PERF=1 adds korpd's
#   CPU profile at the most clients (perf record -g).  MOVE_SQL=<file> runs
#   pgbench on another script, for experiments (with BENCH_SRC=<tree>,
#   bench/lib.sh; CHECK_SQL=0 lets it differ from korpd's statements).
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

bench_defaults SHORT_GAMES=768 LONG_GAMES=192 LONG_PLY=300 PAIRS=32 MOVES_1=1536 \
    MOVES_8=3072 MOVES_32=6144 REPEAT=3 "CLIENTS=1 8 32" POOL=32 MOVE_SQL=bench/move.sql \
    PGBENCH_LISTEN=1 PGBENCH_NOTIFY=1 WAKE_MS=5 SSE_STREAMS=4
THREADS=${THREADS:-$POOL}
BUILD=build-bench

for c in $CLIENTS; do
    case $c in 1|8|32) ;; *) die "CLIENTS: 1, 8 and/or 32, not $c" ;; esac
    n=MOVES_$c; n=${!n}
    [ $((n % SHORT_GAMES)) = 0 ] && [ $((n % LONG_GAMES)) = 0 ] && [ $((n % c)) = 0 ] ||
        die "MOVES_$c must be a multiple of SHORT_GAMES, LONG_GAMES and $c"
    [ $((SHORT_GAMES % c)) = 0 ] && [ $((LONG_GAMES % c)) = 0 ] ||
        die "SHORT_GAMES and LONG_GAMES must be multiples of $c (each client its own games)"
    [ $((PAIRS % c)) = 0 ] || die "PAIRS must be a multiple of $c (no two clients on one player)"
done
[ $((SHORT_GAMES % PAIRS)) = 0 ] || die "PAIRS must divide SHORT_GAMES"
[ "$LONG_PLY" -ge 8 ] || die "LONG_PLY must be at least 8"

korp_install $KORP_PACKAGES python3
bench_machine
bench_tmp korp-bench
KPID=
SSE_PID=
LPIDS=()
stop_all() {
    local p
    for p in "${LPIDS[@]}"; do kill "$p" 2>/dev/null; done
    # (|| true: under set -e a failing kill here would skip what follows)
    if [ -n "$SSE_PID" ]; then kill "$SSE_PID" 2>/dev/null || true; fi
    if [ -n "${WAIT_PID:-}" ]; then kill "$WAIT_PID" 2>/dev/null || true; fi
    [ -n "$KPID" ] && korp_stop_pid "$KPID"
}
bench_on_exit stop_all

# ---- build: korpd in Release (bench/lib.sh: BENCH_REV, BENCH_OVERLAY), and
# the load client
bench_build_korpd "$BUILD" build-bench-rev "$TMP"
bench_build_client moveload
cc -O2 -Wall -Wextra $(pkg-config --cflags libpq) -o "$TMP/listen" bench/listen.c $(pkg-config --libs libpq)
# korpd's statement texts, to check that bench/move.sql still runs them.
bench_build_statements
# move.sql's SQL lines (the \gset helper aside) against korpd's statements
# for a move, in order, each $n and each :variable written as $?.
"$TMP/statements" | awk -F '\t' '
    { sql[$1] = $2 }
    END {
        n = split("token_find BEGIN game_lock game_save game_event conditional_get COMMIT", order, " ")
        for (i = 1; i <= n; i++) {
            s = order[i] ~ /^[A-Z]+$/ ? order[i] : sql[order[i]]
            if (s == "") { print "no statement " order[i] > "/dev/stderr"; exit 1 }
            gsub(/\$[0-9]+/, "$?", s)
            print s ";"
        }
    }' >"$TMP/move.expected"
grep -v -e '^\\' -e '^--' -e '^$' -e "^SELECT '' AS none$" "$MOVE_SQL" |
    sed -E 's/(^|[^:]):[a-z_]+/\1$?/g' >"$TMP/move.actual"
if diff "$TMP/move.expected" "$TMP/move.actual" >"$TMP/move.diff"; then
    say "$MOVE_SQL runs korpd's $(wc -l <"$TMP/move.expected") statements for a move, verbatim"
elif [ "${CHECK_SQL:-1}" = 0 ]; then
    say "$MOVE_SQL differs from korpd's move (CHECK_SQL=0: an experiment)"
else
    cat "$TMP/move.diff" >&2; die "$MOVE_SQL is not korpd's move (db/db_statements.c); update it"
fi
# pgbench+N: the same move with its events' ids NOTIFYed inside the
# transaction, as korpd did before issue 22.
sed "s/SELECT string_agg(id::text, ',') AS ids FROM e;\$/SELECT pg_notify('korp_events', string_agg(id::text, ',')) FROM e;/" \
    "$MOVE_SQL" >"$TMP/move_notify.sql"
grep -q "pg_notify('korp_events'" "$TMP/move_notify.sql" || die "cannot make the NOTIFY variant of $MOVE_SQL"

# ---- PostgreSQL, then korpd, on free ports (korp_free_port, scripts/lib.sh).
bench_pg korp_bench korp_pgbench
export PGPASSFILE=$TMP/korp.pgpass
[ "${STATEMENTS:-0}" = 1 ] && bench_pg_statements korp_bench   # tracking only during the runs
PG_MAIN=$(head -n 1 "$TMP/pg/postmaster.pid")

# ---- korpd
korp_free_port "$PORT" || die "no free port for korpd"
KPORT=$KORP_FREE_PORT
KORP_DATABASE_URL="$(bench_db_url korp_bench)" \
KORP_WAKE_INTERVAL_MS=$WAKE_MS KORP_LISTEN=127.0.0.1:$KPORT KORP_RATE_LIMIT=0 KORP_SIGNUP_LIMIT=0 KORP_EMAIL_CONFIRMATION=off KORP_CHALLENGES_PER_DAY=0 KORP_CONNECTIONS_PER_ADDRESS=0 KORP_DB_POOL_SIZE=$POOL KORP_HTTP_THREADS=$THREADS \
    "$KORPD" </dev/null >"$TMP/korpd.log" 2>&1 &
KPID=$!
bench_wait_korpd korpd "$KPID" "$KPORT" "$TMP/korpd.log"
say "korpd (pid $KPID) on 127.0.0.1:$KPORT: $(grep -m1 -o "[0-9]* database connections, [0-9]* request workers" "$TMP/korpd.log" || true)"
# korpd's LISTEN sessions (each is signalled by every NOTIFY in its
# database): their last statement is the LISTEN until the first event.
sleep 1
KORPD_LISTENS=$("$(korp_pg_bin)/psql" -X -q -w -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -d korp_bench \
    -tAc "SELECT string_agg(substr(query, 8), ' ' ORDER BY query) FROM pg_stat_activity
          WHERE datname = 'korp_bench' AND query LIKE 'LISTEN %'")
say "korpd listens on: ${KORPD_LISTENS:-nothing}"

# ---- WAL from the server (CPU from /proc: proc_ticks, pg_ticks, us_per in bench/lib.sh)
PSQL=("$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER")
wal_lsn() { "${PSQL[@]}" -d korp_bench -tAc 'SELECT pg_current_wal_insert_lsn()'; }
wal_per() {      # LSN0 LSN1 MOVES: WAL bytes per move
    "${PSQL[@]}" -d korp_bench -tAc "SELECT round(pg_wal_lsn_diff('$2', '$1') / $3)"
}
# Keys and SANs as stored: count, and bytes on disk (pg_column_size: after
# compression; above ~2 kB a row's large values are compressed or TOASTed).
row_sizes() {    # DATABASE WHERE
    "${PSQL[@]}" -d "$1" -tAc "SELECT 'ply ' || round(avg(ply)) || ': ' || round(avg(cardinality(repetition_keys)))
        || ' keys in ' || round(avg(pg_column_size(repetition_keys))) || ' B, sans '
        || round(avg(length(sans))) || ' chars in ' || round(avg(pg_column_size(sans))) || ' B'
        FROM games WHERE $2"
}

# ---- games through the API
T0=$(date +%s.%N)
python3 bench/moves_setup.py 127.0.0.1 "$KPORT" "$PAIRS" $((SHORT_GAMES + LONG_GAMES)) "$TMP/all.txt"
head -n "$SHORT_GAMES" "$TMP/all.txt" >"$TMP/short.txt"
tail -n +$((SHORT_GAMES + 1)) "$TMP/all.txt" >"$TMP/long.txt"
say "made $((PAIRS * 2)) players and $((SHORT_GAMES + LONG_GAMES)) games in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"

load() {   # SET CLIENTS ROUNDS: plays, updates the set's file, prints moveload's line
    MOVELOG=${MOVELOG:-} "$TMP/moveload" 127.0.0.1 "$KPORT" "$TMP/$1.txt" "$TMP/$1.next" "$2" "$3" ||
        die "moves failed on the $1 games (korpd log: $(tail -n 3 "$TMP/korpd.log"))"
    mv "$TMP/$1.next" "$TMP/$1.txt"
}
out=$(load short 8 3)
say "short games to ply 3: $(field rate "$out") moves/s"
out=$(load long 8 "$LONG_PLY")
say "long games to ply $LONG_PLY: $(field moves "$out") moves in $(field seconds "$out") s, $(field rate "$out") moves/s"

# ---- the pgbench database: a copy of the schema; games at korpd's plies
# with the fen, SANs, keys and key version of one of korpd's games of the
# set.  Short games are ids 1.., long ones 1000001.., "longk" 2000001..
# (long, keys restarting at every move).
for f in "$SRC"/db/migrations/*.sql; do "${PSQL[@]}" -d korp_pgbench -f "$f" >/dev/null; done
HASH=$(printf 'korp_bench' | sha256sum | cut -d' ' -f1)
"${PSQL[@]}" -d korp_bench -v hash="$HASH" -v ns="$SHORT_GAMES" -v nl="$LONG_GAMES" -v lp="$LONG_PLY" \
    -v pairs="$PAIRS" <<'SQL'
SELECT fen AS s_fen, sans AS s_sans, repetition_keys::text AS s_keys, key_version AS version,
       white_seconds AS w_secs, black_seconds AS b_secs, leave_allowed AS leave, rated
FROM games WHERE ply = 3 LIMIT 1 \gset
SELECT fen AS l_fen, sans AS l_sans, repetition_keys::text AS l_keys
FROM games WHERE ply = :lp LIMIT 1 \gset
\connect korp_pgbench
-- PAIRS pairs of players, game base+i between pair (i - 1) % PAIRS, as in
-- korpd's sets: no two clients lock the same player.
INSERT INTO players (id, name, role, created_at)
SELECT 'bench' || side || lpad(k::text, 5, '0'), 'bench' || side || k, 'player', now()
FROM generate_series(0, :pairs - 1) k, unnest(ARRAY['w', 'b']) side;
-- What korpd makes with each player (POST /v1/players): its notification
-- settings, at their defaults.  The events' trigger reads them at every
-- move (without a row it stops at once: less work than korpd's moves do).
SELECT to_regclass('notification_settings') IS NOT NULL AS has_settings \gset
\if :has_settings
INSERT INTO notification_settings (player_id) SELECT id FROM players;
\endif
-- last_used_at in the future: never old enough to be touched (korpd touches once a minute)
INSERT INTO tokens (id, player_id, hash, created_at, last_used_at)
    VALUES ('benchtk000', 'benchw00000', decode(:'hash', 'hex'), now(), now() + interval '1 day');
-- Each with the clock of korpd's games (issue 18: a running per-move
-- clock; every save charges the mover's time and reads both players'
-- leaves), not without one: that would skip the clock's work at each move.
INSERT INTO games (id, variant, white_id, black_id, fen, ply, days_per_move, deadline,
                   fifty_move_rule, repetition_keys, key_version, sans, created_at, updated_at,
                   white_seconds, black_seconds, turn_started_at, leave_allowed, rated)
SELECT (base + i)::text, 'korpalski', 'benchw' || lpad(((i - 1) % :pairs)::text, 5, '0'),
       'benchb' || lpad(((i - 1) % :pairs)::text, 5, '0'), fen, ply, 3,
       now() + interval '3 days', true, keys, :version, sans, now(), now(),
       :w_secs, :b_secs, now(), :'leave'::boolean, :'rated'::boolean
FROM (VALUES (0, :ns, 3, :'s_fen', :'s_keys'::bigint[], :'s_sans'),
             (1000000, :nl, :lp, :'l_fen', :'l_keys'::bigint[], :'l_sans'),
             (2000000, :nl, :lp, :'l_fen', ARRAY[(:'l_keys'::bigint[])[1]], :'l_sans'))
         AS s(base, n, ply, fen, keys, sans), generate_series(1, n) i;
INSERT INTO moves (game_id, ply, san, uci, fen, played_at)
SELECT g.id, p, CASE WHEN p % 2 = 1 THEN 'Nf3' ELSE 'Nf6' END,
       CASE WHEN p % 2 = 1 THEN 'g1f3' ELSE 'g8f6' END, g.fen, now()
FROM games g, generate_series(1, g.ply) p
ORDER BY p, g.id;   -- interleaved across games, as moves played over time are
VACUUM ANALYZE players, tokens, games, moves;
SQL
[ "${WAL_RECORDS:-0}" = 0 ] || korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -c "CREATE EXTENSION pg_walinspect"
VERSION=$("${PSQL[@]}" -d korp_bench -tAc "SELECT key_version FROM games LIMIT 1")
# pgbench+L: pgbench again with the same LISTEN sessions on its database as
# korpd keeps on its own (bench/listen.c; the events channel's reads back
# the notified rows, as korpd's listener does): PostgreSQL signals every
# listening session of the database at each NOTIFY, so this is the
# database's whole work per move.  PGBENCH_LISTEN=0 leaves these runs out.
listeners_start() {
    local ch mode
    for ch in $KORPD_LISTENS; do
        mode=; [ "$ch" = korp_events ] && mode=read
        "$TMP/listen" "$(bench_db_url korp_pgbench)" \
            "$ch" $mode >>"$TMP/listen-$ch.log" 2>&1 &
        LPIDS+=($!)
    done
    sleep 0.3
}
listeners_stop() {
    local p
    for p in "${LPIDS[@]}"; do kill "$p" 2>/dev/null; wait "$p" 2>/dev/null || true; done
    LPIDS=()
}
declare -A SET_BASE=([short]=0 [long]=1000000 [longk]=2000000)
declare -A SET_GAMES=([short]=$SHORT_GAMES [long]=$LONG_GAMES [longk]=$LONG_GAMES)
declare -A SET_FEN SET_RK=([short]=4 [long]=4 [longk]=1000000000)
SET_FEN[short]=$("${PSQL[@]}" -d korp_pgbench -tAc "SELECT fen FROM games WHERE id = '1'")
SET_FEN[long]=$("${PSQL[@]}" -d korp_pgbench -tAc "SELECT fen FROM games WHERE id = '1000001'")
SET_FEN[longk]=${SET_FEN[long]}
set_where() { echo "id::bigint > ${SET_BASE[$1]} AND id::bigint <= ${SET_BASE[$1]} + ${SET_GAMES[$1]}"; }
korpd_games() { echo "id = ANY ('{$(cut -d' ' -f1 "$TMP/$1.txt" | paste -sd,)}')"; }
say "korpd's games:   short $(row_sizes korp_bench "$(korpd_games short)"); long $(row_sizes korp_bench "$(korpd_games long)")"
say "pgbench's games: short $(row_sizes korp_pgbench "$(set_where short)"); long $(row_sizes korp_pgbench "$(set_where long)"); longk $(row_sizes korp_pgbench "$(set_where longk)")"

declare -A R   # results, best of REPEAT runs: R[engine,set,clients,what]
# keep ENGINE SET C RATE PLY0 PLY1 FIELD=VALUE...: records a run; its figures
# are kept if its rate is the best so far; plies span every run.
keep() {
    local key=$1,$2,$3 rate=$4 kv
    [ -n "${R[$key,lo]:-}" ] || R[$key,lo]=$5
    R[$key,hi]=$6
    awk -v a="$rate" -v b="${R[$key,rate]:-0}" 'BEGIN { exit !(a > b) }' || return 0
    R[$key,rate]=$rate
    shift 6
    for kv in "$@"; do R[$key,${kv%%=*}]=${kv#*=}; done
}
# WAITS=1 (issue 22): what the database's sessions wait on during each run
# at the most clients, sampled from pg_stat_activity every 0.1 s (sessions
# of the run's database not idle, korpd's LISTEN and waker sessions
# included), printed as shares of the samples: Lock:transactionid and
# Lock:tuple are waits on the players' rows, Lock:object the NOTIFY lock,
# LWLock:WALWrite and IO:WALSync the commit's flush, Client:ClientRead a
# session waiting for its client inside a transaction, CPU no wait.
WAIT_PID=
waits_start() {   # DATABASE CLIENTS
    [ "${WAITS:-0}" = 1 ] && [ "$2" = "${CLIENTS##* }" ] || return 0
    : >"$TMP/waits"
    ( for _ in $(seq 1 3000); do
          "${PSQL[@]}" -d "$1" -tAc "SELECT coalesce(wait_event_type || ':' || wait_event, 'CPU')
              FROM pg_stat_activity WHERE datname = '$1' AND state <> 'idle' AND pid <> pg_backend_pid()" \
              >>"$TMP/waits" 2>/dev/null || break
          echo '--' >>"$TMP/waits"; sleep 0.1
      done ) &
    WAIT_PID=$!
}
waits_stop() {    # LABEL
    [ -n "$WAIT_PID" ] || return 0
    kill "$WAIT_PID" 2>/dev/null; wait "$WAIT_PID" 2>/dev/null || true; WAIT_PID=
    awk -v label="$1" '$0 == "--" { n++; next } { c[$0]++; t++ }
        END { printf "waits %s: %d samples, %.1f busy sessions on average:", label, n, (n ? t / n : 0)
              for (k in c) if (c[k] / t >= 0.01) printf " %s %.0f%%", k, 100 * c[k] / t; printf "\n" }' "$TMP/waits"
}
# BACKENDS=1: at the most clients, the database's CPU per move split by
# session (korpd's pool, its listeners and waker, PostgreSQL's own
# processes), from /proc at the start and end of each korpd run; what is
# not in a live session at the end (autovacuum workers, sessions gone) is
# "gone".
backends_snap() {   # FILE: "pid class ticks" of every live session
    "${PSQL[@]}" -d korp_bench -tA -F' ' -c "SELECT pid, CASE
            WHEN backend_type <> 'client backend' THEN replace(backend_type, ' ', '_')
            WHEN application_name <> 'korpd' THEN 'other'
            WHEN query LIKE 'LISTEN%' OR query LIKE 'SELECT id, player_id%' THEN 'listener'
            WHEN query LIKE '%pg_notify%' THEN 'waker'
            ELSE 'pool' END FROM pg_stat_activity WHERE pid <> pg_backend_pid()" |
        while read -r pid class; do echo "$pid $class $(proc_ticks "$pid")"; done >"$1"
}
backends_report() {  # LABEL FILE0 FILE1 TOTAL_TICKS MOVES
    awk -v label="$1" -v total="$4" -v n="$5" -v hz="$TICK" '
        FNR == NR { t0[$1] = $3; next }
        { d = $3 - ($1 in t0 ? t0[$1] : 0); c[$2] += d; k[$2]++; sum += d }
        END { printf "backends %s: us/move", label
              for (x in c) printf " %s(%d) %.0f", x, k[x], c[x] / hz * 1e6 / n
              printf " gone %.0f\n", (total - sum) / hz * 1e6 / n }' "$2" "$3"
}
# STATEMENTS=1: at the most clients, what the database ran for each korpd
# and pgbench run (pg_stat_statements, nested statements included): calls
# and execution time per move, the costliest first.
stmts_start() {   # CLIENTS
    [ "${STATEMENTS:-0}" = 1 ] && [ "$1" = "${CLIENTS##* }" ] || return 0
    korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" \
        -c "SELECT pg_reload_conf()" -c "SELECT pg_stat_statements_reset()" >/dev/null
}
stmts_stop() {    # LABEL DATABASE CLIENTS MOVES
    [ "${STATEMENTS:-0}" = 1 ] && [ "$3" = "${CLIENTS##* }" ] || return 0
    korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -c "ALTER SYSTEM SET pg_stat_statements.track = 'none'" \
        -c "SELECT pg_reload_conf()" >/dev/null
    korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -tA -F $'\t' -c "SELECT round(sum(s.calls)::numeric / $4, 2),
            round((sum(s.total_exec_time) * 1000 / $4)::numeric), round(sum(s.shared_blks_hit)::numeric / $4, 1),
            left(regexp_replace(s.query, '\s+', ' ', 'g'), 90)
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = '$2' GROUP BY s.query ORDER BY sum(s.total_exec_time) DESC LIMIT 20" |
        awk -F '\t' -v label="$1" 'BEGIN { printf "statements %s: calls/move exec_us/move blks/move query\n", label }
            { t += $2; printf "  %6s %6s %7s  %s\n", $1, $2, $3, $4 } END { printf "  (top 20: %d us/move)\n", t }'
}
# Event streams during korpd's runs (issue 22): SSE_STREAMS players' streams
# (white of the short set's first games: distinct pairs) held by
# bench/sse_listen.py; each move event matched with the move's answer.
SSE_TOKENS=()
sse_start() {
    [ "$SSE_STREAMS" -gt 0 ] || return 0
    [ ${#SSE_TOKENS[@]} -gt 0 ] || mapfile -t SSE_TOKENS < <(head -n "$SSE_STREAMS" "$TMP/short.txt" | cut -d' ' -f3)
    rm -f "$TMP/sse.out" "$TMP/sse.ready" "$TMP/movelog"
    python3 bench/sse_listen.py 127.0.0.1 "$KPORT" "$TMP/sse.out" "$TMP/sse.ready" "${SSE_TOKENS[@]}" \
        2>>"$TMP/sse.log" &
    SSE_PID=$!
    for _ in $(seq 1 300); do [ -s "$TMP/sse.ready" ] && return; kill -0 "$SSE_PID" 2>/dev/null || break; sleep 0.1; done
    die "the event streams did not open ($(tail -n 2 "$TMP/sse.log"))"
}
# sse_stop SET: waits (up to 10 s) for every event owed to the streams, stops
# them, prints ev_expected= ev_got= ev_p50_ms= ev_p99_ms= ev_max_ms=.
sse_stop() {
    [ "$SSE_STREAMS" -gt 0 ] || { echo "ev_expected=0"; return; }
    local want got=0
    want=$(awk -v toks="${SSE_TOKENS[*]}" 'BEGIN { n = split(toks, t, " "); for (i = 1; i <= n; i++) tok[t[i]] = 1 }
        FNR == NR { if (($3 in tok) || ($4 in tok)) mine[$1] = 1; next }
        ($1 in mine) { c++ } END { print c + 0 }' "$TMP/$1.txt" "$TMP/movelog")
    for _ in $(seq 1 100); do
        got=$(wc -l <"$TMP/sse.out"); [ "$got" -ge "$want" ] && break; sleep 0.1
    done
    [ "$got" -ge "$want" ] || say "streams: $got of $want events after 10 s ($(tail -n 3 "$TMP/sse.log" | tr '\n' ' '))" >&2
    kill "$SSE_PID" 2>/dev/null; wait "$SSE_PID" 2>/dev/null || true; SSE_PID=
    awk -v want="$want" 'FNR == NR { at[$1 " " $2] = $3; next }
        ($1 " " $2) in at { v[++n] = ($3 - at[$1 " " $2]) * 1000 }
        END {
            for (i = 2; i <= n; i++) { x = v[i]; for (j = i - 1; j >= 1 && v[j] > x; j--) v[j + 1] = v[j]; v[j + 1] = x }
            printf "ev_expected=%d ev_got=%d ev_p50_ms=%.1f ev_p99_ms=%.1f ev_max_ms=%.1f\n", want, n,
                n ? v[int(0.5 * (n - 1) + 1.5)] : -1, n ? v[int(0.99 * (n - 1) + 1.5)] : -1, n ? v[n] : -1
        }' "$TMP/movelog" "$TMP/sse.out"
}
korpd_run() {  # SET CLIENTS MOVES
    local set=$1 c=$2 n=$3 games k0 p0 w0 k1 p1 w1 out ply0 ply1 moves
    games=$(wc -l <"$TMP/$set.txt")
    ply0=$(awk '{ s += $2 } END { printf "%.0f", s / NR }' "$TMP/$set.txt")
    k0=$(proc_ticks "$KPID"); p0=$(pg_ticks); w0=$(wal_lsn)
    # PERF=1: korpd's CPU profile (with call graphs) during its runs at the
    # most clients, appended to one perf.data; reported at the end.
    local perf_pid=
    if [ "${PERF:-0}" = 1 ] && [ "$c" = "${CLIENTS##* }" ]; then
        perf record -q -g -p "$KPID" -o "$TMP/perf.$set.$c.$rep" >/dev/null 2>&1 &
        perf_pid=$!
        sleep 0.5
    fi
    local backends=0 bp0=0 bp1=0
    if [ "${BACKENDS:-0}" = 1 ] && [ "$c" = "${CLIENTS##* }" ]; then backends=1; backends_snap "$TMP/b0"; bp0=$(pg_ticks); fi
    sse_start
    stmts_start "$c"
    waits_start korp_bench "$c"
    out=$(MOVELOG=$TMP/movelog load "$set" "$c" $((n / games)))
    waits_stop "korpd $set $c"
    stmts_stop "korpd $set $c" korp_bench "$c" "$n"
    k1=$(proc_ticks "$KPID"); p1=$(pg_ticks); w1=$(wal_lsn)
    [ "$backends" = 0 ] || { backends_snap "$TMP/b1"; bp1=$(pg_ticks); }
    sse_stop "$set" >"$TMP/ev"   # in this shell: it clears SSE_PID
    local ev; ev=$(cat "$TMP/ev")
    if [ -n "$perf_pid" ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
    ply1=$(awk '{ s += $2 } END { printf "%.0f", s / NR }' "$TMP/$set.txt")
    moves=$(field moves "$out")
    keep k "$set" "$c" "$(field rate "$out")" "$ply0" "$ply1" \
        p50="$(field p50_ms "$out")" p99="$(field p99_ms "$out")" \
        cpu_k="$(us_per $((k1 - k0)) "$moves")" cpu_p="$(us_per $((p1 - p0)) "$moves")" \
        cpu_c="$(awk -v s="$(field client_cpu_s "$out")" -v n="$moves" 'BEGIN { printf "%.0f", s * 1e6 / n }')" \
        wal="$(wal_per "$w0" "$w1" "$moves")" bytes="$(field bytes_per_answer "$out")" \
        ev50="$(field ev_p50_ms "$ev")" ev99="$(field ev_p99_ms "$ev")" evmax="$(field ev_max_ms "$ev")"
    [ "$backends" = 0 ] || backends_report "korpd $set $c" "$TMP/b0" "$TMP/b1" $((bp1 - bp0)) "$moves"
    printf 'korpd    %-5s %d client(s), plies %-8s %s %s\n' "$set" "$c" "$ply0-$ply1" "$out" "$ev"
}

# pg_settle N: waits (up to 5 s) until the cluster has at most N child
# processes again, so that the CPU of pgbench's backends is in the
# postmaster's account of its children before it is read.
pg_children() { ps --ppid "$PG_MAIN" -o pid= | wc -l; }
pg_settle() {
    for _ in $(seq 1 50); do [ "$(pg_children)" -le "$1" ] && return; sleep 0.1; done
}
pgbench_run() {   # SET CLIENTS MOVES [l]: the set's games all at one ply before and after
    local set=$1 c=$2 n=$3 eng=${4:-p} games=${SET_GAMES[$1]} p0 p1 w0 w1 tps ntx plies p50 p99 kids
    plies=$("${PSQL[@]}" -d korp_pgbench -tAc "SELECT min(ply) || ' ' || max(ply) FROM games WHERE $(set_where "$set")")
    [ "${plies% *}" = "${plies#* }" ] || die "pgbench's $set games are at plies $plies, not at one"
    rm -f "$TMP"/pgb.*
    local sql=$MOVE_SQL; [ "$eng" = p ] || sql=$TMP/move_notify.sql
    [ "$eng" = l ] && listeners_start
    pg_settle 1000; kids=$(pg_children)
    p0=$(pg_ticks); w0=$(wal_lsn)
    stmts_start "$c"
    waits_start korp_pgbench "$c"
    { time "$(korp_pg_bin)/pgbench" -n -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -M prepared \
        -c "$c" -j $((c < 2 ? c : 2)) -t $((n / c)) -f "$sql" \
        -D base="${SET_BASE[$set]}" -D per=$((games / c)) -D nc="$c" -D ply0="${plies% *}" -D it=0 \
        -D rk="${SET_RK[$set]}" -D hash="$HASH" -D fen="${SET_FEN[$set]}" -D san=Nf3 -D uci=g1f3 \
        -D status=active -D result='*' -D version="$VERSION" -D type=move \
        -D 'detail={"san":"Nf3","uci":"g1f3"}' -D owner=benchb00000 -l --log-prefix="$TMP/pgb" korp_pgbench \
        >"$TMP/pgbench.out" 2>"$TMP/pgbench.err"; } 2>"$TMP/pgbench.time" ||
        { cat "$TMP/pgbench.err" "$TMP/pgbench.out" >&2; die "pgbench failed"; }
    waits_stop "pgbench-$eng $set $c"
    stmts_stop "pgbench-$eng $set $c" korp_pgbench "$c" "$n"
    pg_settle "$kids"
    p1=$(pg_ticks); w1=$(wal_lsn)
    [ "$eng" = l ] && listeners_stop
    [ "${WAL_RECORDS:-0}" = 0 ] || korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -c "SELECT '$set $c' AS
        pgbench, \"resource_manager/record_type\" AS record, count, round(record_size / $n) AS bytes_per_move,
        round(fpi_size / $n) AS fpi_per_move FROM pg_get_wal_stats('$w0', '$w1', true) WHERE count > 0
        ORDER BY record_size + fpi_size DESC LIMIT 6"
    ntx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$TMP/pgbench.out")
    [ "$ntx" = "$n" ] && grep -q '^number of failed transactions: 0 ' "$TMP/pgbench.out" ||
        { cat "$TMP/pgbench.err" "$TMP/pgbench.out" >&2; die "pgbench transactions failed"; }
    tps=$(sed -n 's/^tps = \([0-9.]*\) (without.*/\1/p' "$TMP/pgbench.out")
    # -l: one line per transaction, its latency in microseconds in field 3
    read -r p50 p99 < <(pgbench_ms 2 0.5 0.99 -- "$TMP"/pgb.*)
    keep "$eng" "$set" "$c" "$tps" "${plies% *}" $(( ${plies% *} + n / games )) p50="$p50" p99="$p99" \
        cpu_p="$(us_per $((p1 - p0)) "$n")" wal="$(wal_per "$w0" "$w1" "$n")" \
        cpu_c="$(awk -v n="$n" '{ printf "%.0f", ($1 + $2) * 1e6 / n }' "$TMP/pgbench.time")"
    local label=; [ "$eng" = n ] && label=+N; [ "$eng" = l ] && label=+NL
    printf 'pgbench%-3s %-5s %d client(s), plies %-8s tps=%s transactions=%s p50_ms=%s p99_ms=%s\n' \
        "$label" "$set" "$c" "${plies% *}-$(( ${plies% *} + n / games ))" "$tps" "$n" "$p50" "$p99"
}
# korpd and pgbench take turns on each set, so that other work on the
# machine weighs on both alike; the best of REPEAT runs counts.
TIMEFORMAT='%U %S'
for rep in $(seq 1 "$REPEAT"); do
    say "run $rep of $REPEAT (load $(cut -d' ' -f1-3 /proc/loadavg))"
    for c in $CLIENTS; do
        n=MOVES_$c; n=${!n}
        for s in short long; do
            korpd_run "$s" "$c" "$n"
            pgbench_run "$s" "$c" "$n"
            [ "$PGBENCH_NOTIFY" = 0 ] || pgbench_run "$s" "$c" "$n" n
            [ "$PGBENCH_LISTEN" = 0 ] || pgbench_run "$s" "$c" "$n" l
        done
        pgbench_run longk "$c" "$n"
    done
done
if [ "${PERF:-0}" = 1 ]; then bench_perf_report set.clients.run 30; fi
say "korpd's games now: short $(row_sizes korp_bench "$(korpd_games short)"); long $(row_sizes korp_bench "$(korpd_games long)")"

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "moves over HTTP (korpd) vs pgbench (same SQL, -M prepared), best of $REPEAT; $(nproc) cores; load before $LOAD_BEFORE, after $LOAD_AFTER; $(( $(date +%s) - T_START )) s"
printf '%-6s %2s | %-9s %7s %5s %5s %5s | %9s %5s %5s | %6s | %7s %6s | %s\n' set cl plies "korpd/s" p50ms p99ms ansB \
    "pgbench/s" p50ms p99ms "k/pgb" "pgbNL/s" "k/pgbNL" \
    "CPU us/move: korpd, its postgres, client | pgbench's postgres, client; pgbench+L's postgres | WAL B/move: korpd, pgbench"
for c in $CLIENTS; do
    for s in short long longk; do
        if [ "$s" = longk ]; then
            printf '%-6s %2s | %-9s %7s %5s %5s %5s | %9.0f %5s %5s | %6s | %7s %6s | %5s %5s %5s | %5s %5s; %5s | %5s %5s\n' \
                "$s" "$c" "${R[p,$s,$c,lo]}-${R[p,$s,$c,hi]}" - - - - \
                "${R[p,$s,$c,rate]}" "${R[p,$s,$c,p50]}" "${R[p,$s,$c,p99]}" - - - - - - \
                "${R[p,$s,$c,cpu_p]}" "${R[p,$s,$c,cpu_c]}" - - "${R[p,$s,$c,wal]}"
            continue
        fi
        lrate=-; lratio=-; lcpu=-
        if [ -n "${R[l,$s,$c,rate]:-}" ]; then
            lrate=$(printf '%.0f' "${R[l,$s,$c,rate]}")
            lratio=$(ratio "${R[k,$s,$c,rate]}" "${R[l,$s,$c,rate]}")x
            lcpu=${R[l,$s,$c,cpu_p]}
        fi
        printf '%-6s %2s | %-9s %7.0f %5s %5s %5s | %9.0f %5s %5s | %5sx | %7s %6s | %5s %5s %5s | %5s %5s; %5s | %5s %5s\n' \
            "$s" "$c" "${R[k,$s,$c,lo]}-${R[k,$s,$c,hi]}" "${R[k,$s,$c,rate]}" "${R[k,$s,$c,p50]}" \
            "${R[k,$s,$c,p99]}" "${R[k,$s,$c,bytes]}" \
            "${R[p,$s,$c,rate]}" "${R[p,$s,$c,p50]}" "${R[p,$s,$c,p99]}" \
            "$(ratio "${R[k,$s,$c,rate]}" "${R[p,$s,$c,rate]}")" "$lrate" "$lratio" \
            "${R[k,$s,$c,cpu_k]}" "${R[k,$s,$c,cpu_p]}" "${R[k,$s,$c,cpu_c]}" \
            "${R[p,$s,$c,cpu_p]}" "${R[p,$s,$c,cpu_c]}" "$lcpu" "${R[k,$s,$c,wal]}" "${R[p,$s,$c,wal]}"
    done
done
# CPU per move, all of it (server, database, client): what the rate ratio
# would be if both were bound by these 2 cores alone; other work on the
# machine moves rates far more than it moves CPU per move.
for c in $CLIENTS; do
    for s in short long; do
        printf '%2s client(s) %-5s: CPU per move korpd+postgres+client %s us, pgbench %s us (k/pgb by CPU %sx), pgbench+L %s us (%sx)\n' \
            "$c" "$s" "$(( R[k,$s,$c,cpu_k] + R[k,$s,$c,cpu_p] + R[k,$s,$c,cpu_c] ))" \
            "$(( R[p,$s,$c,cpu_p] + R[p,$s,$c,cpu_c] ))" \
            "$(ratio $(( R[p,$s,$c,cpu_p] + R[p,$s,$c,cpu_c] )) $(( R[k,$s,$c,cpu_k] + R[k,$s,$c,cpu_p] + R[k,$s,$c,cpu_c] )))" \
            "$( [ -n "${R[l,$s,$c,cpu_p]:-}" ] && echo $(( R[l,$s,$c,cpu_p] + R[l,$s,$c,cpu_c] )) || echo -)" \
            "$( [ -n "${R[l,$s,$c,cpu_p]:-}" ] && ratio $(( R[l,$s,$c,cpu_p] + R[l,$s,$c,cpu_c] )) $(( R[k,$s,$c,cpu_k] + R[k,$s,$c,cpu_p] + R[k,$s,$c,cpu_c] )) || echo -)"
    done
done
# Issue 22 §1: korpd against the database's limit for its move (pgbench,
# the same SQL without pg_notify) and against the old move (pgbench+N,
# NOTIFY in the transaction); latency p99 korpd/pgbench; the streams' event
# latency after the move's answer.  Targets at 32 clients: k/pgb >= 0.8,
# p99 ratio <= 1.2, events p99 < 250 ms.
echo
echo "issue 22: korpd vs pgbench without NOTIFY (the database's limit) and with it (the old move); load before $LOAD_BEFORE, after $LOAD_AFTER"
printf '%-6s %2s | %7s %9s %6s | %9s %7s | %9s %9s %6s | %s\n' set cl "korpd/s" "pgbench/s" "k/pgb" \
    "pgb+N/s" "k/pgbN" "p99 korpd" "pgbench" "ratio" "events after the answer: p50 p99 max ms"
for c in $CLIENTS; do
    for s in short long; do
        nrate=-; nratio=-
        if [ -n "${R[n,$s,$c,rate]:-}" ]; then
            nrate=$(printf '%.0f' "${R[n,$s,$c,rate]}")
            nratio=$(ratio "${R[k,$s,$c,rate]}" "${R[n,$s,$c,rate]}")x
        fi
        printf '%-6s %2s | %7.0f %9.0f %5sx | %9s %7s | %9s %9s %5sx | %s %s %s\n' "$s" "$c" \
            "${R[k,$s,$c,rate]}" "${R[p,$s,$c,rate]}" "$(ratio "${R[k,$s,$c,rate]}" "${R[p,$s,$c,rate]}")" \
            "$nrate" "$nratio" "${R[k,$s,$c,p99]}" "${R[p,$s,$c,p99]}" \
            "$(ratio "${R[k,$s,$c,p99]}" "${R[p,$s,$c,p99]}")" \
            "${R[k,$s,$c,ev50]:--}" "${R[k,$s,$c,ev99]:--}" "${R[k,$s,$c,evmax]:--}"
    done
done
# Issue 8/9: long against short, by clients (1.00: a move costs the same at
# ply 300 as near ply 3); moves/s, and korpd's p50 and p99 latency.
for c in $CLIENTS; do
    printf '%2s client(s), long/short: moves/s korpd %s, pgbench %s (longk %s); latency korpd p50 %s, p99 %s\n' "$c" \
        "$(ratio "${R[k,long,$c,rate]}" "${R[k,short,$c,rate]}")" \
        "$(ratio "${R[p,long,$c,rate]}" "${R[p,short,$c,rate]}")" \
        "$(ratio "${R[p,longk,$c,rate]}" "${R[p,short,$c,rate]}")" \
        "$(ratio "${R[k,long,$c,p50]}" "${R[k,short,$c,p50]}")" \
        "$(ratio "${R[k,long,$c,p99]}" "${R[k,short,$c,p99]}")"
done
