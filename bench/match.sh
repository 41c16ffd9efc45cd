#!/usr/bin/env bash
# bench/match.sh — the engine's strength in games (issue 12):
#   1. Korpalski: korp against Debian's fairy-stockfish (with
#      bench/fairy-stockfish-korpalski.ini), GAMES games at MS ms per move for
#      both, colours alternating, each opening of bench/openings-korpalski.fen
#      played once with each colour;
#   2. Glinski: korp at depth D+1 against korp at depth D (GLINSKI_GAMES games
#      from bench/openings-glinski.fen), and korp (MS ms a move) against a
#      random mover (RANDOM_GAMES games).
# Prints per game, then score, +W =D -L, the Elo difference with its 95%
# interval (from the games' own spread, normal approximation), and the
# counts of moves the rules refused.
#
# Every move of both sides is checked against `korp moves` before it is
# played, and the next position comes from `korp replay` (the rules library).
# A move Korpalski forbids (fairy-stockfish knows neither that a pawn cannot
# promote while its side's prison is empty nor that promotion is only to a
# captured man: see the ini file) is logged and counted, and the engine is
# asked again, with the same time, for its best move among the legal ones
# (UCI `searchmoves`); a side that still plays an illegal move loses the
# game (never seen).  Games end by the rules, by a third occurrence of a
# position or the fifty-move rule (draws an engine would claim), or as a
# draw at MATCH_MAX_PLIES plies (400).
#
# The openings (made by `bench/match.py openings VARIANT COUNT SEED FILE`,
# see each file's head): Korpalski, random legal king placements and then
# 2-5 random legal drops (no pawn beyond its fifth rank, where
# fairy-stockfish would believe it can promote), Glinski 2-5 random plies
# from the start; kept when no side is in check and korp at depth 6 scores
# the position within 50 cp.
#
# usage: bench/match.sh [all|fsf|glinski]
#   GAMES=20 MS=100 GLINSKI_GAMES=20 GLINSKI_DEPTH=3 RANDOM_GAMES=10
#   (the recorded figure: GAMES=100 MS=100 GLINSKI_GAMES=60 RANDOM_GAMES=20)
#   MATCH_LOG=file writes every game as PGN.
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

WHAT=${1:-all}
GAMES=${GAMES:-20}
MS=${MS:-100}
GLINSKI_GAMES=${GLINSKI_GAMES:-20}
GLINSKI_DEPTH=${GLINSKI_DEPTH:-3}
RANDOM_GAMES=${RANDOM_GAMES:-10}
export FAIRY_STOCKFISH=${FAIRY_STOCKFISH:-/usr/games/fairy-stockfish}
export FSF_INI=$PWD/bench/fairy-stockfish-korpalski.ini

korp_install fairy-stockfish python3 $KORP_PACKAGES
# A Release build of its own: build/ may hold a developer's Debug build.
cmake -S . -B build-match -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build-match --target korp >/dev/null
export KORP=$PWD/build-match/cli/korp

say "$(nproc) cores, load average $(cut -d' ' -f1-3 /proc/loadavg) (both sides share them)"
case $WHAT in all|fsf)
    say "Korpalski: korp vs fairy-stockfish, $GAMES games, $MS ms per move"
    python3 bench/match.py fsf bench/openings-korpalski.fen "$GAMES" "$MS"
esac
case $WHAT in all|glinski)
    say "Glinski: korp depth $((GLINSKI_DEPTH + 1)) vs depth $GLINSKI_DEPTH, $GLINSKI_GAMES games"
    MATCH_VARIANT=glinski python3 bench/match.py depth bench/openings-glinski.fen \
        "$GLINSKI_GAMES" "$GLINSKI_DEPTH"
    say "Glinski: korp ($MS ms) vs a random mover, $RANDOM_GAMES games"
    MATCH_VARIANT=glinski python3 bench/match.py random bench/openings-glinski.fen \
        "$RANDOM_GAMES" "$MS"
esac
say "load average at the end: $(cut -d' ' -f1-3 /proc/loadavg)"
