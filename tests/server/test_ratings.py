"""Ratings through korpd's API: every rated game's end
changes both players' Glicko-2 ratings as glicko2_ref.py (an independent
implementation in Python) computes them, within 0.01; unrated and aborted games
change nothing; time-outs and adjudications are rated; a Glinski stalemate
scores 3/4; the deviation grows with the days since a player's last rated game
(KORP_RATING_PERIOD_DAYS, 7 by default); history, leaderboard and stats.
Every answer is checked against openapi.yaml by korp_client.Api."""
import datetime
import math

import glicko2_ref
from korp_fixtures import wait_until
from test_games_flow import GLINSKI_STALEMATE, play, server_offset

START = (1500.0, 350.0, 0.06)
PERIOD_DAYS = 7


def at_seconds(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc).timestamp()


class Model:
    """The ratings korpd should hold, computed here: per (player, variant) the
    rating, RD, volatility, games and time of the last rated game."""

    def __init__(self):
        self.p = {}

    def get(self, pid, variant):
        return self.p.get((pid, variant), (*START, 0, None))

    def game(self, variant, white, black, white_score, at):
        """One rated game ended at `at` (seconds): returns (diff_white, diff_black)."""
        now = []
        for pid in (white, black):
            r, rd, vol, games, last = self.get(pid, variant)
            if last is not None:
                rd = glicko2_ref.rd_after_idle(rd, vol, (at - last) / 86400 / PERIOD_DAYS)
            now.append((r, rd, vol))
        diffs = []
        for side, pid in enumerate((white, black)):
            other = now[1 - side]
            score = white_score if side == 0 else 1 - white_score
            r, rd, vol = glicko2_ref.period(*now[side], [(other[0], other[1], score)])
            games = self.get(pid, variant)[3] + 1
            diffs.append(r - self.get(pid, variant)[0])
            self.p[(pid, variant)] = (r, rd, vol, games, at)
        return diffs


def new_game(a_api, b, variant="korpalski", rated=None, days_per_move=None):
    """a_api challenges b (a White); b accepts.  Returns the game."""
    body = {"variant": variant, "opponent": b["id"], "color": "white",
            "days_per_move": days_per_move}
    if rated is not None:
        body["rated"] = rated
    _, ch = a_api.call("POST", "/v1/challenges", json=body, expect=201)
    assert ch["rated"] is (rated is not False)
    b_api = a_api.peer
    _, accepted = b_api.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)
    game = accepted["game"]
    assert game["rated"] is (rated is not False) and "rating_diff" not in game
    return game


def players(api, n):
    out = []
    for i in range(n):
        pa, p = api.new_player(f"r{i}")
        out.append((pa, p))
    return out


def pair(a, b):
    """a's Api with b's Api as its peer (the one who accepts)."""
    a[0].peer = b[0]
    return a[0]


def rating_of(api, pid, variant):
    return api.call("GET", "/v1/players/{id}", [pid], expect=200)[1]["ratings"][variant]


def history(api, pid, variant):
    return api.call("GET", "/v1/players/{id}/rating-history", [pid],
                    query={"variant": variant}, expect=200)[1]["history"]


def check_against(api, model, game, variant, white_score):
    """The game just ended: korpd's answer and both players' ratings against
    the model (which the game is applied to here)."""
    w, b = game["white"]["id"], game["black"]["id"]
    hw, hb = history(api, w, variant), history(api, b, variant)
    assert hw[-1]["game_id"] == game["id"] and hb[-1]["game_id"] == game["id"]
    assert hw[-1]["at"] == hb[-1]["at"]
    diffs = model.game(variant, w, b, white_score, at_seconds(hw[-1]["at"]))
    final = api.game(game["id"])
    assert final["rated"] is True
    assert abs(final["rating_diff"]["white"] - diffs[0]) <= 0.01, (final, diffs)
    assert abs(final["rating_diff"]["black"] - diffs[1]) <= 0.01, (final, diffs)
    for pid, h in ((w, hw), (b, hb)):
        r, rd, vol, games, _ = model.get(pid, variant)
        got = rating_of(api, pid, variant)
        assert abs(got["rating"] - r) <= 0.01, (got, r)
        assert abs(got["rd"] - rd) <= 0.01, (got, rd)
        assert abs(got["volatility"] - vol) <= 0.000001, (got, vol)
        assert got["games"] == games and len(h) == games
        assert got["provisional"] is (rd > 110)
        assert abs(h[-1]["rating"] - r) <= 0.01 and abs(h[-1]["rd"] - rd) <= 0.01
    return final


