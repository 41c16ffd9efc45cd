#!/usr/bin/env bash
# bench/day_compare.sh — bench/day.sh on two commits in one sitting, and
# their summaries side by side.
#
# usage: bench/day_compare.sh OLD NEW    (e.g. bench/day_compare.sh 8ab03ef HEAD)
#
# Runs bench/day.sh once per letter of ORDER (A: OLD, B: NEW; default AB,
# ABBA for a fairer sitting at twice the time), each with BENCH_REV=<that
# commit>: korpd built from a snapshot of the commit (in BUILDS/old and
# BUILDS/new, as bench/compare.sh builds them: incremental), everything else (the population, the load
# client, the receivers) from this tree, a fresh PostgreSQL each time.  Every
# other setting of day.sh (PLAYERS, GAMES, STREAMS, RATES, STEP_SECONDS, ...)
# passes through unchanged, so both commits get the same day.  Each run's
# whole output is kept in LOGS (a directory under /tmp, printed at the end).
# The last lines: each figure of day.sh's summary line ("day: ...") per
# commit (the best of its runs: the highest rate, the lowest of the others)
# and new/old.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh
. bench/lib.sh

[ $# = 2 ] || die "usage: bench/day_compare.sh OLD NEW (two commits)"
bench_defaults ORDER=AB BUILDS=build-compare
[[ $ORDER =~ ^[AB]+$ ]] || die "ORDER: a sequence of A (OLD) and B (NEW), e.g. AB or ABBA"
declare -A REV=([A]=$(git rev-parse --verify "$1^{commit}") [B]=$(git rev-parse --verify "$2^{commit}"))
declare -A NAME=([A]=$(git rev-parse --short "${REV[A]}") [B]=$(git rev-parse --short "${REV[B]}"))
LOGS=${LOGS:-$(mktemp -d /tmp/korp-day-compare.XXXXXX)}
mkdir -p "$LOGS"
T0=$(date +%s)

declare -A DAY   # DAY[x,key] = the values of that key over commit x's runs, space-separated
for ((i = 0; i < ${#ORDER}; i++)); do
    x=${ORDER:i:1}
    log=$LOGS/day-$((i + 1))-${NAME[$x]}.log
    say "day $((i + 1)) of ${#ORDER}: ${NAME[$x]} ($([ "$x" = A ] && echo OLD || echo NEW)), load $(cut -d' ' -f1-3 /proc/loadavg); output in $log"
    BENCH_REV=${REV[$x]} BENCH_REVDIR=$BUILDS/$([ "$x" = A ] && echo old || echo new) BENCH_OVERLAY='' BENCH_SRC='' \
        bash bench/day.sh >"$log" 2>&1 || { tail -n 20 "$log" >&2; die "bench/day.sh failed on ${NAME[$x]} (the whole output: $log)"; }
    line=$(grep '^day: ' "$log" | tail -n 1) || die "no summary line in $log"
    echo "$line"
    for kv in ${line#day: }; do
        DAY[$x,${kv%%=*}]+="${kv#*=} "
    done
done

best() {   # X KEY: max for best_rate, min for the others, over the numbers of the runs
    awk -v max="$([ "$2" = best_rate ] && echo 1 || echo 0)" -v vals="${DAY[$1,$2]:-}" 'BEGIN {
        n = split(vals, v, " ")
        for (i = 1; i <= n; i++) {
            if (v[i] !~ /^-?[0-9.]+$/) continue
            if (k++ == 0 || (max ? v[i] + 0 > b : v[i] + 0 < b)) b = v[i] + 0
        }
        if (k) printf "%s", b; else printf "-"
    }'
}
echo
echo "the day, OLD ${NAME[A]} -> NEW ${NAME[B]}: runs $ORDER (A: OLD, B: NEW), best of each commit's runs; $(( $(date +%s) - T0 )) s; logs in $LOGS"
echo "best_rate: the highest move rate (moves/s) with move and read p99 under 100 ms; the others at that rate (latencies and lags in ms, CPU in us per move with its reads), growth per million moves over the whole run"
printf '%-14s %12s %12s %8s\n' figure "${NAME[A]}" "${NAME[B]}" new/old
for key in best_rate best_asked move_p99 read_p99 event_p50 event_p99 hook_p50 hook_p99 mail_p50 mail_p99 \
           pg_us korpd_us wal_B wal_MB_per_M db_MB_per_M load_before; do
    o=$(best A "$key"); n=$(best B "$key")
    printf '%-14s %12s %12s %8s\n' "$key" "$o" "$n" \
        "$(awk -v a="$n" -v b="$o" 'BEGIN { if (a == "-" || b == "-" || b + 0 == 0) printf "-"; else printf "%.2f", a / b }')"
done
