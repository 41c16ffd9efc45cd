# scripts/lib.sh — shared by up.sh, test.sh and down.sh; source it, don't run it.
# Installs what korp needs from Debian 12 packages and runs a PostgreSQL
# cluster as a non-root user (PostgreSQL refuses to run as root).
#
# A cluster made here lives in DATA = <home>/pg and listens on 127.0.0.1
# only, with SCRAM password logins (no trust, no Unix socket).  Its roles:
#   korp_admin  the superuser, for these scripts only
#   korp        a plain role that owns the databases korpd and the tests use
# Each role's password is generated here and kept in <home>/<role>.pgpass
# (libpq's pgpass format, mode 0600, owned by the cluster owner); SQL goes
# through psql variables, never through pasted shell strings.

KORP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

KORP_PACKAGES="build-essential cmake pkg-config libmicrohttpd-dev libpq-dev libcjson-dev
  libcurl4-openssl-dev libcmocka-dev libssl-dev libargon2-dev postgresql curl ca-certificates
  python3"
KORP_TEST_PACKAGES="clang libclang-rt-14-dev python3-pytest python3-requests python3-jsonschema
  python3-hypothesis python3-yaml prometheus haproxy postfix chromium
  patroni etcd-server pgbackrest python3-psycopg2
  gettext python3-cryptography"

KORP_PG_ADMIN=korp_admin
KORP_PG_USER=korp

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly, or through sudo.
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "installing packages needs root: run this as root or install sudo"; fi
}

# Debian's postgresql package creates a "main" cluster on port 5432 (and
# starts it where systemd runs) that korp never uses: tell postgresql-common
# not to, before the server package is installed.
no_main_cluster() {
    local conf=/etc/postgresql-common/createcluster.conf
    grep -Eq '^[[:space:]]*create_main_cluster[[:space:]]*=[[:space:]]*(false|off|no)' \
        "$conf" 2>/dev/null && return 0
    as_root mkdir -p /etc/postgresql-common
    if grep -Eq '^[[:space:]#]*create_main_cluster' "$conf" 2>/dev/null; then
        as_root sed -i -E 's/^[[:space:]#]*create_main_cluster.*/create_main_cluster = false/' "$conf"
    else
        printf 'create_main_cluster = false\n' | as_root tee -a "$conf" >/dev/null
    fi
}

