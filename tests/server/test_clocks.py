"""Fischer clocks and give-time against a real korpd on a
database of each test's own, whose test clock the test alone moves.

Time is charged in whole seconds of korpd's clock.  The expected values are worked out
here from the issue's rules and from the times korpd recorded (a game's created_at, each
move's `at`, whole seconds), never from the clock values korpd reports: a move's time
is fixed once made, so the side not to move has an exact time, and the side to move's
deadline is exact (its turn's start plus its time)."""

import datetime
import os
import subprocess
import time
import uuid

import pytest

from korp_client import Api
from korp_fixtures import wait_until

DAY = 86400
UTC = datetime.timezone.utc
NEXT_YEAR = datetime.datetime.now(UTC).year + 1


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc)


def seconds_between(a, b):
    return int((parse_time(b) - parse_time(a)).total_seconds())


class World:
    """A korpd of the test's own (test clock on, sweeping every second), an arbiter to
    move its clock, and a way to make players and games."""

    def __init__(self, korpd, binary, url):
        self.api = Api(korpd.base)
        env = dict(os.environ, KORP_DATABASE_URL=url)
        name = f"arb_{uuid.uuid4().hex[:12]}"
        out = subprocess.run([binary, "admin", "create-arbiter", name], env=env,
                             capture_output=True, text=True, timeout=60, check=True)
        self.arbiter = Api(korpd.base, out.stdout.strip())

    def player(self, prefix="p"):
        return self.api.new_player(prefix)

    def opponents(self):
        """Two new players, White's and Black's, each (Api, player)."""
        return self.player("w"), self.player("b")

    def game(self, white_api, black, **challenge):
        """White challenges black (an Api, player) with these challenge fields; black
        accepts; returns the game."""
        black_api, b = black
        body = {"variant": "korpalski", "opponent": b["id"], "color": "white", **challenge}
        _, ch = white_api.call("POST", "/v1/challenges", json=body, expect=201)
        _, accepted = black_api.call("POST", "/v1/challenges/{id}/accept", [ch["id"]],
                                     expect=201)
        return ch, accepted["game"]


@pytest.fixture
def world(korpd_binary, own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=1)
    return World(k, korpd_binary, own_postgres.url)


class Clock:
    """The test clock as an offset this test sets: `at(s)` puts korpd's clock s seconds
    after the moment the test started it (real time runs on, so korpd's time is at
    least that)."""

    def __init__(self, world):
        self.world = world
        self.offset = 0

    def forward(self, seconds):
        self.offset += seconds
        self.world.arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": self.offset},
                                expect=200)

    def to(self, when):
        """Sets the offset so that korpd's clock reads `when` (a datetime) now, taken
        against this machine's clock, which the database shares (to within a second)."""
        offset = int(when.timestamp() - time.time())
        assert offset >= self.offset, (when, offset, self.offset)
        self.forward(offset - self.offset)


def on_day(clock, day, hour):
    """Sets the test clock to hour:00 UTC of day (a date); returns day."""
    clock.to(datetime.datetime(day.year, day.month, day.day, hour, 0, tzinfo=UTC))
    return day


def moves_at(api, gid):
    """The recorded time of each ply, in order."""
    return [m["at"] for m in api.call("GET", "/v1/games/{id}/moves", [gid],
                                      expect=200)[1]["moves"]]


FISCHER = {"type": "fischer", "initial_days": 3, "increment_days": 2, "max_days": 4}


