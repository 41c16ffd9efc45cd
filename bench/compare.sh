#!/usr/bin/env bash
# bench/compare.sh — two commits' korpd side by side, in one sitting, so
# that a regression cannot hide behind a baseline that slowed down with it.
#
# usage: bench/compare.sh OLD NEW        (e.g. bench/compare.sh 6361a79 HEAD)
#        bench/compare.sh HEAD .         (".": the working tree, uncommitted
#                                         changes included, as NEW or OLD)
#
# What it does, all on loopback (ports below 32768, free-probed),
# everything stopped by PID on exit:
#   - builds korpd (Release) of OLD and of NEW, each from a snapshot of that
#     commit (bench/lib.sh's bench_build_korpd with BENCH_REV) in BUILDS/old
#     and BUILDS/new (kept between invocations; only the files that changed
#     since the last snapshot are rewritten, so a rebuild is incremental);
#   - builds the load clients once, from this tree (bench/moveload.c,
#     bench/readload.c, bench/loadclient.c): one binary for both commits,
#     so the client is not what differs;
#   - one throwaway PostgreSQL (fsync on) for all the runs;
#   - four runs in ABBA order: OLD, NEW, NEW, OLD.  Each: a fresh database,
#     that commit's korpd on it (rate limits off, POOL connections, THREADS
#     request workers, as bench/moves.sh), players and games made through
#     the API (bench/moves_setup.py; Korpalski, 3 days per move: the clock
#     runs), then
#       moves   POST /v1/games/{id}/moves at 1 and 32 clients (bench/moveload.c)
#               on SHORT_GAMES short games (from ply 3) and LONG_GAMES long
#               ones (played to LONG_PLY first);
#       reads   GET /v1/games/{id}, /v1/games/{id}/legal-moves and
#               /v1/games/{id}/pgn at 1 and 8 clients (bench/readload.c) on
#               READ_GAMES games at ply READ_PLY whose clocks run;
#     each measurement with the load average before it, its rate, p50/p99
#     latency, and CPU per operation of PostgreSQL (the whole cluster) and
#     of korpd, from /proc;
#   - a table: each figure of each commit (the best of its two runs: other
#     work on the machine only makes a figure worse) and new/old.
# A line "run ..." per measurement as it ends (key=value), then the table
# as the last lines.  Exit 0 when every run finished.
#
# Settings (environment): SHORT_GAMES=768 LONG_GAMES=96 LONG_PLY=100
#   PAIRS=32 MOVES_1=1536 MOVES_32=6144 READ_GAMES=64 READ_PLY=40
#   OPS_1=4000 OPS_8=16000 POOL=32 THREADS=POOL WAKE_MS=5 SEED=31
#   BUILDS=build-compare (where the commits are built)
#   MOVE_CLIENTS="1 32" READ_CLIENTS="1 8" READS="game legal pgn" RUNS=ABBA
#   MARKDOWN=1 prints the table a second time as Markdown
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

