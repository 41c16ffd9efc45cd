#!/usr/bin/env bash
# scripts/ha-up.sh — korp on a highly available PostgreSQL: one etcd and three
# PostgreSQL 15 nodes run by Patroni (deploy/ha/patroni.yml.in, synchronous
# replication), all on free loopback ports below 32768, under var/ha/ (or
# $KORP_HA_DIR), as a non-root user (yours, or postgres when run as root);
# then korp's roles and database on the primary, and korpd on the cluster's
# multi-host URL (it finds the primary by itself after a failover).
#
# Safe to run again: it starts whatever of these is not running (a node
# killed or stopped rejoins the cluster as a replica, rewound by Patroni)
# and leaves running processes alone, korpd included.  Stop everything with
# scripts/ha-down.sh.
#
# It installs what it needs (Debian 12: patroni, etcd-server, PostgreSQL)
# and builds korpd into build/ unless KORP_BUILD_DIR names a build.  korpd
# gets the KORP_* settings of this environment, except KORP_DATABASE_URL
# (the cluster's); KORP_LISTEN chooses its address (default: a free port).
# The last two lines printed are for scripts:
#   korpd http://127.0.0.1:PORT
#   patroni http://127.0.0.1:PORT1,http://127.0.0.1:PORT2,http://127.0.0.1:PORT3
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KORP_ROOT/deploy/ha/lib.sh"
cd "$KORP_ROOT"

korp_install $KORP_PACKAGES $KORP_HA_PACKAGES

korp_build

OWNER=$(korp_pg_owner)
HA=${KORP_HA_DIR:-$KORP_ROOT/var/ha}
if [ ! -e "$HA" ]; then
    mkdir -p "$(dirname "$HA")"
    if as_owner "$OWNER" test -x "$(dirname "$HA")" 2>/dev/null; then
        mkdir "$HA"
    else
        # The owner cannot reach this folder (e.g. under /root): the cluster
        # lives in /var/lib/korp and $HA links to it.
        outside=/var/lib/korp/ha-$(printf '%s' "$HA" | cksum | cut -d' ' -f1)
        say "$OWNER cannot reach $(dirname "$HA"); keeping the cluster in $outside"
        mkdir -p "$outside"
        ln -sfn "$outside" "$HA"
    fi
