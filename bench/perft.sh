#!/usr/bin/env bash
# bench/perft.sh — move generation speed: korp perft against Debian's
# fairy-stockfish on the same Korpalski positions, in one invocation, and
# Glinski perft from the start position.
#
# fairy-stockfish is exact for Korpalski only where both kings stand and
# either no side holds a piece in reserve ([korpalski]) or no promotion can
# happen in the tree ([korpalski-nopromo]); see fairy-stockfish-korpalski.ini.
# Each time is the best of REPEAT runs minus the same program's start-up
# (a depth-1 run on the same position), so that both are charged only for
# the perft itself.  Counts must agree, or the run fails.
#
# usage: bench/perft.sh            (DEPTH=4 REPEAT=3 GLINSKI_DEPTH=5)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

DEPTH=${DEPTH:-4}
REPEAT=${REPEAT:-3}
GLINSKI_DEPTH=${GLINSKI_DEPTH:-5}
FSF=${FAIRY_STOCKFISH:-/usr/games/fairy-stockfish}
INI=$PWD/bench/fairy-stockfish-korpalski.ini

korp_install fairy-stockfish $KORP_PACKAGES
# A Release build of its own: build/ may hold a developer's Debug build.
cmake -S . -B build-perft -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-perft --target korp >/dev/null
KORP=build-perft/cli/korp

# section|FEN, from tests/data/korpalski-perft.epd where fairy-stockfish is exact
POSITIONS=(
  "korpalski|3q1rk1/pb3ppp/2np4/4p3/2B1P3/2P2N2/PP2QPPP/5RK1[Ppp] w - - 0 15"
  "korpalski-nopromo|4r1k1/5ppp/8/8/8/8/5PPP/4K3[QRNqn] w - - 0 20"
  "korpalski|rnbq1rk1/ppp2ppp/8/3pP3/8/2NB4/PPP2PPP/5RK1[Pp] w - d6 0 10"
  "korpalski|4k3/4p1p1/8/KPp1rP2/8/8/8/8[Pp] w - c6 0 2"
)

now_ns() { date +%s%N; }

korp_run() {   # depth fen -> prints "nanoseconds nodes"
    local t0 t1 out
    t0=$(now_ns); out=$("$KORP" perft "$1" "$2" | tail -n 1); t1=$(now_ns)
    echo "$((t1 - t0)) $out"
}

fsf_run() {    # section depth fen
    local t0 t1 out
    t0=$(now_ns)
    out=$(printf 'setoption name VariantPath value %s\nsetoption name UCI_Variant value %s\nposition fen %s\ngo perft %s\nquit\n' \
        "$INI" "$1" "$3" "$2" | "$FSF" | sed -n 's/^Nodes searched: //p')
    t1=$(now_ns)
    echo "$((t1 - t0)) $out"
}

best() {       # command... -> "best_ns nodes" over REPEAT runs
    local best_ns= nodes= ns n
    for _ in $(seq 1 "$REPEAT"); do
        read -r ns n < <("$@")
        nodes=$n
        if [ -z "$best_ns" ] || [ "$ns" -lt "$best_ns" ]; then best_ns=$ns; fi
    done
    echo "$best_ns $nodes"
}

mnps() { awk -v n="$1" -v ns="$2" 'BEGIN { printf "%.1f", (ns > 0 ? n / (ns / 1e9) / 1e6 : 0) }'; }

printf '%-4s %-18s %12s %12s %14s %7s\n' pos section nodes "korp Mn/s" "fairy Mn/s" ratio
total_nodes=0; total_korp=0; total_fsf=0; i=0
for entry in "${POSITIONS[@]}"; do
    i=$((i + 1))
    section=${entry%%|*}; fen=${entry#*|}
    read -r k_ns k_nodes < <(best korp_run "$DEPTH" "$fen")
    read -r k0 _ < <(best korp_run 1 "$fen")
    read -r f_ns f_nodes < <(best fsf_run "$section" "$DEPTH" "$fen")
    read -r f0 _ < <(best fsf_run "$section" 1 "$fen")
    [ "$k_nodes" = "$f_nodes" ] || die "position $i: korp counts $k_nodes, fairy-stockfish $f_nodes"
    k_ns=$((k_ns > k0 ? k_ns - k0 : 1)); f_ns=$((f_ns > f0 ? f_ns - f0 : 1))
    total_nodes=$((total_nodes + k_nodes)); total_korp=$((total_korp + k_ns)); total_fsf=$((total_fsf + f_ns))
    printf '%-4s %-18s %12s %12s %14s %6.1fx\n' "$i" "$section" "$k_nodes" \
        "$(mnps "$k_nodes" "$k_ns")" "$(mnps "$f_nodes" "$f_ns")" \
        "$(awk -v a="$f_ns" -v b="$k_ns" 'BEGIN { print a / b }')"
done
korp_total=$(mnps "$total_nodes" "$total_korp")
fsf_total=$(mnps "$total_nodes" "$total_fsf")
printf '%-4s %-18s %12s %12s %14s %6.1fx\n' all "depth $DEPTH" "$total_nodes" "$korp_total" "$fsf_total" \
    "$(awk -v a="$total_fsf" -v b="$total_korp" 'BEGIN { print a / b }')"

GLINSKI_START="b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1"
t0=$(now_ns); g_nodes=$("$KORP" perft --variant glinski "$GLINSKI_DEPTH" "$GLINSKI_START" | tail -n 1); t1=$(now_ns)
g_ns=$((t1 - t0))
printf '\nglinski start, depth %s: %s nodes in %s s, %s Mn/s (target: under 20 s); %.1fx fairy-stockfish'"'"'s korpalski rate above\n' \
    "$GLINSKI_DEPTH" "$g_nodes" "$(awk -v ns="$g_ns" 'BEGIN { printf "%.2f", ns / 1e9 }')" \
    "$(mnps "$g_nodes" "$g_ns")" "$(awk -v g="$(mnps "$g_nodes" "$g_ns")" -v f="$fsf_total" 'BEGIN { print (f > 0 ? g / f : 0) }')"
