#!/usr/bin/env bash
# bench/moves.sh — moves over HTTP: korpd against pgbench running the same
# SQL, on short games (ply ~3) and long ones (ply ~300), 1 and 8 clients,
# in one invocation.
#
# Issue 8: a move "must cost the same at ply 300 as at ply 3: never replay
# the game's history".  The long/short ratio of moves/s says whether it does
# (1.0: no history-proportional cost); korpd/pgbench says what the HTTP,
# rules and JSON layers cost on top of the database's own work.
#
# What it does, all on loopback, everything stopped by PID on exit:
#   - a throwaway PostgreSQL (fsync on, C.UTF-8) in a temp dir and korpd
#     (Release, built into build-bench/), each on a random free port in
#     20000-31999 (below the kernel's ephemeral range);
#   - through the API (bench/moves_setup.py): PAIRS pairs of players and
#     SHORT_GAMES + LONG_GAMES Korpalski games (3 days per move); kings
#     placed, a knight dropped each, then the knights shuffle for ever
#     (bench/moveload.c, a C client on keep-alive connections, one per
#     client thread, each client on its own games);
#   - the long games are played to LONG_PLY first, the short ones to ply 3;
#   - the pgbench baseline: pgbench -M prepared -f bench/move.sql (korpd's
#     statements, token lookup included) on a copy of the schema
#     (db/migrations/*.sql) in another database of the same cluster, with
#     as many games as korpd's sets at the same plies, each set's games
#     given the fen, `sans` and repetition keys of one of korpd's games
#     (their moves rows interleaved as if played over time); and a third
#     set "longk": the long games, but with a pawn move or capture at every
#     move (the keys restart each move, as in korpd after an irreversible
#     move), so that long vs longk is the cost of the keys array alone;
#   - measured: MOVES_1 moves with 1 client and MOVES_8 with 8, on each set,
#     spread evenly over the set's games (one move per game per round), each
#     korpd run followed by the pgbench run on the same set; all of it
#     REPEAT times, the best run of each kind counting (other work on the
#     machine only slows runs down);
#   - CPU per move of korpd, of PostgreSQL (the whole cluster) and of the
#     client, from /proc; WAL bytes per move; korpd's answer size; with
#     WAL_RECORDS=1 also each pgbench run's WAL by record type
#     (pg_walinspect).
# The last lines are the summary table.
#
# usage: bench/moves.sh                  (korpd from the working tree)
#        BENCH_REV=HEAD bench/moves.sh   (korpd from a committed revision)
#   (SHORT_GAMES=768 LONG_GAMES=192 LONG_PLY=300 PAIRS=8 MOVES_1=1536
#    MOVES_8=3072 REPEAT=3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

SHORT_GAMES=${SHORT_GAMES:-768}
LONG_GAMES=${LONG_GAMES:-192}
LONG_PLY=${LONG_PLY:-300}
PAIRS=${PAIRS:-8}
MOVES_1=${MOVES_1:-1536}
MOVES_8=${MOVES_8:-3072}
REPEAT=${REPEAT:-3}
BUILD=build-bench

for n in SHORT_GAMES LONG_GAMES MOVES_1 MOVES_8; do
    v=${!n}; [ "$v" -ge 8 ] && [ $((v % 8)) = 0 ] || die "$n must be a multiple of 8"
done
[ "$LONG_PLY" -ge 8 ] || die "LONG_PLY must be at least 8"
[ $((MOVES_1 % SHORT_GAMES)) = 0 ] && [ $((MOVES_1 % LONG_GAMES)) = 0 ] &&
    [ $((MOVES_8 % SHORT_GAMES)) = 0 ] && [ $((MOVES_8 % LONG_GAMES)) = 0 ] ||
    die "MOVES_1 and MOVES_8 must be multiples of SHORT_GAMES and LONG_GAMES"

korp_install $KORP_PACKAGES python3
T_START=$(date +%s)
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); load before: $LOAD_BEFORE"

