"""Round-robin tournaments through korpd's API.
Expected values come from here, not from korpd: the FIDE Berger tables for 4, 6
and 8 players (Handbook C.05, Annex 1, written out below), pairs and colour
counts from combinatorics, and standings and Sonneborn-Berger computed in
Python from the games' results.  Every answer is checked against openapi.yaml
by korp_client.Api."""
import collections
import datetime
import math
import threading
import time

import requests

from korp_client import Api
from korp_fixtures import wait_until
from test_events import Stream
from test_games_flow import GLINSKI_STALEMATE, play, server_offset

# FIDE Berger tables, White first, one list per round.
BERGER = {
    4: [[(1, 4), (2, 3)], [(4, 3), (1, 2)], [(2, 4), (3, 1)]],
    6: [[(1, 6), (2, 5), (3, 4)], [(6, 4), (5, 3), (1, 2)], [(2, 6), (3, 1), (4, 5)],
        [(6, 5), (1, 4), (2, 3)], [(3, 6), (4, 2), (5, 1)]],
    8: [[(1, 8), (2, 7), (3, 6), (4, 5)], [(8, 5), (6, 4), (7, 3), (1, 2)],
        [(2, 8), (3, 1), (4, 7), (5, 6)], [(8, 6), (7, 5), (1, 4), (2, 3)],
        [(3, 8), (4, 2), (5, 1), (6, 7)], [(8, 7), (1, 6), (2, 5), (3, 4)],
        [(4, 8), (5, 3), (6, 2), (7, 1)]],
}


def create(director, n_max=8, **extra):
    body = {"name": "test round robin", "variant": "glinski", "max_players": n_max,
            "rated": False, **extra}
    _, t = director.call("POST", "/v1/tournaments", json=body, expect=201)
    assert t["status"] == "open" and t["players"] == [] and t["director"]["id"]
    return t


def get(api, tid):
    return api.call("GET", "/v1/tournaments/{id}", [tid], expect=200)[1]


def field(api, t, n):
    """n fresh players join t; returns their (Api, body) list."""
    out = []
    for i in range(n):
        pa, p = api.new_player(f"t{i}")
        _, after = pa.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=200)
        assert p["id"] in [x["id"] for x in after["players"]]
        out.append((pa, p))
    return out


def expected_rounds(n):
    """The Berger table of n players (an odd n: n + 1 with byes dropped)."""
    even = n if n % 2 == 0 else n + 1
    return [[(w, b) for w, b in rnd if w <= n and b <= n] for rnd in BERGER[even]]


def check_pairings(t, n, double):
    number = {p["id"]: p["number"] for p in t["players"]}
    assert sorted(number.values()) == list(range(1, n + 1))
    games = t["games"]
    assert len(games) == n * (n - 1) // 2 * (2 if double else 1)
    pairs = collections.Counter(frozenset((g["white"], g["black"])) for g in games)
    assert len(pairs) == n * (n - 1) // 2
    assert set(pairs.values()) == {2 if double else 1}
    whites = collections.Counter(g["white"] for g in games)
    for pid in number:
        if double:
            assert whites[pid] == n - 1
        else:
            assert whites[pid] in ((n - 1) // 2, (n - 1 + 1) // 2), (pid, whites[pid])
    if double:
        ordered = collections.Counter((g["white"], g["black"]) for g in games)
        assert set(ordered.values()) == {1}
    # The rounds as the FIDE tables give them, by number.
    rounds = expected_rounds(n)
    by_round = collections.defaultdict(set)
    for g in games:
        by_round[g["round"]].add((number[g["white"]], number[g["black"]]))
    for r, table in enumerate(rounds, start=1):
        assert by_round[r] == set(table), (n, r, by_round[r], table)
        if double:
            assert by_round[r + len(rounds)] == {(b, w) for w, b in table}


def test_pairings_for_3_4_5_8_players_single_and_double(api):
    da, _ = api.new_player("dir")
    for n in (3, 4, 5, 8):
        for double in (False, True):
            t = create(da, double=double)
            players = field(api, t, n)
            _, started = da.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)
            assert started["status"] == "active"
            full = get(api, t["id"])
            check_pairings(full, n, double)
            g = players[0][0].game(full["games"][0]["id"])
            assert g["tournament_id"] == t["id"] and g["status"] == "active"
            assert g["rated"] is False and g["variant"] == "glinski"


