#!/usr/bin/env bash
# scripts/up.sh — installs what korp needs, builds it, starts the embedded
# PostgreSQL (a cluster under var/, owned by a non-root user, on loopback,
# password logins only) and starts korpd on 127.0.0.1:8080 against it, as
# that same non-root user.  Safe to run again: it rebuilds and restarts
# korpd, and upgrades a cluster made by an older up.sh in place.  Stop
# everything with scripts/down.sh.
#
# It also creates the players korp-engine, korp-engine-1 and korp-engine-3
# and starts a bot for each (examples/random-bot --engine, as the cluster
# owner) that accepts every challenge and plays with korp's engine: the
# number ending the name is the level, 1 (weakest) to 10; korp-engine plays
# level 7 (1 s a move).  Challenge the one you want.  Their tokens are in
# var/<name>.token (0600), their logs in var/<name>.log.
#
# Settings: KORP_PG_PORT (54320, for a new cluster), KORP_LISTEN
# (127.0.0.1:8080), KORP_DATABASE_URL (default: role korp on the embedded
# cluster, its password from var/korp.pgpass), KORP_BUILD_DIR (use korpd
# from this existing build instead of building into build/),
# KORP_ENGINE_BOTS (the engine bots' accounts; empty: none).
set -euo pipefail
. "$(dirname "$0")/lib.sh"
cd "$KORP_ROOT"

LISTEN=${KORP_LISTEN:-127.0.0.1:8080}
export KORP_LISTEN=$LISTEN

korp_install $KORP_PACKAGES

korp_build

mkdir -p var
OWNER=$(korp_pg_owner)
if [ ! -e var/pg ] && [ ! -L var/pg ] && ! as_owner "$OWNER" test -w "$KORP_ROOT/var" 2>/dev/null; then
    if [ "$(id -u)" = 0 ] && as_owner "$OWNER" test -x "$KORP_ROOT/var" 2>/dev/null; then
        chown "$OWNER" var
    else
        # The owner cannot reach this checkout (e.g. under /root): keep the
        # cluster, the password files, korpd and its log in /var/lib/korp and
        # link them from var/.
        outside=/var/lib/korp/$(printf '%s' "$KORP_ROOT" | cksum | cut -d' ' -f1)
        say "$OWNER cannot reach $KORP_ROOT; keeping the cluster in $outside (var/pg links to it)"
        as_root mkdir -p "$outside"
        as_root chown "$OWNER" "$outside"
        as_root chmod 700 "$outside"
        ln -sfn "$outside/pg" var/pg
    fi
fi
# HOME_DIR holds what the owner reads and writes: pg/, *.pgpass, korpd,
# korpd.log.  It is var/ itself, or the folder var/pg links into.
if [ -L var/pg ]; then PGDATA_ABS=$(readlink var/pg); else PGDATA_ABS=$KORP_ROOT/var/pg; fi
HOME_DIR=$(dirname "$PGDATA_ABS")
if [ "$HOME_DIR" != "$KORP_ROOT/var" ]; then
    for f in korp.pgpass "$KORP_PG_ADMIN.pgpass" korpd.log; do
        # A log from an older up.sh (written by root here) is kept aside.
        [ -f "var/$f" ] && [ ! -L "var/$f" ] && mv -f "var/$f" "var/$f.old"
        ln -sfn "$HOME_DIR/$f" "var/$f"
    done
fi
KORPD_BIN=$HOME_DIR/korpd
BOT_BIN=$HOME_DIR/korp-bot
BOTS=${KORP_ENGINE_BOTS-korp-engine korp-engine-1 korp-engine-3}

# The engine bots go first (they would only reconnect to the new korpd).
for f in var/korp-engine*.pid; do
    [ -e "$f" ] || continue
    name=$(basename "$f" .pid)
    korp_bot_stop "$name" "$BOT_BIN"
done

# Stop the running korpd first (only if the pid file names our korpd: it
# may be stale, and its number reused by another program).
if [ -f var/korpd.pid ]; then
    pid=$(cat var/korpd.pid)
    if korp_pid_runs "$pid" "$KORPD_BIN" "$KORP_ROOT/build/korpd/korpd" "$BUILD/korpd/korpd"; then
        say "korpd is running (pid $pid); restarting it with the new build"
        korp_stop_pid "$pid"
    fi
    rm -f var/korpd.pid
