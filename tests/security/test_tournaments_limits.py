"""Tournaments, the arbiter's queue and game records under pressure: what a player can
make korpd do, and what it costs.

  2   max_players holds when players join at the same moment (the count is taken once
      the tournament's row is locked), and a start pairs every player
  3   one open request for an arbiter per player per game (409), 3 a day per player (429
      with Retry-After); the queue is paged by a cursor, oldest first; an ends_at that is
      not after starts_at and now is refused
  4a  a game's and a tournament's PGN are written from the stored SAN, byte for byte what
      the rules write when they replay the same moves (`korp replay --pgn`), and the
      tournament's record carries an ETag answered 304
  7   impossible dates are 400, and starts_at/ends_at are bounded (not in the past, at
      most 366 days ahead: 422)
  12  KORP_TOURNAMENTS_PER_DAY tournaments per player in 24 hours (default 10): 429 with
      Retry-After past it, also when they are asked for at once

Real parts only: korpd, PostgreSQL. Times are korpd's (the test clock's offset is read
from korpd, never assumed); expected PGN comes from the rules' own replay (the `korp`
CLI), not from korpd."""

import datetime
import re
import os
import subprocess
import sys
import tempfile
import threading
import time
import uuid

import pytest
import requests

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))

from korp_client import Api  # noqa: E402
from test_games_flow import GLINSKI_STALEMATE, load_sample, play  # noqa: E402

TOURNAMENTS = "/v1/tournaments"
QUEUE = "/v1/arbiter/queue"
REQUEST = "/v1/games/{id}/arbiter-request"


@pytest.fixture
def korpd(start_korpd, shared_db_url):
    # Eight request workers: the joins below really are at the same moment.
    return start_korpd(shared_db_url, KORP_TEST_CLOCK=1, KORP_HTTP_THREADS=8)


@pytest.fixture
def api(korpd):
    return Api(korpd.base)


def make_arbiter(korpd_binary, db_url, base):
    out = subprocess.run([korpd_binary, "admin", "create-arbiter", f"arb_{uuid.uuid4().hex[:8]}"],
                         env=dict(os.environ, KORP_DATABASE_URL=db_url),
                         capture_output=True, text=True, timeout=60, check=True)
    return Api(base, out.stdout.strip())


def at_once(count, fn):
    """fn(i) for i in range(count) in threads released together; their results."""
    barrier = threading.Barrier(count)
    out = [None] * count

    def one(i):
        barrier.wait(30)
        out[i] = fn(i)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(count)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    return out


def korpd_now(api):
    """korpd's clock (the test clock's offset included), from a new account's created_at
    (whole seconds, so at most a second behind)."""
    pa, _ = api.new_player("clk")
    created = pa.call("GET", "/v1/players/me", expect=200)[1]["created_at"]
    return datetime.datetime.strptime(created, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


def stamp(seconds):
    return datetime.datetime.fromtimestamp(seconds, datetime.timezone.utc) \
        .strftime("%Y-%m-%dT%H:%M:%SZ")


def tournament(director, n_max=8, **extra):
    body = {"name": "limits cup", "variant": "korpalski", "max_players": n_max,
            "rated": False, **extra}
    return director.call("POST", TOURNAMENTS, json=body, expect=201)[1]


# ---------------------------------------------------------------------------
# Item 2

def test_players_joining_at_once_do_not_overrun_max_players(api):
    da, _ = api.new_player("dir")
    t = tournament(da, 3)
    players = [api.new_player(f"j{i}") for i in range(5)]

    def join(i):
        r = requests.post(f"{api.base}/v1/tournaments/{t['id']}/join", timeout=30,
                          headers={"Authorization": f"Bearer {players[i][0].token}"})
        return r.status_code

    codes = at_once(5, join)
    assert sorted(codes) == [200] * 3 + [409] * 2, codes
    full = api.call("GET", "/v1/tournaments/{id}", [t["id"]], expect=200)[1]
    assert full["player_count"] == 3 and len(full["players"]) == 3, full
    # A start pairs every player who joined: 3 players, 3 games, each player in 2.
    started = da.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)[1]
    assert started["status"] == "active"
    games = api.call("GET", "/v1/tournaments/{id}", [t["id"]], expect=200)[1]["games"]
    assert len(games) == 3, games
    for p in full["players"]:
        assert sum(p["id"] in (g["white"], g["black"]) for g in games) == 2


