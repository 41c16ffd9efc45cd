#!/usr/bin/env bash
# tests/test_up.sh SOURCE_DIR BUILD_DIR — scripts/up.sh and scripts/down.sh
# on throwaway copies of scripts/ (korpd comes from BUILD_DIR through
# KORP_BUILD_DIR), on free loopback ports:
#   1. a new cluster, with a locale that is not installed (LANG=en_US.UTF-8),
#      in a checkout the cluster owner cannot enter (when run as root):
#      /healthz answers, korpd does not run as root, no login without a
#      password, role korp is no superuser and owns database korp, the
#      password files are 0600 and the owner's;
#      the engine bots run (player korp-engine exists, its token file is 0600
#      and the owner's, its bot runs as the owner, accepts a challenge and
#      answers with a move);
#   2. up.sh again restarts korpd (and the bots);
#   3. down.sh stops everything, bots included; a stale pid file naming an unrelated live
#      process is left alone by down.sh and by up.sh;
#   4. a cluster of the old scheme (trust, korp the superuser) is upgraded in
#      place and keeps its data.
# Everything started here is stopped by PID, and the copies removed, even on
# failure.  Exit 77 (skipped) without PostgreSQL.
set -euo pipefail
SRC=$(cd "$1" && pwd)
BUILD=$(cd "$2" && pwd)

PG_BIN=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
[ -n "$PG_BIN" ] || { echo "PostgreSQL is not installed: skipped"; exit 77; }
[ -x "$BUILD/korpd/korpd" ] || { echo "no korpd in $BUILD: skipped"; exit 77; }
unset PGPASSFILE KORP_DATABASE_URL KORP_PG_PORT KORP_LISTEN KORP_BUILD_DIR
if [ "$(id -u)" = 0 ]; then OWNER=postgres; else OWNER=$(id -un); fi

T=$(mktemp -d /tmp/korp-test-up.XXXXXX)
chmod 755 "$T"
CHECKOUTS=()
SLEEP_PID=

as_owner() {
    if [ "$(id -un)" = "$OWNER" ]; then (cd / && "$@"); else (cd / && runuser -u "$OWNER" -- "$@"); fi
}

# The cluster's data directory of checkout $1.
data_of() { if [ -L "$1/var/pg" ]; then readlink "$1/var/pg"; else echo "$1/var/pg"; fi; }

wait_gone() {
    local pid=$1
    for _ in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    return 1
}