TMP=$(mktemp -d /tmp/korp-bench.XXXXXX)
chmod 755 "$TMP"
OWNER=$(korp_pg_owner)
[ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "$TMP"
KPID=
cleanup() {
    [ -n "$KPID" ] && korp_stop_pid "$KPID"
    [ -f "$TMP/pg/PG_VERSION" ] && korp_pg_stop "$TMP/pg" "$OWNER"
    rm -rf "$TMP"
}
trap cleanup EXIT
trap 'exit 130' INT TERM

# ---- build: korpd in Release, and the load client
# BENCH_REV=<git revision> builds that revision (a snapshot in
# build-bench-rev/src, only changed files rewritten, so the build stays
# incremental) instead of the working tree, which others may be editing.
SRC=.
if [ -n "${BENCH_REV:-}" ]; then
    rev=$(git rev-parse --verify "$BENCH_REV^{commit}") || die "no revision $BENCH_REV"
    SRC=build-bench-rev/src; BUILD=build-bench-rev/build
    snap=$TMP/src; mkdir "$snap"
    git archive "$rev" | tar -x -C "$snap"
    mkdir -p "$SRC"
    (cd "$snap" && find . -type f) | while read -r f; do
        cmp -s "$snap/$f" "$SRC/$f" || { mkdir -p "$SRC/$(dirname "$f")"; cp "$snap/$f" "$SRC/$f"; }
    done
    (cd "$SRC" && find . -type f) | while read -r f; do [ -e "$snap/$f" ] || rm -f "$SRC/$f"; done
    rm -rf "$snap"
    say "korpd from revision $(git rev-parse --short "$rev") (working tree: $(git status --porcelain -uno | wc -l) files changed)"
else
    say "korpd from the working tree at $(git rev-parse --short HEAD) ($(git status --porcelain -uno | wc -l) files changed)"
fi
# -DCMAKE_C_FLAGS= clears flags an earlier configure may have cached.
cmake -S "$SRC" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS= >/dev/null
cmake --build "$BUILD" -j 2 --target korpd >"$BUILD/bench-build.log" 2>&1 ||
    { tail -n 20 "$BUILD/bench-build.log" >&2; die "korpd does not build (Release, -Werror)"; }
KORPD=$PWD/$BUILD/korpd/korpd


cc -O2 -Wall -Wextra -pthread -o "$TMP/moveload" bench/moveload.c

# ---- PostgreSQL, then korpd, on random ports below the kernel's ephemeral
# range (32768-60999), where outgoing connections may hold a port that
# looks free (as scripts/test.sh does).
random_port() { echo $((20000 + RANDOM % 12000)); }
korp_pg_throwaway "$TMP/pg" "$OWNER"
PORT=$KORP_PG_PORT_FOUND
korp_pg_role "$TMP/pg" "$OWNER" "$PORT"
korp_pg_createdb "$TMP/pg" "$PORT" korp_bench
korp_pg_createdb "$TMP/pg" "$PORT" korp_pgbench
export PGPASSFILE=$TMP/korp.pgpass
PG_MAIN=$(head -n 1 "$TMP/pg/postmaster.pid")
say "PostgreSQL $("$(korp_pg_bin)/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT (fsync on)"

# ---- korpd
KPORT=
for _ in $(seq 1 20); do
    candidate=$(random_port)
    [ "$candidate" = "$PORT" ] || port_in_use "$candidate" || { KPORT=$candidate; break; }
done
[ -n "$KPORT" ] || die "no free port for korpd"
KORP_DATABASE_URL="host=127.0.0.1 port=$PORT dbname=korp_bench user=$KORP_PG_USER passfile=$TMP/korp.pgpass" \
KORP_LISTEN=127.0.0.1:$KPORT KORP_RATE_LIMIT=0 "$KORPD" </dev/null >"$TMP/korpd.log" 2>&1 &
KPID=$!
for _ in $(seq 1 100); do
    curl -sf "http://127.0.0.1:$KPORT/healthz" >/dev/null 2>&1 && break
    kill -0 "$KPID" 2>/dev/null || { cat "$TMP/korpd.log" >&2; die "korpd did not start"; }
    sleep 0.1
done
curl -sf "http://127.0.0.1:$KPORT/healthz" >/dev/null || die "korpd does not answer on $KPORT"
say "korpd (pid $KPID) on 127.0.0.1:$KPORT: $(grep -m1 -o "[0-9]* database connections, [0-9]* HTTP threads" "$TMP/korpd.log" || true)"

# ---- CPU from /proc, in clock ticks; WAL from the server
TICK=$(getconf CLK_TCK)
proc_ticks() {   # PID [children-too]: utime+stime (+cutime+cstime)
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    s=${s##*) }
    awk -v c="${2:-0}" '{ print $12 + $13 + (c ? $14 + $15 : 0) }' <<<"$s"
}
pg_ticks() {     # the whole cluster: postmaster, its live children, those gone
    local t c
    t=$(proc_ticks "$PG_MAIN" 1)
    for c in $(ps --ppid "$PG_MAIN" -o pid= 2>/dev/null); do t=$((t + $(proc_ticks "$c"))); done
    echo "$t"
}
us_per() { awk -v t="$1" -v n="$2" -v hz="$TICK" 'BEGIN { printf "%.0f", (n > 0 ? t / hz * 1e6 / n : 0) }'; }
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }
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
    "$TMP/moveload" 127.0.0.1 "$KPORT" "$TMP/$1.txt" "$TMP/$1.next" "$2" "$3" ||
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
for f in db/migrations/*.sql; do "${PSQL[@]}" -d korp_pgbench -f "$f" >/dev/null; done
HASH=$(printf 'korp_bench' | sha256sum | cut -d' ' -f1)
"${PSQL[@]}" -d korp_bench -v hash="$HASH" -v ns="$SHORT_GAMES" -v nl="$LONG_GAMES" -v lp="$LONG_PLY" <<'SQL'
SELECT fen AS s_fen, sans AS s_sans, repetition_keys::text AS s_keys, key_version AS version
FROM games WHERE ply = 3 LIMIT 1 \gset
SELECT fen AS l_fen, sans AS l_sans, repetition_keys::text AS l_keys
FROM games WHERE ply = :lp LIMIT 1 \gset
\connect korp_pgbench
INSERT INTO players (id, name, role, created_at) VALUES
    ('benchw0000', 'benchw', 'player', now()), ('benchb0000', 'benchb', 'player', now());
-- last_used_at in the future: never old enough to be touched (korpd touches once a minute)
INSERT INTO tokens (id, player_id, hash, created_at, last_used_at)
    VALUES ('benchtk000', 'benchw0000', decode(:'hash', 'hex'), now(), now() + interval '1 day');
INSERT INTO games (id, variant, white_id, black_id, fen, ply, days_per_move, deadline,
                   fifty_move_rule, repetition_keys, key_version, sans, created_at, updated_at)
SELECT (base + i)::text, 'korpalski', 'benchw0000', 'benchb0000', fen, ply, 3,
       now() + interval '3 days', true, keys, :version, sans, now(), now()
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
korpd_run() {  # SET CLIENTS MOVES
    local set=$1 c=$2 n=$3 games k0 p0 w0 k1 p1 w1 out ply0 ply1 moves
    games=$(wc -l <"$TMP/$set.txt")
    ply0=$(awk '{ s += $2 } END { printf "%.0f", s / NR }' "$TMP/$set.txt")
    k0=$(proc_ticks "$KPID"); p0=$(pg_ticks); w0=$(wal_lsn)
    out=$(load "$set" "$c" $((n / games)))
    k1=$(proc_ticks "$KPID"); p1=$(pg_ticks); w1=$(wal_lsn)
    ply1=$(awk '{ s += $2 } END { printf "%.0f", s / NR }' "$TMP/$set.txt")
    moves=$(field moves "$out")
    keep k "$set" "$c" "$(field rate "$out")" "$ply0" "$ply1" \
        p50="$(field p50_ms "$out")" p99="$(field p99_ms "$out")" \
        cpu_k="$(us_per $((k1 - k0)) "$moves")" cpu_p="$(us_per $((p1 - p0)) "$moves")" \
        cpu_c="$(awk -v s="$(field client_cpu_s "$out")" -v n="$moves" 'BEGIN { printf "%.0f", s * 1e6 / n }')" \
        wal="$(wal_per "$w0" "$w1" "$moves")" bytes="$(field bytes_per_answer "$out")"
    printf 'korpd    %-5s %d client(s), plies %-8s %s\n' "$set" "$c" "$ply0-$ply1" "$out"
}

# pg_settle N: waits (up to 5 s) until the cluster has at most N child
# processes again, so that the CPU of pgbench's backends is in the
# postmaster's account of its children before it is read.
pg_children() { ps --ppid "$PG_MAIN" -o pid= | wc -l; }
pg_settle() {
    for _ in $(seq 1 50); do [ "$(pg_children)" -le "$1" ] && return; sleep 0.1; done
}
pgbench_run() {   # SET CLIENTS MOVES: the set's games all at one ply before and after
    local set=$1 c=$2 n=$3 games=${SET_GAMES[$1]} p0 p1 w0 w1 tps ntx plies p50 p99 kids
    plies=$("${PSQL[@]}" -d korp_pgbench -tAc "SELECT min(ply) || ' ' || max(ply) FROM games WHERE $(set_where "$set")")
    [ "${plies% *}" = "${plies#* }" ] || die "pgbench's $set games are at plies $plies, not at one"
    rm -f "$TMP"/pgb.*
    pg_settle 1000; kids=$(pg_children)
    p0=$(pg_ticks); w0=$(wal_lsn)
    { time "$(korp_pg_bin)/pgbench" -n -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -M prepared \
        -c "$c" -j $((c < 2 ? c : 2)) -t $((n / c)) -f bench/move.sql \
        -D base="${SET_BASE[$set]}" -D per=$((games / c)) -D nc="$c" -D ply0="${plies% *}" -D it=0 \
        -D rk="${SET_RK[$set]}" -D hash="$HASH" -D fen="${SET_FEN[$set]}" -D san=Nf3 -D uci=g1f3 \
        -D status=active -D result='*' -D version="$VERSION" -D type=move \
        -D 'detail={"san":"Nf3","uci":"g1f3"}' -l --log-prefix="$TMP/pgb" korp_pgbench \
        >"$TMP/pgbench.out" 2>"$TMP/pgbench.err"; } 2>"$TMP/pgbench.time" ||
        { cat "$TMP/pgbench.err" "$TMP/pgbench.out" >&2; die "pgbench failed"; }
    pg_settle "$kids"
    p1=$(pg_ticks); w1=$(wal_lsn)
    [ "${WAL_RECORDS:-0}" = 0 ] || korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -c "SELECT '$set $c' AS
        pgbench, \"resource_manager/record_type\" AS record, count, round(record_size / $n) AS bytes_per_move,
        round(fpi_size / $n) AS fpi_per_move FROM pg_get_wal_stats('$w0', '$w1', true) WHERE count > 0
        ORDER BY record_size + fpi_size DESC LIMIT 6"
    ntx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$TMP/pgbench.out")
    [ "$ntx" = "$n" ] && grep -q '^number of failed transactions: 0 ' "$TMP/pgbench.out" ||
        { cat "$TMP/pgbench.err" "$TMP/pgbench.out" >&2; die "pgbench transactions failed"; }
    tps=$(sed -n 's/^tps = \([0-9.]*\) (without.*/\1/p' "$TMP/pgbench.out")
    # -l: one line per transaction, its latency in microseconds in field 3
    read -r p50 p99 < <(cat "$TMP"/pgb.* | awk '{ print $3 }' | sort -n |
        awk '{ v[NR] = $1 } END { printf "%.2f %.2f\n", v[int(0.5 * (NR - 1) + 1.5)] / 1e3, v[int(0.99 * (NR - 1) + 1.5)] / 1e3 }')
    keep p "$set" "$c" "$tps" "${plies% *}" $(( ${plies% *} + n / games )) p50="$p50" p99="$p99" \
        cpu_p="$(us_per $((p1 - p0)) "$n")" wal="$(wal_per "$w0" "$w1" "$n")" \
        cpu_c="$(awk -v n="$n" '{ printf "%.0f", ($1 + $2) * 1e6 / n }' "$TMP/pgbench.time")"
    printf 'pgbench  %-5s %d client(s), plies %-8s tps=%s transactions=%s p50_ms=%s p99_ms=%s\n' \
        "$set" "$c" "${plies% *}-$(( ${plies% *} + n / games ))" "$tps" "$n" "$p50" "$p99"
}
# korpd and pgbench take turns on each set, so that other work on the
# machine weighs on both alike; the best of REPEAT runs counts.
TIMEFORMAT='%U %S'
for rep in $(seq 1 "$REPEAT"); do
    say "run $rep of $REPEAT (load $(cut -d' ' -f1-3 /proc/loadavg))"
    for c in 1 8; do
        n=$MOVES_1; [ "$c" = 8 ] && n=$MOVES_8
        for s in short long; do
            korpd_run "$s" "$c" "$n"
            pgbench_run "$s" "$c" "$n"
        done
        pgbench_run longk "$c" "$n"
    done
