#!/usr/bin/env bash
# bench/failover.sh — korpd on Patroni (issue 20): how long a failover stops
# the moves, and that it loses and doubles none.
#
# What it does, all on loopback, everything stopped by PID at the end
# (scripts/ha-down.sh):
#   - scripts/ha-up.sh in a folder of its own: etcd, three PostgreSQL 15 nodes
#     under Patroni (deploy/ha/, synchronous_mode), korpd on the multi-host URL;
#   - CLIENTS clients, each playing both sides of one game, a move every
#     INTERVAL seconds, each move with its ply and an Idempotency-Key, retried
#     with the same key (after no answer, 502, 503, 504) until its outcome;
#   - FAILOVERS times: WINDOW seconds of moves, kill -9 of the primary's node
#     (Patroni and its PostgreSQL), the time from the kill to the first 201 of a
#     request sent after it, WINDOW seconds of moves, and the killed node
#     rejoins (ha-up.sh again; Patroni rewinds it);
#   - afterwards, in the database: every acknowledged move stored once (lost:
#     acknowledged but not stored; duplicated: a ply stored twice), plies
#     contiguous, stored positions equal to `korp replay` of the PGN.
# The last lines are the summary.
#
# usage: nice -n 19 bash bench/failover.sh   (FAILOVERS=5 CLIENTS=4 INTERVAL=0.02
#                                             WINDOW=10; KORP_BUILD_DIR=build)
set -euo pipefail
cd "$(dirname "$0")/.."
. scripts/lib.sh

BUILD=${KORP_BUILD_DIR:-build}
if [ -z "${KORP_BUILD_DIR:-}" ]; then
    say "building into build/"
    cmake -S . -B build -DCMAKE_BUILD_TYPE=Release >/dev/null
    cmake --build build -j 2 >/dev/null
fi
BUILD=$(cd "$BUILD" && pwd)
korp_install $KORP_PACKAGES patroni etcd-server python3-psycopg2 python3-requests

TMP=$(mktemp -d /tmp/korp-failover.XXXXXX)
chmod 755 "$TMP"
trap 'KORP_HA_DIR=$TMP/ha bash scripts/ha-down.sh >/dev/null 2>&1 || true; rm -rf "$TMP"' EXIT

FAILOVERS=${FAILOVERS:-5} CLIENTS=${CLIENTS:-4} INTERVAL=${INTERVAL:-0.02} WINDOW=${WINDOW:-10} \
BUILD=$BUILD HA=$TMP/ha /usr/bin/python3 - <<'PY'
import os, statistics, sys, time
sys.path.insert(0, os.path.join(os.getcwd(), "tests", "ha"))
from ha_cluster import Cluster, Load, check_moves, new_game, wait_until

failovers, clients = int(os.environ["FAILOVERS"]), int(os.environ["CLIENTS"])
interval, window = float(os.environ["INTERVAL"]), float(os.environ["WINDOW"])
build = os.environ["BUILD"]
cluster = Cluster(os.environ["HA"], build, KORP_DB_TIMEOUT_MS=3000)
print(f"==> cluster up: korpd {cluster.base}, patroni {','.join(cluster.rest)}", flush=True)
games = [new_game(cluster.base, f"fo{i}_") for i in range(clients)]
load = Load(cluster.base, games, "bench", interval=interval)
load.start()
downtimes, before, after = [], [], []
try:
    for k in range(failovers):
        t0 = time.monotonic()
        time.sleep(window)                       # moves at the steady rate, measured
        t1 = time.monotonic()
        before.append(load.acks_between(t0, t1) / (t1 - t0))
        old = cluster.leader()
        assert cluster.sync_standby() not in (None, old), "no synchronous standby"
        killed = cluster.kill_node(old)
        first = wait_until(lambda: load.first_success_after(killed), 120, "a move after the kill")
        downtimes.append(first - killed)
        t2 = time.monotonic()
        time.sleep(window)
        t3 = time.monotonic()
        after.append(load.acks_between(t2, t3) / (t3 - t2))
        print(f"==> failover {k + 1}: node{old + 1} killed, first move {downtimes[-1]:.1f} s "
              f"later; {before[-1]:.0f} moves/s before, {after[-1]:.0f} after", flush=True)
        cluster.up()                             # the killed node rejoins
finally:
    load.stop()
acknowledged, lost, duplicated = check_moves(cluster, load, os.path.join(build, "cli", "korp"))
retried = sum(c.retried for c in load.clients)
unresolved = sum(len(c.unresolved) + len(c.failures) for c in load.clients)
cluster.down()
print()
print(f"failovers                       {len(downtimes)}")
print(f"kill -> first move, p50 / max   {statistics.median(downtimes):.1f} s / {max(downtimes):.1f} s")
print(f"moves acknowledged              {acknowledged} (retried {retried}, unresolved {unresolved})")
print(f"lost                            {lost}")
print(f"duplicated                      {duplicated}")
print(f"moves/s before / after          {statistics.median(before):.0f} / {statistics.median(after):.0f}")
sys.exit(0 if lost == 0 and duplicated == 0 and unresolved == 0 else 1)
PY