teardown() {
    local co=$1 data pid exe
    data=$(data_of "$co")
    pid=$(cat "$co/var/korpd.pid" 2>/dev/null || true)
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
    if [ -n "$pid" ] && [ "$exe" = "$(dirname "$data")/korpd" ]; then
        kill "$pid" 2>/dev/null || true
        wait_gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
    fi
    for f in "$co"/var/korp-engine*.pid; do
        [ -e "$f" ] || continue
        pid=$(cat "$f")
        exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
        if [ "$exe" = "$(dirname "$data")/korp-bot" ]; then
            kill "$pid" 2>/dev/null || true
            wait_gone "$pid" || kill -KILL "$pid" 2>/dev/null || true
        fi
    done
    if [ -f "$data/PG_VERSION" ]; then
        as_owner "$PG_BIN/pg_ctl" -D "$data" -w -t 30 stop -m immediate >/dev/null 2>&1 || true
    fi
    case $data in /var/lib/korp/*) rm -rf "$(dirname "$data")" ;; esac
}

cleanup() {
    local co
    for co in "${CHECKOUTS[@]}"; do teardown "$co"; done
    [ -z "$SLEEP_PID" ] || kill "$SLEEP_PID" 2>/dev/null || true
    rm -rf "$T"
    rmdir /var/lib/korp 2>/dev/null || true
}
trap cleanup EXIT

fail() { printf 'FAIL: %s\n' "$*" >&2; exit 1; }
ok() { printf 'ok: %s\n' "$*"; }

# free_port VAR: sets VAR to a free port below the ephemeral range (32768-60999), probed
# one after the other from a point that depends on this process (no unseeded $RANDOM);
# each port is handed out once, so two calls in a row never give the same port.  It sets
# a variable rather than printing, as a $(...) subshell would lose NEXT_PORT.
NEXT_PORT=$(( $$ * 7919 % 12000 ))
free_port() {
    local p
    for _ in $(seq 1 200); do
        p=$((20000 + NEXT_PORT % 12000))
        NEXT_PORT=$((NEXT_PORT + 1))
        if ! (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null; then
            printf -v "$1" '%s' "$p"
            return 0
        fi
    done
    fail "no free port below 32768"
}
listening() { (exec 3<>"/dev/tcp/127.0.0.1/$1") 2>/dev/null; }

# A copy of the scripts in $1 (a folder made here), registered for teardown.
checkout() {
    mkdir -p "$1"
    cp -a "$SRC/scripts" "$1/"
    CHECKOUTS+=("$1")
}

up() {
    local co=$1; shift
    env "$@" KORP_BUILD_DIR="$BUILD" bash "$co/scripts/up.sh" || fail "up.sh in $co"
}
down() { bash "$1/scripts/down.sh" || fail "down.sh in $1"; }

# psql as ROLE ($2) into database korp of checkout $1, with its password file.
sql() {
    local co=$1 role=$2 port=$3; shift 3
    PGPASSFILE=$co/var/$role.pgpass "$PG_BIN/psql" -X -w -q -tA -h 127.0.0.1 -p "$port" \
        -U "$role" -d korp "$@"
}
refused_without_password() {
    local role=$1 port=$2
    ! PGPASSFILE=/nonexistent/pgpass "$PG_BIN/psql" -X -w -h 127.0.0.1 -p "$port" -U "$role" \
        -d postgres -c 'SELECT 1' >/dev/null 2>&1
}
healthy() { curl -sf --max-time 5 "http://$1/healthz" | grep -q '"status":"ok"'; }
korpd_pid() { cat "$1/var/korpd.pid"; }

check_secured() {
    local co=$1 port=$2 f mode
    for role in korp korp_admin; do
        refused_without_password "$role" "$port" || fail "$role logs in without a password"
    done
    ok "no login without a password"
    [ "$(sql "$co" korp "$port" -c "SELECT rolsuper FROM pg_roles WHERE rolname = 'korp'")" = f ] ||
        fail "role korp is a superuser"
    [ "$(sql "$co" korp "$port" -c \
        "SELECT pg_get_userbyid(datdba) FROM pg_database WHERE datname = 'korp'")" = korp ] ||
        fail "database korp is not owned by korp"
    sql "$co" korp "$port" -c "COPY (SELECT 1) TO PROGRAM 'true'" >/dev/null 2>&1 &&
        fail "korp may run programs"
    ok "role korp is no superuser and owns database korp"
    [ "$(sql "$co" korp_admin "$port" -c "SELECT rolsuper FROM pg_roles WHERE rolname = 'korp_admin'")" = t ] ||
        fail "korp_admin is not the superuser"
    for f in korp.pgpass korp_admin.pgpass; do
        mode=$(stat -L -c '%a %U' "$co/var/$f") || fail "no var/$f"
        [ "$mode" = "600 $OWNER" ] || fail "var/$f is '$mode', not '600 $OWNER'"
    done
    ok "password files are 0600 and owned by $OWNER"
}

check_korpd() {
    local co=$1 listen=$2 pid user
    healthy "$listen" || fail "/healthz does not answer on $listen"
    pid=$(korpd_pid "$co")
    user=$(stat -c %U "/proc/$pid") || fail "korpd (pid $pid) is not running"
    if [ "$(id -u)" = 0 ]; then
        [ "$user" != root ] || fail "korpd runs as root"
    fi
    [ "$user" = "$OWNER" ] || fail "korpd runs as $user, not as the cluster owner $OWNER"
    ok "korpd (pid $pid) answers on $listen as $user"
}

# json FIELD...: the value at that path of the JSON object on stdin.
json() { python3 -c 'import json, sys
v = json.load(sys.stdin)
for k in sys.argv[1:]:
    v = v[int(k)] if isinstance(v, list) else v[k]
print(v)' "$@"; }

bot_pid() { cat "$1/var/korp-engine.pid" 2>/dev/null; }

check_bots() {
    local co=$1 listen=$2 base pid exe mode id reply token cid gid game ply=0
    base=http://$listen
    pid=$(bot_pid "$co") || fail "no var/korp-engine.pid"
    for _ in $(seq 1 50); do
        exe=$(readlink "/proc/$pid/exe" 2>/dev/null || true)
        [ "${exe##*/}" = korp-bot ] && break
        sleep 0.1
    done
    [ "${exe##*/}" = korp-bot ] || fail "the korp-engine bot (pid $pid) does not run (exe '$exe')"
    [ "$(stat -c %U "/proc/$pid")" = "$OWNER" ] || fail "the bot does not run as $OWNER"
    mode=$(stat -L -c '%a %U' "$co/var/korp-engine.token") || fail "no var/korp-engine.token"
    [ "$mode" = "600 $OWNER" ] || fail "var/korp-engine.token is '$mode', not '600 $OWNER'"
    id=$(curl -sf "$base/v1/players?name=korp-engine" |
        json players 0 id) || fail "no player korp-engine"
    ok "player korp-engine exists ($id); its bot runs as $OWNER (pid $pid), token file 0600"
    reply=$(curl -sf -H 'Content-Type: application/json' -d "{\"name\":\"up_challenger_$$\"}" \
        "$base/v1/players") || fail "cannot create a challenger"
    token=$(json token <<<"$reply")
    # The challenger takes Black: the bot, White, must move first.
    cid=$(printf 'Authorization: Bearer %s\n' "$token" |
        curl -sf -H @- -H 'Content-Type: application/json' \
            -d "{\"variant\":\"korpalski\",\"opponent\":\"$id\",\"color\":\"black\"}" \
            "$base/v1/challenges" | json id) || fail "cannot challenge korp-engine"
    for _ in $(seq 1 300); do
        gid=$(curl -sf "$base/v1/challenges/$cid" | json game_id 2>/dev/null || true)
        if [ -n "$gid" ] && [ "$gid" != None ]; then
            game=$(curl -sf "$base/v1/games/$gid") || true
            ply=$(json ply <<<"$game" 2>/dev/null || echo 0)
            [ "$ply" -ge 1 ] && break
        fi
        sleep 0.1
    done
    [ "$ply" -ge 1 ] || { tail -n 20 "$co/var/korp-engine.log" >&2; fail "the bot did not accept and move (game '$gid', ply $ply)"; }
    ok "korp-engine accepted challenge $cid and played $(json moves 0 <<<"$game") in game $gid"
}

