#!/usr/bin/env bash
# bench/prune.sh — what pruning costs: the time to
# prune a million events (and a share of finished deliveries) with korpd's
# own statements and batch size, and what it does to moves running at the
# same time.
#
# What it does, all on loopback, everything stopped on exit:
#   - a throwaway PostgreSQL (fsync on) with korpd's schema
#     (db/migrations/*.sql); EVENTS events 60 days old (a move's payload,
#     for PLAYERS players of PLAYERS/2 games), DELIVERIES finished
#     deliveries of them with one attempt each, then the same number of
#     fresh ones (kept), VACUUM ANALYZE;
#   - "moves": pgbench -M prepared at CLIENTS clients for SECONDS seconds
#     running a move's writes to these tables (lock the game row, update
#     it, insert its two events; one transaction) for RUN_SECONDS, alone,
#     then again while the pruning runs; its rate and p99 latency both times;
#   - the pruning: korpd's deliveries_prune, then events_prune statements
#     (texts from db/db_statements.c, bench/statements.c), at korpd's batch
#     size (PRUNE_BATCH, korpd/main.c: 1000), one batch after the other
#     until a batch prunes nothing, as the sweeper does over many sweeps;
#     the time per million rows.
#
# usage: bench/prune.sh  (EVENTS=1000000 DELIVERIES=100000 PLAYERS=2000
#                         CLIENTS=8 RUN_SECONDS=20)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

bench_defaults EVENTS=1000000 DELIVERIES=100000 PLAYERS=2000 CLIENTS=8 RUN_SECONDS=20
BATCH=$(sed -n 's/^#define PRUNE_BATCH \([0-9]*\).*/\1/p' korpd/main.c)
[ -n "$BATCH" ] || die "no PRUNE_BATCH in korpd/main.c"

korp_install $KORP_PACKAGES
bench_machine
bench_tmp korp-prune
PRUNER=
SAMPLER=
stop_all() {
    [ -n "$SAMPLER" ] && kill "$SAMPLER" 2>/dev/null
    [ -n "$PRUNER" ] && kill "$PRUNER" 2>/dev/null
}
bench_on_exit stop_all

bench_build_statements
sql_of() { awk -F '\t' -v n="$1" '$1 == n { print $2 }' <("$TMP/statements"); }