fi

if [ ! -f "$PGDATA_ABS/PG_VERSION" ]; then
    PG_PORT=${KORP_PG_PORT:-54320}
    port_in_use "$PG_PORT" && die "port $PG_PORT is taken; choose another with KORP_PG_PORT=..."
    say "creating the database cluster in var/pg (owner $OWNER, port $PG_PORT)"
    korp_pg_init "$PGDATA_ABS" "$OWNER" "$PG_PORT"
else
    PG_PORT=$(korp_pg_port "$PGDATA_ABS")
    [ -n "$PG_PORT" ] || die "no port in $PGDATA_ABS/postgresql.conf"
    if [ -n "${KORP_PG_PORT:-}" ] && [ "$KORP_PG_PORT" != "$PG_PORT" ]; then
        say "the cluster in var/pg listens on port $PG_PORT (KORP_PG_PORT applies to a new cluster)"
    fi
fi
korp_pg_start "$PGDATA_ABS" "$OWNER" || die "PostgreSQL did not start"
korp_pg_secure "$PGDATA_ABS" "$OWNER" "$PG_PORT" || die "could not secure the cluster in var/pg"
korp_pg_role "$PGDATA_ABS" "$OWNER" "$PG_PORT"
korp_pg_createdb "$PGDATA_ABS" "$PG_PORT" korp

# libpq conninfo quoting: '…' with \ and ' escaped.
quote() { local v=${1//\\/\\\\}; printf "'%s'" "${v//\'/\\\'}"; }
export KORP_DATABASE_URL=${KORP_DATABASE_URL:-"host=127.0.0.1 port=$PG_PORT dbname=korp user=$KORP_PG_USER passfile=$(quote "$HOME_DIR/korp.pgpass")"}

port_in_use "${LISTEN##*:}" "${LISTEN%:*}" &&
    die "$LISTEN is taken by another program; choose another address with KORP_LISTEN=127.0.0.1:8081"

# korpd runs as the cluster owner from a copy the owner can read (the
# checkout may be closed to it); the owner opens the log itself.
as_owner "$OWNER" sh -c 'umask 022 && cat >"$1.new" && chmod 755 "$1.new" && mv -f "$1.new" "$1"' \
    sh "$KORPD_BIN" <"$BUILD/korpd/korpd"
if [ -f "$HOME_DIR/korpd.log" ] && [ ! -L "$HOME_DIR/korpd.log" ] && [ "$(id -u)" = 0 ]; then
    chown -h "$OWNER" "$HOME_DIR/korpd.log"    # written by root before
fi
launch=()
[ "$(id -un)" = "$OWNER" ] ||
    launch=(setpriv --reuid="$OWNER" --regid="$(id -g "$OWNER")" --init-groups --)
say "starting korpd on $LISTEN as $OWNER (log: var/korpd.log)"
(cd / && exec setsid "${launch[@]}" sh -c 'exec "$0" >>"$1" 2>&1' "$KORPD_BIN" \
    "$HOME_DIR/korpd.log" </dev/null) &
pid=$!
rm -f var/korpd.pid
(set -C && echo "$pid" >var/korpd.pid)   # -C: never through a planted link
for _ in $(seq 1 100); do
    if curl -sf "http://$LISTEN/healthz" >/dev/null 2>&1; then
        say "korpd is up (pid $pid): curl -s http://$LISTEN/healthz"
        curl -s "http://$LISTEN/healthz"; echo
        if [ -n "$BOTS" ] && [ -x "$BUILD/examples/random-bot/random-bot" ]; then
            as_owner "$OWNER" sh -c 'umask 022 && cat >"$1.new" && chmod 755 "$1.new" && mv -f "$1.new" "$1"' \
                sh "$BOT_BIN" <"$BUILD/examples/random-bot/random-bot"
            for name in $BOTS; do
                korp_bot_start "$HOME_DIR" "$OWNER" "http://$LISTEN" "$name" "$BOT_BIN"
            done
        elif [ -n "$BOTS" ]; then
            say "no examples/random-bot in $BUILD: the engine bots are not started"
        fi
        exit 0
    fi
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.1
done
tail -n 20 var/korpd.log >&2
die "korpd did not come up (log: var/korpd.log)"