# 1. A new cluster; the owner cannot enter the checkout when we are root.
mkdir -m 700 "$T/private"
A=$T/private/co
checkout "$A"
free_port PG; free_port HTTP_PORT; HTTP=127.0.0.1:$HTTP_PORT
up "$A" KORP_PG_PORT="$PG" KORP_LISTEN="$HTTP" LANG=en_US.UTF-8 LC_ALL=
ok "up.sh with LANG=en_US.UTF-8"
check_korpd "$A" "$HTTP"
check_secured "$A" "$PG"
check_bots "$A" "$HTTP"

# 2. Again: korpd restarts, and the bots with it.
first=$(korpd_pid "$A")
first_bot=$(bot_pid "$A")
up "$A" KORP_LISTEN="$HTTP"
second=$(korpd_pid "$A")
second_bot=$(bot_pid "$A")
[ "$first_bot" != "$second_bot" ] || fail "the second up.sh did not restart the bot"
wait_gone "$first_bot" || fail "the first bot (pid $first_bot) still runs"
[ "$first" != "$second" ] || fail "the second up.sh did not restart korpd (pid $first)"
kill -0 "$first" 2>/dev/null && fail "the first korpd (pid $first) still runs"
check_korpd "$A" "$HTTP"
ok "a second up.sh restarts korpd ($first -> $second)"

