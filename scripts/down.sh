#!/usr/bin/env bash
# scripts/down.sh — stops korpd and the embedded PostgreSQL started by up.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KORP_ROOT"
if [ -f var/korpd.pid ] && kill -0 "$(cat var/korpd.pid)" 2>/dev/null; then
    say "stopping korpd (pid $(cat var/korpd.pid))"
    kill "$(cat var/korpd.pid)"
fi
rm -f var/korpd.pid
if [ -e var/pg ]; then
    data=$(cd var && pwd)/pg
    [ -L var/pg ] && data=$(readlink var/pg)
    say "stopping PostgreSQL"
    korp_pg_stop "$data" "$(stat -c %U "$data")"
fi