def test_fischer_times_after_moves_at_chosen_times_the_cap_and_a_loss_on_time(world):
    (wa, w), black = world.opponents()
    ba, b = black
    clock = Clock(world)

    ch, g = world.game(wa, black, clock=FISCHER)
    assert ch["clock"] == FISCHER and ch["days_per_move"] is None
    assert ch["leave_allowed"] is True
    created = g["created_at"]
    assert g["days_per_move"] is None
    assert g["clock"] == {**FISCHER, "remaining": {"white": 3 * DAY, "black": 3 * DAY},
                          "paused_until": None}
    # White's time runs from the game's start: its deadline is three days after it.
    assert seconds_between(created, g["deadline"]) == 3 * DAY

    # 1. White moves a day and an hour later: 3 days - 25 h + 2 days (under the cap).
    clock.forward(DAY + 3600)
    g = wa.move(g["id"], "K@e1")
    t1 = moves_at(wa, g["id"])[0]
    spent = seconds_between(created, t1)
    assert spent in (DAY + 3600, DAY + 3601), spent      # real time may cross a second
    white_after_1 = 3 * DAY - spent + 2 * DAY
    assert white_after_1 < 4 * DAY
    assert g["clock"]["remaining"] == {"white": white_after_1, "black": 3 * DAY}
    assert seconds_between(t1, g["deadline"]) == 3 * DAY
    # The side not to move keeps its time exactly, however late it is read.
    clock.forward(600)
    g = wa.game(g["id"])
    assert g["clock"]["remaining"]["white"] == white_after_1
    assert g["clock"]["remaining"]["black"] <= 3 * DAY - 600

    # 2. Black moves ten minutes after White: 3 days - 10 min + 2 days is over the cap
    # of 4 days, so Black has 4 days.
    g = ba.move(g["id"], "K@e8")
    t2 = moves_at(wa, g["id"])[1]
    assert seconds_between(t1, t2) in (600, 601)
    assert g["clock"]["remaining"] == {"white": white_after_1, "black": 4 * DAY}
    assert seconds_between(t2, g["deadline"]) == white_after_1

    # 3. White moves two days and an hour later: its time less that, plus two days.
    clock.forward(2 * DAY + 3600)
    g = wa.move(g["id"], "N@c3")
    t3 = moves_at(wa, g["id"])[2]
    white_after_3 = white_after_1 - seconds_between(t2, t3) + 2 * DAY
    assert white_after_3 in (white_after_1 - 3600, white_after_1 - 3601), white_after_3
    assert g["clock"]["remaining"] == {"white": white_after_3, "black": 4 * DAY}
    deadline = g["deadline"]
    assert seconds_between(t3, deadline) == 4 * DAY

    # Black lets its 4 days run out: White (a full reserve) can mate, so Black loses.
    clock.forward(4 * DAY + 5)
    wait_until(lambda: wa.game(g["id"])["status"] == "finished", 15, step=0.25,
               what="the game to end on time")
    g = wa.game(g["id"])
    assert (g["result"], g["termination"], g["deadline"]) == ("1-0", "timeout", None)
    # The clocks stop where they stood: Black at nothing, White as it was.
    assert g["clock"]["remaining"] == {"white": white_after_3, "black": 0}
    # The ended game stays as it is however late it is read.
    clock.forward(DAY)
    assert wa.game(g["id"])["clock"]["remaining"] == {"white": white_after_3, "black": 0}


# Korpalski: Black ends with a lone king (it cannot mate, rules §4.1) while White, to
# move, keeps a queen and a full reserve: the moves of test_games_flow's LONE_KING,
# written out here.
def lone_king_moves():
    moves = ["K@a1", "K@h8", "Q@b3"]
    for i, man in enumerate("NRNBQRBPPPPPPPP"):
        square = "b4" if i % 2 == 0 else "b3"
        moves += [f"{man}@{square}", f"Qx{square}"]
    return moves + ["Kg7"]


