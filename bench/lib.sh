# bench/lib.sh — what the benchmarks (bench/moves.sh, reads.sh, day.sh,
# streams.sh, notify.sh, prune.sh) share: korpd built, a throwaway
# PostgreSQL, processes stopped by PID, CPU read from /proc and latency
# percentiles of pgbench's logs; source it after scripts/lib.sh, from the
# repository's root.

# bench_build_korpd BUILD REVDIR TMP: builds korpd (Release, -Werror) and
# sets SRC (the sources built) and KORPD (the binary).
#   from the working tree into BUILD, or, with BENCH_REV=<git revision>,
#   from a snapshot of that revision in REVDIR/src (only changed files
#   rewritten, so the build stays incremental) into REVDIR/build: others may
#   be editing the working tree.  BENCH_OVERLAY="path ..." copies those
#   files of the working tree over the snapshot (a change under test on a
#   committed base).  BENCH_REVDIR=<dir> instead of REVDIR (bench/
#   day_compare.sh: day.sh reuses bench/compare.sh's builds).  BENCH_SRC=<dir> builds another source tree (a
#   scratch copy, for experiments) in <dir>/build-bench.
bench_build_korpd() {
    local build=$1 revdir=${BENCH_REVDIR:-$2} tmp=$3 rev snap f
    SRC=.
    if [ -n "${BENCH_SRC:-}" ]; then
        # An experiment: another source tree (a scratch copy), built in it.
        [ -f "$BENCH_SRC/korpd/main.c" ] || die "BENCH_SRC: no korp sources in $BENCH_SRC"
        SRC=$BENCH_SRC; build=$BENCH_SRC/build-bench
        say "korpd from the sources in $SRC (an experiment)"
    elif [ -n "${BENCH_REV:-}" ]; then
        rev=$(git rev-parse --verify "$BENCH_REV^{commit}") || die "no revision $BENCH_REV"
        SRC=$revdir/src; build=$revdir/build
        snap=$tmp/src; mkdir "$snap"
        git archive "$rev" | tar -x -C "$snap"
        for f in ${BENCH_OVERLAY:-}; do
            [ -f "$f" ] || die "BENCH_OVERLAY: no file $f"
            mkdir -p "$snap/$(dirname "$f")"; cp "$f" "$snap/$f"
        done
        mkdir -p "$SRC"
        (cd "$snap" && find . -type f) | while read -r f; do
            cmp -s "$snap/$f" "$SRC/$f" || { mkdir -p "$SRC/$(dirname "$f")"; cp "$snap/$f" "$SRC/$f"; }
        done
        (cd "$SRC" && find . -type f) | while read -r f; do [ -e "$snap/$f" ] || rm -f "$SRC/$f"; done
        rm -rf "$snap"
        say "korpd from revision $(git rev-parse --short "$rev")${BENCH_OVERLAY:+ + working-tree files: ${BENCH_OVERLAY}} (working tree: $(git status --porcelain -uno | wc -l) files changed)"
    else
        say "korpd from the working tree at $(git rev-parse --short HEAD) ($(git status --porcelain -uno | wc -l) files changed)"
    fi
    # -DCMAKE_C_FLAGS= clears flags an earlier configure may have cached.
    cmake -S "$SRC" -B "$build" -DCMAKE_BUILD_TYPE=Release -DCMAKE_C_FLAGS= >/dev/null
    cmake --build "$build" -j 2 --target korpd >"$build/bench-build.log" 2>&1 ||
        { tail -n 20 "$build/bench-build.log" >&2; die "korpd does not build (Release, -Werror)"; }
    case $build in /*) KORPD=$build/korpd/korpd ;; *) KORPD=$PWD/$build/korpd/korpd ;; esac
}

# bench_machine: notes the start (T_START), the load before (LOAD_BEFORE)
# and says what the machine is.
bench_machine() {
    T_START=$(date +%s)
    LOAD_BEFORE=$(cut -d' ' -f1-3 /proc/loadavg)
    say "machine: $(nproc) cores, $(grep -m1 'model name' /proc/cpuinfo | cut -d: -f2- | sed 's/^ *//'); load before: $LOAD_BEFORE"
}

