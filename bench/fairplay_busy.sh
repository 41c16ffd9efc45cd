#!/usr/bin/env bash
# bench/fairplay_busy.sh — a move's latency while the fair-play analysis is
# busy: the same moves at CLIENTS clients with korpd's fair-play worker
# idle and analysing games one after another (as it does after rated games
# end), interleaved ROUNDS times (ABAB...A), in one invocation.
#
# What it does, all on loopback, everything stopped by PID on exit:
#   - a throwaway PostgreSQL (fsync on) and korpd (Release, build-bench/;
#     bench/lib.sh: BENCH_REV) with KORP_FAIRPLAY_WORKERS=1, on free ports
#     below 32768;
#   - through the API (bench/moves_setup.py): GAMES games for the moves
#     (played to ply 3) and BUSY_GAMES more played to BUSY_PLY, the work
#     for the analysis (bench/moveload.c: kings placed, knights dropped,
#     then the knights shuffle);
#   - after as many moves to warm up, not counted, ROUNDS rounds of
#       A: MOVES moves at CLIENTS clients, the worker idle;
#       B: the BUSY_GAMES games queued for analysis (fairplay_queue, as a
#          rated game's end queues it; analysed again from the second
#          round); once the worker has analysed one (it is busy), the same
#          moves again, and how many games it analysed meanwhile;
#          then the queue emptied and the worker idle again (korpd's CPU
#          below a tenth of a core);
#     and a last A;
#   - how fast the worker analyses with nothing else running (3 games);
#   - the summary: each run's moves/s, p50 and p99, and the median of the
#     B runs' p99 against the median of the A runs' (the target: within
#     10%).  One run each is not enough: two runs of the same kind differ
#     by 10-20% on this machine.
#
# usage: bench/fairplay_busy.sh   (GAMES=512 PAIRS=32 MOVES=12288 CLIENTS=32
#          BUSY_GAMES=64 BUSY_PLY=100 POOL=32 WAKE_MS=5 ROUNDS=3)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

bench_defaults GAMES=512 PAIRS=32 MOVES=12288 CLIENTS=32 BUSY_GAMES=64 BUSY_PLY=100 POOL=32 \
    WAKE_MS=5 ROUNDS=3
THREADS=${THREADS:-$POOL}
[ $((MOVES % GAMES)) = 0 ] && [ $((GAMES % CLIENTS)) = 0 ] && [ $((PAIRS % CLIENTS)) = 0 ] ||
    die "MOVES a multiple of GAMES, GAMES and PAIRS multiples of CLIENTS"

korp_install $KORP_PACKAGES python3
bench_machine
bench_tmp korp-fairplay-busy
KPID=
bench_on_exit '[ -z "$KPID" ] || korp_stop_pid "$KPID"'

bench_build_korpd build-bench build-bench-rev "$TMP"
bench_build_client moveload
bench_pg korp_fairbusy
export PGPASSFILE=$TMP/korp.pgpass
PSQL=("$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER"
      -d korp_fairbusy)
sql() { "${PSQL[@]}" -tAc "$1"; }
korp_free_port "$PORT" || die "no free port for korpd"
KPORT=$KORP_FREE_PORT
KORP_DATABASE_URL="$(bench_db_url korp_fairbusy)" KORP_LISTEN=127.0.0.1:$KPORT \
KORP_WAKE_INTERVAL_MS=$WAKE_MS KORP_RATE_LIMIT=0 KORP_SIGNUP_LIMIT=0 KORP_EMAIL_CONFIRMATION=off \
KORP_CHALLENGES_PER_DAY=0 KORP_CONNECTIONS_PER_ADDRESS=0 KORP_DB_POOL_SIZE=$POOL \
KORP_HTTP_THREADS=$THREADS KORP_FAIRPLAY_WORKERS=1 \
    "$KORPD" </dev/null >"$TMP/korpd.log" 2>&1 &
KPID=$!
bench_wait_korpd korpd "$KPID" "$KPORT" "$TMP/korpd.log"

play() {   # SET CLIENTS ROUNDS: moveload on the set; updates its file; prints moveload's line
    "$TMP/moveload" 127.0.0.1 "$KPORT" "$TMP/$1.txt" "$TMP/$1.next" "$2" "$3" ||
        die "moves failed on the $1 games (korpd log: $(tail -n 3 "$TMP/korpd.log"))"
    mv "$TMP/$1.next" "$TMP/$1.txt"
}
python3 bench/moves_setup.py 127.0.0.1 "$KPORT" "$PAIRS" $((GAMES + BUSY_GAMES)) "$TMP/all.txt"
head -n "$GAMES" "$TMP/all.txt" >"$TMP/moves.txt"
tail -n "$BUSY_GAMES" "$TMP/all.txt" >"$TMP/busy.txt"
play moves 8 3 >/dev/null
play busy 8 "$BUSY_PLY" >/dev/null
sql "VACUUM ANALYZE players, games, moves" >/dev/null
say "set up: $GAMES games at ply 3 for the moves, $BUSY_GAMES at ply $BUSY_PLY for the analysis"