fi
HA=$(readlink -f "$HA")
[ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "$HA"
chmod 700 "$HA"
as_owner "$OWNER" test -w "$HA" || die "$OWNER cannot write to $HA"

# ---- ports: chosen once (free, below 32768), then kept in $HA/ports
if [ -f "$HA/ports" ]; then
    . "$HA/ports"
else
    chosen=()
    pick() {
        korp_free_port "${chosen[@]}" || die "no free loopback port for $1"
        chosen+=("$KORP_FREE_PORT")
        printf '%s=%s\n' "$1" "$KORP_FREE_PORT"
    }
    {
        pick ETCD_PORT; pick ETCD_PEER_PORT
        for n in $KORP_HA_NODES; do pick "PG_PORT_$n"; pick "REST_PORT_$n"; done
        if [ -n "${KORP_LISTEN:-}" ]; then echo "KORPD_LISTEN=$KORP_LISTEN"
        else pick KORPD_PORT | sed 's/^KORPD_PORT=/KORPD_LISTEN=127.0.0.1:/'; fi
    } >"$HA/ports.new"
    mv "$HA/ports.new" "$HA/ports"
    . "$HA/ports"
fi
[ -z "${KORP_LISTEN:-}" ] || KORPD_LISTEN=$KORP_LISTEN

# ---- passwords, as up.sh makes them (pgpass files, 0600, the owner's)
PASSDATA=$HA/node1   # korp_pg_passfile looks next to a data directory
for role in "$KORP_PG_ADMIN" "$KORP_PG_USER" replicator; do
    korp_pg_password "$PASSDATA" "$OWNER" "$role"
done

# ---- etcd
if ! ha_pidfile_runs "$HA/etcd.pid" "$HA/etcd"; then
    for p in "$ETCD_PORT" "$ETCD_PEER_PORT"; do
        port_in_use "$p" && die "port $p (etcd) is taken by another program; remove $HA/ports to choose again"
    done
    say "starting etcd on 127.0.0.1:$ETCD_PORT"
    as_owner "$OWNER" mkdir -p "$HA/etcd"
    as_owner "$OWNER" chmod 700 "$HA/etcd"
    ha_launch "$OWNER" "$HA/etcd.log" "$HA/etcd.pid" etcd --name korp-etcd \
        --data-dir "$HA/etcd" \
        --listen-client-urls "http://127.0.0.1:$ETCD_PORT" \
        --advertise-client-urls "http://127.0.0.1:$ETCD_PORT" \
        --listen-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
        --initial-advertise-peer-urls "http://127.0.0.1:$ETCD_PEER_PORT" \
        --initial-cluster "korp-etcd=http://127.0.0.1:$ETCD_PEER_PORT" \
        --initial-cluster-state new
fi
etcd_healthy() { [ "$(ha_get "http://127.0.0.1:$ETCD_PORT/health")" = 200 ]; }
ha_wait 30 "etcd on 127.0.0.1:$ETCD_PORT (log: $HA/etcd.log)" etcd_healthy

# ---- the three nodes
PG_BIN=$(korp_pg_bin)
ADMIN_PW=$(korp_pg_secret "$PASSDATA" "$KORP_PG_ADMIN")
REPL_PW=$(korp_pg_secret "$PASSDATA" replicator)
for n in $KORP_HA_NODES; do
    node=$HA/node$n pg=PG_PORT_$n rest=REST_PORT_$n
    as_owner "$OWNER" mkdir -p "$node/log"
    as_owner "$OWNER" chmod 700 "$node"
    sed -e "s|@NAME@|node$n|g" -e "s|@REST_PORT@|${!rest}|g" -e "s|@PG_PORT@|${!pg}|g" \
        -e "s|@ETCD_PORT@|$ETCD_PORT|g" -e "s|@DATA@|$node/pg|g" -e "s|@NODE_DIR@|$node|g" \
        -e "s|@PG_BIN@|$PG_BIN|g" -e "s|@ADMIN@|$KORP_PG_ADMIN|g" \
        -e "s|@ADMIN_PASSWORD@|$ADMIN_PW|g" -e "s|@REPLICATOR_PASSWORD@|$REPL_PW|g" \
        deploy/ha/patroni.yml.in | owner_write "$OWNER" "$node/patroni.yml"
    if ! ha_pidfile_runs "$HA/node$n.pid" "$node/patroni.yml"; then
        # A PostgreSQL its Patroni left running (Patroni was killed) goes
        # first: the new Patroni starts its own.
        for pid in $(ha_postmaster_pids "$node/pg"); do kill -KILL "$pid" 2>/dev/null || true; done
        for p in "${!pg}" "${!rest}"; do
            port_in_use "$p" && die "port $p (node$n) is taken by another program; remove $HA/ports to choose again"
        done
        say "starting node$n: PostgreSQL on 127.0.0.1:${!pg}, Patroni on 127.0.0.1:${!rest}"
        ha_launch "$OWNER" "$node/patroni.log" "$HA/node$n.pid" patroni "$node/patroni.yml"
    fi
done

LEADER=
has_leader() { LEADER=$(ha_leader_port); }
ha_wait 180 "a primary (logs: $HA/node*/patroni.log)" has_leader
nodes_running() {
    local n rest
    for n in $KORP_HA_NODES; do
        rest=REST_PORT_$n
        [ "$(ha_get "http://127.0.0.1:${!rest}/health")" = 200 ] || return 1
    done
}
ha_wait 180 "all three PostgreSQL nodes to run (logs: $HA/node*/patroni.log)" nodes_running
has_sync() {
    local n rest
    for n in $KORP_HA_NODES; do
        rest=REST_PORT_$n
        [ "$(ha_get "http://127.0.0.1:${!rest}/sync")" = 200 ] && return 0
    done
    return 1
}
ha_wait 120 "a synchronous standby" has_sync
# Settled: one primary, two replicas, and the multi-host URL korpd gets
# leads to that primary.
hosts=
for n in $KORP_HA_NODES; do pg=PG_PORT_$n; hosts=${hosts:+$hosts,}127.0.0.1:${!pg}; done
settled() {
    local n rest replicas=0
    has_leader || return 1
    for n in $KORP_HA_NODES; do
        rest=REST_PORT_$n
        [ "$(ha_get "http://127.0.0.1:${!rest}/replica")" = 200 ] && replicas=$((replicas + 1))
    done
    [ "$replicas" = 2 ] &&
        [ "$(PGPASSFILE=$(korp_pg_passfile "$PASSDATA" "$KORP_PG_ADMIN") PGCONNECT_TIMEOUT=3 \
            "$PG_BIN/psql" -X -q -w -tA \
            "postgresql://$KORP_PG_ADMIN@$hosts/postgres?target_session_attrs=read-write" \
            -c 'SELECT current_setting($$port$$)' 2>/dev/null)" = "$LEADER" ]
}
ha_wait 120 "one primary and two replicas" settled
say "primary on 127.0.0.1:$LEADER"

# ---- korp's role and database, on the primary (replicated from there)
korp_pg_role "$PASSDATA" "$OWNER" "$LEADER"
korp_pg_createdb "$PASSDATA" "$LEADER" korp
# Until a replica has replayed CREATE DATABASE, libpq, trying the hosts in
# order, stops at it ("database does not exist" ends the attempt, as a
# failed login does): korpd starts once every node has the database.
db_everywhere() {
    local n pg
    for n in $KORP_HA_NODES; do
        pg=PG_PORT_$n
        [ "$(PGPASSFILE=$(korp_pg_passfile "$PASSDATA" "$KORP_PG_ADMIN") PGCONNECT_TIMEOUT=3 \
            "$PG_BIN/psql" -X -q -w -tA \
            "postgresql://$KORP_PG_ADMIN@127.0.0.1:${!pg}/postgres" \
            -c "SELECT count(*) FROM pg_database WHERE datname = 'korp'" 2>/dev/null)" = 1 ] ||
            return 1
    done
}
ha_wait 60 "every node to have the korp database" db_everywhere

# ---- korpd on the multi-host URL; libpq keeps to the read-write node
export KORP_DATABASE_URL="postgresql://$KORP_PG_USER@$hosts/korp?target_session_attrs=read-write"
export PGPASSFILE=$HA/$KORP_PG_USER.pgpass
export KORP_LISTEN=$KORPD_LISTEN
if ! [ -f "$HA/korpd.pid" ] || ! korp_pid_runs "$(cat "$HA/korpd.pid")" "$HA/korpd"; then
    port_in_use "${KORPD_LISTEN##*:}" "${KORPD_LISTEN%:*}" &&
        die "$KORPD_LISTEN is taken by another program; choose another address with KORP_LISTEN"
    as_owner "$OWNER" sh -c 'umask 022 && cat >"$1.new" && chmod 755 "$1.new" && mv -f "$1.new" "$1"' \
        sh "$HA/korpd" <"$BUILD/korpd/korpd"
    say "starting korpd on $KORPD_LISTEN (log: $HA/korpd.log)"
    ha_launch "$OWNER" "$HA/korpd.log" "$HA/korpd.pid" "$HA/korpd"
    korpd_up() {
        # (Until its launcher has exec'd korpd, the pid runs setpriv or sh.)
        kill -0 "$(cat "$HA/korpd.pid")" 2>/dev/null ||
            { tail -n 20 "$HA/korpd.log" >&2; die "korpd exited (log: $HA/korpd.log)"; }
        curl -sf -m 3 "http://$KORPD_LISTEN/healthz" >/dev/null 2>&1
    }
    ha_wait 30 "korpd on $KORPD_LISTEN (log: $HA/korpd.log)" korpd_up
fi

apis=
for n in $KORP_HA_NODES; do rest=REST_PORT_$n; apis=${apis:+$apis,}http://127.0.0.1:${!rest}; done
echo "korpd http://$KORPD_LISTEN"
echo "patroni $apis"
