#!/usr/bin/env bash
# bench/day.sh — a realistic day on one machine: many
# players and games, moves and reads arriving as Poisson streams, thousands
# of open event streams, webhooks and emails owed, the sweeper and the
# reminders at work; the move rate stepped up until the moves' p99 passes
# 100 ms.
#
# What it does, all on loopback, everything stopped by PID on exit:
#   - a throwaway PostgreSQL (fsync on) and korpd (Release, build-day-bench/;
#     bench/lib.sh: BENCH_REV, BENCH_OVERLAY), postfix's smtp-sink (every
#     mail accepted and dropped) and a webhook receiver
#     (bench/webhook_sink.mjs), each on a free port in 20000-32767;
#   - the population (bench/day_setup.py, seeded): PLAYERS players, GAMES
#     games (60% Korpalski, 40% Glinski, one in ten a bot game), one
#     player in ten with a webhook, the others with an email address; the
#     games put at mixed plies (0-180) by giving them the stored state of
#     template games played through the API (SQL); a share of the games
#     given deadlines that fall during the run (the sweeper ends them on
#     time) or within a day (the sweeper sends reminders);
#   - STREAMS players (every fifth) hold their event stream open
#     (bench/day_streams.py);
#   - for each move rate of RATES: bench/dayload.c sends moves at that rate
#     and READS_PER_MOVE reads for each (a Poisson stream each, open loop)
#     for STEP_SECONDS seconds;
#   - measured for each step: moves and reads p50/p99 (from the moment each
#     request was due), the lag of events (stream receipt minus the move's
#     answer) and of webhooks, of emails (delivered_at minus created_at in
#     the outbox), CPU per move of korpd and of PostgreSQL (reads included:
#     the cost of a move with its share of reads), WAL and database growth
#     per million moves; the highest rate whose moves' and reads' p99 both
#     stay under 100 ms.
# The last lines are the summary: a table per step (moves and all reads
# p50/p99; event, webhook and mail lag p50/p99; CPU per move of korpd and
# PostgreSQL; WAL per move), growth per million moves, the highest rate held
# with the lags and CPU at it, and one line "day: key=value ..." (what
# bench/day_compare.sh reads).
#
# usage: bench/day.sh                     (korpd from the working tree)
#        BENCH_REV=8ab03ef bench/day.sh   (korpd of that commit, bench/lib.sh)
#        bench/day_compare.sh OLD NEW     (both in one sitting, side by side)
#   (PLAYERS=10000 GAMES=50000 STREAMS=2000 RATES="25 50 100 200 400"
#    READS_PER_MOVE=4 STEP_SECONDS=60 WORKERS=64 SEED=1 POOL=16
#    THREADS=32 NOTIFY_WORKERS=4; STATEMENTS=1: what the database ran during
#    the steps, per move, the costliest first)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

bench_defaults PLAYERS=10000 GAMES=50000 STREAMS=2000 "RATES=25 50 100 200 400" \
    READS_PER_MOVE=4 STEP_SECONDS=60 WORKERS=64 SEED=1 POOL=16 THREADS=32 NOTIFY_WORKERS=4
BUILD=build-day-bench
[ $((PLAYERS / 5)) -ge "$STREAMS" ] || die "STREAMS: at most PLAYERS / 5 ($((PLAYERS / 5)))"

korp_install $KORP_PACKAGES python3 postfix
command -v node >/dev/null || die "bench/day.sh needs node (the webhook receiver)"
bench_machine
ulimit -n "$(ulimit -Hn)" 2>/dev/null || true

bench_tmp korp-day
bench_pids_trap

