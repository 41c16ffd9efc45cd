#!/usr/bin/env bash
# bench/tune.sh — the evaluation's weights fitted on data (Texel's method),
# reproducibly: seeded self-play games of a variant give positions labelled
# with their game's result, and korp-tune fits the weights to them (see
# engine/tune.c and docs/engine.md, "How the weights are tuned").
#
# usage: bench/tune.sh [korpalski|glinski|all]
#   GAMES=400 NODES=3000 SEED=1 BUILD=build-tune OUT=$BUILD/data
# Writes OUT/positions-VARIANT.txt (one "RESULT FEN" a line) and
# OUT/weights-VARIANT.c (the fitted fields of struct eval_weights, to put
# in engine/eval_VARIANT.c).  The data stays out of the repository; the
# same SEED, GAMES and NODES give the same positions on any machine.
set -euo pipefail
cd "$(dirname "$0")/.."

WHAT=${1:-all}
GAMES=${GAMES:-400}
NODES=${NODES:-3000}
SEED=${SEED:-1}
BUILD=${BUILD:-build-tune}
OUT=${OUT:-$BUILD/data}


cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release -DKORP_SERVER=OFF >/dev/null
cmake --build "$BUILD" --target korp-tune >/dev/null
TUNE=$BUILD/engine/korp-tune
mkdir -p "$OUT"

for variant in korpalski glinski; do
    case $WHAT in all|"$variant") ;; *) continue ;; esac
    echo "== $variant: $GAMES self-play games at $NODES nodes a move, seed $SEED"
    nice -n 19 "$TUNE" play "$variant" "$GAMES" "$SEED" "$NODES" \
        > "$OUT/positions-$variant.txt" 2> "$OUT/play-$variant.log"
    echo "   $(wc -l < "$OUT/positions-$variant.txt") positions; results:" \
         "$(cut -d' ' -f1 "$OUT/positions-$variant.txt" | sort | uniq -c | tr '\n' ' ')"
    nice -n 19 "$TUNE" fit "$variant" "$OUT/positions-$variant.txt" \
        > "$OUT/weights-$variant.c" 2> "$OUT/fit-$variant.log"
    cat "$OUT/fit-$variant.log" | sed 's/^/   /'
    echo "   weights: $OUT/weights-$variant.c"
done
