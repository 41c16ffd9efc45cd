#!/usr/bin/env bash
# bench/streams.sh — idle event streams on one korpd: how long a move's
# event takes to reach the streams it concerns while thousands of streams
# are open, and what korpd's memory is with them.
#
# Issue 9: 10 000 streams on one korpd, events within 250 ms (p99) from
# commit to receipt, under 200 MB resident.
#
# What it does, all on loopback, everything stopped by PID on exit:
#   - a throwaway PostgreSQL (fsync on) and korpd (Release, built into
#     build-streams-bench/; bench/lib.sh: BENCH_REV, BENCH_OVERLAY), on
#     free ports in 20000-31999 (korp_free_port, scripts/lib.sh); ulimit -n
#     raised to the hard limit;
#   - through the API (bench/moves_setup.py): for each N in STREAMS, N
#     players and N/2 Korpalski games, each player in one game;
#   - for each N: a fresh korpd A (and a second, B, on the same database:
#     CROSS=0 leaves it out), then bench/streamload.c (one epoll loop)
#     opens N streams (GET /v1/events with each player's token) on A,
#     waits until all have their headers, stays idle IDLE seconds, then
#     plays RATE moves a second for PHASE_SECONDS seconds through A, then as many
#     through B (the event crosses processes: B's commit, PostgreSQL's
#     NOTIFY, A's listener), one move per game in turn; each move's event
#     must reach both players' streams;
#   - measured: event latency from the move's answer (the commit happened
#     before it) and from its request to the event's arrival, p50/p90/p99
#     and max (negative: the event came before the answer); the moves' own
#     latency (the same run's baseline); korpd A's VmRSS and VmHWM (peak)
#     and threads before the streams, idle with them and after the moves,
#     and its CPU while idle (keep-alives) and while moving.
# The last lines are the summary table.
#
# usage: bench/streams.sh
#   (STREAMS="1000 10000" RATE=20 PHASE_SECONDS=40 IDLE=10 CROSS=1 POOL=8;
#    LISTENER_KILL=1 ends korpd's LISTEN sessions halfway through phase 1;
#    KEEPALIVE=<seconds> sets korpd's KORP_SSE_KEEPALIVE_SECONDS, default
#    korpd's own, 15)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

bench_defaults "STREAMS=1000 10000" RATE=20 PHASE_SECONDS=40 IDLE=10 CROSS=1 POOL=8
BUILD=build-streams-bench

for n in $STREAMS; do
    [ "$n" -ge 2 ] && [ $((n % 2)) = 0 ] || die "STREAMS: even numbers of at least 2, not $n"
done

korp_install $KORP_PACKAGES python3
bench_machine

# Every stream is a descriptor in korpd and one in the client.
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true
FILES=$(ulimit -n)
say "open files: $FILES (hard limit $(ulimit -Hn))"

bench_tmp korp-streams
KPIDS=()
CPID=
KILLER=
stop_korpds() {
    local p
    for p in "${KPIDS[@]}"; do korp_stop_pid "$p"; done
    KPIDS=()
}
stop_all() {
    [ -n "$CPID" ] && kill "$CPID" 2>/dev/null
    [ -n "$KILLER" ] && kill "$KILLER" 2>/dev/null
    stop_korpds
}
bench_on_exit stop_all

bench_build_korpd "$BUILD" build-streams-rev "$TMP"
bench_build_client streamload

bench_pg korp_bench
DB_URL="$(bench_db_url korp_bench)"

# start_korpd NAME: a korpd on a free port; sets KPORT and KPID.
start_korpd() {
    local name=$1 avoid=("$PORT")
    [ -n "${KPORT_A:-}" ] && avoid+=("$KPORT_A")
    korp_free_port "${avoid[@]}" || die "no free port for korpd"
    KPORT=$KORP_FREE_PORT
    env KORP_DATABASE_URL="$DB_URL" KORP_LISTEN="127.0.0.1:$KPORT" KORP_RATE_LIMIT=0 KORP_SIGNUP_LIMIT=0 KORP_EMAIL_CONFIRMATION=off KORP_CHALLENGES_PER_DAY=0 \
        KORP_CONNECTIONS_PER_ADDRESS=0 KORP_STREAMS_PER_PLAYER=0 KORP_STREAMS_PER_ADDRESS=0 \
        KORP_DB_POOL_SIZE="$POOL" ${KEEPALIVE:+KORP_SSE_KEEPALIVE_SECONDS=$KEEPALIVE} \
        "$KORPD" </dev/null >"$TMP/korpd-$name.log" 2>&1 &
    KPID=$!
    KPIDS+=("$KPID")
    bench_wait_korpd "korpd $name" "$KPID" "$KPORT" "$TMP/korpd-$name.log"
}