def standings_by_hand(players, games):
    """Score, Sonneborn-Berger, wins and rank from the results alone."""
    value = {"1-0": (1, 0), "0-1": (0, 1), "1/2-1/2": (0.5, 0.5), "3/4-1/4": (0.75, 0.25),
             "1/4-3/4": (0.25, 0.75)}
    score = {p: 0.0 for p in players}
    played = {p: 0 for p in players}
    wins = {p: 0 for p in players}
    for g in games:
        if g["result"] == "*":
            continue
        sw, sb = value[g["result"]]
        for pid, s in ((g["white"], sw), (g["black"], sb)):
            score[pid] += s
            played[pid] += 1
            wins[pid] += s > 0.5
    sb_score = {p: 0.0 for p in players}
    for g in games:
        if g["result"] == "*":
            continue
        sw, sb = value[g["result"]]
        sb_score[g["white"]] += sw * score[g["black"]]
        sb_score[g["black"]] += sb * score[g["white"]]
    key = {p: (score[p], sb_score[p], wins[p]) for p in players}
    rank = {p: 1 + sum(1 for q in players if key[q] > key[p]) for p in players}
    return {p: {"rank": rank[p], "score": score[p], "played": played[p],
                "sonneborn_berger": sb_score[p], "wins": wins[p]} for p in players}


def events_of(base, token, kinds, count, timeout=10):
    s = Stream(base, token=token, last_event_id=0)
    try:
        found = []
        while len(found) < count:
            for e in s.events(1, timeout=timeout):
                if e["event"] in kinds:
                    found.append(e)
        return found
    finally:
        s.close()


def test_standings_sonneborn_berger_and_the_end(api):
    da, _ = api.new_player("dir")
    t = create(da)
    players = field(api, t, 4)
    apis = {p["id"]: pa for pa, p in players}
    da.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)
    games = get(api, t["id"])["games"]
    # Results chosen here: White wins the first, the second is drawn, the third a
    # Glinski stalemate (3/4 to White), then Black wins, and so on in turn.
    for k, g in enumerate(games):
        w, b = apis[g["white"]], apis[g["black"]]
        kind = k % 4
        if kind == 0:
            b.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)
        elif kind == 1:
            w.call("POST", "/v1/games/{id}/draw", [g["id"]], json={"action": "offer"},
                   expect=200)
            b.call("POST", "/v1/games/{id}/draw", [g["id"]], json={"action": "accept"},
                   expect=200)
        elif kind == 2:
            end = play(w, b, g["id"], GLINSKI_STALEMATE, 0)
            assert end["result"] == "3/4-1/4"
        else:
            w.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)
        now = get(api, t["id"])
        assert now["status"] == ("finished" if k == len(games) - 1 else "active")
    final = get(api, t["id"])
    want = standings_by_hand([p["id"] for _, p in players], final["games"])
    got = final["standings"]
    assert sorted(s["player"] for s in got) == sorted(want)
    for s in got:
        w = want[s["player"]]
        assert s["rank"] == w["rank"] and s["score"] == w["score"], (s, w)
        assert s["played"] == w["played"] == 3 and s["wins"] == w["wins"], (s, w)
        assert abs(s["sonneborn_berger"] - w["sonneborn_berger"]) < 1e-9, (s, w)
    ranks = [s["rank"] for s in got]
    assert ranks == sorted(ranks)
    assert any(s["score"] % 0.5 == 0.25 for s in got)   # quarter points appear
    # Both events reach every player's stream.
    for pa, p in players:
        kinds = [e["event"] for e in events_of(api.base, pa.token,
                                               ("tournament_start", "tournament_end"), 2)]
        assert kinds == ["tournament_start", "tournament_end"]
    # The PGN holds every game, each ending with its result.
    pgn = requests.get(f"{api.base}/v1/tournaments/{t['id']}/pgn", timeout=30)
    assert pgn.status_code == 200 and pgn.headers["Content-Type"] == "application/x-chess-pgn"
    results = [line.split('"')[1] for line in pgn.text.splitlines() if line.startswith("[Result ")]
    assert results == [g["result"] for g in final["games"]]
    listed = api.call("GET", "/v1/tournaments", query={"status": "finished", "limit": 100},
                      expect=200)[1]
    assert t["id"] in [x["id"] for x in listed["tournaments"]]
    assert all(x["status"] == "finished" for x in listed["tournaments"])