def test_fischer_draw_on_time_when_the_opponent_cannot_mate(world):
    (wa, w), black = world.opponents()
    ba, _ = black
    clock = Clock(world)
    _, g = world.game(wa, black, clock={"type": "fischer", "initial_days": 1,
                                        "increment_days": 0, "max_days": 1})
    for ply, move in enumerate(lone_king_moves()):
        g = (wa if ply % 2 == 0 else ba).move(g["id"], move, ply=ply)
    assert g["to_move"] == "white" and g["status"] == "active"
    # Only the real seconds the moves took have passed (no increment).
    left = g["clock"]["remaining"]
    assert DAY - 120 <= left["white"] <= DAY and DAY - 120 <= left["black"] <= DAY, left
    clock.forward(DAY + 5)
    wait_until(lambda: wa.game(g["id"])["status"] == "finished", 15, step=0.25,
               what="the game to end on time")
    g = wa.game(g["id"])
    assert (g["result"], g["termination"]) == ("1/2-1/2", "timeout")
    # White's time ran out; Black's, not running, is as it was.
    assert g["clock"]["remaining"] == {"white": 0, "black": left["black"]}


def test_per_move_clock_and_the_challenge_forms(world):
    (wa, w), black = world.opponents()
    ba, b = black
    # days_per_move as before, and its clock.
    ch, g = world.game(wa, black, days_per_move=2)
    assert ch["days_per_move"] == 2 and ch["clock"] == {"type": "per_move", "days": 2}
    assert g["days_per_move"] == 2
    assert g["clock"] == {"type": "per_move", "days": 2,
                          "remaining": {"white": 2 * DAY, "black": 2 * DAY},
                          "paused_until": None}
    # The same as a clock object.
    ch, g2 = world.game(wa, black, clock={"type": "per_move", "days": 2})
    assert ch["days_per_move"] == 2 and g2["clock"]["type"] == "per_move"
    # After a move the side that moved shows its full allowance again.
    Clock(world).forward(3600)
    g = wa.move(g["id"], "K@e1")
    t1 = moves_at(wa, g["id"])[0]
    assert g["clock"]["remaining"] == {"white": 2 * DAY, "black": 2 * DAY}
    assert seconds_between(t1, g["deadline"]) == 2 * DAY
    # No time limit: no clock.
    ch, g3 = world.game(wa, black)
    assert ch["clock"] is None and g3["clock"] is None and g3["deadline"] is None

    def refused(body, status=400):
        _, err = wa.call("POST", "/v1/challenges",
                         json={"variant": "korpalski", "opponent": b["id"], **body},
                         expect=status)
        assert err["type"] == "/problems/bad-request", err
        return err["detail"]

    assert "not both" in refused({"days_per_move": 3, "clock": FISCHER})
    for bad in ({"type": "fischer", "initial_days": 0, "increment_days": 1, "max_days": 4},
                {"type": "fischer", "initial_days": 181, "increment_days": 1, "max_days": 365},
                {"type": "fischer", "initial_days": 3, "increment_days": 31, "max_days": 4},
                {"type": "fischer", "initial_days": 3, "increment_days": -1, "max_days": 4},
                {"type": "fischer", "initial_days": 5, "increment_days": 1, "max_days": 4},
                {"type": "fischer", "initial_days": 3, "increment_days": 1, "max_days": 366},
                {"type": "fischer", "initial_days": 3, "increment_days": 1},
                {"type": "per_move", "days": 61},
                {"type": "per_move", "days": 0},
                {"type": "per_move", "days": 3, "max_days": 4},
                {"type": "hourglass", "days": 3},
                {"days": 3}):
        refused({"clock": bad})
    # The limits themselves are accepted.
    ch, _ = world.game(wa, black, clock={"type": "fischer", "initial_days": 180,
                                         "increment_days": 30, "max_days": 365})
    assert ch["clock"]["max_days"] == 365
    ch, _ = world.game(wa, black, clock={"type": "fischer", "initial_days": 1,
                                         "increment_days": 0, "max_days": 1})
    assert ch["clock"]["initial_days"] == 1