# korpd's CPU over a second, in hundredths of a core.
korpd_busy() {
    local k0 k1
    k0=$(proc_ticks "$KPID"); sleep 1; k1=$(proc_ticks "$KPID")
    echo $((k1 - k0))
}
declare -A P99 RATE P50
run() {   # NAME: the moves, their figures kept under NAME
    local out
    out=$(play moves "$CLIENTS" $((MOVES / GAMES)))
    RATE[$1]=$(field rate "$out"); P50[$1]=$(field p50_ms "$out"); P99[$1]=$(field p99_ms "$out")
    [ "$(field errors "$out")" = 0 ] || die "errors in the $1 run: $out"
    say "$1: $out"
}

play moves "$CLIENTS" $((MOVES / GAMES)) >/dev/null   # warm-up, not counted

# Queues the analysis games (again: a game analysed before is analysed
# again) and waits for the worker to be busy with them.
make_busy() {
    local queued deadline
    queued=$(sql "INSERT INTO fairplay_queue (game_id, queued_at)
                  SELECT id, now() FROM games WHERE id = ANY ('{$(cut -d' ' -f1 "$TMP/busy.txt" |
                  paste -sd,)}'::text[]) ON CONFLICT DO NOTHING RETURNING 1" | wc -l)
    deadline=$((SECONDS + 300))
    until [ "$(sql "SELECT count(*) FROM fairplay_queue")" -lt "$queued" ]; do
        [ $SECONDS -lt $deadline ] || die "the fair-play worker analysed no game in 300 s"
        sleep 0.2
    done
    say "$queued games queued for the analysis; the worker is busy (korpd at $(korpd_busy)% of a core)"
}
# Empties the queue and waits for the worker to be idle.
make_idle() {
    local deadline
    sql "DELETE FROM fairplay_queue" >/dev/null
    deadline=$((SECONDS + 120))
    until [ "$(korpd_busy)" -lt 10 ]; do
        [ $SECONDS -lt $deadline ] || die "korpd did not go idle in 120 s"
    done
}

NAMES=()
for round in $(seq 1 "$ROUNDS"); do
    run "idle-$round"; NAMES+=("idle-$round")
    make_busy
    done_before=$(sql "SELECT count(*) FROM fairplay_results")
    busy_began=$SECONDS
    run "busy-$round"; NAMES+=("busy-$round")
    done_during=$(( $(sql "SELECT count(*) FROM fairplay_results") - done_before ))
    say "the analysis while moves ran: $done_during games in $((SECONDS - busy_began)) s"
    [ "$(sql "SELECT count(*) FROM fairplay_queue")" -gt 0 ] ||
        say "warning: the queue ran dry during the busy run: queue more (BUSY_GAMES)"
    make_idle
done
run "idle-$((ROUNDS + 1))"; NAMES+=("idle-$((ROUNDS + 1))")
# How fast the worker goes when nothing else runs, for comparison.
make_busy
began=$SECONDS
done_before=$(sql "SELECT count(*) FROM fairplay_results")
until [ "$(sql "SELECT count(*) FROM fairplay_results")" -ge $((done_before + 3)) ]; do
    [ $((SECONDS - began)) -lt 120 ] || die "the worker analysed no 3 games in 120 s"
    sleep 0.2
done
say "the analysis alone: 3 games in $((SECONDS - began)) s"
make_idle

echo
echo "moves at $CLIENTS clients with the fair-play analysis idle and busy, interleaved; 2 cores; load $(cut -d' ' -f1-3 /proc/loadavg)"
printf '%-12s %9s %8s %8s\n' run moves/s p50_ms p99_ms
for r in "${NAMES[@]}"; do
    printf '%-12s %9s %8s %8s\n' "$r" "${RATE[$r]}" "${P50[$r]}" "${P99[$r]}"
done
for r in "${NAMES[@]}"; do echo "$r ${P99[$r]}"; done | awk '
    { split($1, k, "-"); v[k[1]] = v[k[1]] " " $2 }
    function median(list,   a, n, i, j, t) {
        n = split(list, a, " ")
        for (i = 1; i <= n; i++) for (j = i + 1; j <= n; j++) if (a[j] < a[i]) { t = a[i]; a[i] = a[j]; a[j] = t }
        return n % 2 ? a[(n + 1) / 2] : (a[n / 2] + a[n / 2 + 1]) / 2
    }
    END {
        b = median(v["busy"]); i = median(v["idle"])
        printf "p99 busy / idle (medians of the runs, %s against %s ms): %.2f (target: at most 1.10)\n", b, i, b / i
    }'