[ $# = 2 ] || die "usage: bench/compare.sh OLD NEW (two commits)"
bench_defaults SHORT_GAMES=768 LONG_GAMES=96 LONG_PLY=100 PAIRS=32 MOVES_1=1536 MOVES_32=6144 \
    READ_GAMES=64 READ_PLY=40 OPS_1=4000 OPS_8=16000 POOL=32 WAKE_MS=5 SEED=31 BUILDS=build-compare \
    "MOVE_CLIENTS=1 32" "READ_CLIENTS=1 8" "READS=game legal pgn" RUNS=ABBA
THREADS=${THREADS:-$POOL}
rev_of() {   # ARG: the commit, or "." for the working tree
    if [ "$1" = . ]; then echo .; else git rev-parse --verify "$1^{commit}" || die "no commit $1"; fi
}
name_of() {  # REV: a short name
    if [ "$1" = . ]; then echo "$(git rev-parse --short HEAD)+"; else git rev-parse --short "$1"; fi
}
OLD=$(rev_of "$1"); NEW=$(rev_of "$2")
declare -A REV=([A]=$OLD [B]=$NEW)
declare -A NAME=([A]=$(name_of "$OLD") [B]=$(name_of "$NEW"))
declare -A SLOT=([A]=old [B]=new)     # where each is built, under BUILDS
[ "$OLD" != "$NEW" ] || say "OLD and NEW are the same: the table shows the noise"

# ---- the settings checked before anything is built
games_all=$((SHORT_GAMES + LONG_GAMES + READ_GAMES))
for c in $MOVE_CLIENTS; do
    n=MOVES_$c; n=${!n:-}
    [ -n "$n" ] || die "MOVE_CLIENTS: no MOVES_$c setting for $c clients"
    [ $((n % SHORT_GAMES)) = 0 ] && [ $((n % LONG_GAMES)) = 0 ] ||
        die "MOVES_$c ($n) must be a multiple of SHORT_GAMES ($SHORT_GAMES) and LONG_GAMES ($LONG_GAMES)"
    [ $((SHORT_GAMES % c)) = 0 ] && [ $((LONG_GAMES % c)) = 0 ] && [ $((PAIRS % c)) = 0 ] ||
        die "SHORT_GAMES, LONG_GAMES and PAIRS must be multiples of $c (each client its own games and players)"
done
for c in $READ_CLIENTS; do
    n=OPS_$c; n=${!n:-}
    [ -n "$n" ] || die "READ_CLIENTS: no OPS_$c setting for $c clients"
    [ $((n % c)) = 0 ] || die "OPS_$c must be a multiple of $c"
done
[ $((PAIRS % 8)) = 0 ] || die "PAIRS must be a multiple of 8 (the set-up plays on 8 clients)"
[ $((SHORT_GAMES % PAIRS)) = 0 ] && [ $((LONG_GAMES % PAIRS)) = 0 ] ||
    die "PAIRS must divide SHORT_GAMES and LONG_GAMES (game i is between pair i % PAIRS)"
[ $((READ_GAMES % 8)) = 0 ] && [ "$READ_GAMES" -le 4096 ] || die "READ_GAMES: a multiple of 8, at most 4096"
[ "$LONG_PLY" -ge 8 ] && [ "$READ_PLY" -ge 4 ] || die "LONG_PLY at least 8, READ_PLY at least 4"
for r in $READS; do case $r in game|legal|pgn) ;; *) die "READS: game, legal and/or pgn, not $r" ;; esac; done
[[ $RUNS =~ ^[AB]+$ ]] || die "RUNS: a sequence of A (OLD) and B (NEW), e.g. ABBA"

korp_install $KORP_PACKAGES python3
bench_machine
bench_tmp korp-compare
KPID=
bench_on_exit '[ -z "$KPID" ] || korp_stop_pid "$KPID"'

# ---- korpd of each commit; the load clients once, from this tree
declare -A KORPD_OF
for x in A B; do
    if [ "${REV[$x]}" = . ]; then
        BENCH_REV='' BENCH_OVERLAY='' BENCH_SRC='' BENCH_REVDIR='' bench_build_korpd "$BUILDS/worktree" unused "$TMP"
    else
        BENCH_REV=${REV[$x]} BENCH_OVERLAY='' BENCH_SRC='' BENCH_REVDIR='' bench_build_korpd unused "$BUILDS/${SLOT[$x]}" "$TMP"
    fi
    KORPD_OF[$x]=$KORPD
done
bench_build_client moveload
bench_build_client readload
say "load clients from this tree ($(git rev-parse --short HEAD)): $(sha256sum "$TMP/moveload" "$TMP/readload" | cut -c1-12 | tr '\n' ' ')"

bench_pg
export PGPASSFILE=$TMP/korp.pgpass
PG_MAIN=$(head -n 1 "$TMP/pg/postmaster.pid")
korp_free_port "$PORT" || die "no free port for korpd"
KPORT=$KORP_FREE_PORT