def test_new_player_shows_starting_values(api):
    pa, p = api.new_player("fresh")
    body = api.call("GET", "/v1/players/{id}", [p["id"]], expect=200)[1]
    for variant in ("korpalski", "glinski"):
        assert body["ratings"][variant] == {"rating": 1500, "rd": 350, "volatility": 0.06,
                                            "games": 0, "provisional": True}
    assert body["stats"] == {"finished_90d": 0, "timeouts_90d": 0}
    me = pa.call("GET", "/v1/players/me", expect=200)[1]
    assert me["ratings"] == body["ratings"]
    assert history(api, p["id"], "glinski") == []


def test_decisive_draw_and_glinski_three_quarters(api, arbiter):
    (a, pa), (b, pb), (c, pc) = players(api, 3)
    model = Model()
    # 1. Korpalski, Black resigns at once: 1-0 for a.
    g = new_game(pair((a, pa), (b, pb)), pb)
    end = b.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)[1]
    assert end["result"] == "1-0" and end["rated"] is True and "rating_diff" in end
    final = check_against(api, model, g, "korpalski", 1)
    assert final["rating_diff"] == end["rating_diff"]
    # The two new players' first game, by hand from the paper's formulas:
    # g(phi) for RD 350 is 0.6690, E = 0.5, v = 1/(0.6690^2 * 0.25) = 8.937,
    # the winner moves by phi'^2 * 0.6690 * 0.5 where phi' = 1.6711: +162.31 in
    # rating points (see tests/test_glicko2.c: 1662.31).
    assert abs(final["rating_diff"]["white"] - 162.31) <= 0.01
    assert abs(final["rating_diff"]["black"] + 162.31) <= 0.01
    # 2. Korpalski, b now White, drawn by an arbiter's adjudication (rated).
    g = new_game(pair((b, pb), (a, pa)), pa)
    arbiter.call("POST", "/v1/games/{id}/adjudication", [g["id"]],
                 json={"result": "1/2-1/2", "reason": "test: agreed by both"}, expect=200)
    check_against(api, model, g, "korpalski", 0.5)
    # 3. Glinski: a stalemates c (3/4 to White).
    g = new_game(pair((a, pa), (c, pc)), pc, variant="glinski")
    end = play(a, c, g["id"], GLINSKI_STALEMATE, 0)
    assert (end["result"], end["termination"]) == ("3/4-1/4", "stalemate")
    check_against(api, model, g, "glinski", 0.75)
    # 4. Glinski, c White, drawn by agreement.
    g = new_game(pair((c, pc), (a, pa)), pa, variant="glinski")
    c.call("POST", "/v1/games/{id}/draw", [g["id"]], json={"action": "offer"}, expect=200)
    a.call("POST", "/v1/games/{id}/draw", [g["id"]], json={"action": "accept"}, expect=200)
    check_against(api, model, g, "glinski", 0.5)
    # Each variant keeps its own rating.
    assert rating_of(api, pb["id"], "glinski")["games"] == 0
    assert rating_of(api, pc["id"], "korpalski")["games"] == 0
    assert api.call("GET", "/v1/players/{id}", [pa["id"]],
                    expect=200)[1]["stats"]["finished_90d"] == 4


def test_unrated_and_aborted_games_change_nothing(api):
    (a, pa), (b, pb) = players(api, 2)
    g = new_game(pair((a, pa), (b, pb)), pb, rated=False)
    end = b.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)[1]
    assert end["rated"] is False and "rating_diff" not in end
    g = new_game(pair((a, pa), (b, pb)), pb)
    end = a.call("POST", "/v1/games/{id}/abort", [g["id"]], expect=200)[1]
    assert end["status"] == "aborted" and "rating_diff" not in end
    for pid in (pa["id"], pb["id"]):
        assert rating_of(api, pid, "korpalski") == {"rating": 1500, "rd": 350,
                                                    "volatility": 0.06, "games": 0,
                                                    "provisional": True}
        assert history(api, pid, "korpalski") == []
    # The unrated game counts as finished all the same.
    assert api.call("GET", "/v1/players/{id}", [pa["id"]],
                    expect=200)[1]["stats"]["finished_90d"] == 1


