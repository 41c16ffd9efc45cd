# deploy/ha/lib.sh — shared by scripts/ha-up.sh and scripts/ha-down.sh (and the
# tests in tests/ha/); source it after scripts/lib.sh, don't run it.
#
# The cluster lives in one folder, HA (var/ha, or $KORP_HA_DIR), owned by a
# non-root user:
#   ports                 the ports chosen the first time (sourced again later)
#   etcd/ etcd.log etcd.pid
#   node1..3/             patroni.yml (0600), pg/ (the data), log/, patroni.log
#   node1..3.pid          each node's Patroni
#   korp_admin.pgpass korp.pgpass replicator.pgpass   (0600, as up.sh makes them)
#   korpd korpd.log korpd.pid

KORP_HA_NODES="1 2 3"
KORP_HA_PACKAGES="patroni etcd-server"

# ha_pid_runs PID WORD: true if process PID runs and its command line holds
# WORD (Patroni and etcd are checked by their configuration's path: a
# Python process has no executable of its own to compare).
ha_pid_runs() {
    local pid=$1 word=$2
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    [ -r "/proc/$pid/cmdline" ] || return 1
    tr '\0' ' ' <"/proc/$pid/cmdline" | grep -qF -- "$word"
}

# ha_pidfile_runs FILE WORD: ha_pid_runs for the pid FILE names.
ha_pidfile_runs() {
    [ -f "$1" ] && ha_pid_runs "$(cat "$1")" "$2"
}

# ha_launch OWNER LOG PIDFILE COMMAND...: starts COMMAND in its own session as
# OWNER, appending its output to LOG (opened by OWNER), and writes its pid.
ha_launch() {
    local owner=$1 log=$2 pidfile=$3 launch=() pid; shift 3
    [ "$(id -un)" = "$owner" ] ||
        launch=(setpriv --reuid="$owner" --regid="$(id -g "$owner")" --init-groups --)
    (cd / && exec setsid "${launch[@]}" sh -c 'log=$1; shift; exec "$@" >>"$log" 2>&1' \
        sh "$log" "$@" </dev/null) &
    pid=$!
    rm -f "$pidfile"
    (set -C && echo "$pid" >"$pidfile")
}

# ha_get URL: the HTTP status of a GET (000 when nothing answers).
ha_get() {
    curl -s -o /dev/null -m 3 -w '%{http_code}' "$1" 2>/dev/null || true
}

# ha_wait SECONDS WHAT COMMAND...: runs COMMAND every 0.2 s until it
# succeeds; dies after SECONDS.
ha_wait() {
    local seconds=$1 what=$2 end; shift 2
    end=$((SECONDS + seconds))
    until "$@"; do
        [ "$SECONDS" -lt "$end" ] || die "timed out after $seconds s waiting for $what"
        sleep 0.2
    done
}

# ha_leader_port: the PostgreSQL port of the node whose Patroni says it is
# the primary (GET /primary answers 200 there only); none: returns 1.
ha_leader_port() {
    local n port
    for n in $KORP_HA_NODES; do
        port=REST_PORT_$n
        if [ "$(ha_get "http://127.0.0.1:${!port}/primary")" = 200 ]; then
            port=PG_PORT_$n
            echo "${!port}"
            return 0
        fi
    done
    return 1
}

# ha_postmaster_pids DATA: the postmaster of the cluster in DATA and its children.
ha_postmaster_pids() {
    local master
    [ -f "$1/postmaster.pid" ] || return 0
    master=$(head -n 1 "$1/postmaster.pid")
    [[ "$master" =~ ^[0-9]+$ ]] && [ -d "/proc/$master" ] || return 0
    echo "$master"
    pgrep -P "$master" || true
}