def test_max_players_is_at_most_30(api):
    da, _ = api.new_player("dir")
    for n in (2, 31, 1000):
        da.call("POST", TOURNAMENTS, json={"name": "x", "variant": "glinski", "max_players": n},
                expect=400)


# ---------------------------------------------------------------------------
# Item 3

def game_between(api):
    wa, w = api.new_player("w")
    ba, b = api.new_player("b")
    return wa, ba, wa.new_game(ba, b["id"])["id"]


def queue_page(arbiter, **query):
    return arbiter.call("GET", QUEUE, query=query or None, expect=200)[1]


def test_one_open_request_per_player_per_game_and_three_a_day(api, korpd_binary, shared_db_url):
    arbiter = make_arbiter(korpd_binary, shared_db_url, api.base)
    wa, ba, gid = game_between(api)
    first = wa.call("POST", REQUEST, [gid], json={"text": "one"}, expect=202)[1]["request_id"]
    again = wa.call("POST", REQUEST, [gid], json={"text": "two"}, expect=409)[1]
    assert first in again["detail"], again
    # The opponent's request is their own.
    ba.call("POST", REQUEST, [gid], json={"text": "mine"}, expect=202)
    # Dismissed: the player may ask about the game again (their second today).
    arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [first], json={"reason": "no"},
                 expect=200)
    wa.call("POST", REQUEST, [gid], json={"text": "three"}, expect=202)
    # The third, about another game; the fourth is refused until a day has passed.
    others = []
    for _ in range(2):
        oa, o = api.new_player("o")
        others.append(wa.new_game(oa, o["id"])["id"])
    wa.call("POST", REQUEST, [others[0]], json={"text": "four"}, expect=202)
    wa.call("POST", REQUEST, [others[0]], json={"text": "five"}, expect=409)
    over = requests.post(f"{api.base}/v1/games/{others[1]}/arbiter-request", timeout=30,
                         headers={"Authorization": f"Bearer {wa.token}"}, json={"text": "six"})
    assert over.status_code == 429, over.text
    wait = int(over.headers["Retry-After"])
    assert 86000 <= wait <= 86400, over.headers
    assert "24 hours" in over.json()["detail"]
    # Answered by an adjudication: the item is no longer open, but the day's three stand.
    arbiter.call("POST", "/v1/games/{id}/adjudication", [others[0]],
                 json={"result": "1/2-1/2", "reason": "agreed by the arbiter"}, expect=200)
    wa.call("POST", REQUEST, [others[0]], json={"text": "seven"}, expect=429)


def test_requests_at_once_about_one_game_make_one_item(api):
    wa, _, gid = game_between(api)

    def ask(i):
        return requests.post(f"{api.base}/v1/games/{gid}/arbiter-request", timeout=30,
                             headers={"Authorization": f"Bearer {wa.token}"},
                             json={"text": f"at once {i}"}).status_code

    codes = at_once(6, ask)
    assert sorted(codes) == [202] + [409] * 5, codes