# Installs the packages that are missing (apt-get only when something is).
korp_install() {
    local missing=() p
    for p in "$@"; do
        dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' ||
            missing+=("$p")
    done
    [ ${#missing[@]} -eq 0 ] && return 0
    say "installing ${missing[*]}"
    as_root apt-get update -q >/dev/null
    if [[ " ${missing[*]} " == *" postgresql "* ]]; then
        # postgresql-common first: it ships createcluster.conf, edited before
        # the server package's postinst reads it.
        as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q \
            --no-install-recommends postgresql-common >/dev/null
        no_main_cluster
    fi
    if [[ " ${missing[*]} " == *" postfix "* ]]; then
        # The tests use only postfix's smtp-sink: no mail system is set up
        # (and none starts on port 25).
        echo "postfix postfix/main_mailer_type select No configuration" |
            as_root debconf-set-selections
    fi
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "${missing[@]}" >/dev/null
}

# korp_build: sets BUILD to the build folder holding korpd: KORP_BUILD_DIR
# when set, else build/ in the checkout, built (Release) first.
korp_build() {
    if [ -n "${KORP_BUILD_DIR:-}" ]; then
        BUILD=$(cd "$KORP_BUILD_DIR" && pwd)
        say "using korpd from $BUILD"
    else
        BUILD=$KORP_ROOT/build
        say "building into build/"
        cmake -S "$KORP_ROOT" -B "$BUILD" -DCMAKE_BUILD_TYPE=Release >/dev/null
        cmake --build "$BUILD" -j "$(nproc)" >/dev/null
    fi
    [ -x "$BUILD/korpd/korpd" ] || die "no korpd in $BUILD/korpd"
}

korp_pg_bin() {
    local dir
    dir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -n 1)
    [ -n "$dir" ] || die "PostgreSQL server binaries not found under /usr/lib/postgresql"
    echo "$dir"
}

# The user that owns and runs a cluster: never root.
korp_pg_owner() {
    if [ "$(id -u)" != 0 ]; then id -un
    elif [ -n "${SUDO_USER:-}" ] && [ "$SUDO_USER" != root ]; then echo "$SUDO_USER"
    else echo postgres; fi
}

# Runs a command as the cluster owner, from / (the owner may not be able to
# enter the current folder); paths given must be absolute.
as_owner() {
    local owner=$1; shift
    if [ "$(id -un)" = "$owner" ]; then (cd / && "$@")
    else (cd / && runuser -u "$owner" -- "$@"); fi
}

# owner_write OWNER PATH: stdin into PATH, mode 0600, written by OWNER
# itself (so root never writes through a link the owner may have planted).
owner_write() {
    as_owner "$1" sh -c 'umask 077 && cat >"$1.new" && mv -f "$1.new" "$1"' sh "$2"
}

# True if something accepts connections on 127.0.0.1:$1 (or host $2).
port_in_use() {
    (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

# ---- ports for the servers these scripts start (and bench/'s): on
# 127.0.0.1, from 20000-31999, below the kernel's range for outgoing
# connections (32768-60999), where a client's socket may take a port that
# looked free.
KORP_PORT_LOW=20000
KORP_PORT_SPAN=12000

# port_held PORT: true if a TCP socket of this machine (of this network
# namespace) has PORT as its local port, in any state: listening, connected
# or closing (TIME-WAIT included), which a connect probe does not see.
# Read from /proc/net/tcp and tcp6; without them, the connect probe.
port_held() {
    local files=() f
    for f in /proc/net/tcp /proc/net/tcp6; do [ -r "$f" ] && files+=("$f"); done
    [ ${#files[@]} -gt 0 ] || { port_in_use "$1"; return; }
    awk -v p="$(printf '%04X' "$1")" '
        FNR > 1 { n = split($2, a, ":"); if (a[n] == p) { held = 1; exit } }
        END { exit !held }' "${files[@]}"
}

# korp_free_port [AVOID...]: sets KORP_FREE_PORT to a port of the range that
# no socket holds now (port_held) and that is not among AVOID.  No chance
# in it: the ports are tried one after the other from a point set by this
# shell's pid (so scripts running side by side start apart), and each call
# goes on where the last one stopped, so calls in a row never give the same
# port.  Each port of the range is looked at once at most; returns 1 if none
# is free.  It sets a variable rather than printing: a $(...) subshell
# would lose where it stopped.
KORP_PORT_NEXT=
korp_free_port() {
    local i port a avoided
    KORP_FREE_PORT=
    [ -n "$KORP_PORT_NEXT" ] || KORP_PORT_NEXT=$(( ($$ * 7919) % KORP_PORT_SPAN ))
    for ((i = 0; i < KORP_PORT_SPAN; i++)); do
        port=$((KORP_PORT_LOW + KORP_PORT_NEXT))
        KORP_PORT_NEXT=$(( (KORP_PORT_NEXT + 1) % KORP_PORT_SPAN ))
        avoided=0
        for a in "$@"; do [ "$a" = "$port" ] && avoided=1; done
        if [ "$avoided" = 0 ] && ! port_held "$port"; then
            KORP_FREE_PORT=$port
            return 0
        fi
    done
    return 1
}

# True if process $1 runs one of the executables given after it.
korp_pid_runs() {
    local pid=$1 exe b; shift
    [[ "$pid" =~ ^[0-9]+$ ]] || return 1
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    exe=${exe% (deleted)}
    for b in "$@"; do
        [ "$exe" = "$(readlink -m "$b")" ] && return 0
    done
    return 1
}

# korp_stop_pid PID: SIGTERM, then up to 10 s for it to go, then SIGKILL.
korp_stop_pid() {
    local pid=$1 i
    kill "$pid" 2>/dev/null || return 0
    for i in $(seq 1 100); do kill -0 "$pid" 2>/dev/null || return 0; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null || true
}

# The pgpass file of role $2 in the cluster whose data directory is $1.
korp_pg_passfile() { echo "$(dirname "$1")/$2.pgpass"; }

# The password of role $2 (from its pgpass file).
korp_pg_secret() { cut -d: -f5 "$(korp_pg_passfile "$1" "$2")"; }

# korp_pg_password DATA OWNER ROLE: generates ROLE's pgpass file if missing.
korp_pg_password() {
    local file
    file=$(korp_pg_passfile "$1" "$3")
    if [ ! -s "$file" ]; then
        printf '127.0.0.1:*:*:%s:%s\n' "$3" "$(od -An -N24 -tx1 /dev/urandom | tr -d ' \n')" |
            owner_write "$2" "$file"
    fi
    as_owner "$2" chmod 600 "$file"
}

# korp_pg_hba DATA OWNER: passwords over loopback TCP, nothing else.
korp_pg_hba() {
    owner_write "$2" "$1/pg_hba.conf" <<'HBA'
# korp: SCRAM password logins over loopback TCP only (no trust, no Unix socket)
host all all 127.0.0.1/32 scram-sha-256
HBA
}

# korp_pg_init DATADIR OWNER PORT: a new cluster, secured as described above.
korp_pg_init() {
    local data=$1 owner=$2 port=$3 bin pwfile rc=0
    bin=$(korp_pg_bin)
    korp_pg_password "$data" "$owner" "$KORP_PG_ADMIN"
    pwfile=$(dirname "$data")/.initdb-password
    korp_pg_secret "$data" "$KORP_PG_ADMIN" | owner_write "$owner" "$pwfile"
    as_owner "$owner" "$bin/initdb" -D "$data" -U "$KORP_PG_ADMIN" --pwfile="$pwfile" \
        --auth=scram-sha-256 -E UTF8 --locale=C.UTF-8 >/dev/null || rc=$?
    rm -f "$pwfile"
    [ "$rc" = 0 ] || die "initdb failed for $data"
    as_owner "$owner" tee -a "$data/postgresql.conf" >/dev/null <<CONF
# korp: loopback TCP only, no Unix socket (its path length is limited)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
password_encryption = 'scram-sha-256'
fsync = on
CONF
    korp_pg_hba "$data" "$owner"
}

# The port a cluster listens on (the last port setting in postgresql.conf).
korp_pg_port() {
    sed -nE "s/^[[:space:]]*port[[:space:]]*=[[:space:]]*'?([0-9]+).*/\1/p" "$1/postgresql.conf" |
        tail -n 1
}

# korp_pg_start DATADIR OWNER: starts the cluster unless it runs already;
# returns non-zero (after showing the log) if it does not start.
korp_pg_start() {
    local data=$1 owner=$2 bin
    bin=$(korp_pg_bin)
    if as_owner "$owner" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
        return 0
    fi
    if ! as_owner "$owner" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >/dev/null; then
        tail -n 20 "$data/server.log" >&2
        printf 'error: PostgreSQL did not start (log: %s)\n' "$data/server.log" >&2
        return 1
    fi
}

korp_pg_stop() {
    local data=$1 owner=$2 bin
    bin=$(korp_pg_bin)
    as_owner "$owner" "$bin/pg_ctl" -D "$data" -w -t 30 stop -m fast >/dev/null 2>&1 || true
}

# korp_pg_admin DATA PORT PSQL-ARGS...: psql as the superuser, stopping at
# the first error; SQL comes on stdin or in -c.
korp_pg_admin() {
    local data=$1 port=$2; shift 2
    PGPASSFILE=$(korp_pg_passfile "$data" "$KORP_PG_ADMIN") PGCONNECT_TIMEOUT=10 \
        "$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$KORP_PG_ADMIN" "$@"
}

# psql over trust authentication as role $2, for clusters of the old scheme.
trust_psql() {
    local port=$1 user=$2; shift 2
    PGPASSFILE=/nonexistent/pgpass PGCONNECT_TIMEOUT=10 \
        "$(korp_pg_bin)/psql" -X -q -w -v ON_ERROR_STOP=1 -h 127.0.0.1 -p "$port" -U "$user" -d postgres "$@"
}

# korp_pg_secure DATA OWNER PORT: upgrades a running cluster made by an
# older up.sh (trust on loopback, bootstrap superuser "korp") in place: the
# bootstrap superuser becomes korp_admin with a password, pg_hba.conf asks
# for passwords, and the server restarts.  korp_pg_role and
# korp_pg_createdb then make "korp" a plain role owning its database.
korp_pg_secure() {
    local data=$1 owner=$2 port=$3 boot
    grep -q '^# korp: SCRAM' "$data/pg_hba.conf" && return 0
    say "securing the cluster made by an older up.sh (passwords, no superuser for korpd)"
    korp_pg_password "$data" "$owner" "$KORP_PG_ADMIN"
    boot=$(trust_psql "$port" "$KORP_PG_ADMIN" -tAc 'SELECT rolname FROM pg_roles WHERE oid = 10' 2>/dev/null ||
        trust_psql "$port" "$KORP_PG_USER" -tAc 'SELECT rolname FROM pg_roles WHERE oid = 10') ||
        die "cannot reach the old cluster in $data as $KORP_PG_USER over trust"
    if [ "$boot" != "$KORP_PG_ADMIN" ]; then
        # A role cannot rename itself: a temporary superuser does it.
        trust_psql "$port" "$boot" -v tmp=korp_upgrade <<'SQL'
SELECT format('CREATE ROLE %I SUPERUSER LOGIN', :'tmp')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'tmp') \gexec
SQL
        trust_psql "$port" korp_upgrade -v boot="$boot" -v admin="$KORP_PG_ADMIN" <<'SQL'
ALTER ROLE :"boot" RENAME TO :"admin";
SQL
    fi
    KORP_PW=$(korp_pg_secret "$data" "$KORP_PG_ADMIN") \
        trust_psql "$port" "$KORP_PG_ADMIN" -v admin="$KORP_PG_ADMIN" -v tmp=korp_upgrade <<'SQL'
\getenv pw KORP_PW
DROP ROLE IF EXISTS :"tmp";
ALTER ROLE :"admin" PASSWORD :'pw';
SQL
    korp_pg_hba "$data" "$owner"
    korp_pg_stop "$data" "$owner"
    korp_pg_start "$data" "$owner"
}

# korp_pg_role DATA OWNER PORT: the role korp, a plain login role whose
# password is in its pgpass file (made if missing).
korp_pg_role() {
    local data=$1 owner=$2 port=$3
    korp_pg_password "$data" "$owner" "$KORP_PG_USER"
    KORP_PW=$(korp_pg_secret "$data" "$KORP_PG_USER") \
        korp_pg_admin "$data" "$port" -d postgres -v role="$KORP_PG_USER" <<'SQL'
\getenv pw KORP_PW
SELECT format('CREATE ROLE %I', :'role')
WHERE NOT EXISTS (SELECT FROM pg_roles WHERE rolname = :'role') \gexec
ALTER ROLE :"role" LOGIN NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION NOBYPASSRLS
    PASSWORD :'pw';
SQL
}

# korp_pg_createdb DATA PORT NAME: database NAME owned by korp, made if
# missing.  Objects in it that the bootstrap superuser owns (an older
# up.sh let korpd run as that superuser) are handed to korp as well.
korp_pg_createdb() {
    local data=$1 port=$2 name=$3
    korp_pg_admin "$data" "$port" -d postgres -v db="$name" -v role="$KORP_PG_USER" <<'SQL'
SELECT format('CREATE DATABASE %I OWNER %I', :'db', :'role')
WHERE NOT EXISTS (SELECT FROM pg_database WHERE datname = :'db') \gexec
ALTER DATABASE :"db" OWNER TO :"role";
\connect :"db"
-- Tables, views and sequences not owned through a column (those follow
-- their table), functions, types and schemas; extension members stay.
WITH ext AS (SELECT objid FROM pg_depend WHERE deptype = 'e')
SELECT format('ALTER TABLE %s OWNER TO %I', c.oid::regclass, :'role')
FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace
WHERE c.relowner = 10 AND c.relkind IN ('r', 'p', 'v', 'm', 'f', 'S')
  AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
  AND c.oid NOT IN (SELECT objid FROM ext)
  AND (c.relkind <> 'S' OR NOT EXISTS (
        SELECT FROM pg_depend d
        WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
          AND d.refclassid = 'pg_class'::regclass AND d.deptype IN ('a', 'i')))
UNION ALL
SELECT format('ALTER ROUTINE %s OWNER TO %I', p.oid::regprocedure, :'role')
FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace
WHERE p.proowner = 10 AND p.prokind IN ('f', 'p')
  AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
  AND p.oid NOT IN (SELECT objid FROM ext)
UNION ALL
SELECT format('ALTER %s %s OWNER TO %I', CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END,
              t.oid::regtype, :'role')
FROM pg_type t JOIN pg_namespace n ON n.oid = t.typnamespace
WHERE t.typowner = 10 AND n.nspname <> 'information_schema' AND n.nspname !~ '^pg_'
  AND t.oid NOT IN (SELECT objid FROM ext)
  AND (t.typtype IN ('e', 'd', 'r')
       OR (t.typtype = 'c' AND (SELECT relkind FROM pg_class WHERE oid = t.typrelid) = 'c'))
UNION ALL
SELECT format('ALTER SCHEMA %I OWNER TO %I', n.nspname, :'role')
FROM pg_namespace n
WHERE n.nspowner = 10 AND n.nspname NOT IN ('public', 'information_schema')
  AND n.nspname !~ '^pg_' AND n.oid NOT IN (SELECT objid FROM ext)
\gexec
SQL
}

# korp_pg_throwaway DATADIR OWNER: a new cluster on a free port (korp_free_port);
# sets KORP_PG_PORT_FOUND.  A port may be taken between the probe and
# PostgreSQL's bind: then the next free port, up to 8 starts.  Any other
# failure to start is no port's fault, and ends the script.
korp_pg_throwaway() {
    local data=$1 owner=$2 start
    KORP_PG_PORT_FOUND=
    for start in 1 2 3 4 5 6 7 8; do
        korp_free_port ||
            die "no free port in $KORP_PORT_LOW-$((KORP_PORT_LOW + KORP_PORT_SPAN - 1)) on 127.0.0.1"
        rm -rf "$data"
        korp_pg_init "$data" "$owner" "$KORP_FREE_PORT"
        if korp_pg_start "$data" "$owner"; then
            KORP_PG_PORT_FOUND=$KORP_FREE_PORT
            return 0
        fi
        grep -Eq 'could not bind|could not create any TCP/IP sockets' "$data/server.log" 2>/dev/null ||
            die "could not start a throwaway PostgreSQL (log: $data/server.log)"
        say "port $KORP_FREE_PORT was taken as PostgreSQL started (start $start of 8): the next free one"
    done
    die "could not start a throwaway PostgreSQL: 8 ports were taken as it started"
}

# ---- the engine bots: players on the local korpd that answer
# challenges with korp's engine (examples/random-bot --engine).  Each runs as
# the cluster owner from HOME/korp-bot (a copy, as korpd), its token in
# HOME/<name>.token (0600, the owner's; read by the bot's own shell, never on
# a command line), its log in HOME/<name>.log, its pid in var/<name>.pid.

# korp_bot_token HOME OWNER BASE NAME: makes sure HOME/NAME.token holds a
# token korpd accepts, creating player NAME when there is none; returns 1
# (with a message) when it cannot.
korp_bot_token() {
    local home=$1 owner=$2 base=$3 name=$4 file reply code token
    file=$home/$name.token
    if [ -s "$file" ]; then
        code=$(as_owner "$owner" cat "$file" | sed 's/^/Authorization: Bearer /' |
            curl -s -o /dev/null -w '%{http_code}' -H @- "$base/v1/players/me") || code=000
        [ "$code" = 200 ] && return 0
    fi
    reply=$(curl -s -w '\n%{http_code}' -H 'Content-Type: application/json' \
        -d "{\"name\":\"$name\"}" "$base/v1/players") || reply=$'\n000'
    code=${reply##*$'\n'}
    token=$(printf '%s' "${reply%$'\n'*}" | sed -n 's/.*"token":"\([^"]*\)".*/\1/p')
    if [ "$code" != 201 ] || [ -z "$token" ]; then
        say "cannot create player $name (HTTP $code): it exists without its token in $file?"
        return 1
    fi
    printf '%s\n' "$token" | owner_write "$owner" "$file"
    say "created player $name (token in var/$name.token)"
}

# korp_bot_stop NAME BIN...: stops the bot whose pid var/NAME.pid holds, if
# that process runs one of BIN (a stale pid may name somebody else's).
korp_bot_stop() {
    local name=$1 pid; shift
    [ -f "var/$name.pid" ] || return 0
    pid=$(cat "var/$name.pid")
    if korp_pid_runs "$pid" "$@"; then
        say "stopping the $name bot (pid $pid)"
        korp_stop_pid "$pid"
    fi
    rm -f "var/$name.pid"
}

# korp_bot_start HOME OWNER BASE NAME BIN: starts BIN --engine as player NAME
# in the background (its level: the number ending NAME, else the default).
korp_bot_start() {
    local home=$1 owner=$2 base=$3 name=$4 bin=$5 launch=() pid
    korp_bot_token "$home" "$owner" "$base" "$name" || return 0
    [ "$home" = "$KORP_ROOT/var" ] || {
        ln -sfn "$home/$name.token" "var/$name.token"
        ln -sfn "$home/$name.log" "var/$name.log"
    }
    [ "$(id -un)" = "$owner" ] ||
        launch=(setpriv --reuid="$owner" --regid="$(id -g "$owner")" --init-groups --)
    (cd / && exec setsid "${launch[@]}" sh -c \
        'KORP_TOKEN=$(cat "$1") && export KORP_TOKEN && exec "$0" --engine "$2" >>"$3" 2>&1' \
        "$bin" "$home/$name.token" "$base" "$home/$name.log" </dev/null) &
    pid=$!
    rm -f "var/$name.pid"
    (set -C && echo "$pid" >"var/$name.pid")
    say "the $name bot plays on $base (pid $pid, log: var/$name.log)"
}
