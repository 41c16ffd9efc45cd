#!/usr/bin/env bash
# bench/engine.sh — the engine's search speed (nodes per second through
# `korp uci`, fixed depth, fresh engine per position) on fixed positions of
# both variants, beside korp's perft speed on the same positions.  Nodes per
# second are given twice: by the engine's own clock (wall time) and by the
# CPU time the process used, which a machine loaded by other work does not
# distort (compare builds by the second).
#
# usage: bench/engine.sh     (BUILD=build-engine; KORPALSKI_DEPTH=8 GLINSKI_DEPTH=10
#                             PERFT_DEPTH=4; KORP=path/to/korp measures that
#                             binary instead of building, e.g. a build of an
#                             older commit to compare with)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build-engine}
KORPALSKI_DEPTH=${KORPALSKI_DEPTH:-8}
GLINSKI_DEPTH=${GLINSKI_DEPTH:-10}
PERFT_DEPTH=${PERFT_DEPTH:-4}

# A Release build (the top-level CMakeLists.txt sets -Werror).
if [ -z "${KORP:-}" ]; then
    cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKORP_SERVER=OFF >/dev/null
    cmake --build "$BUILD" --target korp >/dev/null
    KORP=$BUILD/cli/korp
fi

# variant|FEN: the start positions, the inventor's sample game (ply 12),
# the perft suite's positions, a Glinski tournament game (ply 23), an ending.
POSITIONS=(
  "korpalski|8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1"
  "korpalski|8/8/3q4/3r1Q2/3R4/2K2n2/5k2/8[BBNNPPPPPPPPrbbpppppppp] w - - 0 7"
  "korpalski|3q1rk1/pb3ppp/2np4/4p3/2B1P3/2P2N2/PP2QPPP/5RK1[Ppp] w - - 0 15"
  "korpalski|rnbq1rk1/ppp2ppp/8/3pP3/8/2NB4/PPP2PPP/5RK1[Pp] w - d6 0 10"
  "korpalski|4r1k1/5ppp/8/8/8/8/5PPP/4K3[QRNqn] w - - 0 20"
  "glinski|b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1"
  "glinski|1/q1k/2b2/r2n2r/pppp2bpp/11/3PB1pp3/6PP3/1n2RB2N2/2P2BN1P2/1P2Q1K1RP1 b - 2 12"
  "glinski|1/1k1/5/7/2b1n1pp1/4p6/3P4Pp1/4r6/7P1P1/BP8r/7K3 b - 1 46"
)

now_ns() { date +%s%N; }

CPU_FILE=$(mktemp)
trap 'rm -f "$CPU_FILE"' EXIT

search() {     # variant depth fen -> "nodes ms cpu-ms"
    local out
    out=$(printf 'setoption name UCI_Variant value %s\nposition fen %s\ngo depth %s\n' "$1" "$3" "$2" |
        /usr/bin/time -f '%U %S' -o "$CPU_FILE" "$KORP" uci |
        awk '/^info depth/ { for (i = 1; i < NF; i++) { if ($i == "nodes") n = $(i+1); if ($i == "time") t = $(i+1) } }
             END { print n, t }')
    echo "$out $(awk '{ printf "%d", ($1 + $2) * 1000 }' "$CPU_FILE")"
}

perft() {      # variant depth fen -> "nodes ns"
    local t0 t1 n
    t0=$(now_ns); n=$("$KORP" perft --variant "$1" "$2" "$3" | tail -n 1); t1=$(now_ns)
    echo "$n $((t1 - t0))"
}

printf '%-4s %-10s %5s %10s %8s %10s %8s %10s   %12s %10s\n' pos variant depth nodes ms "search n/s" \
    "cpu ms" "cpu n/s" "perft nodes" "perft Mn/s"
declare -A sum_nodes sum_ms sum_cpu
i=0
for entry in "${POSITIONS[@]}"; do
    i=$((i + 1))
    variant=${entry%%|*}; fen=${entry#*|}
    depth=$KORPALSKI_DEPTH; [ "$variant" = glinski ] && depth=$GLINSKI_DEPTH
    read -r nodes ms cpu < <(search "$variant" "$depth" "$fen")
    read -r pnodes pns < <(perft "$variant" "$PERFT_DEPTH" "$fen")
    sum_nodes[$variant]=$(( ${sum_nodes[$variant]:-0} + nodes ))
    sum_ms[$variant]=$(( ${sum_ms[$variant]:-0} + ms ))
    sum_cpu[$variant]=$(( ${sum_cpu[$variant]:-0} + cpu ))
    printf '%-4s %-10s %5s %10s %8s %10s %8s %10s   %12s %10s\n' "$i" "$variant" "$depth" "$nodes" "$ms" \
        "$(awk -v n="$nodes" -v t="$ms" 'BEGIN { printf "%d", (t > 0 ? n * 1000 / t : n * 1000) }')" \
        "$cpu" "$(awk -v n="$nodes" -v t="$cpu" 'BEGIN { printf "%d", (t > 0 ? n * 1000 / t : n * 1000) }')" \
        "$pnodes" "$(awk -v n="$pnodes" -v t="$pns" 'BEGIN { printf "%.1f", n / (t / 1e9) / 1e6 }')"
done
for variant in korpalski glinski; do
    printf 'all  %-10s %5s %10s %8s %10s %8s %10s\n' "$variant" "-" "${sum_nodes[$variant]}" "${sum_ms[$variant]}" \
        "$(awk -v n="${sum_nodes[$variant]}" -v t="${sum_ms[$variant]}" 'BEGIN { printf "%d", (t > 0 ? n * 1000 / t : 0) }')" \
        "${sum_cpu[$variant]}" \
        "$(awk -v n="${sum_nodes[$variant]}" -v t="${sum_cpu[$variant]}" 'BEGIN { printf "%d", (t > 0 ? n * 1000 / t : 0) }')"
done