def test_joining_conditions_and_withdrawals(api, arbiter):
    da, _ = api.new_player("dir")
    # Entry conditions: every new player is rated 1500.
    high = create(da, min_rating=1600)
    pa, p = api.new_player("low")
    err = pa.call("POST", "/v1/tournaments/{id}/join", [high["id"]], expect=422)[1]
    assert err["type"] == "/problems/invalid-value" and "1500" in err["detail"]
    low = create(da, max_rating=1400)
    err = pa.call("POST", "/v1/tournaments/{id}/join", [low["id"]], expect=422)[1]
    assert "above" in err["detail"]
    # Full, twice, too few to start, not the director.
    small = create(da, n_max=3)
    players = field(api, small, 3)
    err = pa.call("POST", "/v1/tournaments/{id}/join", [small["id"]], expect=409)[1]
    assert "full" in err["detail"]
    players[0][0].call("POST", "/v1/tournaments/{id}/join", [small["id"]], expect=409)
    players[0][0].call("POST", "/v1/tournaments/{id}/start", [small["id"]], expect=403)
    # Withdrawal before the start: the player leaves.
    _, after = players[2][0].call("POST", "/v1/tournaments/{id}/withdraw", [small["id"]],
                                  expect=200)
    assert players[2][1]["id"] not in [x["id"] for x in after["players"]]
    err = da.call("POST", "/v1/tournaments/{id}/start", [small["id"]], expect=409)[1]
    assert "at least 3" in err["detail"]
    pa.call("POST", "/v1/tournaments/{id}/join", [small["id"]], expect=200)
    # An arbiter may start any tournament.
    arbiter.call("POST", "/v1/tournaments/{id}/start", [small["id"]], expect=200)
    pa.call("POST", "/v1/tournaments/{id}/join", [small["id"]], expect=409)
    # Withdrawal after it: each of the player's games is their loss, unrated.
    quitter = players[0][1]["id"]
    players[0][0].call("POST", "/v1/tournaments/{id}/withdraw", [small["id"]], expect=200)
    t = get(api, small["id"])
    assert [x["withdrawn"] for x in t["players"] if x["id"] == quitter] == [True]
    for g in t["games"]:
        full = api.game(g["id"])
        if quitter in (g["white"], g["black"]):
            lost = "0-1" if g["white"] == quitter else "1-0"
            assert (full["status"], full["result"], full["termination"]) == \
                ("finished", lost, "forfeit")
            assert full["rated"] is False and "rating_diff" not in full
        else:
            assert full["status"] == "active"
    mine = [s for s in t["standings"] if s["player"] == quitter][0]
    assert (mine["score"], mine["played"]) == (0, 2)
    players[0][0].call("POST", "/v1/tournaments/{id}/withdraw", [small["id"]], expect=409)
    api.call("GET", "/v1/tournaments/{id}", ["nosuchtourn"], expect=404)
    pa.call("POST", "/v1/tournaments/{id}/join", ["nosuchtourn"], expect=404)


def test_two_korpd_starting_at_once_create_the_games_once(api, start_korpd, shared_db_url):
    other = start_korpd(shared_db_url, KORP_TEST_CLOCK=1)
    da, _ = api.new_player("dir")
    t = create(da)
    field(api, t, 5)
    statuses = []

    def start(base):
        r = requests.post(f"{base}/v1/tournaments/{t['id']}/start",
                          headers={"Authorization": f"Bearer {da.token}"}, timeout=30)
        statuses.append(r.status_code)

    threads = [threading.Thread(target=start, args=(b,)) for b in (api.base, other.base)]
    for th in threads:
        th.start()
    for th in threads:
        th.join(30)
    assert sorted(statuses) == [200, 409]
    check_pairings(get(api, t["id"]), 5, False)
    assert len(get(Api(other.base), t["id"])["games"]) == 10