def test_the_queue_pages_oldest_first(api, korpd_binary, shared_db_url):
    arbiter = make_arbiter(korpd_binary, shared_db_url, api.base)
    mine = []
    for _ in range(3):
        wa, _, gid = game_between(api)
        mine.append(wa.call("POST", REQUEST, [gid], json={"text": "paged"},
                            expect=202)[1]["request_id"])
    whole = queue_page(arbiter)
    seen, cursor = [], None
    for _ in range(10000):
        page = queue_page(arbiter, limit=2, **({"cursor": cursor} if cursor else {}))
        assert len(page["items"]) <= 2
        seen += [i["id"] for i in page["items"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert cursor is None and len(seen) == len(set(seen)), seen
    order = [i["id"] for i in whole["items"]]
    if whole["next"] is None:
        assert seen == order
    positions = [seen.index(i) for i in mine]
    assert positions == sorted(positions), positions
    arbiter.call("GET", QUEUE, query={"cursor": "nonsense"}, expect=400)
    arbiter.call("GET", QUEUE, query={"limit": 0}, expect=400)
    arbiter.call("GET", QUEUE, query={"limit": 501}, expect=400)


def test_ends_at_must_come_after_now_and_starts_at(api):
    da, _ = api.new_player("dir")
    now = korpd_now(api)
    for extra in ({"ends_at": stamp(now - 3600)},
                  {"ends_at": stamp(now - 1)},
                  {"starts_at": stamp(now + 7200), "ends_at": stamp(now + 3600)},
                  {"starts_at": stamp(now + 3600), "ends_at": stamp(now + 3600)}):
        err = da.call("POST", TOURNAMENTS, json={"name": "x", "variant": "glinski",
                                                 "max_players": 4, **extra}, expect=422)[1]
        assert "ends_at" in err["detail"], err
    tournament(da, ends_at=stamp(now + 86400))


# ---------------------------------------------------------------------------
# Item 7

@pytest.mark.parametrize("day", ["2027-02-30T00:00:00Z", "2027-13-01T00:00:00Z",
                                 "0000-01-01T00:00:00Z", "2027-02-29T00:00:00Z",
                                 "2027-04-31T00:00:00Z", "2027-00-10T00:00:00Z",
                                 "2027-01-00T00:00:00Z", "2027-01-01T24:00:00Z",
                                 "2027-01-01T00:60:00Z", "2027-01-01T00:00:60Z"])
@pytest.mark.parametrize("which", ["starts_at", "ends_at"])
def test_impossible_dates_are_400(api, day, which):
    da, _ = api.new_player("dir")
    err = da.call("POST", TOURNAMENTS, json={"name": "x", "variant": "glinski",
                                             "max_players": 4, which: day}, expect=400)[1]
    assert which in err["detail"]


def test_times_are_bounded_by_korpd_clock(api):
    da, _ = api.new_player("dir")
    now = korpd_now(api)
    day = 86400
    for extra in ({"starts_at": stamp(now - 3600)},
                  {"starts_at": stamp(now - 10 * 365 * day)},
                  {"starts_at": stamp(now + 400 * day)},
                  {"ends_at": stamp(now + 400 * day)},
                  {"starts_at": stamp(now + day), "ends_at": stamp(now + 367 * day)},
                  {"starts_at": "9999-12-31T23:59:59Z"}):
        da.call("POST", TOURNAMENTS, json={"name": "x", "variant": "glinski",
                                           "max_players": 4, **extra}, expect=422)
    # Leap days that exist, and times within the year ahead, pass.
    t = tournament(da, starts_at=stamp(now + 60), ends_at=stamp(now + 365 * day))
    assert t["starts_at"] == stamp(now + 60)


# ---------------------------------------------------------------------------
# Item 12

def test_tournaments_per_day_default_10(start_korpd, shared_db_url):
    k = start_korpd(shared_db_url, KORP_TEST_CLOCK=1, KORP_TOURNAMENTS_PER_DAY=None)
    a = Api(k.base)
    da, _ = a.new_player("dir")
    for _ in range(10):
        tournament(da)
    r = requests.post(f"{k.base}{TOURNAMENTS}", timeout=30,
                      headers={"Authorization": f"Bearer {da.token}"},
                      json={"name": "x", "variant": "glinski", "max_players": 4})
    assert r.status_code == 429, r.text
    wait = int(r.headers["Retry-After"])
    assert 86000 <= wait <= 86400, wait
    assert "24 hours" in r.json()["detail"]
    # Another player's allowance is their own.
    other, _ = a.new_player("dir")
    tournament(other)


def test_tournaments_asked_for_at_once_keep_to_the_cap(start_korpd, shared_db_url):
    k = start_korpd(shared_db_url, KORP_TEST_CLOCK=1, KORP_TOURNAMENTS_PER_DAY=3,
                    KORP_HTTP_THREADS=8)
    da, _ = Api(k.base).new_player("dir")

    def create(i):
        return requests.post(f"{k.base}{TOURNAMENTS}", timeout=30,
                             headers={"Authorization": f"Bearer {da.token}"},
                             json={"name": f"at once {i}", "variant": "glinski",
                                   "max_players": 4}).status_code

    codes = at_once(6, create)
    assert sorted(codes) == [201] * 3 + [429] * 3, codes


# ---------------------------------------------------------------------------
# Item 4a

def korp_pgn(text):
    """The rules' own record of a PGN text: `korp replay --pgn` replays every move and
    writes the game again."""
    korp = os.environ.get("KORP")
    if not korp:
        pytest.skip("KORP (the CLI) is not set")
    with tempfile.NamedTemporaryFile("w", suffix=".pgn", delete=False) as f:
        f.write(text)
    try:
        out = subprocess.run([korp, "replay", "--pgn", f.name], capture_output=True,
                             text=True, timeout=60)
    finally:
        os.unlink(f.name)
    assert out.returncode == 0, (out.stdout, out.stderr, text)
    return out.stdout


def pgn_of(api, path, headers=None):
    return requests.get(f"{api.base}{path}", headers=headers or {}, timeout=30)


def test_game_records_are_the_rules_own(api):
    games = []
    # A long Korpalski game still going (its movetext wraps), the inventor's sample.
    wa, w = api.new_player("kw")
    ba, b = api.new_player("kb")
    long_game = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, long_game, [p["san"] for p in load_sample()], 0)
    games.append(long_game)
    # A Glinski game ended by stalemate, and one still going.
    stale = wa.new_game(ba, b["id"], variant="glinski")["id"]
    play(wa, ba, stale, GLINSKI_STALEMATE, 0)
    assert wa.game(stale)["status"] == "finished"
    games.append(stale)
    going = wa.new_game(ba, b["id"], variant="glinski", days_per_move=5)["id"]
    play(wa, ba, going, GLINSKI_STALEMATE[:7], 0)
    games.append(going)
    # A Korpalski game resigned after a few moves, and one with no move.
    resigned = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, resigned, ["K@e1", "K@e8", "Q@d4"], 0)
    ba.call("POST", "/v1/games/{id}/resign", [resigned], expect=200)
    games.append(resigned)
    games.append(wa.new_game(ba, b["id"])["id"])
    for gid in games:
        r = pgn_of(api, f"/v1/games/{gid}/pgn")
        assert r.status_code == 200 and r.headers.get("ETag"), r.headers
        assert r.text == korp_pgn(r.text), gid
        assert api.as_(None).game(gid)["ply"] == 0 or "1. " in r.text