def test_give_time(world):
    (wa, w), black = world.opponents()
    ba, b = black
    spectator, _ = world.player("s")
    clock = Clock(world)

    _, g = world.game(wa, black, days_per_move=2)
    g = wa.move(g["id"], "K@e1")
    t1 = moves_at(wa, g["id"])[0]
    # Black is to move: Black may not give itself time, nor may a spectator.
    _, err = ba.call("POST", "/v1/games/{id}/give-time", [g["id"]], json={"days": 1},
                     expect=409)
    assert err["type"] == "/problems/conflict"
    spectator.call("POST", "/v1/games/{id}/give-time", [g["id"]], json={"days": 1},
                   expect=403)
    for days in (0, 8, "3"):
        wa.call("POST", "/v1/games/{id}/give-time", [g["id"]], json={"days": days},
                expect=400)
    _, g = wa.call("POST", "/v1/games/{id}/give-time", [g["id"]], json={"days": 3},
                   expect=200)
    # Black's deadline: its two days from White's move, and three more.
    assert seconds_between(t1, g["deadline"]) == 5 * DAY
    assert g["clock"]["remaining"]["white"] == 2 * DAY
    assert 5 * DAY - 5 <= g["clock"]["remaining"]["black"] <= 5 * DAY
    # The gift lasts for this move only: after Black's move White has its two days.
    clock.forward(4 * DAY)
    g = ba.move(g["id"], "K@e8")
    t2 = moves_at(wa, g["id"])[1]
    assert g["status"] == "active"
    assert seconds_between(t2, g["deadline"]) == 2 * DAY

    # Fischer: days added to the opponent's time.
    _, f = world.game(wa, black, clock=FISCHER)
    f = wa.move(f["id"], "K@e1")
    t1 = moves_at(wa, f["id"])[0]
    _, f = wa.call("POST", "/v1/games/{id}/give-time", [f["id"]], json={"days": 2},
                   expect=200)
    assert seconds_between(t1, f["deadline"]) == 5 * DAY
    white = f["clock"]["remaining"]["white"]
    f = ba.move(f["id"], "K@e8")
    t2 = moves_at(wa, f["id"])[1]
    # Black's 5 days less what it used, plus its increment, capped at 4 days.
    assert f["clock"]["remaining"] == {"white": white, "black": 4 * DAY}
    assert seconds_between(t2, f["deadline"]) == white

    # A game without a time limit has no time to give; an ended one is over.
    _, u = world.game(wa, black)
    u = wa.move(u["id"], "K@e1")
    _, err = wa.call("POST", "/v1/games/{id}/give-time", [u["id"]], json={"days": 1},
                     expect=409)
    assert err["type"] == "/problems/conflict"
    ba.call("POST", "/v1/games/{id}/resign", [u["id"]], expect=200)
    _, err = wa.call("POST", "/v1/games/{id}/give-time", [u["id"]], json={"days": 1},
                     expect=409)
    assert err["type"] == "/problems/game-over"
    wa.call("POST", "/v1/games/{id}/give-time", ["nosuchgame"], json={"days": 1}, expect=404)


def test_a_move_event_carries_each_sides_time(world):
    """The move event (stream and webhook alike) tells each side's time once the move
    is charged: what the turn email shows a Fischer player."""
    from test_events import Stream

    (wa, w), black = world.opponents()
    ba, _ = black
    clock = Clock(world)
    _, g = world.game(wa, black, clock=FISCHER)
    clock.forward(2 * DAY + 3600)
    g = wa.move(g["id"], "K@e1")
    stream = Stream(wa.base, f"?game={g['id']}", token=ba.token, last_event_id=0)
    try:
        assert stream.status() == 200
        moves = []
        deadline = time.monotonic() + 15
        while not moves:
            assert time.monotonic() < deadline, "no move event came"
            moves = [e for e in stream.events(1) if e["event"] == "move"]
        data = moves[0]["data"]
        assert data["san"] == "K@e1"
        assert data["clock"] == {"type": "fischer", **g["clock"]["remaining"]}
        # 3 days - 2 days 1 hour + 2 days, a second less if real time crossed one
        assert data["clock"]["white"] in (3 * DAY - 3600, 3 * DAY - 3601), data
        assert data["clock"]["black"] == 3 * DAY, data
    finally:
        stream.close()