# ---- players and games through the API, for every N at once
total=0
for n in $STREAMS; do total=$((total + n / 2)); done
start_korpd setup
T0=$(date +%s.%N)
python3 bench/moves_setup.py 127.0.0.1 "$KPORT" "$total" "$total" "$TMP/games.txt"
say "made $((2 * total)) players and $total games in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.1f", b - a }') s"
stop_korpds

mb() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
declare -A R
first=1
for n in $STREAMS; do
    if [ $((n + 64)) -gt "$FILES" ]; then
        say "skipping N=$n: the open-file limit is $FILES"
        continue
    fi
    # The games of this N: the next n/2 lines.
    sed -n "${first},$((first + n / 2 - 1))p" "$TMP/games.txt" >"$TMP/games-$n.txt"
    first=$((first + n / 2))
    KPORT_A=
    start_korpd "A-$n"; KPORT_A=$KPORT; KPID_A=$KPID
    targets=("$KPORT_A:$KPID_A")
    b=
    if [ "$CROSS" = 1 ]; then
        start_korpd "B-$n"
        targets+=("$KPORT:$KPID")
        b=", korpd B (pid $KPID) on $KPORT"
    fi
    say "N=$n: korpd A (pid $KPID_A) on $KPORT_A$b; load $(cut -d' ' -f1-3 /proc/loadavg)"
    # Bounded: connecting (the client gives up after 600 s), idle, phases.
    limit=$((660 + IDLE + (PHASE_SECONDS + 5) * ${#targets[@]}))
    timeout "$limit" "$TMP/streamload" 127.0.0.1 "$TMP/games-$n.txt" "$n" "$RATE" \
        "$PHASE_SECONDS" "$IDLE" "${targets[@]}" >"$TMP/out-$n.txt" 2>"$TMP/err-$n.txt" &
    CPID=$!
    # LISTENER_KILL=1: halfway through the first move phase, PostgreSQL
    # ends every korpd's LISTEN session (as a restart or a network cut
    # would): each listener reconnects and its streams all read again.  The
    # session is found by its last statement: the LISTEN, or the read of
    # the notified events' rows (db/db_events.c).
    if [ "${LISTENER_KILL:-0}" = 1 ]; then
        (
            for _ in $(seq 1 600); do grep -q '^rss_idle:' "$TMP/out-$n.txt" 2>/dev/null && break; sleep 0.5; done
            sleep $((PHASE_SECONDS / 2))
            korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -tAc "SELECT 'listeners ended: ' ||
                count(pg_terminate_backend(pid)) FROM pg_stat_activity
                WHERE application_name = 'korpd' AND (query = 'LISTEN korp_events'
                      OR query LIKE 'SELECT id, player_id, coalesce(game_id%FROM events WHERE id = ANY%')" \
                >"$TMP/kill-$n.txt" 2>&1
            date +%s.%N >>"$TMP/kill-$n.txt"
        ) &
        KILLER=$!
    fi
    rc=0; wait "$CPID" || rc=$?
    CPID=
    if [ "${LISTENER_KILL:-0}" = 1 ]; then
        wait "$KILLER" || true
        KILLER=
        say "N=$n: $(head -n 1 "$TMP/kill-$n.txt"); korpd A: $(grep -c 'reconnected' "$TMP/korpd-A-$n.log" || true) listener reconnection(s) logged"
    fi
    cat "$TMP/out-$n.txt"
    if [ -s "$TMP/err-$n.txt" ]; then sed -n '1,20s/^/  client: /p' "$TMP/err-$n.txt"; fi
    [ "$rc" = 0 ] || { tail -n 5 "$TMP/korpd-A-$n.log" >&2; die "N=$n: the client failed (exit $rc)"; }
    out=$(cat "$TMP/out-$n.txt")
    R[$n,connect]=$(field seconds "$(grep '^connect:' <<<"$out")")
    for ph in before open idle after; do
        l=$(grep "^rss_$ph:" <<<"$out")
        R[$n,$ph,rss]=$(field vmrss_kb "$l"); R[$n,$ph,hwm]=$(field vmhwm_kb "$l")
        R[$n,$ph,threads]=$(field threads "$l"); R[$n,$ph,cpu]=$(field cpu_s "$l")
        R[$n,$ph,t]=$(field t "$l")
    done
    # korpd's CPU while only keep-alives flow, in % of one core
    R[$n,idle_cpu]=$(awk -v c0="${R[$n,open,cpu]}" -v c1="${R[$n,idle,cpu]}" -v t0="${R[$n,open,t]}" \
        -v t1="${R[$n,idle,t]}" 'BEGIN { printf "%.1f", (t1 > t0) ? (c1 - c0) / (t1 - t0) * 100 : 0 }')
    # and while the moves go on (its own, and the events it sends)
    R[$n,move_cpu]=$(awk -v c0="${R[$n,idle,cpu]}" -v c1="${R[$n,after,cpu]}" -v t0="${R[$n,idle,t]}" \
        -v t1="${R[$n,after,t]}" 'BEGIN { printf "%.1f", (t1 > t0) ? (c1 - c0) / (t1 - t0) * 100 : 0 }')
    for ph in 0 1; do
        l=$(grep "^phase=$ph " <<<"$out" || true)
        [ -n "$l" ] || continue
        for k in moves rate move_p50_ms move_p99_ms events missing before_answer \
                 after_answer_p50_ms after_answer_p90_ms after_answer_p99_ms after_answer_max_ms \
                 after_send_p50_ms after_send_p99_ms; do
            R[$n,$ph,$k]=$(field "$k" "$l")
        done
    done
    R[$n,keepalives]=$(field keepalives "$(grep '^totals:' <<<"$out")")
    stop_korpds
done

LOAD_AFTER=$(cut -d' ' -f1-3 /proc/loadavg)
echo
echo "event streams on one korpd (pool $POOL), moves at $RATE/s for $PHASE_SECONDS s per phase; $(nproc) cores; load before $LOAD_BEFORE, after $LOAD_AFTER; $(( $(date +%s) - T_START )) s"
printf '%6s | %8s | %-21s | %-13s | %-13s | %s\n' N "open s" "korpd MB: none idle after" \
    "peak MB thr" "CPU idle,move" "moves via: moves/s, move p50/p99 ms | event after answer p50/p90/p99/max ms | after send p50/p99 | events (missing)"
for n in $STREAMS; do
    [ -n "${R[$n,connect]:-}" ] || continue
    for ph in 0 1; do
        [ -n "${R[$n,$ph,moves]:-}" ] || continue
        if [ "$ph" = 0 ]; then
            printf '%6s | %8s | %6s %6s %7s | %6s %6s | %5s%% %5s%% | ' "$n" "${R[$n,connect]}" \
                "$(mb "${R[$n,before,rss]}")" "$(mb "${R[$n,idle,rss]}")" "$(mb "${R[$n,after,rss]}")" \
                "$(mb "${R[$n,after,hwm]}")" "${R[$n,after,threads]}" "${R[$n,idle_cpu]}" \
                "${R[$n,move_cpu]}"
        else
            printf '%6s | %8s | %21s | %13s | %13s | ' "" "" "" "" ""
        fi
        via=A; [ "$ph" = 1 ] && via="B->A"
        printf '%-4s %5s, %5s/%-6s | %6s %6s %6s %6s | %6s %6s | %s (%s)\n' "$via" \
            "${R[$n,$ph,rate]}" "${R[$n,$ph,move_p50_ms]}" "${R[$n,$ph,move_p99_ms]}" \
            "${R[$n,$ph,after_answer_p50_ms]}" "${R[$n,$ph,after_answer_p90_ms]}" \
            "${R[$n,$ph,after_answer_p99_ms]}" "${R[$n,$ph,after_answer_max_ms]}" \
            "${R[$n,$ph,after_send_p50_ms]}" "${R[$n,$ph,after_send_p99_ms]}" \
            "${R[$n,$ph,events]}" "${R[$n,$ph,missing]}"
    done
done
echo "targets (issue 9): 10000 streams on one korpd, event p99 under 250 ms, under 200 MB resident"
