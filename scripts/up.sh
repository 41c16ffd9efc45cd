#!/usr/bin/env bash
# scripts/up.sh — installs what korp needs, builds it, starts the embedded
# PostgreSQL (a cluster under var/, owned by a non-root user, on loopback)
# and starts korpd on 127.0.0.1:8080 against it.  Safe to run again: it
# rebuilds and restarts korpd.  Stop everything with scripts/down.sh.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KORP_ROOT"

PG_PORT=${KORP_PG_PORT:-54320}
LISTEN=${KORP_LISTEN:-127.0.0.1:8080}
export KORP_LISTEN=$LISTEN
export KORP_DATABASE_URL=${KORP_DATABASE_URL:-postgresql://korp@127.0.0.1:$PG_PORT/korp}

korp_install $KORP_PACKAGES

say "building into build/"
cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
cmake --build build -j "$(nproc)" >/dev/null

mkdir -p var
OWNER=$(korp_pg_owner)
PGDATA_DIR=var/pg
if [ ! -e "$PGDATA_DIR" ] && ! as_owner "$OWNER" test -w "$KORP_ROOT/var" 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && as_owner "$OWNER" test -x "$KORP_ROOT/var" 2>/dev/null; then
        chown "$OWNER" var
    else
        # The owner cannot reach this checkout (e.g. under /root): keep the
        # cluster in /var/lib/korp and link it from var/.
        outside=/var/lib/korp/$(printf '%s' "$KORP_ROOT" | cksum | cut -d' ' -f1)
        say "$OWNER cannot reach $KORP_ROOT; keeping the cluster in $outside (var/pg links to it)"
        as_root mkdir -p "$outside"
        as_root chown "$OWNER" "$outside"
        ln -sfn "$outside/pg" "$PGDATA_DIR"
    fi
fi
PGDATA_ABS=$(cd var && pwd)/pg
[ -L "$PGDATA_DIR" ] && PGDATA_ABS=$(readlink "$PGDATA_DIR")

if [ ! -f "$PGDATA_ABS/PG_VERSION" ]; then
    port_in_use "$PG_PORT" && die "port $PG_PORT is taken; choose another with KORP_PG_PORT=..."
    say "creating the database cluster in var/pg (owner $OWNER, port $PG_PORT)"
    korp_pg_init "$PGDATA_ABS" "$OWNER" "$PG_PORT"
fi
korp_pg_start "$PGDATA_ABS" "$OWNER"
korp_pg_createdb "$PG_PORT" korp

if [ -f var/korpd.pid ] && kill -0 "$(cat var/korpd.pid)" 2>/dev/null; then
    pid=$(cat var/korpd.pid)
    say "korpd is running (pid $pid); restarting it with the new build"
    kill "$pid"
    for _ in $(seq 1 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
fi
rm -f var/korpd.pid
port_in_use "${LISTEN##*:}" "${LISTEN%:*}" &&
    die "$LISTEN is taken by another program; choose another address with KORP_LISTEN=127.0.0.1:8081"

say "starting korpd on $LISTEN (log: var/korpd.log)"
nohup setsid build/korpd/korpd >>var/korpd.log 2>&1 </dev/null &
echo $! >var/korpd.pid
for _ in $(seq 1 100); do
    if curl -sf "http://$LISTEN/healthz" >/dev/null 2>&1; then
        say "korpd is up: curl -s http://$LISTEN/healthz"
        curl -s "http://$LISTEN/healthz"; echo
        exit 0
    fi
    kill -0 "$(cat var/korpd.pid)" 2>/dev/null || break
    sleep 0.1
done
tail -n 20 var/korpd.log >&2
die "korpd did not come up (log: var/korpd.log)"