bench_build_korpd "$BUILD" build-day-rev "$TMP"
# what korpd is, for the summary: the commit, "+" when the working tree differs
if [ -n "${BENCH_REV:-}" ]; then KORPD_REV=$(git rev-parse --short "$BENCH_REV")
elif [ -n "${BENCH_SRC:-}" ]; then KORPD_REV=$BENCH_SRC
else KORPD_REV=$(git rev-parse --short HEAD)$([ -z "$(git status --porcelain -uno)" ] || echo +)
fi
cc -O2 -Wall -Wextra -pthread -o "$TMP/dayload" bench/dayload.c bench/loadclient.c -lm
bench_pg korp_day
[ "${STATEMENTS:-0}" = 1 ] && bench_pg_statements korp_day   # tracking only during the steps
PG_MAIN=$(head -n 1 "$TMP/pg/postmaster.pid")
PSQL=("$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -d korp_day)
sql() { PGPASSFILE=$TMP/korp.pgpass "${PSQL[@]}" -tAc "$1"; }

# ---- the receivers
korp_free_port "$PORT" || die "no free port for smtp-sink"
MPORT=$KORP_FREE_PORT
SINK_ARGS=(); [ "$(id -u)" = 0 ] && SINK_ARGS=(-u nobody)
/usr/sbin/smtp-sink "${SINK_ARGS[@]}" "127.0.0.1:$MPORT" 256 >"$TMP/smtp.log" 2>&1 &
PIDS+=($!)
bench_webhook_sink "$PORT" "$MPORT"

# ---- korpd
korp_free_port "$PORT" "$MPORT" "$SPORT" || die "no free port for korpd"
KPORT=$KORP_FREE_PORT
KORP_DATABASE_URL="$(bench_db_url korp_day)" KORP_LISTEN=127.0.0.1:$KPORT \
KORP_RATE_LIMIT=0 KORP_SIGNUP_LIMIT=0 KORP_EMAIL_CONFIRMATION=off KORP_CHALLENGES_PER_DAY=0 \
KORP_CONNECTIONS_PER_ADDRESS=0 KORP_STREAMS_PER_ADDRESS=0 KORP_WEBHOOK_ALLOW_PRIVATE=1 \
KORP_SMTP_URL=smtp://127.0.0.1:$MPORT KORP_SMTP_TLS=none KORP_MAIL_FROM=korp@example.org \
KORP_DB_POOL_SIZE=$POOL KORP_HTTP_THREADS=$THREADS KORP_NOTIFY_WORKERS=$NOTIFY_WORKERS \
    "$KORPD" </dev/null >"$TMP/korpd.log" 2>&1 &
KPID=$!
PIDS+=("$KPID")
bench_wait_korpd korpd "$KPID" "$KPORT" "$TMP/korpd.log"
BASE=http://127.0.0.1:$KPORT

# ---- the population
T0=$(date +%s)
python3 bench/day_setup.py "$BASE" "$SINK/hook" "$PLAYERS" "$GAMES" "$SEED" "$TMP"
say "players, games, templates and channels through the API in $(( $(date +%s) - T0 )) s"
T0=$(date +%s)
sql "CREATE TABLE day_clone (game_id text PRIMARY KEY, template_id text NOT NULL)"
PGPASSFILE=$TMP/korp.pgpass "${PSQL[@]}" -c "\\copy day_clone FROM '$TMP/clone.csv' WITH (FORMAT csv)"
sql "UPDATE games g SET fen = t.fen, ply = t.ply, repetition_keys = t.repetition_keys,
            key_version = t.key_version, sans = t.sans
       FROM day_clone c JOIN games t ON t.id = c.template_id WHERE g.id = c.game_id"
sql "INSERT INTO moves (game_id, ply, san, uci, fen, played_at, conditional)
     SELECT c.game_id, m.ply, m.san, m.uci, m.fen, m.played_at, m.conditional
       FROM day_clone c JOIN moves m ON m.game_id = c.template_id"
RUN_SECONDS=$(( $(wc -w <<<"$RATES") * STEP_SECONDS ))
# Deadlines: 0.5% of the games run out during the steps, 2% fall within a day
# (reminders); seeded like the rest.
sql "SELECT setseed(0.$SEED); WITH r AS (SELECT id, random() AS x FROM games WHERE status = 'active' ORDER BY id)
     UPDATE games g SET deadline = CASE WHEN r.x < 0.005 THEN now() + (r.x / 0.005) * interval '$RUN_SECONDS seconds'
                                        ELSE now() + interval '1 hour' + (r.x - 0.005) / 0.02 * interval '20 hours' END
       FROM r WHERE g.id = r.id AND r.x < 0.025 AND g.id NOT IN (SELECT template_id FROM day_clone)"
sql "VACUUM ANALYZE games, moves, players"
say "mixed plies and deadlines (SQL) in $(( $(date +%s) - T0 )) s: $(sql "SELECT count(*) || ' games, ' || sum(ply) || ' moves, plies ' || min(ply) || '-' || max(ply) FROM games")"

# ---- the streams
: >"$TMP/streams.log"
python3 bench/day_streams.py 127.0.0.1 "$KPORT" <(head -n "$STREAMS" "$TMP/streams.txt") \
    "$TMP/events.txt" >"$TMP/streams.log" 2>&1 &
SPID=$!
PIDS+=("$SPID")
deadline=$((SECONDS + 300))
until grep -q '^connected' "$TMP/streams.log"; do
    kill -0 "$SPID" 2>/dev/null || { cat "$TMP/streams.log" >&2; die "the streams' client died"; }
    [ $SECONDS -lt $deadline ] || die "the $STREAMS streams did not all open in 300 s"
    sleep 0.2
done
say "$STREAMS event streams open"
curl -sf -X POST "$SINK/reset" >/dev/null
# What the set-up owed (challenges, game starts) is delivered before the steps.
deadline=$((SECONDS + 600))
until [ "$(sql "SELECT count(*) FROM deliveries WHERE status = 'pending'")" = 0 ]; do
    [ $SECONDS -lt $deadline ] || die "the set-up's notifications were not delivered in 600 s"
    sleep 0.5
done
curl -sf -X POST "$SINK/reset" >/dev/null

# ---- WAL and size from the server (CPU from /proc: proc_ticks, pg_ticks,
# us_per in bench/lib.sh)

# ---- the steps
declare -A R
i=0
MOVES_FILES=()
W0=$(sql "SELECT pg_current_wal_insert_lsn()"); D0=$(sql "SELECT pg_database_size('korp_day')")
TOTAL_MOVES=0
# STATEMENTS=1: what the database ran during the steps (pg_stat_statements,
# nested statements included), per move, the costliest first.
if [ "${STATEMENTS:-0}" = 1 ]; then
    korp_pg_admin "$TMP/pg" "$PORT" -d korp_day -c "ALTER SYSTEM SET pg_stat_statements.track = 'all'" \
        -c "SELECT pg_reload_conf()" -c "SELECT pg_stat_statements_reset()" >/dev/null
fi
for rate in $RATES; do
    i=$((i + 1))
    k0=$(proc_ticks "$KPID"); p0=$(pg_ticks); w0=$(sql "SELECT pg_current_wal_insert_lsn()")
    t0=$(date +%s.%N)
    reads=$(awk -v r="$rate" -v f="$READS_PER_MOVE" 'BEGIN { print r * f }')
    out=$("$TMP/dayload" 127.0.0.1 "$KPORT" "$TMP/games.txt" "$((SEED + i))" "$rate" "$reads" \
          "$STEP_SECONDS" "$WORKERS" "$TMP/moves-$i.txt")
    t1=$(date +%s.%N)
    k1=$(proc_ticks "$KPID"); p1=$(pg_ticks); w1=$(sql "SELECT pg_current_wal_insert_lsn()")
    printf '%s\n' "$out" >"$TMP/step-$i.txt"
    MOVES_FILES+=("$TMP/moves-$i.txt")
    # The games dayload played are at new plies for the next step.
    awk 'NR == FNR { if ($5 == 201) ply[$1] = $2; else over[$1] = 1; next }
         ($1 in over) { next } { if ($1 in ply) $3 = ply[$1]; print }' \
        "$TMP/moves-$i.txt" "$TMP/games.txt" >"$TMP/games.next" && mv "$TMP/games.next" "$TMP/games.txt"
    moves=$(awk '$5 == 201' "$TMP/moves-$i.txt" | wc -l)
    TOTAL_MOVES=$((TOTAL_MOVES + moves))
    # the reads: all five kinds together (dayload's kind=reads)
    mline=$(grep '^kind=move ' <<<"$out"); rline=$(grep '^kind=reads ' <<<"$out")
    R[$i,rate]=$rate
    R[$i,moves_s]=$(awk -v n="$moves" -v a="$t0" -v b="$t1" 'BEGIN { printf "%.1f", n / (b - a) }')
    R[$i,m50]=$(field p50_ms "$mline"); R[$i,m99]=$(field p99_ms "$mline")
    R[$i,r50]=$(field p50_ms "$rline"); R[$i,r99]=$(field p99_ms "$rline")
    R[$i,errors]=$(grep '^totals' <<<"$out" | sed 's/.*errors=\([0-9]*\).*/\1/')
    R[$i,cpu_k]=$(us_per $((k1 - k0)) "$moves"); R[$i,cpu_p]=$(us_per $((p1 - p0)) "$moves")
    R[$i,wal]=$(sql "SELECT round(pg_wal_lsn_diff('$w1', '$w0') / greatest($moves, 1))")
    # mails owed during the step: written to the outbox (created_at) until
    # smtp-sink took them (delivered_at); read after the run (step_mail)
    R[$i,t0]=$t0; R[$i,t1]=$t1
    say "step $i: $rate moves/s asked; $(tr '\n' ' ' <<<"$out")"
done
W1=$(sql "SELECT pg_current_wal_insert_lsn()"); D1=$(sql "SELECT pg_database_size('korp_day')")
if [ "${STATEMENTS:-0}" = 1 ]; then
    korp_pg_admin "$TMP/pg" "$PORT" -d korp_day -c "ALTER SYSTEM SET pg_stat_statements.track = 'none'" \
        -c "SELECT pg_reload_conf()" >/dev/null
    korp_pg_admin "$TMP/pg" "$PORT" -d korp_day -tA -F $'\t' -c "SELECT
            round(sum(s.calls)::numeric / $TOTAL_MOVES, 2),
            round((sum(s.total_exec_time) * 1000 / $TOTAL_MOVES)::numeric),
            left(regexp_replace(s.query, '\s+', ' ', 'g'), 100)
        FROM pg_stat_statements s JOIN pg_database d ON d.oid = s.dbid
        WHERE d.datname = 'korp_day' GROUP BY s.query ORDER BY sum(s.total_exec_time) DESC LIMIT 30" |
        awk -F '\t' 'BEGIN { print "statements during the steps: calls/move exec_us/move query" }
            { printf "  %7s %7s  %s\n", $1, $2, $3 }'
fi

# ---- what the steps owed, delivered; then the streams' receipts
deadline=$((SECONDS + 600))
until [ "$(sql "SELECT count(*) FROM deliveries WHERE status = 'pending'")" = 0 ]; do
    [ $SECONDS -lt $deadline ] || { say "deliveries still pending after 600 s"; break; }
    sleep 0.5
done
kill -TERM "$SPID"
deadline=$((SECONDS + 60))
until grep -q '^streams:' "$TMP/streams.log"; do
    # the summary is printed all the same, without the events' lag
    [ $SECONDS -lt $deadline ] || { say "the streams' client did not finish: no event lags"; break; }
    sleep 0.2
done
[ -f "$TMP/events.txt" ] || : >"$TMP/events.txt"
curl -sf "$SINK/dump" >"$TMP/webhooks.txt" || : >"$TMP/webhooks.txt"
LAGS=$(python3 bench/day_report.py "$TMP/events.txt" "$TMP/webhooks.txt" "${MOVES_FILES[@]}")
ENDED=$(sql "SELECT count(*) FILTER (WHERE termination = 'timeout') || ' games ended on time, '
               || (SELECT count(*) FROM deliveries WHERE type = 'deadline_near') || ' reminders owed'
             FROM games")

# ---- summary
# step_mail STEP: p50 and p99 (ms) and number of the mails owed during the step
step_mail() {
    sql "SELECT coalesce(round(1000 * extract(epoch FROM percentile_cont(0.5) WITHIN GROUP
                (ORDER BY delivered_at - created_at))), -1) || ' ' ||
                coalesce(round(1000 * extract(epoch FROM percentile_cont(0.99) WITHIN GROUP
                (ORDER BY delivered_at - created_at))), -1) || ' ' || count(*)
           FROM deliveries WHERE channel = 'email' AND status = 'delivered'
            AND created_at >= to_timestamp(${R[$1,t0]}) AND created_at < to_timestamp(${R[$1,t1]})"
}
under() { awk -v a="$1" -v b="$2" 'BEGIN { exit !(a != "" && b != "" && a < 100 && b < 100) }'; }
MOVES_M=$(( TOTAL_MOVES > 0 ? TOTAL_MOVES : 1 ))
DB_MB=$(( (D1 - D0) * 1000000 / MOVES_M / 1048576 ))
WAL_MB=$(sql "SELECT round(pg_wal_lsn_diff('$W1', '$W0') * 1000000 / $MOVES_M / 1048576)")
say "load average before: $LOAD_BEFORE, after: $(cut -d' ' -f1-3 /proc/loadavg); $(grep '^streams' "$TMP/streams.log" || echo 'streams: no report'); $ENDED"
echo
echo "the day: korpd $KORPD_REV; $PLAYERS players, $GAMES games, $STREAMS streams, $READS_PER_MOVE reads per move, $STEP_SECONDS s a step; $(nproc) cores; $(( $(date +%s) - T_START )) s"
echo "latencies and lags in ms (from the moment each request was due: open loop; a lag is the receipt minus the move's answer); CPU in us per move, its reads and notifications included; wal_B per move"
printf '%-6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s %6s %6s\n' \
    asked moves/s move_p50 move_p99 read_p50 read_p99 event_p50 event_p99 hook_p50 hook_p99 \
    mail_p50 mail_p99 korpd_us pg_us wal_B mails errors