# bench_tmp PREFIX: a temporary directory under /tmp that PostgreSQL's
# owner can use; sets TMP and OWNER (korp_pg_owner, scripts/lib.sh).
bench_tmp() {
    TMP=$(mktemp -d "/tmp/$1.XXXXXX")
    chmod 755 "$TMP"
    OWNER=$(korp_pg_owner)
    [ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "$TMP"
}

# bench_tmp_remove: stops the PostgreSQL in $TMP/pg, if any, and removes
# TMP (for the scripts' cleanup on exit).
bench_tmp_remove() {
    [ -f "$TMP/pg/PG_VERSION" ] && korp_pg_stop "$TMP/pg" "$OWNER"
    rm -rf "$TMP"
}

# bench_db_url DATABASE: korpd's KORP_DATABASE_URL for that database of
# bench_pg's cluster.
bench_db_url() {
    echo "host=127.0.0.1 port=$PORT dbname=$1 user=$KORP_PG_USER passfile=$TMP/korp.pgpass"
}

# bench_pg DATABASE...: a throwaway PostgreSQL (fsync on) in $TMP/pg on a
# free port, with korpd's role and these databases; sets PORT.
bench_pg() {
    local db
    korp_pg_throwaway "$TMP/pg" "$OWNER"
    PORT=$KORP_PG_PORT_FOUND
    korp_pg_role "$TMP/pg" "$OWNER" "$PORT"
    for db in "$@"; do korp_pg_createdb "$TMP/pg" "$PORT" "$db"; done
    say "PostgreSQL $("$(korp_pg_bin)/postgres" --version | awk '{print $3}') on 127.0.0.1:$PORT (fsync on)"
}

# bench_build_client NAME: builds the load client bench/NAME.c (with
# bench/loadclient.c) into $TMP/NAME.
bench_build_client() {
    cc -O2 -Wall -Wextra -pthread -o "$TMP/$1" "bench/$1.c" bench/loadclient.c
}

# bench_build_statements: builds bench/statements.c, which prints korpd's
# statements (name, tab, SQL) from db/db_statements.c of SRC (the sources
# bench_build_korpd built; the working tree when unset), into $TMP/statements.
bench_build_statements() {
    local src=${SRC:-.}
    cc -O2 -Wall -Wextra -I "$src/db" -I "$src/base" -I "$src/rules" $(pkg-config --cflags libpq) \
        -o "$TMP/statements" bench/statements.c "$src/db/db_statements.c"
}

# bench_wait_korpd NAME PID PORT LOG: waits (10 s at most) until the korpd
# NAME (PID) answers /healthz on PORT; dies, showing LOG, if it exits first
# or never answers.
bench_wait_korpd() {
    local name=$1 pid=$2 port=$3 log=$4
    for _ in $(seq 1 100); do
        curl -sf "http://127.0.0.1:$port/healthz" >/dev/null 2>&1 && return 0
        kill -0 "$pid" 2>/dev/null || { cat "$log" >&2; die "$name did not start"; }
        sleep 0.1
    done
    die "$name does not answer on $port"
}

# field KEY LINE: the value of KEY=value in a client's line of results.
field() { sed -n "s/.*\b$1=\([^ ]*\).*/\1/p" <<<"$2"; }

# Free ports: korp_free_port (scripts/lib.sh) sets KORP_FREE_PORT.

# bench_defaults NAME=VALUE...: the script's settings: each NAME keeps its
# value from the environment, or takes VALUE when unset or empty.
bench_defaults() {
    local setting variable
    for setting in "$@"; do
        variable=${setting%%=*}
        [ -n "${!variable:-}" ] || printf -v "$variable" '%s' "${setting#*=}"
    done
}

# ---- CPU from /proc, in clock ticks (TICK of them a second)
TICK=$(getconf CLK_TCK)

# proc_ticks PID [children-too]: utime+stime (+cutime+cstime) of PID; 0
# when it is gone.
proc_ticks() {
    local s
    s=$(cat "/proc/$1/stat" 2>/dev/null) || { echo 0; return; }
    s=${s##*) }
    awk -v c="${2:-0}" '{ print $12 + $13 + (c ? $14 + $15 : 0) }' <<<"$s"
}

# pg_ticks: the whole cluster whose postmaster is PG_MAIN: the postmaster,
# its live children, and those gone.
pg_ticks() {
    local t c
    t=$(proc_ticks "$PG_MAIN" 1)
    for c in $(ps --ppid "$PG_MAIN" -o pid= 2>/dev/null); do t=$((t + $(proc_ticks "$c"))); done
    echo "$t"
}

# us_per TICKS N: microseconds of CPU for each of N (moves, operations).
us_per() { awk -v t="$1" -v n="$2" -v hz="$TICK" 'BEGIN { printf "%.0f", (n > 0 ? t / hz * 1e6 / n : 0) }'; }

# bench_perf_report KEY SYMBOLS: korpd's CPU profiles ($TMP/perf.*, from
# perf record -g with PERF=1), each as self time by binary, then its SYMBOLS
# busiest symbols; KEY says what the files' suffixes mean.
bench_perf_report() {
    local f
    for f in "$TMP"/perf.*; do
        [ -s "$f" ] || continue
        echo "== perf: korpd, ${f##*/perf.} ($1): self time by binary, then by symbol"
        perf report -q -i "$f" --no-children -g none --sort dso --percent-limit 1 2>/dev/null |
            grep -v '^$' | head -n 8
        perf report -q -i "$f" --no-children -g none --sort dso,symbol --percent-limit 0.7 \
            2>/dev/null | grep -v '^$' | head -n "$2"
    done
}

# ratio A B: A / B with two decimals (0 when B is 0).
ratio() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.2f", (b > 0 ? a / b : 0) }'; }

# pgbench_ms DECIMALS QUANTILE... -- LOG...: the latencies of pgbench's
# transaction logs (-l: microseconds in field 3) at each QUANTILE, in
# milliseconds with DECIMALS decimals, on one line.
pgbench_ms() {
    local digits=$1 quantiles=()
    shift
    while [ "$1" != -- ]; do quantiles+=("$1"); shift; done
    shift
    cat "$@" | awk '{ print $3 }' | sort -n | awk -v d="$digits" -v q="${quantiles[*]}" '
        { v[NR] = $1 }
        END {
            n = split(q, p, " ")
            for (i = 1; i <= n; i++)
                printf "%s" "%." d "f", (i > 1 ? " " : ""), v[int(p[i] * (NR - 1) + 1.5)] / 1e3
            printf "\n"
        }'
}

# bench_on_exit STOP: on exit (INT and TERM exit with 130) the script's
# function STOP stops what it started, then TMP is removed (bench_tmp_remove).
bench_on_exit() {
    trap "$1 || true; bench_tmp_remove" EXIT
    trap 'exit 130' INT TERM
}

# bench_pids_trap: PIDS (an array) holds what the script starts; on exit each
# is stopped by its PID (korp_stop_pid) and TMP removed.
bench_pids_trap() {
    PIDS=()
    bench_on_exit 'for p in "${PIDS[@]}"; do korp_stop_pid "$p"; done'
}

# bench_webhook_sink AVOID-PORT...: starts bench/webhook_sink.mjs on a free
# port (not one of AVOID-PORT) and waits until it answers; sets SPORT and
# SINK (its base URL) and adds its PID to PIDS.
bench_webhook_sink() {
    korp_free_port "$@" || die "no free port for the webhook receiver"
    SPORT=$KORP_FREE_PORT
    node bench/webhook_sink.mjs "$SPORT" >"$TMP/sink.log" 2>&1 &
    PIDS+=($!)
    SINK=http://127.0.0.1:$SPORT
    for _ in $(seq 1 100); do curl -sf "$SINK/count" >/dev/null 2>&1 && break; sleep 0.1; done
}

# bench_pg_statements DATABASE: restarts the throwaway cluster with
# pg_stat_statements loaded (tracking nothing until a script turns it on)
# and creates the extension in DATABASE.
bench_pg_statements() {
    printf "shared_preload_libraries = 'pg_stat_statements'\npg_stat_statements.track = none\npg_stat_statements.max = 1000\n" |
        owner_write "$OWNER" "$TMP/pg/conf.statements"
    echo "include 'conf.statements'" | as_owner "$OWNER" tee -a "$TMP/pg/postgresql.conf" >/dev/null
    korp_pg_stop "$TMP/pg" "$OWNER"
    korp_pg_start "$TMP/pg" "$OWNER" || die "PostgreSQL did not restart with pg_stat_statements"
    korp_pg_admin "$TMP/pg" "$PORT" -d "$1" -c "CREATE EXTENSION pg_stat_statements"
}