def test_tournament_record_is_its_games_and_is_tagged(api):
    da, _ = api.new_player("dir")
    t = tournament(da, 3)
    players = []
    for i in range(3):
        pa, p = api.new_player(f"tp{i}")
        pa.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=200)
        players.append((pa, p))
    path = f"/v1/tournaments/{t['id']}/pgn"
    before = pgn_of(api, path)
    assert before.status_code == 200 and before.text == ""
    da.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)
    full = api.call("GET", "/v1/tournaments/{id}", [t["id"]], expect=200)[1]
    by_id = {p["id"]: pa for pa, p in players}
    first = full["games"][0]
    play(by_id[first["white"]], by_id[first["black"]], first["id"], ["K@e1", "K@e8"], 0)
    last = full["games"][-1]
    by_id[last["black"]].call("POST", "/v1/games/{id}/resign", [last["id"]], expect=200)

    r = pgn_of(api, path)
    assert r.status_code == 200, r.text
    tag = r.headers.get("ETag")
    assert tag and r.headers["Content-Type"].startswith("application/x-chess-pgn")
    # Each game's record as its own PGN has it, under the tournament's tags (its name as
    # the Event, the round and board, the ratings at the start).
    games = [pgn_of(api, f"/v1/games/{g['id']}/pgn").text for g in full["games"]]
    records = re.split(r"\n(?=\[Event )", r.text)
    assert len(records) == len(games)
    for record, alone in zip(records, games):
        tags, movetext = record.split("\n\n", 1)
        assert movetext == alone.split("\n\n", 1)[1]
        assert f'[Event "{t["name"]}"]' in tags and re.search(r'\[Round "\d+\.\d+"\]', tags)
        assert re.search(r'\[WhiteElo "\d+"\]', tags) and re.search(r'\[BlackElo "\d+"\]', tags)
    assert r.text == korp_pgn(r.text)
    # Asked again with the tag: 304, no body; any change of a game changes the tag.
    again = pgn_of(api, path, {"If-None-Match": tag})
    assert again.status_code == 304 and again.content == b"" and again.headers["ETag"] == tag
    play(by_id[first["white"]], by_id[first["black"]], first["id"], ["Q@d4"], 2)
    changed = pgn_of(api, path, {"If-None-Match": tag})
    assert changed.status_code == 200 and changed.headers["ETag"] != tag
    assert "Q@d4" in changed.text
    assert pgn_of(api, "/v1/tournaments/nosuchtourn/pgn").status_code == 404