def test_starts_at_and_ends_at_with_the_test_clock(api, arbiter, start_korpd, shared_db_url):
    # A second korpd sweeping too: the automatic start happens once.
    start_korpd(shared_db_url, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=1)
    base = max(0, math.ceil(server_offset(api)))
    now = time.time() + base

    def at(days):
        return datetime.datetime.fromtimestamp(now + days * 86400, datetime.timezone.utc) \
            .strftime("%Y-%m-%dT%H:%M:%SZ")

    da, _ = api.new_player("dir")
    t = create(da, starts_at=at(1), ends_at=at(2), days_per_move=10)
    field(api, t, 3)
    few = create(da, starts_at=at(1))
    field(api, few, 2)
    arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": base + 86400 + 120},
                 expect=200)
    wait_until(lambda: get(api, t["id"])["status"] == "active", 15, step=0.2,
               what="the tournament to start at starts_at")
    wait_until(lambda: get(api, few["id"])["status"] == "cancelled", 15, step=0.2,
               what="the tournament with two players to be canceled")
    check_pairings(get(api, t["id"]), 3, False)
    games = [g["id"] for g in get(api, t["id"])["games"]]
    arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": base + 2 * 86400 + 240},
                 expect=200)

    def queued():
        items = arbiter.call("GET", "/v1/arbiter/queue", expect=200)[1]["items"]
        return sorted(i["game_id"] for i in items if i["kind"] == "tournament-end"
                      and i["details"].get("tournament_id") == t["id"])

    wait_until(lambda: queued() == sorted(games), 15, step=0.2,
               what="the games still going at ends_at to reach the arbiter's queue")
    # Each once, though two sweepers run.
    assert len(queued()) == 3
    assert get(api, t["id"])["status"] == "active"


def test_bad_tournaments(api):
    da, _ = api.new_player("dir")
    for body in ({"name": "x", "variant": "glinski"},
                 {"name": "x", "variant": "glinski", "max_players": 2},
                 {"name": "x", "variant": "glinski", "max_players": 31},
                 {"name": "x", "variant": "chess", "max_players": 4},
                 {"name": "x", "variant": "glinski", "max_players": 4, "starts_at": "tomorrow"},
                 {"name": "", "variant": "glinski", "max_players": 4}):
        da.call("POST", "/v1/tournaments", json=body, expect=400)
    err = da.call("POST", "/v1/tournaments", json={"name": "x", "variant": "glinski",
                                                   "max_players": 4, "min_rating": 1800,
                                                   "max_rating": 1700}, expect=422)[1]
    assert "min_rating" in err["detail"]
    api.call("GET", "/v1/tournaments", query={"status": "done"}, expect=400)
    api.call("GET", "/v1/tournaments", query={"cursor": "nonsense"}, expect=400)


def test_list_pages(api):
    da, _ = api.new_player("dir")
    mine = {create(da)["id"] for _ in range(3)}
    seen, cursor = [], None
    for _ in range(1000):
        query = {"status": "open", "limit": 2, **({"cursor": cursor} if cursor else {})}
        page = api.call("GET", "/v1/tournaments", query=query, expect=200)[1]
        assert len(page["tournaments"]) <= 2
        seen += [t["id"] for t in page["tournaments"]]
        cursor = page["next"]
        if cursor is None:
            break
    assert cursor is None and len(seen) == len(set(seen)) and mine <= set(seen)


def test_time_out_share_entry_condition(api, arbiter):
    da, _ = api.new_player("dir")
    (wa, _), (ba, b) = api.new_player("to"), api.new_player("to")
    # b loses one game of one on time: 100% of b's games, 0% of w's.
    _, ch = wa.call("POST", "/v1/challenges", json={"variant": "korpalski", "opponent": b["id"],
                                                    "color": "white", "days_per_move": 1,
                                                    "rated": False}, expect=201)
    gid = ba.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)[1]["game_id"]
    play(wa, ba, gid, ["K@e1", "K@e8", "N@c3"], 0)
    offset = max(0, math.ceil(server_offset(api))) + 2 * 86400 + 60
    arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": offset}, expect=200)
    wait_until(lambda: api.game(gid)["status"] == "finished", 15, step=0.2,
               what="the game to time out")
    assert api.game(gid)["result"] == "1-0"
    t = create(da, max_timeout_percent=50)
    err = ba.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=422)[1]
    assert "on time" in err["detail"]
    wa.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=200)


