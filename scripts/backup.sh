#!/usr/bin/env bash
# scripts/backup.sh [full|incr|diff] — a pgBackRest backup of korp's database
# (deploy/backup/): the cluster scripts/up.sh made (var/pg), or the one whose
# data directory KORP_PGDATA names.  Default: full.
#
# The first run sets the cluster up for it, once: a Unix socket in a folder
# only the cluster's owner enters (pgBackRest connects through it, as the
# superuser, by peer authentication), WAL archiving into the repository
# (archive_mode, archive_command), a restart of PostgreSQL (korpd reconnects
# by itself), and the stanza "korp".  The repository, its configuration and
# logs are in KORP_BACKUP_DIR (default: backup/ beside the data directory).
# Restore with scripts/restore.sh TIME.  Schedule: deploy/backup/schedule.cron.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

TYPE=${1:-full}
case "$TYPE" in full | incr | diff) ;; *) die "usage: scripts/backup.sh [full|incr|diff]" ;; esac
korp_install pgbackrest

DATA=${KORP_PGDATA:-$KORP_ROOT/var/pg}
DATA=$(readlink -f "$DATA")
[ -f "$DATA/PG_VERSION" ] || die "no PostgreSQL cluster in $DATA (run scripts/up.sh, or set KORP_PGDATA)"
OWNER=$(stat -c %U "$DATA")
PORT=$(korp_pg_port "$DATA")
[ -n "$PORT" ] || die "no port in $DATA/postgresql.conf"
BACKUP=${KORP_BACKUP_DIR:-$(dirname "$DATA")/backup}
CONF=$BACKUP/pgbackrest.conf
case "$DATA$BACKUP" in *[\'\ \"\\]*) die "the paths $DATA and $BACKUP must have no quotes, spaces or backslashes" ;; esac

# ---- the repository and its configuration (the owner's, 0700)
[ -d "$BACKUP" ] || { mkdir -p "$BACKUP"; [ "$(id -un)" = "$OWNER" ] || chown "$OWNER" "$BACKUP"; }
for d in "$BACKUP" "$BACKUP/repo" "$BACKUP/log" "$BACKUP/lock" "$BACKUP/sock"; do
    as_owner "$OWNER" mkdir -p "$d"
    as_owner "$OWNER" chmod 700 "$d"
done
sed -e "s|@REPO@|$BACKUP/repo|" -e "s|@LOG@|$BACKUP/log|" -e "s|@LOCK@|$BACKUP/lock|" \
    -e "s|@DATA@|$DATA|" -e "s|@PORT@|$PORT|" -e "s|@SOCKET@|$BACKUP/sock|" \
    -e "s|@ADMIN@|$KORP_PG_ADMIN|" "$KORP_ROOT/deploy/backup/pgbackrest.conf.in" |
    owner_write "$OWNER" "$CONF"
pgbr() { as_owner "$OWNER" pgbackrest --config="$CONF" --stanza=korp "$@"; }

# ---- the cluster, once: socket, peer login for the superuser, archiving
if ! grep -q '^# korp-backup: pgBackRest' "$DATA/postgresql.conf"; then
    say "setting up $DATA for pgBackRest (WAL archiving; PostgreSQL restarts once)"
    as_owner "$OWNER" tee -a "$DATA/postgresql.conf" >/dev/null <<CONF
# korp-backup: pgBackRest (scripts/backup.sh): its socket, WAL archiving
unix_socket_directories = '$BACKUP/sock'
archive_mode = on
archive_command = 'pgbackrest --config=$CONF --stanza=korp archive-push %p'
CONF
    { printf '# korp-backup: the owner %s logs in as %s over the socket (pgBackRest)\n' \
          "$OWNER" "$KORP_PG_ADMIN"
      printf 'local all %s peer map=korp_backup\n' "$KORP_PG_ADMIN"
      cat "$DATA/pg_hba.conf"; } | owner_write "$OWNER" "$DATA/pg_hba.conf.new"
    as_owner "$OWNER" mv -f "$DATA/pg_hba.conf.new" "$DATA/pg_hba.conf"
    printf 'korp_backup %s %s\n' "$OWNER" "$KORP_PG_ADMIN" |
        as_owner "$OWNER" tee -a "$DATA/pg_ident.conf" >/dev/null
    as_owner "$OWNER" "$(korp_pg_bin)/pg_ctl" -D "$DATA" -l "$DATA/server.log" -w -t 60 \
        restart -m fast >/dev/null || die "PostgreSQL did not restart (log: $DATA/server.log)"
fi
korp_pg_start "$DATA" "$OWNER" || die "PostgreSQL is not running"

pgbr --log-level-console=error stanza-create
pgbr check
say "taking a $TYPE backup of $DATA into $BACKUP/repo"
pgbr --type="$TYPE" backup
pgbr info