best=0 best_j=0
for j in $(seq 1 "$i"); do
    lag=$(sed -n "${j}p" <<<"$LAGS")
    read -r mail50 mail99 mails < <(step_mail "$j")
    R[$j,e50]=$(field event_p50_ms "$lag"); R[$j,e99]=$(field event_p99_ms "$lag")
    R[$j,h50]=$(field webhook_p50_ms "$lag"); R[$j,h99]=$(field webhook_p99_ms "$lag")
    R[$j,mail50]=$mail50; R[$j,mail99]=$mail99
    printf '%-6s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %8s %7s %6s %6s\n' \
        "${R[$j,rate]}" "${R[$j,moves_s]}" "${R[$j,m50]}" "${R[$j,m99]}" "${R[$j,r50]}" "${R[$j,r99]}" \
        "${R[$j,e50]:--}" "${R[$j,e99]:--}" "${R[$j,h50]:--}" "${R[$j,h99]:--}" "$mail50" "$mail99" \
        "${R[$j,cpu_k]}" "${R[$j,cpu_p]}" "${R[$j,wal]}" "$mails" "${R[$j,errors]}"
    if under "${R[$j,m99]}" "${R[$j,r99]}" &&
        awk -v a="${R[$j,moves_s]}" -v b="$best" 'BEGIN { exit !(a > b) }'; then
        best=${R[$j,moves_s]} best_j=$j
    fi
