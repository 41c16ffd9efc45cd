#!/usr/bin/env bash
# scripts/down.sh — stops the engine bots, korpd and the embedded PostgreSQL
# started by up.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KORP_ROOT"
data=$KORP_ROOT/var/pg
[ -L var/pg ] && data=$(readlink var/pg)
# The engine bots first (only ours: a pid file may be stale).
for f in var/korp-engine*.pid; do
    [ -e "$f" ] || continue
    korp_bot_stop "$(basename "$f" .pid)" "$(dirname "$data")/korp-bot"
done
if [ -f var/korpd.pid ]; then
    pid=$(cat var/korpd.pid)
    # Only our korpd: the pid file may be stale and its number reused.
    if korp_pid_runs "$pid" "$(dirname "$data")/korpd" "$KORP_ROOT/build/korpd/korpd"; then
        say "stopping korpd (pid $pid)"
        korp_stop_pid "$pid"
    else
        say "var/korpd.pid is stale (pid $pid is not our korpd); leaving that process alone"
    fi
    rm -f var/korpd.pid
fi
if [ -e "$data" ]; then
    say "stopping PostgreSQL"
    korp_pg_stop "$data" "$(stat -c %U "$data")"
fi
