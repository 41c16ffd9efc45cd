#!/usr/bin/env bash
# bench/fairplay_rates.sh — the fair-play review's rates over a few hundred bot games:
# how often honest bots are flagged, how often engine bots are (bench/fairplay_rates.py
# says how; docs/fairplay.md has the figures).  Everything runs at the lowest CPU
# priority: the machine may be shared.
#
# usage: bench/fairplay_rates.sh [OUT.json]   (BUILD=build-test; the settings of
#        bench/fairplay_rates.py from the environment: NODES, CAP, SEED, SCALE, ...)
set -euo pipefail
cd "$(dirname "$0")/.."

BUILD=${BUILD:-build-test}
cmake -S . -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
nice -n 19 cmake --build "$BUILD" -j 2 --target korpd korp >/dev/null
exec nice -n 19 /usr/bin/python3 bench/fairplay_rates.py "$PWD/$BUILD/korpd/korpd" \
    "$PWD/$BUILD/cli/korp" "${1:-}"
