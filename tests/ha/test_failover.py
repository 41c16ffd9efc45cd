"""Lose a database server and lose no move.

korpd runs on three PostgreSQL nodes under Patroni (scripts/ha-up.sh, synchronous
replication).  Clients play moves at a steady rate with Idempotency-Keys while an
event stream is open and webhooks are owed; the primary's node (Patroni and its
PostgreSQL) is killed with SIGKILL; Patroni promotes the synchronous standby and
korpd, not restarted, serves again.  The old primary then rejoins as a replica
(rewound by Patroni) and a second failover goes back the same way.  Afterwards every
acknowledged move is stored exactly once, plies are contiguous, stored positions are
their replay's, every retry found its move's outcome, the stream saw every event once,
and every owed webhook was delivered."""

import os
import shutil
import tempfile

import pytest

from ha_cluster import (Cluster, Follower, Load, Receiver, api_call, check_moves, new_game,
                        settle_streams_and_deliveries, wait_until)

BUILD = os.environ.get("KORP_BUILD_DIR")
KORP = os.environ.get("KORP")
GAMES = 4


@pytest.fixture
def cluster():
    if not BUILD or not KORP:
        pytest.skip("KORP_BUILD_DIR and KORP (the CLI) are not set")
    folder = tempfile.mkdtemp(prefix="korp-ha-")
    os.chmod(folder, 0o755)
    # Streams read the database on their own only every 4 keep-alives (2 minutes
    # here): a stream that keeps up after a failover heard korpd's new LISTEN session.
    c = Cluster(os.path.join(folder, "ha"), BUILD, KORP_SSE_KEEPALIVE_SECONDS=30,
                KORP_DB_TIMEOUT_MS=3000)
    yield c
    c.print_logs()
    c.down()
    shutil.rmtree(folder, ignore_errors=True)


def listening(cluster):
    """korpd's LISTEN sessions on the primary: the channels its sessions listen on,
    read from their last statement (a LISTEN, or the events listener's look-up)."""
    rows = cluster.sql("SELECT query FROM pg_stat_activity WHERE application_name = 'korpd'")
    queries = [r[0] for r in rows]
    events = any(q == "LISTEN korp_events" or q.startswith("SELECT id, player_id") for q in queries)
    deliveries = "LISTEN korp_deliveries" in queries
    return events and deliveries


def failover(cluster, load, follower, what):
    """Kills the primary's node under load; returns (seconds from the kill to the
    first 201 of a request sent after it, the killed node)."""
    old = cluster.leader()
    assert old is not None
    assert cluster.sync_standby() not in (None, old), "no synchronous standby to promote"
    before = load.acked_count()
    wait_until(lambda: load.acked_count() >= before + 20, 60, f"moves before {what}")
    events_before = len(follower.ids)
    killed_at = cluster.kill_node(old)
    new = cluster.wait_new_leader(old)
    first = wait_until(lambda: load.first_success_after(killed_at), 90,
                       f"a move to succeed after {what}")
    # korpd found the new primary by itself: the same process serves, its LISTEN
    # sessions are on the new primary, and the stream keeps up with the moves
    # (long before its own periodic read).
    assert cluster.korpd_alive(), "korpd is not the process that started"
    wait_until(lambda: listening(cluster), 30, "korpd's LISTEN sessions on the new primary")
    after = load.acked_count()
    wait_until(lambda: load.acked_count() >= after + 20, 60, f"moves after {what}")
    wait_until(lambda: len(follower.ids) > events_before + 2, 20,
               f"stream events after {what}")
    return first - killed_at, old, new


def test_failover_loses_no_move(cluster):
    base = cluster.base
    receiver = Receiver()
    games = [new_game(base, f"ha{i}_") for i in range(GAMES)]
    # Webhooks for the Black players: owed notifications, delivered afterwards.
    for g in games:
        status, body = api_call(base, "POST", "/v1/webhooks", g["tokens"][1],
                                {"url": receiver.url, "events": ["move", "game_end"]})
        assert status == 201, body
    follower = Follower(base, games[0]["tokens"][0])
    follower.start()
    load = Load(base, games, "ha", interval=0.05)
    load.start()
    try:
        took1, old1, new1 = failover(cluster, load, follower, "the first failover")

        # The killed node rejoins as a replica (ha-up.sh starts what is not running;
        # Patroni rewinds the old primary); then the second failover goes back.
        cluster.up()
        wait_until(lambda: cluster.leader() == new1, 10, "the same primary after the rejoin")
        assert cluster.korpd_alive()
        took2, old2, new2 = failover(cluster, load, follower, "the second failover")
        assert old2 == new1
    finally:
        load.stop()
    follower_stats = (len(follower.ids), follower.reconnects)

    # Every client's every move found its outcome: a 201, once.
    for c in load.clients:
        assert c.failures == [], c.failures
        assert c.unresolved == [], c.unresolved
    assert sum(c.retried for c in load.clients) >= 1, "no move was retried: no failover seen?"

    acknowledged, lost, duplicated = check_moves(cluster, load, KORP)
    assert (lost, duplicated) == (0, 0)
    assert acknowledged == load.acked_count() >= 100

    settle_streams_and_deliveries(cluster, follower, games[0]["players"][0])
    follower.stop()
    # A move is told to the player who is to move next (korp_event_addressed, migration
    # 003): Black's webhook owes one delivery for each of White's moves (odd plies).
    delivered = cluster.sql("SELECT count(*) FROM deliveries WHERE channel = 'webhook'"
                            " AND status = 'delivered'")[0][0]
    assert delivered == sum(1 for c in load.clients for ply, _, _ in c.acked if ply % 2 == 1)
    assert len(set(receiver.seen)) == delivered   # at least once each (once, unless cut)
    receiver.close()

    # The first primary rewound and followed the second: its history is the cluster's.
    timeline = cluster.sql("SELECT timeline_id FROM pg_control_checkpoint()")[0][0]
    assert timeline >= 3
    unanswered = [s for c in load.clients for s in c.unanswered]
    print(f"failovers: {took1:.1f} s, {took2:.1f} s to the first move; {acknowledged} moves; "
          f"answers before an outcome: {sorted(set(map(str, unanswered)))}; "
          f"stream (events, reconnections): {follower_stats}")