bench_pg korp_prune
export PGPASSFILE=$TMP/korp.pgpass
PSQL=("$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -d korp_prune)
for f in db/migrations/*.sql; do "${PSQL[@]}" -f "$f" >/dev/null; done
T0=$(date +%s.%N)
"${PSQL[@]}" -v events="$EVENTS" -v deliveries="$DELIVERIES" -v players="$PLAYERS" <<'SQL'
INSERT INTO players (id, name, role, created_at)
SELECT 'p' || lpad(i::text, 9, '0'), 'p' || i, 'player', now() FROM generate_series(1, :players) i;
INSERT INTO games (id, variant, white_id, black_id, fen, ply, days_per_move, deadline,
                   fifty_move_rule, repetition_keys, key_version, sans, created_at, updated_at)
SELECT 'g' || lpad(i::text, 9, '0'), 'korpalski', 'p' || lpad((2 * i - 1)::text, 9, '0'),
       'p' || lpad((2 * i)::text, 9, '0'), '8/8/8/8/8/8/8/8[QRRBBNNPPPPPPPPqrrbbnnpppppppp] w - - 0 1',
       0, 3, now() + interval '3 days', true, '{}', 1, '', now(), now()
FROM generate_series(1, :players / 2) i;
-- A move's event: the game snapshot and the move (about korpd's payload).
INSERT INTO events (player_id, game_id, type, payload, created_at)
SELECT 'p' || lpad((i % :players + 1)::text, 9, '0'), 'g' || lpad(((i % :players) / 2 + 1)::text, 9, '0'),
       'move', jsonb_build_object('game_id', 'g' || lpad(((i % :players) / 2 + 1)::text, 9, '0'),
       'variant', 'korpalski', 'ply', i % 80, 'fen', 'r1bqkb1r/pppp1ppp/2n2n2/4p3/4P3/2N2N2/PPPP1PPP/R1BQKB1R[] w KQkq - 4 4',
       'to_move', 'white', 'status', 'active', 'result', '*', 'termination', null, 'draw_offer', null,
       'san', 'Nf3', 'uci', 'g1f3'), now() - interval '60 days' + i * interval '1 ms'
FROM generate_series(1, :events) i;
INSERT INTO deliveries (player_id, channel, event_id, type, payload, status, attempts,
                        next_attempt_at, created_at, delivered_at)
SELECT e.player_id, 'email', e.id, 'move', e.payload, 'delivered', 1, e.created_at, e.created_at,
       e.created_at FROM events e ORDER BY e.id LIMIT :deliveries;
INSERT INTO delivery_attempts (delivery_id, attempt, at, status_code, latency_ms)
SELECT id, 1, created_at, 250, 3.5 FROM deliveries;
-- As many fresh ones, which stay.
INSERT INTO events (player_id, game_id, type, payload, created_at)
SELECT player_id, game_id, type, payload, now() FROM events ORDER BY id LIMIT :deliveries;
VACUUM ANALYZE;
SQL
say "made $EVENTS old events, $DELIVERIES old deliveries, $DELIVERIES fresh events in $(awk -v a="$T0" -v b="$(date +%s.%N)" 'BEGIN { printf "%.0f", b - a }') s; tables: $("${PSQL[@]}" -tAc "SELECT string_agg(relname || ' ' || pg_size_pretty(pg_total_relation_size(oid)), ', ' ORDER BY relname) FROM pg_class WHERE relname IN ('events', 'deliveries', 'delivery_attempts')")"

# A move's writes to what pruning touches: lock and update the game, two events.
cat >"$TMP/move.sql" <<'SQL'
\set g random(1, :games)
BEGIN;
SELECT id FROM games WHERE id = 'g' || lpad(:g::text, 9, '0') FOR UPDATE;
UPDATE games SET ply = ply + 1, updated_at = now() WHERE id = 'g' || lpad(:g::text, 9, '0');
INSERT INTO events (player_id, game_id, type, payload, created_at)
SELECT p, 'g' || lpad(:g::text, 9, '0'), 'move', '{"san": "Nf3", "uci": "g1f3", "ply": 1}', now()
FROM unnest(ARRAY['p' || lpad((2 * :g - 1)::text, 9, '0'), 'p' || lpad((2 * :g)::text, 9, '0')]) p;
COMMIT;
SQL
moves() {   # LABEL: pgbench's line
    "$(korp_pg_bin)/pgbench" -n -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -M prepared \
        -c "$CLIENTS" -j 2 -T "$RUN_SECONDS" -D games=$((PLAYERS / 2)) -f "$TMP/move.sql" \
        -l --log-prefix="$TMP/mv.${1// /_}" korp_prune >"$TMP/moves.out" 2>&1 ||
        { cat "$TMP/moves.out" >&2; die "pgbench (moves) failed"; }
    local tps p99
    tps=$(sed -n 's/^tps = \([0-9.]*\) (without.*/\1/p' "$TMP/moves.out")
    p99=$(pgbench_ms 1 0.99 -- "$TMP"/mv."${1// /_}".*)
    echo "moves $1: tps=$tps p99_ms=$p99"
}
prune_sql() {   # STATEMENT: the pgbench script running it at korpd's batch size
    printf '%s;\n' "$(sql_of "$1" | sed -e 's/\$1::int/:days::int/g' -e 's/LIMIT \$2/LIMIT :batch/')"
}
prune_sql deliveries_prune >"$TMP/deliveries.sql"
prune_sql events_prune >"$TMP/events.sql"
grep -q ':days' "$TMP/events.sql" && grep -q ':batch' "$TMP/events.sql" || die "events_prune changed shape"
prune_all() {   # runs the batches until one prunes nothing; prints the seconds per table
    local t what n left
    for what in deliveries events; do
        t=$(date +%s.%N)
        left=1
        while [ "$left" != 0 ]; do
            # 100 batches a pgbench run (one connection, like the sweeper's)
            "$(korp_pg_bin)/pgbench" -n -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -M prepared -c 1 \
                -t 100 -D days=30 -D batch="$BATCH" -f "$TMP/$what.sql" korp_prune >"$TMP/prune.out" 2>&1 ||
                { cat "$TMP/prune.out" >&2; die "pruning $what failed"; }
            if [ "$what" = events ]; then
                left=$("${PSQL[@]}" -tAc "SELECT count(*) FROM (SELECT 1 FROM events WHERE created_at < now() - interval '30 days' AND NOT EXISTS (SELECT FROM deliveries d WHERE d.event_id = events.id) LIMIT 1) x")
            else
                left=$("${PSQL[@]}" -tAc "SELECT count(*) FROM (SELECT 1 FROM deliveries WHERE status <> 'pending' AND created_at < now() - interval '30 days' LIMIT 1) x")
            fi
        done
        n=$(date +%s.%N)
        echo "$what $(awk -v a="$t" -v b="$n" 'BEGIN { printf "%.2f", b - a }')"
    done
}