# ---- one run: a fresh database, the commit's korpd, the games, the measurements
declare -A V          # V[x,what,figure,run] and the best of each commit's runs in B_[...]
WHATS=()              # the measurements, in order
note() {   # X RUN WHAT FIGURE=VALUE...: keeps a run's figures
    local x=$1 run=$2 what=$3 kv
    shift 3
    [[ " ${WHATS[*]} " == *" $what "* ]] || WHATS+=("$what")
    for kv in "$@"; do V[$x,$what,${kv%%=*},$run]=${kv#*=}; done
}
load_now() { cut -d' ' -f1 /proc/loadavg; }

start_korpd() {   # X DATABASE
    KORP_DATABASE_URL="$(bench_db_url "$2")" KORP_LISTEN=127.0.0.1:$KPORT \
    KORP_WAKE_INTERVAL_MS=$WAKE_MS KORP_RATE_LIMIT=0 KORP_SIGNUP_LIMIT=0 KORP_EMAIL_CONFIRMATION=off \
    KORP_CHALLENGES_PER_DAY=0 KORP_CONNECTIONS_PER_ADDRESS=0 \
    KORP_DB_POOL_SIZE=$POOL KORP_HTTP_THREADS=$THREADS \
        "${KORPD_OF[$1]}" </dev/null >"$TMP/korpd.$1.log" 2>&1 &
    KPID=$!
    bench_wait_korpd "korpd ${NAME[$1]}" "$KPID" "$KPORT" "$TMP/korpd.$1.log"
}

play() {   # SET CLIENTS ROUNDS: moveload on the set; updates its file; prints moveload's line
    "$TMP/moveload" 127.0.0.1 "$KPORT" "$TMP/$1.txt" "$TMP/$1.next" "$2" "$3" ||
        die "moves failed on the $1 games (korpd log: $(tail -n 3 "$TMP/korpd.log" 2>/dev/null))"
    mv "$TMP/$1.next" "$TMP/$1.txt"
}

measure() {   # X RUN WHAT N COMMAND...: runs COMMAND (a load client), notes its figures
    local x=$1 run=$2 what=$3 n=$4 load k0 p0 k1 p1 out
    shift 4
    load=$(load_now)
    k0=$(proc_ticks "$KPID"); p0=$(pg_ticks)
    out=$("$@") || die "$what failed on ${NAME[$x]} ($out; korpd: $(tail -n 3 "$TMP/korpd.$x.log"))"
    k1=$(proc_ticks "$KPID"); p1=$(pg_ticks)
    [ "$(field errors "$out")" = 0 ] || die "$what on ${NAME[$x]}: errors in $out"
    note "$x" "$run" "$what" rate="$(field rate "$out")" p50="$(field p50_ms "$out")" \
        p99="$(field p99_ms "$out")" pg_us="$(us_per $((p1 - p0)) "$n")" \
        korpd_us="$(us_per $((k1 - k0)) "$n")" load="$load"
    printf 'run %s %-7s %-12s load=%s rate=%s p50_ms=%s p99_ms=%s pg_us_per_op=%s korpd_us_per_op=%s\n' \
        "$run" "${NAME[$x]}" "$what" "$load" "$(field rate "$out")" "$(field p50_ms "$out")" \
        "$(field p99_ms "$out")" "$(us_per $((p1 - p0)) "$n")" "$(us_per $((k1 - k0)) "$n")"
}

one_run() {   # X RUN: the whole run of commit X (A: OLD, B: NEW), the RUN-th of the sitting
    local x=$1 run=$2 db=korp_cmp_$2 c n r t0
    say "run $run: ${NAME[$x]} ($([ "$x" = A ] && echo OLD || echo NEW)), load $(cut -d' ' -f1-3 /proc/loadavg)"
    korp_pg_createdb "$TMP/pg" "$PORT" "$db"
    start_korpd "$x" "$db"
    ln -sf "korpd.$x.log" "$TMP/korpd.log"
    t0=$(date +%s)
    python3 bench/moves_setup.py 127.0.0.1 "$KPORT" "$PAIRS" "$games_all" "$TMP/all.txt"
    head -n "$SHORT_GAMES" "$TMP/all.txt" >"$TMP/short.txt"
    sed -n "$((SHORT_GAMES + 1)),$((SHORT_GAMES + LONG_GAMES))p" "$TMP/all.txt" >"$TMP/long.txt"
    tail -n "$READ_GAMES" "$TMP/all.txt" >"$TMP/read.txt"
    play short 8 3 >/dev/null
    play long 8 "$LONG_PLY" >/dev/null
    play read 8 "$READ_PLY" >/dev/null
    for r in $READS; do
        cut -d' ' -f1 "$TMP/read.txt" | while read -r g; do
            case $r in
                game) printf '200\t-\t/v1/games/%s\n' "$g" ;;
                legal) printf '200\t-\t/v1/games/%s/legal-moves\n' "$g" ;;
                pgn) printf '200\t-\t/v1/games/%s/pgn\n' "$g" ;;
            esac
        done >"$TMP/ops.$r"
    done
    "${PSQL[@]}" -d "$db" -c "VACUUM ANALYZE players, games, moves" >/dev/null
    say "set up in $(( $(date +%s) - t0 )) s: $((PAIRS * 2)) players, $SHORT_GAMES short games at ply 3, $LONG_GAMES long at ply $LONG_PLY, $READ_GAMES to read at ply $READ_PLY"
    for c in $MOVE_CLIENTS; do
        n=MOVES_$c; n=${!n}
        measure "$x" "$run" "moves-short-$c" "$n" play short "$c" $((n / SHORT_GAMES))
        measure "$x" "$run" "moves-long-$c" "$n" play long "$c" $((n / LONG_GAMES))
    done
    for c in $READ_CLIENTS; do
        n=OPS_$c; n=${!n}
        for r in $READS; do
            measure "$x" "$run" "$r-$c" "$n" "$TMP/readload" 127.0.0.1 "$KPORT" "$TMP/ops.$r" "$c" \
                $((n / c)) "$SEED"
        done
    done
    korp_stop_pid "$KPID"; KPID=
    korp_pg_admin "$TMP/pg" "$PORT" -d postgres -c "DROP DATABASE $db" >/dev/null
}
PSQL=("$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PORT" -U "$KORP_PG_USER")

