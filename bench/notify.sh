#!/usr/bin/env bash
# bench/notify.sh — webhook delivery: deliveries a second and the
# time from a move's commit to its webhook's receipt.
#
# Targets: at least 500 deliveries/s; p50 under 100 ms from commit to receipt.
#
# What it does, all on loopback, everything stopped by PID on exit:
#   - a throwaway PostgreSQL (fsync on) and korpd (Release, build-bench/);
#     a webhook receiver (bench/webhook_sink.mjs, Node: answers 204 at once
#     and notes each receipt's time);
#   - PAIRS pairs of players, each with a webhook (events: move) to the
#     receiver, one Korpalski game per pair (bench/notify_bench.py);
#   - throughput: korpd serves the moves with no delivery workers
#     (KORP_NOTIFY_WORKERS=0) while N moves are made, each owing one
#     webhook (to the player to move); then `korpd --notify-only` with
#     WORKERS workers starts, and the deliveries a second are counted from
#     its start to the last receipt (and between the first and the last);
#   - latency: korpd with WORKERS workers; LAT_MOVES moves at RATE a second;
#     for each, receipt time minus the time the move's answer arrived (the
#     commit came before the answer: an upper bound of commit to receipt),
#     and minus the time it was sent.
# The last lines are the summary.
#
# usage: bench/notify.sh   (N=10000 PAIRS=100 WORKERS=4 FILL_THREADS=4
#                           LAT_MOVES=2000 RATE=100)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

bench_defaults N=10000 PAIRS=100 WORKERS=4 FILL_THREADS=4 LAT_MOVES=2000 RATE=100
BUILD=build-bench

korp_install $KORP_PACKAGES python3 python3-requests
command -v node >/dev/null || die "bench/notify.sh needs node (the webhook receiver)"
LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
say "machine: $(nproc) cores; load before: $LOAD_BEFORE"

bench_tmp korp-bench-notify
bench_pids_trap

bench_build_korpd "$BUILD" build-bench-rev "$TMP"
bench_pg korp_bench
export KORP_DATABASE_URL="$(bench_db_url korp_bench)"
export KORP_RATE_LIMIT=0 KORP_SIGNUP_LIMIT=0 KORP_EMAIL_CONFIRMATION=off KORP_CHALLENGES_PER_DAY=0 KORP_CONNECTIONS_PER_ADDRESS=0 KORP_WEBHOOK_ALLOW_PRIVATE=1 KORP_DB_POOL_SIZE=16

bench_webhook_sink "$PORT"

# start_korpd NAME [ARGS...] (environment: the caller's): sets KPID.
korp_free_port "$PORT" "$SPORT" || die "no free port for korpd"
KPORT=$KORP_FREE_PORT
start_korpd() {
    local name=$1; shift
    KORP_LISTEN=127.0.0.1:$KPORT "$KORPD" "$@" </dev/null >"$TMP/$name.log" 2>&1 &
    KPID=$!
    PIDS+=("$KPID")
    [ "${1:-}" = --notify-only ] && return 0
    bench_wait_korpd korpd "$KPID" "$KPORT" "$TMP/$name.log"
}
stop_korpd() { korp_stop_pid "$KPID"; }
sink_count() { curl -sf "$SINK/count"; }
BASE=http://127.0.0.1:$KPORT

# ---- setup and the outbox filled with no one delivering
KORP_NOTIFY_WORKERS=0 start_korpd korpd-http
python3 bench/notify_bench.py setup "$BASE" "$SINK/hook" "$PAIRS" "$TMP/state.json"
sleep 0.5
curl -sf -X POST "$SINK/reset" >/dev/null
python3 bench/notify_bench.py fill "$BASE" "$TMP/state.json" "$N" "$FILL_THREADS"
stop_korpd
[ "$(sink_count)" = 0 ] || die "webhooks arrived with no worker running"

# ---- throughput: the owed deliveries (the setup's moves' too), by WORKERS
# workers in one process
T0=$(date +%s%N)
prev=-1
KORP_NOTIFY_WORKERS=$WORKERS start_korpd korpd-notify --notify-only
deadline=$((SECONDS + 600))
while [ "$(sink_count)" -lt "$N" ] || [ "$(sink_count)" != "$prev" ]; do
    prev=$(sink_count)
    [ $SECONDS -lt $deadline ] || die "only $(sink_count) of $N webhooks arrived in 600 s"
    kill -0 "$KPID" 2>/dev/null || { tail "$TMP/korpd-notify.log" >&2; die "korpd --notify-only died"; }
    sleep 0.2
done
stop_korpd
curl -sf "$SINK/dump" >"$TMP/fill.dump"
THROUGHPUT=$(awk -v t0="$T0" '
    { t = $4; if (min == "" || t < min) min = t; if (t > max) max = t; ids[$5]++ }
    END {
        dup = 0; for (i in ids) if (ids[i] > 1) dup += ids[i] - 1
        printf "%d webhooks, %d twice; %.0f deliveries/s from the worker'"'"'s start (%.2f s), %.0f/s first to last receipt (%.2f s)",
            NR, dup, NR / ((max - t0 / 1000) / 1e6), (max - t0 / 1000) / 1e6,
            (NR - 1) / ((max - min) / 1e6), (max - min) / 1e6
    }' "$TMP/fill.dump")
say "throughput: $THROUGHPUT"

# ---- latency: moves at RATE a second with workers running
curl -sf -X POST "$SINK/reset" >/dev/null
KORP_NOTIFY_WORKERS=$WORKERS start_korpd korpd-live
python3 bench/notify_bench.py latency "$BASE" "$TMP/state.json" "$LAT_MOVES" "$RATE" \
    "$TMP/moves.txt"
deadline=$((SECONDS + 120))
while [ "$(sink_count)" -lt "$LAT_MOVES" ] && [ $SECONDS -lt $deadline ]; do sleep 0.2; done
stop_korpd
curl -sf "$SINK/dump" >"$TMP/live.dump"
LATENCY=$(awk '
    NR == FNR { answered[$1 " " $2] = $4; sent[$1 " " $2] = $3; next }
    ($1 " " $2) in answered { a[++n] = ($4 - answered[$1 " " $2]) / 1000; s[n] = ($4 - sent[$1 " " $2]) / 1000 }
    function sort(x, k,   i, j, v) { for (i = 2; i <= k; i++) { v = x[i]; for (j = i - 1; j > 0 && x[j] > v; j--) x[j + 1] = x[j]; x[j + 1] = v } }
    function pct(x, k, p) { return x[int((k - 1) * p) + 1] }
    END {
        sort(a, n); sort(s, n)
        printf "%d of %d webhooks; after the answer: p50 %.1f ms, p99 %.1f ms, max %.1f ms; after the send: p50 %.1f ms, p99 %.1f ms",
            n, FNR, pct(a, n, 0.5), pct(a, n, 0.99), a[n], pct(s, n, 0.5), pct(s, n, 0.99)
    }' "$TMP/moves.txt" "$TMP/live.dump")
say "latency at $RATE moves/s: $LATENCY"

echo
echo "bench/notify.sh — $(date -u +%Y-%m-%dT%H:%MZ), commit $(git rev-parse --short HEAD), $(nproc) cores, load before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
echo "throughput ($N owed webhooks, $WORKERS workers, one korpd --notify-only): $THROUGHPUT"
echo "latency ($LAT_MOVES moves at $RATE/s, $WORKERS workers): $LATENCY"
