#!/usr/bin/env bash
# scripts/ha-down.sh — stops what scripts/ha-up.sh started under var/ha/ (or
# $KORP_HA_DIR): korpd, the three Patroni nodes (each stops its PostgreSQL)
# and etcd.  The data stays; ha-up.sh starts the same cluster again.
set -euo pipefail
. "$(dirname "$0")/lib.sh"
. "$KORP_ROOT/deploy/ha/lib.sh"

HA=${KORP_HA_DIR:-$KORP_ROOT/var/ha}
[ -e "$HA" ] || { say "nothing to stop: no $HA"; exit 0; }
HA=$(readlink -f "$HA")

# stop_pid PID SECONDS: SIGTERM, then up to SECONDS for it to go, then SIGKILL.
stop_pid() {
    local pid=$1 i
    kill "$pid" 2>/dev/null || return 0
    for ((i = 0; i < $2 * 10; i++)); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

if [ -f "$HA/korpd.pid" ]; then
    pid=$(cat "$HA/korpd.pid")
    if korp_pid_runs "$pid" "$HA/korpd"; then
        say "stopping korpd (pid $pid)"
        stop_pid "$pid" 15
    fi
    rm -f "$HA/korpd.pid"
fi
# The replicas first, the primary last: no failover on the way down.
. "$HA/ports" 2>/dev/null || true
order=()
for n in $KORP_HA_NODES; do
    rest=REST_PORT_$n
    if [ -n "${!rest:-}" ] && [ "$(ha_get "http://127.0.0.1:${!rest}/primary")" = 200 ]; then
        last=$n
    else
        order+=("$n")
    fi
done
[ -z "${last:-}" ] || order+=("$last")
for n in "${order[@]}"; do
    node=$HA/node$n
    if ha_pidfile_runs "$HA/node$n.pid" "$node/patroni.yml"; then
        pid=$(cat "$HA/node$n.pid")
        say "stopping node$n (Patroni pid $pid, with its PostgreSQL)"
        stop_pid "$pid" 40
    fi
    rm -f "$HA/node$n.pid"
    # A PostgreSQL left without its Patroni (Patroni was killed).
    for pid in $(ha_postmaster_pids "$node/pg"); do
        ha_pid_runs "$pid" postgres && kill -KILL "$pid" 2>/dev/null || true
    done
done
if ha_pidfile_runs "$HA/etcd.pid" "$HA/etcd"; then
    pid=$(cat "$HA/etcd.pid")
    say "stopping etcd (pid $pid)"
    stop_pid "$pid" 15
fi
rm -f "$HA/etcd.pid"