RUN_OF=()   # RUN_OF[run] = A or B
for ((i = 0; i < ${#RUNS}; i++)); do
    RUN_OF+=("${RUNS:i:1}")
    one_run "${RUNS:i:1}" $((i + 1))
done

# ---- the table: each figure, the best of each commit's runs, and new/old
best() {   # X WHAT FIGURE: max of the runs for rates, min for the others ("-": none)
    local x=$1 what=$2 fig=$3 run vals=()
    for run in "${!RUN_OF[@]}"; do
        [ "${RUN_OF[$run]}" = "$x" ] || continue
        vals+=("${V[$x,$what,$fig,$((run + 1))]:-}")
    done
    printf '%s\n' "${vals[@]}" | awk -v max="$([ "$fig" = rate ] && echo 1 || echo 0)" '
        $1 != "" { if (n++ == 0 || (max ? $1 > b : $1 < b)) b = $1 }
        END { if (n) printf "%s", b; else printf "-" }'
}
loads() {   # X WHAT: the load before each of the commit's runs of WHAT
    local x=$1 what=$2 run out=
    for run in "${!RUN_OF[@]}"; do
        [ "${RUN_OF[$run]}" = "$x" ] && out+="${out:+/}${V[$x,$what,load,$((run + 1))]:-}"
    done
    printf '%s' "$out"
}
div() { awk -v a="$1" -v b="$2" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) printf "-"; else printf "%.2f", a / b }'; }
fmt() {   # VALUE FIGURE: latencies with two decimals, rates and CPU whole
    awk -v v="$1" -v f="$2" 'BEGIN { if (v == "-") printf "-"; else if (f ~ /^p[0-9]/ && v < 100) printf "%.2f", v; else printf "%.0f", v }'
}

echo
echo "compare: OLD ${NAME[A]} -> NEW ${NAME[B]}; runs $RUNS (A: OLD, B: NEW), best of each commit's runs; $(nproc) cores; load before $LOAD_BEFORE, after $(cut -d' ' -f1-3 /proc/loadavg); $(( $(date +%s) - T_START )) s"
echo "moves: $SHORT_GAMES short games from ply 3, $LONG_GAMES long from ply $LONG_PLY, MOVES_1=${MOVES_1:-} MOVES_32=${MOVES_32:-}; reads: $READ_GAMES games at ply $READ_PLY (clock running), OPS_1=${OPS_1:-} OPS_8=${OPS_8:-}; korpd POOL=$POOL THREADS=$THREADS"
echo "rate: operations/s (higher is better, new/old >= 1.00 is as fast); p50/p99: latency in ms; pg_us, korpd_us: CPU microseconds per operation (PostgreSQL's whole cluster; korpd); load: the 1-minute load average before each run of the commit"
printf '%-16s | %9s %9s %7s | %7s %7s %7s | %7s %7s %7s | %7s %7s %7s | %7s %7s %7s | %s\n' \
    what "rate ${NAME[A]:0:4}" "rate ${NAME[B]:0:4}" new/old p50_old p50_new new/old \
    p99_old p99_new new/old pg_old pg_new new/old korpd_o korpd_n new/old "load old | new"
MD="| what | rate/s ${NAME[A]} | ${NAME[B]} | new/old | p50 ms ${NAME[A]} | ${NAME[B]} | new/old | p99 ms ${NAME[A]} | ${NAME[B]} | new/old | PostgreSQL CPU us/op ${NAME[A]} | ${NAME[B]} | new/old | korpd CPU us/op ${NAME[A]} | ${NAME[B]} | new/old | load before (old; new) |"$'\n'
MD+="|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"$'\n'
for what in "${WHATS[@]}"; do
    line=$(printf '%-16s |' "$what")
    md="| $what |"
    for fig in rate p50 p99 pg_us korpd_us; do
        o=$(best A "$what" "$fig"); n=$(best B "$what" "$fig")
        md+=" $(fmt "$o" "$fig") | $(fmt "$n" "$fig") | $(div "$n" "$o") |"
        if [ "$fig" = rate ]; then
            line+=$(printf ' %9s %9s %7s |' "$(fmt "$o" "$fig")" "$(fmt "$n" "$fig")" "$(div "$n" "$o")")
        else
            line+=$(printf ' %7s %7s %7s |' "$(fmt "$o" "$fig")" "$(fmt "$n" "$fig")" "$(div "$n" "$o")")
        fi
    done
    echo "$line $(loads A "$what") | $(loads B "$what")"
    MD+="$md $(loads A "$what"); $(loads B "$what") |"$'\n'
done
# The load the runs began under: the benchmark itself leaves about 2 behind;
# far above that, something else was running and the figures say less.
max_load=$(for k in "${!V[@]}"; do if [[ $k == *,load,* ]]; then echo "${V[$k]}"; fi; done | sort -g | tail -n 1)
if awk -v l="${max_load:-0}" -v n="$(nproc)" 'BEGIN { exit !(l > n + 2) }'; then
    echo "warning: the load before a run reached $max_load on $(nproc) cores: other work was running; run again on a quiet machine"
fi
# A move at ply 100+ against one near ply 3: long/short moves/s per commit (1.00: no cost
# growing with the game's history).
for c in $MOVE_CLIENTS; do
    printf 'long/short moves/s, %2s client(s): %s %s, %s %s\n' "$c" \
        "${NAME[A]}" "$(div "$(best A "moves-long-$c" rate)" "$(best A "moves-short-$c" rate)")" \
        "${NAME[B]}" "$(div "$(best B "moves-long-$c" rate)" "$(best B "moves-short-$c" rate)")"
done
# MARKDOWN=1: the table again, for docs/benchmarks.md.
[ "${MARKDOWN:-0}" = 0 ] || printf '\n%s' "$MD"