def test_tournament_events_reach_webhooks_and_email_settings(start_korpd, shared_db_url):
    from korp_fixtures import free_port
    k = start_korpd(shared_db_url, KORP_WEBHOOK_ALLOW_PRIVATE=1)
    api = Api(k.base)
    da, _ = api.new_player("dir")
    t = create(da)
    players = field(api, t, 3)
    pa = players[0][0]
    # The new kinds are on by default, by email as well.
    prefs = pa.call("GET", "/v1/players/me/notifications", expect=200)[1]
    assert {"arbiter", "tournament_start", "tournament_end"} <= set(prefs["email_events"])
    assert {"arbiter", "tournament_start", "tournament_end"} <= set(prefs["webhook_events"])
    # Nothing listens at the URL: the delivery is owed (and retried), which is what
    # this test looks at.
    url = f"http://127.0.0.1:{free_port()}/hook"
    _, hook = pa.call("POST", "/v1/webhooks", json={"url": url}, expect=201)
    da.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)

    def owed():
        body = pa.call("GET", "/v1/webhooks/{id}/deliveries", [hook["id"]], expect=200)[1]
        return [d["type"] for d in body["deliveries"]]

    wait_until(lambda: "tournament_start" in owed(), 10, step=0.1,
               what="the tournament_start delivery")


def test_clock_and_leave_allowed_reach_the_games(api):
    """A tournament's Fischer clock and leave_allowed are its games': a leave booked by a
    player stops the clocks of their games in a tournament that allows leave and not in
    one that does not (games with leave_allowed false ignore leave)."""
    da, _ = api.new_player("dir")
    fischer = {"type": "fischer", "initial_days": 10, "increment_days": 1, "max_days": 20}
    strict = create(da, 3, variant="korpalski", clock=fischer, leave_allowed=False)
    relaxed = create(da, 3, variant="korpalski", days_per_move=3)
    assert strict["clock"] == fischer and strict["days_per_move"] is None
    assert relaxed["clock"] is None and relaxed["days_per_move"] == 3
    players = field(api, strict, 3)
    for pa, _ in players:
        pa.call("POST", "/v1/tournaments/{id}/join", [relaxed["id"]], expect=200)
    for t in (strict, relaxed):
        da.call("POST", "/v1/tournaments/{id}/start", [t["id"]], expect=200)
    strict_games = [api.game(g["id"]) for g in get(api, strict["id"])["games"]]
    relaxed_games = [api.game(g["id"]) for g in get(api, relaxed["id"])["games"]]
    assert len(strict_games) == len(relaxed_games) == 3
    for g in strict_games:
        c = g["clock"]
        assert {k: c[k] for k in fischer} == fischer, c
        assert g["leave_allowed"] is False
        # Black's time has not started; White's runs from the start (a few seconds).
        assert c["remaining"]["black"] == 10 * 86400
        assert 10 * 86400 - 60 <= c["remaining"]["white"] <= 10 * 86400
    for g in relaxed_games:
        assert g["clock"]["type"] == "per_move" and g["clock"]["days"] == 3, g["clock"]
        assert g["leave_allowed"] is True

    # The first player goes on leave today (korpd's day, the test clock's offset
    # included): one day, to tomorrow 00:00 UTC.
    pa, p = players[0]
    today = datetime.datetime.fromtimestamp(time.time() + server_offset(api),
                                            datetime.timezone.utc).date()
    _, booking = pa.call("POST", "/v1/players/me/leave",
                         json={"start": today.isoformat(), "days": 1}, expect=201)
    end = (today + datetime.timedelta(days=1)).strftime("%Y-%m-%dT00:00:00Z")
    assert booking["end"] == end

    def mine(games):
        return [g for g in games if p["id"] in (g["white"]["id"], g["black"]["id"])]
    assert len(mine(strict_games)) == len(mine(relaxed_games)) == 2
    for g in mine(relaxed_games):
        assert api.game(g["id"])["clock"]["paused_until"] == end
    for g in mine(strict_games):
        assert api.game(g["id"])["clock"]["paused_until"] is None


def test_a_tournament_clock_is_checked_as_a_challenge_clock_is(api):
    da, _ = api.new_player("dir")
    base = {"name": "x", "variant": "glinski", "max_players": 4}
    for extra in ({"clock": {"type": "fischer", "initial_days": 5}},
                  {"clock": {"type": "fischer", "initial_days": 5, "increment_days": 1,
                             "max_days": 3}},
                  {"clock": {"type": "hourglass"}},
                  {"clock": {"type": "per_move", "days": 3}, "days_per_move": 3}):
        err = da.call("POST", "/v1/tournaments", json={**base, **extra}, expect=400)[1]
        assert "clock" in err["detail"] or "max_days" in err["detail"], err
