# scripts/lib.sh — shared by up.sh, test.sh and down.sh; source it, don't run it.
# Installs what korp needs from Debian 12 packages and runs a PostgreSQL
# cluster as a non-root user (PostgreSQL refuses to run as root).

KORP_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)

KORP_PACKAGES="build-essential cmake pkg-config libmicrohttpd-dev libpq-dev libcjson-dev
  libcurl4-openssl-dev libcmocka-dev libssl-dev postgresql curl ca-certificates"
KORP_TEST_PACKAGES="clang libclang-rt-14-dev"

say() { printf '==> %s\n' "$*"; }
die() { printf 'error: %s\n' "$*" >&2; exit 1; }

# Runs a command as root: directly, or through sudo.
as_root() {
    if [ "$(id -u)" = 0 ]; then "$@"
    elif command -v sudo >/dev/null; then sudo "$@"
    else die "installing packages needs root: run this as root or install sudo"; fi
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
    as_root env DEBIAN_FRONTEND=noninteractive apt-get install -y -q --no-install-recommends \
        "${missing[@]}" >/dev/null
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
    if [ "$(id -un)" = "$owner" ]; then "$@"
    else (cd / && runuser -u "$owner" -- "$@"); fi
}

# True if something accepts connections on 127.0.0.1:$1 (or host $2).
port_in_use() {
    (exec 3<>"/dev/tcp/${2:-127.0.0.1}/$1") 2>/dev/null
}

# korp_pg_init DATADIR OWNER PORT: a trust-auth cluster on loopback TCP only.
korp_pg_init() {
    local data=$1 owner=$2 port=$3 bin
    bin=$(korp_pg_bin)
    as_owner "$owner" "$bin/initdb" -D "$data" -U korp --auth=trust -E UTF8 >/dev/null
    as_owner "$owner" tee -a "$data/postgresql.conf" >/dev/null <<CONF
# korp: loopback TCP only, no Unix socket (its path length is limited)
listen_addresses = '127.0.0.1'
port = $port
unix_socket_directories = ''
fsync = on
CONF
}

# korp_pg_start DATADIR OWNER: starts the cluster unless it runs already.
korp_pg_start() {
    local data=$1 owner=$2 bin
    bin=$(korp_pg_bin)
    if as_owner "$owner" "$bin/pg_ctl" -D "$data" status >/dev/null 2>&1; then
        return 0
    fi
    as_owner "$owner" "$bin/pg_ctl" -D "$data" -l "$data/server.log" -w -t 60 start >/dev/null ||
        { tail -n 20 "$data/server.log" >&2; die "PostgreSQL did not start (log: $data/server.log)"; }
}

korp_pg_stop() {
    local data=$1 owner=$2 bin
    bin=$(korp_pg_bin)
    as_owner "$owner" "$bin/pg_ctl" -D "$data" -w -t 30 stop -m fast >/dev/null 2>&1 || true
}

# korp_pg_createdb PORT NAME: creates the database if it does not exist.
korp_pg_createdb() {
    local port=$1 name=$2
    if ! psql -h 127.0.0.1 -p "$port" -U korp -d postgres -tAc \
        "SELECT 1 FROM pg_database WHERE datname = '$name'" | grep -q 1; then
        createdb -h 127.0.0.1 -p "$port" -U korp "$name"
    fi
}