# Lock waits: pg_stat_activity sampled every 0.2 s during the moves (sessions
# waiting on a lock, of all the samples of active sessions).
sampler() {   # FILE: runs until killed
    while :; do
        "${PSQL[@]}" -tAc "SELECT count(*) FILTER (WHERE wait_event_type = 'Lock') || ' ' || count(*)
            FROM pg_stat_activity WHERE datname = 'korp_prune' AND state = 'active'
            AND pid <> pg_backend_pid()" >>"$1" 2>/dev/null || true
        sleep 0.2
    done
}
lock_share() { awk '{ l += $1; a += $2 } END { printf "%d of %d active-session samples waiting on a lock", l, a }' "$1"; }
sampler "$TMP/locks.alone" & SAMPLER=$!
ALONE=$(moves alone)
kill "$SAMPLER"; wait "$SAMPLER" 2>/dev/null || true
ALONE="$ALONE; $(lock_share "$TMP/locks.alone")"
say "$ALONE"
prune_all >"$TMP/pruned.txt" &
PRUNER=$!
sampler "$TMP/locks.during" & SAMPLER=$!
DURING=$(moves "while pruning")
kill "$SAMPLER"; wait "$SAMPLER" 2>/dev/null || true; SAMPLER=
DURING="$DURING; $(lock_share "$TMP/locks.during")"
say "$DURING"
wait "$PRUNER"; PRUNER=
read -r _ DSEC < <(grep '^deliveries' "$TMP/pruned.txt")
read -r _ ESEC < <(grep '^events' "$TMP/pruned.txt")
LEFT=$("${PSQL[@]}" -tAc "SELECT (SELECT count(*) FROM events) || ' events, ' || (SELECT count(*) FROM deliveries) || ' deliveries, pruned through ' || (SELECT pruned_through FROM event_retention)")
echo
echo "pruning with korpd's statements, batches of $BATCH; $(nproc) cores; load before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg)"
echo "deliveries: $DELIVERIES in $DSEC s ($(awk -v s="$DSEC" -v n="$DELIVERIES" 'BEGIN { printf "%.1f", s * 1e6 / n }') s per million, with their attempts)"
echo "events:     $EVENTS in $ESEC s ($(awk -v s="$ESEC" -v n="$EVENTS" 'BEGIN { printf "%.1f", s * 1e6 / n }') s per million)"
echo "left: $LEFT"
echo "$ALONE"
echo "$DURING (the pruning ran for the first $(awk -v a="$DSEC" -v b="$ESEC" 'BEGIN { printf "%.0f", a + b }') s of these $RUN_SECONDS s, or all of them)"