done
echo "growth per million moves (the whole run, $TOTAL_MOVES moves with their reads, events and notifications): database $DB_MB MB, WAL $WAL_MB MB"
if [ "$best_j" -gt 0 ]; then
    j=$best_j
    echo "highest rate with move and read p99 under 100 ms: $best moves/s (asked ${R[$j,rate]}; move p99 ${R[$j,m99]}, read p99 ${R[$j,r99]} ms)"
    echo "  at that rate: event lag p50/p99 ${R[$j,e50]:--}/${R[$j,e99]:--} ms, webhook ${R[$j,h50]:--}/${R[$j,h99]:--} ms, mail ${R[$j,mail50]}/${R[$j,mail99]} ms; CPU per move (its reads included): PostgreSQL ${R[$j,cpu_p]} us, korpd ${R[$j,cpu_k]} us"
else
    echo "highest rate with move and read p99 under 100 ms: none of the steps (RATES=\"$RATES\": try lower rates)"
fi
# One line for bench/day_compare.sh (key=value; "-" when no step held).
k() { [ "$best_j" -gt 0 ] && printf '%s' "${R[$best_j,$1]:--}" || printf -- -; }
echo "day: rev=$KORPD_REV best_rate=$best best_asked=$(k rate) move_p99=$(k m99) read_p99=$(k r99)" \
    "event_p50=$(k e50) event_p99=$(k e99) hook_p50=$(k h50) hook_p99=$(k h99) mail_p50=$(k mail50)" \
    "mail_p99=$(k mail99) pg_us=$(k cpu_p) korpd_us=$(k cpu_k) wal_B=$(k wal) wal_MB_per_M=$WAL_MB db_MB_per_M=$DB_MB" \
    "moves=$TOTAL_MOVES load_before=${LOAD_BEFORE%% *}"