def test_timeout_is_rated_and_rd_grows_with_idle_time(api, arbiter):
    (a, pa), (b, pb) = players(api, 2)
    model = Model()
    g = new_game(pair((a, pa), (b, pb)), pb)
    b.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)
    check_against(api, model, g, "korpalski", 1)
    # A one-day game where Black never answers; thirty days later it is lost on
    # time, and both deviations have grown for 30/7 rating periods before it.
    g = new_game(pair((a, pa), (b, pb)), pb, days_per_move=1)
    play(a, b, g["id"], ["K@e1", "K@e8", "N@c3"], 0)
    offset = max(0, math.ceil(server_offset(api))) + 30 * 86400
    arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": offset}, expect=200)
    wait_until(lambda: api.game(g["id"])["status"] == "finished", 15, step=0.25,
               what="the one-day game to time out")
    final = check_against(api, model, g, "korpalski", 1)
    assert api.game(g["id"])["termination"] == "timeout"
    # By hand: after game 1 Black's RD is 290.32; thirty days is 4.29 periods:
    # sqrt((290.32/173.7178)^2 + 4.29 * 0.06^2) * 173.7178 = 292.0 before game 2.
    assert final["rating_diff"]["white"] > 0
    stats = api.call("GET", "/v1/players/{id}", [pb["id"]], expect=200)[1]["stats"]
    assert stats == {"finished_90d": 2, "timeouts_90d": 1}
    assert api.call("GET", "/v1/players/{id}", [pa["id"]],
                    expect=200)[1]["stats"]["timeouts_90d"] == 0


def test_history_and_leaderboard(api):
    (a, pa), (b, pb) = players(api, 2)
    model = Model()
    # 22 games, a winning two of every three and drawing the third (Glinski:
    # draws by agreement are allowed at once): both RDs fall below 110.
    for i in range(22):
        g = new_game(pair((a, pa), (b, pb)), pb, variant="glinski")
        if i % 3:
            b.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)
            score = 1
        else:
            a.call("POST", "/v1/games/{id}/draw", [g["id"]], json={"action": "offer"},
                   expect=200)
            b.call("POST", "/v1/games/{id}/draw", [g["id"]], json={"action": "accept"},
                   expect=200)
            score = 0.5
        last = check_against(api, model, g, "glinski", score)
    h = history(api, pa["id"], "glinski")
    assert len(h) == 22 and h[-1]["game_id"] == last["id"]
    assert [x["at"] for x in h] == sorted(x["at"] for x in h)
    ra, rb = rating_of(api, pa["id"], "glinski"), rating_of(api, pb["id"], "glinski")
    assert not ra["provisional"] and not rb["provisional"] and ra["rating"] > rb["rating"]
    board = api.call("GET", "/v1/leaderboard/{variant}", ["glinski"],
                     query={"limit": 200}, expect=200)[1]["players"]
    ids = [p["id"] for p in board]
    assert pa["id"] in ids and pb["id"] in ids and ids.index(pa["id"]) < ids.index(pb["id"])
    assert [p["rating"] for p in board] == sorted((p["rating"] for p in board), reverse=True)
    assert all(p["rd"] <= 110 for p in board)
    mine = board[ids.index(pa["id"])]
    assert (mine["name"], mine["games"]) == (pa["name"], 22)
    assert abs(mine["rating"] - model.get(pa["id"], "glinski")[0]) <= 0.01
    one = api.call("GET", "/v1/leaderboard/{variant}", ["glinski"], query={"limit": 1},
                   expect=200)[1]["players"]
    assert one == board[:1]
    # No provisional player (every new one) is listed.
    fresh, pf = api.new_player("nobody")
    assert pf["id"] not in [p["id"] for p in api.call(
        "GET", "/v1/leaderboard/{variant}", ["korpalski"], query={"limit": 200},
        expect=200)[1]["players"]]


def test_bad_queries(api):
    pa, p = api.new_player("q")
    for limit in ("0", "201", "x", "-1"):
        err = api.call("GET", "/v1/leaderboard/{variant}", ["glinski"],
                       query={"limit": limit}, expect=400)[1]
        assert "limit" in err["detail"]
    api.call("GET", "/v1/leaderboard/{variant}", ["chess"], expect=404)
    err = api.call("GET", "/v1/players/{id}/rating-history", [p["id"]], expect=400)[1]
    assert "variant" in err["detail"]
    api.call("GET", "/v1/players/{id}/rating-history", [p["id"]],
             query={"variant": "chess"}, expect=400)
    api.call("GET", "/v1/players/{id}/rating-history", ["nosuchplayer1"],
             query={"variant": "glinski"}, expect=404)
    err = pa.call("POST", "/v1/challenges", json={"variant": "glinski", "opponent": None,
                                                  "rated": "yes"}, expect=400)[1]
    assert "rated" in err["detail"]