done
say "korpd's games now: short $(row_sizes korp_bench "$(korpd_games short)"); long $(row_sizes korp_bench "$(korpd_games long)")"

ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }
LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "moves over HTTP (korpd) vs pgbench (same SQL, -M prepared), best of $REPEAT; $(nproc) cores; load before $LOAD_BEFORE, after $LOAD_AFTER; $(( $(date +%s) - T_START )) s"
printf '%-6s %2s | %-9s %7s %5s %5s %5s | %9s %5s %5s | %6s | %s\n' set cl plies "korpd/s" p50ms p99ms ansB \
    "pgbench/s" p50ms p99ms "k/pgb" "CPU us/move: korpd, its postgres, client | pgbench's postgres, client | WAL B/move: korpd, pgbench"
for c in 1 8; do
    for s in short long longk; do
        if [ "$s" = longk ]; then
            printf '%-6s %2s | %-9s %7s %5s %5s %5s | %9.0f %5s %5s | %6s | %5s %5s %5s | %5s %5s | %5s %5s\n' \
                "$s" "$c" "${R[p,$s,$c,lo]}-${R[p,$s,$c,hi]}" - - - - \
                "${R[p,$s,$c,rate]}" "${R[p,$s,$c,p50]}" "${R[p,$s,$c,p99]}" - - - - \
                "${R[p,$s,$c,cpu_p]}" "${R[p,$s,$c,cpu_c]}" - "${R[p,$s,$c,wal]}"
            continue
        fi
        printf '%-6s %2s | %-9s %7.0f %5s %5s %5s | %9.0f %5s %5s | %5sx | %5s %5s %5s | %5s %5s | %5s %5s\n' \
            "$s" "$c" "${R[k,$s,$c,lo]}-${R[k,$s,$c,hi]}" "${R[k,$s,$c,rate]}" "${R[k,$s,$c,p50]}" \
            "${R[k,$s,$c,p99]}" "${R[k,$s,$c,bytes]}" \
            "${R[p,$s,$c,rate]}" "${R[p,$s,$c,p50]}" "${R[p,$s,$c,p99]}" \
            "$(ratio "${R[k,$s,$c,rate]}" "${R[p,$s,$c,rate]}")" \
            "${R[k,$s,$c,cpu_k]}" "${R[k,$s,$c,cpu_p]}" "${R[k,$s,$c,cpu_c]}" \
            "${R[p,$s,$c,cpu_p]}" "${R[p,$s,$c,cpu_c]}" "${R[k,$s,$c,wal]}" "${R[p,$s,$c,wal]}"
    done
done
printf 'long/short moves/s: korpd %s (1 client), %s (8 clients); pgbench %s (1 client), %s (8 clients); pgbench longk/short %s, %s\n' \
    "$(ratio "${R[k,long,1,rate]}" "${R[k,short,1,rate]}")" "$(ratio "${R[k,long,8,rate]}" "${R[k,short,8,rate]}")" \
    "$(ratio "${R[p,long,1,rate]}" "${R[p,short,1,rate]}")" "$(ratio "${R[p,long,8,rate]}" "${R[p,short,8,rate]}")" \
    "$(ratio "${R[p,longk,1,rate]}" "${R[p,short,1,rate]}")" "$(ratio "${R[p,longk,8,rate]}" "${R[p,short,8,rate]}")"
