#!/usr/bin/env bash
# bench/reads.sh — reads over HTTP: korpd against
# pgbench running the same SELECTs, at 1, 8 and 32 clients, in one
# invocation.  Target: korpd >= 0.8x pgbench's rate for each read.
#
# The reads (one "operation" each; a page is several requests):
#   game    GET /v1/games/{id}                       game_get
#   legal   GET /v1/games/{id}/legal-moves           game_get
#   pgn     GET /v1/games/{id}/pgn                   game_get, move_list
#   list    GET /v1/games?player={p}                 game_list
#   page    the player page's data (web/assets/page-player.js):
#           GET /v1/players/{p}                      player_get, leave_until,
#                                                    player_ratings, player_stats
#           GET /v1/games?player={p}&status=finished&limit=20    game_list
#           GET /v1/games?player={p}&status=active&limit=100     game_list
#   game304 GET /v1/games/{id} with If-None-Match: its current ETag (304)
#                                                    game_get
# korpd's answers must all be 200 (304 for game304).
#
# What it does, all on loopback, everything stopped by PID on exit:
#   - a throwaway PostgreSQL (fsync on) and korpd (Release, build-bench/) on
#     free ports; through the API (bench/moves_setup.py, bench/moveload.c)
#     PAIRS pairs of players and GAMES Korpalski games between them, each
#     played to ply PLY;
#   - pgbench on the same database, one script per game (pgbench picks one
#     at random for each transaction, as readload picks a game), each
#     PREPAREing on its first transaction, verbatim, the statements korpd
#     prepares for that read (their texts printed from db/db_statements.c
#     by bench/statements.c: they cannot drift) and EXECUTEing them with the
#     parameters korpd binds (NULLs included, as korpd binds them);
#   - a check before the runs, with pg_stat_statements: for each read, the
#     statements korpd ran for OPS_CHECK operations are exactly those
#     (texts and counts), nothing more;
#   - bench/readload.c (bench/loadclient.c), a C client on keep-alive
#     connections, one per client thread, picking games and players at
#     random (seeded);
#   - each korpd run followed by pgbench's run of the same read, REPEAT
#     times, the best of each counting (other work on the machine only
#     slows runs down); CPU per operation of korpd and of PostgreSQL (the
#     whole cluster), from /proc.
# The last lines are the summary table with the ratios.
#
# usage: bench/reads.sh     (GAMES=64 PAIRS=16 PLY=40 OPS=6000 REPEAT=2
#                            CLIENTS="1 8 32" READS="game legal pgn list page game304"
#                            POOL=32 THREADS=POOL SEED=22; PERF=1 adds korpd's CPU
#                            profile at the most clients, perf record -g)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

bench_defaults GAMES=64 PAIRS=16 PLY=40 OPS=6000 OPS_CHECK=64 REPEAT=2 "CLIENTS=1 8 32" \
    "READS=game legal pgn list page game304" POOL=32 SEED=22
THREADS=${THREADS:-$POOL}
BUILD=build-bench

[ "$GAMES" -le 120 ] || die "GAMES: at most 120 (pgbench takes at most 128 scripts)"
[ $((GAMES % PAIRS)) = 0 ] || die "PAIRS must divide GAMES"
for c in $CLIENTS; do [ $((OPS % c)) = 0 ] || die "OPS must be a multiple of $c"; done

korp_install $KORP_PACKAGES python3
bench_machine
bench_tmp korp-reads
KPID=
bench_on_exit '[ -z "$KPID" ] || korp_stop_pid "$KPID"'

# ---- build: korpd, the load clients, korpd's statement texts
bench_build_korpd "$BUILD" build-bench-rev "$TMP"
bench_build_client readload
bench_build_client moveload
bench_build_statements
"$TMP/statements" >"$TMP/statements.txt"
sql_of() {   # NAME: korpd's text of that statement
    awk -F '\t' -v n="$1" '$1 == n { print $2; found = 1 } END { exit !found }' "$TMP/statements.txt" ||
        die "no statement $1 in db/db_statements.c"
}