# 3. down.sh, and a stale pid file naming somebody else's live process.
down "$A"
wait_gone "$second" || fail "down.sh left korpd (pid $second) running"
wait_gone "$second_bot" || fail "down.sh left the bot (pid $second_bot) running"
for _ in $(seq 1 50); do listening "$PG" || break; sleep 0.1; done
listening "$PG" && fail "down.sh left PostgreSQL running on port $PG"
ok "down.sh stops korpd and PostgreSQL"
sleep 300 &
SLEEP_PID=$!
echo "$SLEEP_PID" >"$A/var/korpd.pid"
down "$A"
kill -0 "$SLEEP_PID" 2>/dev/null || fail "down.sh killed an unrelated process from a stale pid file"
echo "$SLEEP_PID" >"$A/var/korpd.pid"
up "$A" KORP_LISTEN="$HTTP"
kill -0 "$SLEEP_PID" 2>/dev/null || fail "up.sh killed an unrelated process from a stale pid file"
check_korpd "$A" "$HTTP"
ok "a stale pid file is not obeyed"
down "$A"

# 4. A cluster of the old scheme, running, with data.
B=$T/open/co
checkout "$B"
mkdir -p "$B/var"
[ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "$B/var"
free_port PG; free_port HTTP_PORT; HTTP=127.0.0.1:$HTTP_PORT
as_owner "$PG_BIN/initdb" -D "$B/var/pg" -U korp --auth=trust -E UTF8 --locale=C.UTF-8 >/dev/null
as_owner tee -a "$B/var/pg/postgresql.conf" >/dev/null <<CONF
listen_addresses = '127.0.0.1'
port = $PG
unix_socket_directories = ''
CONF
as_owner "$PG_BIN/pg_ctl" -D "$B/var/pg" -l "$B/var/pg/server.log" -w -t 60 start >/dev/null
PGPASSFILE=/nonexistent/pgpass "$PG_BIN/createdb" -w -h 127.0.0.1 -p "$PG" -U korp korp
PGPASSFILE=/nonexistent/pgpass "$PG_BIN/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$PG" \
    -U korp -d korp <<'SQL'
CREATE TABLE kept (id serial PRIMARY KEY, note text);
INSERT INTO kept (note) VALUES ('from the old scheme');
CREATE TYPE colour AS ENUM ('white', 'black');
CREATE FUNCTION other(c colour) RETURNS colour LANGUAGE sql AS
    $$ SELECT CASE c WHEN 'white' THEN 'black'::colour ELSE 'white'::colour END $$;
SQL
up "$B" KORP_LISTEN="$HTTP"
check_korpd "$B" "$HTTP"
check_secured "$B" "$PG"
[ "$(sql "$B" korp "$PG" -c "SELECT note FROM kept")" = "from the old scheme" ] ||
    fail "the old cluster's data is gone"
sql "$B" korp "$PG" -v ON_ERROR_STOP=1 -c \
    "INSERT INTO kept (note) VALUES (other('white')::text)" >/dev/null ||
    fail "korp cannot use its old table, sequence, type and function"
[ "$(sql "$B" korp_admin "$PG" -c "SELECT rolname FROM pg_roles WHERE oid = 10")" = korp_admin ] ||
    fail "the bootstrap superuser was not renamed korp_admin"
[ "$(sql "$B" korp_admin "$PG" -c "SELECT count(*) FROM pg_roles WHERE rolname !~ '^pg_'")" = 2 ] ||
    fail "roles other than korp and korp_admin are left over"
ok "a cluster of the old scheme is upgraded in place with its data"
down "$B"
ok "all done"
