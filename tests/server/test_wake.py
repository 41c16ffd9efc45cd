"""Events are NOTIFYed after their commit by each korpd's waker, not inside
the move's transaction.  Every stream still gets every event exactly once, in order,
across korpd processes; and when the committing korpd dies between its COMMIT and its
NOTIFY (KORP_TEST_KILL_AFTER_COMMIT=1: it kills itself with SIGKILL right there), the
streams in another korpd get the event at their next periodic read of the table,
within KORP_EVENTS_BACKSTOP_MS."""

import random
import signal
import time

import requests

from korp_client import Api
from test_events import streams  # noqa: F401  (the fixture)

# Kings placed, a knight dropped each, then the knights shuffle (bench/moveload.c
# plays the same): every ply legal, and the game never ends by itself.
OPENING = ["K@e1", "K@e8", "N@c3", "N@f6"]
SHUFFLE = ["Nb1", "Ng8", "Nc3", "Nf6"]


def plies(n):
    """The first n moves of the game above, in order."""
    return [OPENING[i] if i < len(OPENING) else SHUFFLE[(i - len(OPENING)) % 4]
            for i in range(n)]


def move_events(stream, count, timeout=20):
    """The next `count` events of a stream that are moves (a player's stream also
    shows the challenge and the game's start first)."""
    got, deadline = [], time.monotonic() + timeout
    while len(got) < count:
        left = deadline - time.monotonic()
        assert left > 0, f"got {len(got)} of {count} moves: {got}"
        for e in stream.events(1, timeout=left):
            if e["event"] == "move":
                got.append(e)
    return got


def test_two_korpds_every_stream_gets_every_move_once_in_order(api, two_players, korpd,
                                                               start_korpd, shared_db_url,
                                                               streams):  # noqa: F811
    wa, w, ba, b = two_players
    other = start_korpd(shared_db_url)
    gid = wa.new_game(ba, b["id"])["id"]
    # Each player and a spectator followed on both processes.
    followed = {}
    for name, k in (("a", korpd), ("b", other)):
        followed[f"white@{name}"] = streams(k.base, token=wa.token)
        followed[f"black@{name}"] = streams(k.base, token=ba.token)
        followed[f"spectator@{name}"] = streams(k.base, query=f"?game={gid}")
    assert all(s.status() == 200 for s in followed.values())
    # Each move sent to one of the two processes at random (seeded), from both sides.
    rng = random.Random(22)
    apis = {"a": (wa, ba), "b": (Api(other.base, wa.token), Api(other.base, ba.token))}
    expected = plies(24)
    for ply, san in enumerate(expected, start=1):
        mover = apis[rng.choice("ab")][(ply - 1) % 2]
        assert mover.move(gid, san)["ply"] == ply
    for name, s in followed.items():
        got = move_events(s, len(expected))
        assert [e["data"]["ply"] for e in got] == list(range(1, len(expected) + 1)), name
        assert [e["data"]["san"] for e in got] == expected, name
        ids = [e["id"] for e in got]
        assert ids == sorted(set(ids)), name
        # Nothing more, in particular no second copy of any of them.
        assert [e for e in s.quiet(0.3) if e["event"] == "move"] == [], name


def test_a_korpd_killed_between_commit_and_notify_delays_streams_at_most_the_backstop(
        api, two_players, korpd, start_korpd, shared_db_url, streams):  # noqa: F811
    wa, w, ba, b = two_players
    backstop_ms = 1000
    reader = start_korpd(shared_db_url, KORP_EVENTS_BACKSTOP_MS=backstop_ms)
    doomed = start_korpd(shared_db_url, KORP_TEST_KILL_AFTER_COMMIT=1)
    gid = wa.new_game(ba, b["id"])["id"]
    for san in plies(4):
        (wa if san in ("K@e1", "N@c3") else ba).move(gid, san)
    watching = [streams(reader.base, token=wa.token), streams(reader.base, token=ba.token),
                streams(reader.base, query=f"?game={gid}")]
    assert all(s.status() == 200 for s in watching)

    # Ply 5 through the doomed korpd: it commits, then kills itself before its NOTIFY.
    try:
        requests.post(f"{doomed.base}/v1/games/{gid}/moves", json={"move": "Nb1"},
                      headers={"Authorization": f"Bearer {wa.token}"}, timeout=30)
        raise AssertionError("the doomed korpd answered the move")
    except requests.ConnectionError:
        pass
    died = time.monotonic()
    assert doomed.wait(timeout=10) == -signal.SIGKILL
    assert "KORP_TEST_KILL_AFTER_COMMIT=1" in doomed.log_text()
    # The move was committed (another korpd reads it from the database).
    assert Api(reader.base).game(gid)["ply"] == 5

    # No wake-up ever comes: each stream sees ply 5 at its periodic read, within the
    # backstop (plus the read itself; a second's slack for a loaded machine).
    for s in watching:
        ev, = move_events(s, 1, timeout=10)
        late = time.monotonic() - died
        assert (ev["data"]["ply"], ev["data"]["san"]) == (5, "Nb1")
        assert late < backstop_ms / 1000 + 1.0, late

    # Then on as usual, through the reader: every later move once, none of them twice.
    rest = plies(9)[5:]
    for ply, san in enumerate(rest, start=6):
        mover = Api(reader.base, (wa if ply % 2 == 1 else ba).token)
        assert mover.move(gid, san)["ply"] == ply
    for s in watching:
        got = move_events(s, len(rest))
        assert [e["data"]["ply"] for e in got] == [6, 7, 8, 9]
        assert [e["data"]["san"] for e in got] == rest
        assert [e for e in s.quiet(0.3) if e["event"] == "move"] == []

    # A client reconnecting from before ply 5 gets it once, in its place.
    again = streams(reader.base, query=f"?game={gid}&last_event_id=0")
    got = move_events(again, 9)
    assert [e["data"]["san"] for e in got] == plies(9)