# ---- PostgreSQL with pg_stat_statements (tracking only during the check)
bench_pg korp_bench
export PGPASSFILE=$TMP/korp.pgpass
bench_pg_statements korp_bench
PG_MAIN=$(head -n 1 "$TMP/pg/postmaster.pid")
PSQL=("$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -d korp_bench)

# ---- korpd
korp_free_port "$PORT" || die "no free port for korpd"
KPORT=$KORP_FREE_PORT
KORP_DATABASE_URL="$(bench_db_url korp_bench)" \
KORP_LISTEN=127.0.0.1:$KPORT KORP_RATE_LIMIT=0 KORP_SIGNUP_LIMIT=0 KORP_EMAIL_CONFIRMATION=off \
KORP_CHALLENGES_PER_DAY=0 KORP_CONNECTIONS_PER_ADDRESS=0 KORP_DB_POOL_SIZE=$POOL \
KORP_HTTP_THREADS=$THREADS "$KORPD" </dev/null >"$TMP/korpd.log" 2>&1 &
KPID=$!
bench_wait_korpd korpd "$KPID" "$KPORT" "$TMP/korpd.log"
say "korpd (pid $KPID) on 127.0.0.1:$KPORT: $(grep -m1 -o "[0-9]* database connections, [0-9]* request workers" "$TMP/korpd.log" || true)"

# ---- players and games through the API, played to ply PLY
python3 bench/moves_setup.py 127.0.0.1 "$KPORT" "$PAIRS" "$GAMES" "$TMP/games.txt"
"$TMP/moveload" 127.0.0.1 "$KPORT" "$TMP/games.txt" "$TMP/games.next" "$PAIRS" "$PLY" >/dev/null ||
    die "playing the games to ply $PLY failed"
mv "$TMP/games.next" "$TMP/games.txt"
mapfile -t GIDS < <(cut -d' ' -f1 "$TMP/games.txt")
# Game i is between pair i % PAIRS: the players of the first PAIRS games.
mapfile -t PIDS < <("${PSQL[@]}" -tAc "SELECT white_id FROM games WHERE id = ANY ('{$(IFS=,; echo "${GIDS[*]:0:$PAIRS}")}') UNION SELECT black_id FROM games WHERE id = ANY ('{$(IFS=,; echo "${GIDS[*]:0:$PAIRS}")}') ORDER BY 1")
"${PSQL[@]}" -c "VACUUM ANALYZE players, games, moves, ratings"
say "made $((PAIRS * 2)) players and $GAMES games at ply $PLY ($("${PSQL[@]}" -tAc "SELECT count(*) FROM moves") moves stored)"

# ---- the reads: korpd's requests (readload's lines) and statements
# (pgbench's scripts).  Per read: the statements in order, with the
# parameters korpd binds (:g a game id, :p a player id).
declare -A STMTS=(
    [game]="game_get(':g')"
    [game304]="game_get(':g')"
    [legal]="game_get(':g')"
    [pgn]="game_get(':g') move_list(':g')"
    [list]="game_list(':p',NULL,NULL,NULL,NULL,21)"
    [page]="player_get(':p') leave_until(':p') player_ratings(':p') player_stats(':p') game_list(':p','finished',NULL,NULL,NULL,21) game_list(':p','active',NULL,NULL,NULL,101)"
)
paths_of() {   # READ ID: readload's fields after the status and If-None-Match
    case $1 in
        game|game304) printf '/v1/games/%s' "$2" ;;
        legal) printf '/v1/games/%s/legal-moves' "$2" ;;
        pgn) printf '/v1/games/%s/pgn' "$2" ;;
        list) printf '/v1/games?player=%s' "$2" ;;
        page) printf '/v1/players/%s\t/v1/games?player=%s&status=finished&limit=20\t/v1/games?player=%s&status=active&limit=100' "$2" "$2" "$2" ;;
    esac
}
uses_players() { [ "$1" = list ] || [ "$1" = page ]; }
for r in $READS; do
    [ -n "${STMTS[$r]:-}" ] || die "READS: no read $r (game legal pgn list page game304)"
    : >"$TMP/ops.$r"
    if uses_players "$r"; then ids=("${PIDS[@]}"); else ids=("${GIDS[@]}"); fi
    for i in "${!ids[@]}"; do
        inm=-
        if [ "$r" = game304 ]; then
            inm=$(curl -sf -D - -o /dev/null "http://127.0.0.1:$KPORT/v1/games/${ids[$i]}" | tr -d '\r' |
                sed -n 's/^[Ee][Tt][Aa][Gg]: //p')
            [ -n "$inm" ] || die "no ETag on /v1/games/${ids[$i]}"
        fi
        printf '%s\t%s\t%s\n' "$([ "$r" = game304 ] && echo 304 || echo 200)" "$inm" \
            "$(paths_of "$r" "${ids[$i]}")" >>"$TMP/ops.$r"
        # pgbench, two ways.  "e": script i PREPAREs korpd's statements on a
        # client's first transaction, then EXECUTEs them with id i (variable
        # v$i), NULLs as NULLs (pgbench -M simple).  "p": korpd's texts
        # themselves with pgbench -M prepared (the protocol korpd uses:
        # Parse once, then Bind/Execute), possible only for reads without
        # NULL parameters (pgbench binds no NULL).
        v=$(uses_players "$r" && echo p || echo g)
        {
            echo '\if :ready = 0'
            for s in ${STMTS[$r]}; do
                name=${s%%(*}
                grep -q "^PREPARE $name AS" "$TMP/prep.$r.$i" 2>/dev/null && continue
                printf 'PREPARE %s AS %s;\n' "$name" "$(sql_of "$name")" | tee -a "$TMP/prep.$r.$i"
            done
            echo '\set ready 1'
            echo '\endif'
            for s in ${STMTS[$r]}; do
                printf 'EXECUTE %s;\n' "$(sed "s/:$v\b/:$v$i/g" <<<"$s")"
            done
        } >"$TMP/pgb.e.$r.$i.sql"
        if ! grep -q NULL <<<"${STMTS[$r]}"; then
            for s in ${STMTS[$r]}; do
                # one parameter, $1: the id
                printf '%s;\n' "$(sql_of "${s%%(*}" | sed "s/\\\$1\b/:$v$i/g")"
            done >"$TMP/pgb.p.$r.$i.sql"
        fi
        echo "-D $v$i=${ids[$i]}" >>"$TMP/pgbvars.$r"
    done
done

# ---- the check: korpd runs exactly these statements for each read
# (pg_stat_statements, tracking on only now), and the scripts run them.
normalize() {   # "calls<TAB>text" lines: constants and parameters of the text as $?
    perl -F'\t' -lane '$t = $F[1]; $t =~ s/\x27[^\x27]*\x27/\$?/g; $t =~ s/\$\d+/\$?/g;
        $t =~ s/\b\d+(\.\d+)?\b/\$?/g; $t =~ s/\b(true|false)\b/\$?/g;
        $t =~ s/(?<!IS )(?<!NOT )\bNULL\b/\$?/g; $t =~ s/extract\(epoch /extract(\$? /g;
        print "$F[0]\t$t"'
}
pss() { korp_pg_admin "$TMP/pg" "$PORT" -d korp_bench -tA "$@"; }
for r in $READS; do
    pss -c "ALTER SYSTEM SET pg_stat_statements.track = 'top'" -c "SELECT pg_reload_conf()" >/dev/null
    pss -c "SELECT pg_stat_statements_reset()" >/dev/null
    out=$("$TMP/readload" 127.0.0.1 "$KPORT" "$TMP/ops.$r" 1 "$OPS_CHECK" "$SEED") ||
        die "$r: korpd's answers were not all $(head -c3 "$TMP/ops.$r") ($out)"
    pss -c "ALTER SYSTEM SET pg_stat_statements.track = 'none'" -c "SELECT pg_reload_conf()" >/dev/null
    # Expected: each statement's text with its number of calls; texts
    # compared with their constants and parameters all written $? (as
    # pg_stat_statements writes constants).  Statements run fewer than
    # OPS_CHECK times are korpd's background work (sweeper, workers).
    for s in ${STMTS[$r]}; do echo "${s%%(*}"; done | sort | uniq -c |
        while read -r n name; do printf '%s\t%s\n' "$((n * OPS_CHECK))" "$(sql_of "$name")"; done |
        normalize | sort >"$TMP/check.expected"
    pss -F $'\t' -c "SELECT calls, query FROM pg_stat_statements s JOIN pg_roles r ON r.oid = s.userid
        WHERE r.rolname = '$KORP_PG_USER' AND calls >= $OPS_CHECK" | normalize |
        # korp_now()'s body: the planner runs stable functions to estimate a
        # custom plan (a prepared statement's first executions on a
        # connection), outside the executor's nesting, so pg_stat_statements
        # counts it as a statement of its own; pgbench's plans run it alike.
        grep -v 'FROM clock$' | sort >"$TMP/check.actual"
    diff "$TMP/check.expected" "$TMP/check.actual" >"$TMP/check.diff" ||
        { cat "$TMP/check.diff" >&2; die "$r: korpd ran other statements than bench/reads.sh says (calls, text)"; }
done
say "checked: for each read korpd runs exactly the statements pgbench runs ($OPS_CHECK operations each)"

# ---- CPU from /proc (proc_ticks, pg_ticks, us_per: bench/lib.sh)
pg_children() { ps --ppid "$PG_MAIN" -o pid= | wc -l; }
pg_settle() { for _ in $(seq 1 50); do [ "$(pg_children)" -le "$1" ] && return; sleep 0.1; done; }

declare -A R
keep() {   # ENGINE READ C RATE FIELD=VALUE...: kept when the best rate so far
    local key=$1,$2,$3 rate=$4 kv
    awk -v a="$rate" -v b="${R[$key,rate]:-0}" 'BEGIN { exit !(a > b) }' || return 0
    R[$key,rate]=$rate
    shift 4
    for kv in "$@"; do R[$key,${kv%%=*}]=${kv#*=}; done
}
korpd_run() {   # READ C
    local r=$1 c=$2 k0 p0 k1 p1 out perf_pid=
    if [ "${PERF:-0}" = 1 ] && [ "$c" = "${CLIENTS##* }" ]; then
        perf record -q -g -p "$KPID" -o "$TMP/perf.$r.$c.$rep" >/dev/null 2>&1 &
        perf_pid=$!
        sleep 0.5
    fi
    k0=$(proc_ticks "$KPID"); p0=$(pg_ticks)
    out=$("$TMP/readload" 127.0.0.1 "$KPORT" "$TMP/ops.$r" "$c" $((OPS / c)) "$((SEED + rep))") ||
        die "$r: readload failed ($out; korpd log: $(tail -n 3 "$TMP/korpd.log"))"
    k1=$(proc_ticks "$KPID"); p1=$(pg_ticks)
    if [ -n "$perf_pid" ]; then kill -INT "$perf_pid"; wait "$perf_pid" || true; fi
    keep k "$r" "$c" "$(field rate "$out")" p50="$(field p50_ms "$out")" p99="$(field p99_ms "$out")" \
        cpu_k="$(us_per $((k1 - k0)) "$OPS")" cpu_p="$(us_per $((p1 - p0)) "$OPS")" \
        bytes="$(field bytes_per_op "$out")"
    printf 'korpd    %-7s %2d client(s) %s\n' "$r" "$c" "$out"
}
pgbench_run() {   # READ C MODE (p: -M prepared, korpd's texts; e: PREPARE/EXECUTE)
    local r=$1 c=$2 m=$3 p0 p1 kids tps ntx scripts=() i proto=simple
    [ "$m" = p ] && proto=prepared
    for i in "${!GIDS[@]}"; do
        [ -f "$TMP/pgb.$m.$r.$i.sql" ] && scripts+=(-f "$TMP/pgb.$m.$r.$i.sql@1")
    done
    rm -f "$TMP"/pgblog.*
    pg_settle 1000; kids=$(pg_children)
    p0=$(pg_ticks)
    # shellcheck disable=SC2046 # the -D options, one per script
    "$(korp_pg_bin)/pgbench" -n -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER" -M "$proto" \
        -c "$c" -j $((c < 2 ? c : 2)) -t $((OPS / c)) -D ready=0 $(cat "$TMP/pgbvars.$r") \
        "${scripts[@]}" -l --log-prefix="$TMP/pgblog" korp_bench \
        >"$TMP/pgbench.out" 2>"$TMP/pgbench.err" ||
        { cat "$TMP/pgbench.err" "$TMP/pgbench.out" >&2; die "pgbench failed on $r"; }
    pg_settle "$kids"
    p1=$(pg_ticks)
    ntx=$(sed -n 's/^number of transactions actually processed: \([0-9]*\).*/\1/p' "$TMP/pgbench.out")
    [ "$ntx" = "$OPS" ] || { cat "$TMP/pgbench.err" "$TMP/pgbench.out" >&2; die "pgbench: $ntx of $OPS on $r"; }
    tps=$(sed -n 's/^tps = \([0-9.]*\) (without.*/\1/p' "$TMP/pgbench.out")
    read -r p50 p99 < <(pgbench_ms 2 0.5 0.99 -- "$TMP"/pgblog.*)
    keep "$m" "$r" "$c" "$tps" p50="$p50" p99="$p99" cpu_p="$(us_per $((p1 - p0)) "$OPS")"
    printf 'pgbench-%s %-7s %2d client(s) tps=%s transactions=%s p50_ms=%s p99_ms=%s\n' "$m" "$r" "$c" "$tps" "$ntx" "$p50" "$p99"
}

for rep in $(seq 1 "$REPEAT"); do
    say "run $rep of $REPEAT (load $(cut -d' ' -f1-3 /proc/loadavg))"
    for c in $CLIENTS; do
        for r in $READS; do
            korpd_run "$r" "$c"
            # The baseline: korpd's protocol where pgbench can (no NULLs),
            # else PREPARE/EXECUTE; for `game` both (what the EXECUTE way
            # costs on its own).
            if [ -f "$TMP/pgb.p.$r.0.sql" ]; then pgbench_run "$r" "$c" p; fi
            if [ ! -f "$TMP/pgb.p.$r.0.sql" ] || [ "$r" = game ]; then pgbench_run "$r" "$c" e; fi
        done
    done
done
if [ "${PERF:-0}" = 1 ]; then bench_perf_report read.clients.run 25; fi

echo
echo "reads over HTTP (korpd) vs pgbench (the same statements), operations/s, best of $REPEAT; $(nproc) cores; load before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - T_START )) s"
printf '%-7s %2s | %8s %6s %6s %6s | %9s %-4s %6s %6s | %6s | %s\n' read cl "korpd/s" p50ms p99ms "B/op" \
    "pgbench/s" how p50ms p99ms "k/pgb" "CPU us/op: korpd, its postgres | pgbench's postgres"
for c in $CLIENTS; do
    for r in $READS; do
        m=p; [ -n "${R[p,$r,$c,rate]:-}" ] || m=e
        printf '%-7s %2s | %8.0f %6s %6s %6s | %9.0f %-4s %6s %6s | %5sx | %5s %5s | %5s\n' "$r" "$c" \
            "${R[k,$r,$c,rate]}" "${R[k,$r,$c,p50]}" "${R[k,$r,$c,p99]}" "${R[k,$r,$c,bytes]}" \
            "${R[$m,$r,$c,rate]}" "$([ $m = p ] && echo prep || echo exec)" "${R[$m,$r,$c,p50]}" \
            "${R[$m,$r,$c,p99]}" "$(ratio "${R[k,$r,$c,rate]}" "${R[$m,$r,$c,rate]}")" \
            "${R[k,$r,$c,cpu_k]}" "${R[k,$r,$c,cpu_p]}" "${R[$m,$r,$c,cpu_p]}"
    done
done
# The EXECUTE way against korpd's protocol, on `game` (both run): how much
# the list and page baselines (EXECUTE only) are below what korpd's
# protocol would give.
for c in $CLIENTS; do
    [ -n "${R[e,game,$c,rate]:-}" ] && [ -n "${R[p,game,$c,rate]:-}" ] || continue
    printf 'game, %2s client(s): pgbench PREPARE/EXECUTE %.0f/s, -M prepared %.0f/s (exec/prep %sx; postgres CPU us/op %s vs %s)\n' \
        "$c" "${R[e,game,$c,rate]}" "${R[p,game,$c,rate]}" "$(ratio "${R[e,game,$c,rate]}" "${R[p,game,$c,rate]}")" \
        "${R[e,game,$c,cpu_p]}" "${R[p,game,$c,cpu_p]}"
done
