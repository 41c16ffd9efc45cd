#!/usr/bin/env bash
# scripts/restore.sh TIME — point-in-time restore of korp's database from the
# pgBackRest repository scripts/backup.sh fills, into a NEW data directory
# (the running cluster is not touched), then PostgreSQL and a korpd on it, on
# free loopback ports.  TIME is anything PostgreSQL reads as a timestamp with
# time zone, e.g. "2026-11-25 16:10:00+00": the restored database holds
# exactly the transactions committed by then.  pgBackRest picks the newest
# backup taken before TIME and replays the archived WAL up to it.
#
# Settings: KORP_PGDATA and KORP_BACKUP_DIR as for backup.sh; KORP_RESTORE_DIR
# (default: restore-<date> beside the data directory); KORP_LISTEN (default: a
# free port); korpd gets the other KORP_* settings of this environment.
# The restored copy does not archive WAL (it would mix with the original's);
# to make it the new primary, see docs/operations.md, "Restore".
# The last two lines printed are for scripts:
#   korpd http://127.0.0.1:PORT
#   postgresql 127.0.0.1:PORT DATADIR
# Stop them with: kill $(cat DATADIR/korpd.pid); pg_ctl -D DATADIR stop (as the owner).
set -euo pipefail
. "$(dirname "$0")/lib.sh"

[ $# = 1 ] && [ -n "$1" ] || die "usage: scripts/restore.sh TIME   (e.g. \"2026-11-25 16:10:00+00\")"
TIME=$1
korp_install pgbackrest

DATA=${KORP_PGDATA:-$KORP_ROOT/var/pg}
DATA=$(readlink -f "$DATA")
OWNER=$(stat -c %U "$DATA")
BACKUP=${KORP_BACKUP_DIR:-$(dirname "$DATA")/backup}
CONF=$BACKUP/pgbackrest.conf
[ -f "$CONF" ] || die "no $CONF: take a backup first (scripts/backup.sh)"
NEW=${KORP_RESTORE_DIR:-$(dirname "$DATA")/restore-$(date -u +%Y%m%d-%H%M%S)}
[ ! -e "$NEW" ] || die "$NEW exists; choose another with KORP_RESTORE_DIR"
BIN=$(korp_pg_bin)

as_owner "$OWNER" mkdir -p "$NEW/pg"
as_owner "$OWNER" chmod 700 "$NEW" "$NEW/pg"
say "restoring the database as of $TIME into $NEW/pg"
as_owner "$OWNER" pgbackrest --config="$CONF" --stanza=korp --log-level-console=warn \
    --pg1-path="$NEW/pg" --type=time --target="$TIME" --target-action=promote restore

korp_free_port || die "no free port for PostgreSQL"
PG_PORT=$KORP_FREE_PORT
as_owner "$OWNER" tee -a "$NEW/pg/postgresql.conf" >/dev/null <<CONF
# korp-restore: a copy restored by scripts/restore.sh (no socket, no archiving)
port = $PG_PORT
unix_socket_directories = ''
archive_mode = off
CONF
as_owner "$OWNER" "$BIN/pg_ctl" -D "$NEW/pg" -l "$NEW/server.log" -w -t 600 start >/dev/null ||
    { tail -n 20 "$NEW/server.log" >&2; die "the restored PostgreSQL did not start (log: $NEW/server.log)"; }
# The passwords are the original cluster's (its roles were restored).
for role in "$KORP_PG_ADMIN" "$KORP_PG_USER"; do
    as_owner "$OWNER" cat "$(korp_pg_passfile "$DATA" "$role")" | owner_write "$OWNER" "$NEW/$role.pgpass"
done
promoted() {
    [ "$(korp_pg_admin "$NEW/pg" "$PG_PORT" -d postgres -tAc 'SELECT pg_is_in_recovery()' 2>/dev/null)" = f ]
}
end=$((SECONDS + 600))
until promoted; do
    if [ "$SECONDS" -ge "$end" ] ||
        ! as_owner "$OWNER" "$BIN/pg_ctl" -D "$NEW/pg" status >/dev/null 2>&1; then
        tail -n 5 "$NEW/server.log" >&2
        die "the restored PostgreSQL did not finish recovery (log: $NEW/server.log)"
    fi
    sleep 0.2
done
say "recovered to $TIME and promoted: PostgreSQL on 127.0.0.1:$PG_PORT"

# ---- korpd on the restored copy
if [ -n "${KORP_BUILD_DIR:-}" ]; then BUILD=$(cd "$KORP_BUILD_DIR" && pwd); else BUILD=$KORP_ROOT/build; fi
[ -x "$BUILD/korpd/korpd" ] || die "no korpd in $BUILD/korpd (build first, or set KORP_BUILD_DIR)"
if [ -n "${KORP_LISTEN:-}" ]; then LISTEN=$KORP_LISTEN
else korp_free_port "$PG_PORT" || die "no free port for korpd"; LISTEN=127.0.0.1:$KORP_FREE_PORT; fi
as_owner "$OWNER" sh -c 'umask 022 && cat >"$1" && chmod 755 "$1"' sh "$NEW/korpd" <"$BUILD/korpd/korpd"
launch=()
[ "$(id -un)" = "$OWNER" ] ||
    launch=(setpriv --reuid="$OWNER" --regid="$(id -g "$OWNER")" --init-groups --)
(cd / && KORP_LISTEN=$LISTEN PGPASSFILE=$NEW/$KORP_PG_USER.pgpass \
    KORP_DATABASE_URL="postgresql://$KORP_PG_USER@127.0.0.1:$PG_PORT/korp" \
    exec setsid "${launch[@]}" sh -c 'exec "$0" >>"$1" 2>&1' "$NEW/korpd" "$NEW/korpd.log" </dev/null) &
echo $! >"$NEW/korpd.pid"
end=$((SECONDS + 30))
until curl -sf -m 3 "http://$LISTEN/healthz" >/dev/null 2>&1; do
    kill -0 "$(cat "$NEW/korpd.pid")" 2>/dev/null && [ "$SECONDS" -lt "$end" ] ||
        { tail -n 20 "$NEW/korpd.log" >&2; die "korpd did not come up (log: $NEW/korpd.log)"; }
    sleep 0.1
done
echo "korpd http://$LISTEN"
echo "postgresql 127.0.0.1:$PG_PORT $NEW/pg"
