"""Fair play: the engine policy of challenges, games and tournaments (shown in JSON and
PGN; analysis of one's own game in play allowed only where engines are), and the
analysis of a rated game with engines forbidden once it ends.  Two bots play rated
games: one plays `korp uci`'s first choice at the fair-play node budget (a fresh table
for each position, as the analysis searches), the other random legal moves (seeded).
The analysis is pending while no worker runs, survives a korpd killed in the middle of
it, and then finds the engine's side at top1 near 1 and the random side far below."""

import os
import random
import subprocess

import pytest

from korp_client import Api
from korp_fixtures import wait_until

NODES = 3000           # the fair-play budget of the korpd that finishes the analysis
SLOW_NODES = 2000000   # ... of the one killed in the middle of it
PLY_CAP = 160          # the random side resigns here if the game still goes on
COUNTED = 25           # moves of each side the analysis counts, over the games played
GAMES_MAX = 16


class EngineBot:
    """`korp uci` answering each position alone at `nodes` nodes (NODES unless told),
    with the hash size of the analysis's searches."""

    def __init__(self, korp, variant, nodes=NODES):
        self.nodes = nodes
        self.proc = subprocess.Popen([korp, "uci"], stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self._say(f"setoption name UCI_Variant value {variant}")
        self._say("setoption name Hash value 4")

    def _say(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def best(self, fen):
        self._say("ucinewgame")
        self._say(f"position fen {fen}")
        self._say(f"go nodes {self.nodes}")
        while True:
            line = self.proc.stdout.readline()
            assert line, "korp uci ended"
            if line.startswith("bestmove"):
                return line.split()[1]

    def close(self):
        self._say("quit")
        self.proc.wait(timeout=10)


def arbiter_api(korpd_binary, url, base):
    name = f"arb_{os.urandom(6).hex()}"
    out = subprocess.run([korpd_binary, "admin", "create-arbiter", name],
                         env=dict(os.environ, KORP_DATABASE_URL=url), capture_output=True,
                         text=True, timeout=60, check=True)
    return Api(base, out.stdout.strip())


def challenge(challenger, opponent_api, opponent_id, variant, color, **extra):
    """A challenge accepted: (the challenge, the game)."""
    _, ch = challenger.call("POST", "/v1/challenges",
                            json={"variant": variant, "opponent": opponent_id, "color": color,
                                  **extra}, expect=201)
    _, accepted = opponent_api.call("POST", "/v1/challenges/{id}/accept", [ch["id"]],
                                    expect=201)
    return ch, accepted["game"]


def play(api, engine_api, random_api, game, bot, rng):
    """Plays game to its end: the engine's side by bot, the other at random."""
    engine_white = game["white"]["id"] == engine_api.player_id
    gid = game["id"]
    while True:
        g = api.game(gid)
        if g["status"] != "active":
            return g
        engine_to_move = (g["to_move"] == "white") == engine_white
        if engine_to_move:
            engine_api.move(gid, bot.best(g["fen"]))
        elif g["ply"] >= PLY_CAP:
            random_api.call("POST", "/v1/games/{id}/resign", [gid], expect=200)
        else:
            _, legal = api.call("GET", "/v1/games/{id}/legal-moves", [gid], expect=200)
            random_api.move(gid, rng.choice(legal["moves"])["uci"])


def fairplay(api, gid, expect=200):
    return api.call("GET", "/v1/games/{id}/fairplay", [gid], expect=expect)[1]


@pytest.fixture
def world(korpd_binary, korp_binary, own_postgres, start_korpd):
    url = own_postgres.url
    # No worker: every game the test ends stays pending.
    k = start_korpd(url, KORP_FAIRPLAY_WORKERS=0)
    api = Api(k.base)
    ea, e = api.new_player("eng")
    ra, r = api.new_player("rnd")
    ea.player_id, ra.player_id = e["id"], r["id"]
    return dict(url=url, korpd=k, api=api, ea=ea, ra=ra, e=e, r=r,
                arbiter=arbiter_api(korpd_binary, url, k.base), korp=korp_binary,
                start=lambda **s: start_korpd(url, **s))


def test_engines_policy_defaults_shown_and_checked(world):
    api, ea, ra, r = world["api"], world["ea"], world["ra"], world["r"]
    ch, rated = challenge(ea, ra, r["id"], "korpalski", "white")
    assert ch["engines"] == "forbidden" and rated["engines"] == "forbidden"
    # One move: the next game's start is no longer this game's position (a position of a
    # game with engines forbidden is refused however it is named).
    _, legal = api.call("GET", "/v1/games/{id}/legal-moves", [rated["id"]], expect=200)
    ea.move(rated["id"], legal["moves"][0]["uci"])
    rated = api.game(rated["id"])
    ch, unrated = challenge(ea, ra, r["id"], "korpalski", "white", rated=False)
    assert ch["engines"] == "allowed" and unrated["engines"] == "allowed"
    ch, rated_allowed = challenge(ea, ra, r["id"], "glinski", "black", engines="allowed")
    assert rated_allowed["engines"] == "allowed" and rated_allowed["rated"] is True
    _, p = ea.call("POST", "/v1/challenges", json={"variant": "korpalski", "opponent": r["id"],
                                                   "engines": "sometimes"}, expect=400)
    assert "engines" in p["detail"]
    assert api.game(unrated["id"])["engines"] == "allowed"

    # The PGN says it in a tag.
    for g, word in ((rated, "forbidden"), (unrated, "allowed")):
        res = api.http.get(f"{api.base}/v1/games/{g['id']}/pgn", timeout=30)
        assert f'[Engines "{word}"]' in res.text, res.text

    # Analysis of one's own game in play: allowed where engines are, refused elsewhere.
    for g, status in ((unrated, 200), (rated_allowed, 200), (rated, 403)):
        _, body = ea.call("POST", "/v1/analyse",
                          json={"variant": g["variant"], "fen": g["fen"], "game_id": g["id"],
                                "movetime_ms": 100, "multipv": 1}, expect=status)
        if status == 403:
            assert body["type"] == "/problems/analysis-own-game", body

    # A tournament carries it too.
    _, t = ea.call("POST", "/v1/tournaments",
                   json={"name": "policy", "variant": "korpalski", "max_players": 3},
                   expect=201)
    assert t["engines"] == "forbidden"
    _, t = ea.call("POST", "/v1/tournaments",
                   json={"name": "policy", "variant": "korpalski", "max_players": 3,
                         "rated": False}, expect=201)
    assert t["engines"] == "allowed"
    _, t = ea.call("POST", "/v1/tournaments",
                   json={"name": "policy", "variant": "korpalski", "max_players": 3,
                         "engines": "allowed"}, expect=201)
    assert t["engines"] == "allowed" and t["rated"] is True


def test_analysis_pending_then_done_across_a_killed_korpd(world):
    api, ea, ra, e, r = world["api"], world["ea"], world["ra"], world["e"], world["r"]
    arbiter, rng = world["arbiter"], random.Random(3401)
    games = []
    bots = {v: EngineBot(world["korp"], v) for v in ("korpalski", "glinski")}
    try:
        # The engine's side wins quickly: games until each side has COUNTED moves that
        # the analysis counts (a side's moves after its first 4).
        while sum(max(0, (g["ply"] + 1) // 2 - 4) for g in games) < COUNTED:
            assert len(games) < GAMES_MAX, [g["ply"] for g in games]
            variant = ("korpalski", "glinski")[len(games) % 2]
            color = ("white", "black")[len(games) // 2 % 2]
            _, g = challenge(ea, ra, r["id"], variant, color)
            games.append(play(api, ea, ra, g, bots[variant], rng))
    finally:
        for bot in bots.values():
            bot.close()
    _, unrated = challenge(ea, ra, r["id"], "korpalski", "white", rated=False)
    ra.call("POST", "/v1/games/{id}/resign", [unrated["id"]], expect=200)

    for g in games:
        assert g["status"] == "finished" and g["rated"], g
        assert fairplay(arbiter, g["id"]) == {"status": "pending"}
        # Players, the game's own included, are not arbiters.
        for who in (ea, ra):
            _, p = who.call("GET", "/v1/games/{id}/fairplay", [g["id"]], expect=403)
            assert p["type"] == "/problems/forbidden", p
    fairplay(arbiter, unrated["id"], expect=404)
    fairplay(arbiter, "nosuchgame", expect=404)

    # A korpd with a slow budget takes the first game, and dies in the middle of it.
    world["korpd"].close()
    slow = world["start"](KORP_FAIRPLAY_WORKERS=1, KORP_FAIRPLAY_NODES=SLOW_NODES,
                          KORP_TEST_CLOCK=1)
    wait_until(lambda: "fair play: analysing game" in slow.log_text(), 30,
               what="the slow korpd to take a game")
    # Its lease on the game (a minute) runs out: the clock moves on before it dies, so
    # that the next korpd takes that game first, as it would a minute later.
    Api(slow.base, arbiter.token).call("POST", "/v1/admin/clock", json={"offset_seconds": 61},
                                       expect=200)
    slow.kill9()
    assert "analysed" not in slow.log_text()
    # A player's last 2 games of a variant at top1 0.9 or more and acpl 25 or less go to
    # review.
    late = world["start"](KORP_FAIRPLAY_WORKERS=1, KORP_FAIRPLAY_NODES=NODES,
                          KORP_FAIRPLAY_REVIEW_GAMES=2, KORP_FAIRPLAY_REVIEW_TOP1=0.9,
                          KORP_FAIRPLAY_REVIEW_ACPL=25)
    arbiter = Api(late.base, arbiter.token)
    assert all(fairplay(arbiter, g["id"])["status"] in ("pending", "done") for g in games)
    wait_until(lambda: all(fairplay(arbiter, g["id"])["status"] == "done" for g in games),
               120, step=0.2, what="both analyses")

    totals = {who: dict(moves=0, top1=0.0, top3=0.0, acpl=0.0) for who in ("eng", "rnd")}
    for g in games:
        f = fairplay(arbiter, g["id"])
        assert f["nodes"] == NODES, f
        engine_side = "white" if g["white"]["id"] == e["id"] else "black"
        random_side = "black" if engine_side == "white" else "white"
        for who, side in (("eng", engine_side), ("rnd", random_side)):
            s = f[side]
            # Each side's first 4 moves are left out, and moves that were the only one.
            assert 0 <= s["moves"] <= max(0, (g["ply"] + (side == "white")) // 2 - 4), (f, g)
            assert 0 <= s["top1"] <= s["top3"] <= 1 and s["median_seconds"] >= 0, f
            # The bots answer at once: every move well under a minute.
            assert s["under_minute"] == 1 and 0 <= s["spread_seconds"] < 60, f
            for k in ("top1", "top3", "acpl"):
                totals[who][k] += s[k] * s["moves"]
            totals[who]["moves"] += s["moves"]
            # The moves behind the side's figures, one by one.
            judged = [m for m in f["moves"] if m["side"] == side]
            assert len(judged) == s["moves"], f
            same = sum(m["played"] == m["engine"] for m in judged)
            assert same == round(s["top1"] * s["moves"]), f
            assert sum(m["top3"] for m in judged) == round(s["top3"] * s["moves"]), f
            assert sum(m["loss"] for m in judged) == pytest.approx(s["acpl"] * s["moves"]), f
            if who == "eng":
                # The bot played the engine's first choice, which loses nothing.
                assert all(m["played"] == m["engine"] and m["loss"] == 0 for m in judged), f
        assert [m["ply"] for m in f["moves"]] == sorted({m["ply"] for m in f["moves"]}), f
    eng, rnd = totals["eng"], totals["rnd"]
    assert eng["moves"] >= 10 and rnd["moves"] >= 10, totals
    assert eng["top1"] / eng["moves"] >= 0.9, totals
    assert eng["acpl"] / eng["moves"] <= 25, totals
    assert rnd["top1"] / rnd["moves"] <= 0.4, totals
    # Losses are counted against scores capped at 1000 centipawns: once the random side
    # is lost, its moves lose little more (docs/fairplay.md).
    assert rnd["acpl"] / rnd["moves"] >= 10, totals
    assert "analysed" in late.log_text()

    # The arbiter's list: the engine's player stands out above the random one.
    korpalski = [g for g in games if g["variant"] == "korpalski"]
    _, listed = arbiter.call("GET", "/v1/arbiter/fairplay",
                             query={"variant": "korpalski", "min_games": len(korpalski)},
                             expect=200)
    ids = [p["player"]["id"] for p in listed["players"]]
    assert ids == [e["id"], r["id"]], listed
    top = listed["players"][0]
    assert top["games"] == len(korpalski) and top["top1"] >= 0.9, top
    # Of two players, the higher top1 is above the other (percentile 1); the lower acpl
    # too, unless both lost nothing (a tie: both 0).
    low = listed["players"][1]
    assert top["top1_percentile"] == 1 and low["top1_percentile"] == 0, listed
    assert top["acpl"] <= low["acpl"], listed
    assert top["acpl_percentile"] == (1 if top["acpl"] < low["acpl"] else 0), listed
    assert {x["game_id"] for x in top["recent"]} == {g["id"] for g in korpalski}, top
    # Fewer than 10 games: the last 10, 25 and 100 are all of them.
    for window in ("last10", "last25", "last100"):
        assert top[window]["games"] == len(korpalski), top
        assert top[window]["top1"] == pytest.approx(top["top1"]), top
        assert top[window]["under_minute"] == 1, top
    # The moves and shares behind it are those of its games.
    per_game = {g["id"]: fairplay(arbiter, g["id"]) for g in korpalski}
    side = {g["id"]: "white" if g["white"]["id"] == e["id"] else "black" for g in korpalski}
    assert top["moves"] == sum(per_game[i][side[i]]["moves"] for i in per_game), top
    _, more = arbiter.call("GET", "/v1/arbiter/fairplay",
                           query={"variant": "korpalski", "min_games": len(korpalski) + 1},
                           expect=200)
    assert more["players"] == []
    for query in ({}, {"variant": "chess"}, {"variant": "glinski", "min_games": "0"},
                  {"variant": "glinski", "min_games": "x"}):
        arbiter.call("GET", "/v1/arbiter/fairplay", query=query, expect=400)
    Api(late.base, ea.token).call("GET", "/v1/arbiter/fairplay",
                                  query={"variant": "korpalski"}, expect=403)

    # The review: one item per variant for the engine's player, made when their second
    # game of it was analysed (the queue is analysed in the order the games ended), naming
    # those two games, the newest first; none for the random player, none per later game.
    _, queue = arbiter.call("GET", "/v1/arbiter/queue", expect=200)
    reviews = [i for i in queue["items"] if i["kind"] == "fairplay-review"]
    expected = {}
    for variant in ("korpalski", "glinski"):
        of_variant = [g["id"] for g in games if g["variant"] == variant]
        if len(of_variant) >= 2:
            expected[variant] = (of_variant[1], [of_variant[1], of_variant[0]])
    assert expected, [g["variant"] for g in games]
    assert len(reviews) == len(expected), reviews
    for item in reviews:
        d = item["details"]
        assert d["player_id"] == e["id"] and d["top1"] >= 0.9 and d["acpl"] <= 25, item
        assert (item["game_id"], d["games"]) == expected[d["variant"]], item
    # The arbiter dismisses it as any item.
    _, done = arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [reviews[0]["id"]],
                           json={"reason": "a strong player, known over the board"},
                           expect=200)
    _, queue = arbiter.call("GET", "/v1/arbiter/queue", expect=200)
    assert reviews[0]["id"] not in [i["id"] for i in queue["items"]], queue


def psql(url, query):
    return subprocess.run(["psql", url, "-Atqc", query], capture_output=True, text=True,
                          timeout=60, check=True).stdout


def test_a_game_that_does_not_replay_is_set_aside(world):
    """Its row would be taken first again and again: it is set aside, and the games
    queued after it are analysed."""
    api, ea, ra, r = world["api"], world["ea"], world["ra"], world["r"]
    rng = random.Random(3402)
    ids = []
    for _ in range(2):
        _, g = challenge(ea, ra, r["id"], "korpalski", "white")
        for who in (ea, ra, ea, ra):
            _, legal = api.call("GET", "/v1/games/{id}/legal-moves", [g["id"]], expect=200)
            who.move(g["id"], rng.choice(legal["moves"])["uci"])
        ra.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)
        ids.append(g["id"])
    broken, good = ids
    psql(world["url"], f"UPDATE moves SET uci = 'a1a1' WHERE game_id = '{broken}' AND ply = 3")
    # The good game's moves 10, 30, 130 and 400 seconds after its start: White thought
    # 10 and 100 seconds, Black 20 and 270.
    psql(world["url"], "UPDATE moves m SET played_at = g.created_at + interval '1 second'"
         " * (ARRAY[10, 30, 130, 400])[m.ply] FROM games g"
         f" WHERE g.id = m.game_id AND m.game_id = '{good}'")
    world["korpd"].close()
    k = world["start"](KORP_FAIRPLAY_WORKERS=1, KORP_FAIRPLAY_NODES=NODES)
    arbiter = Api(k.base, world["arbiter"].token)
    wait_until(lambda: fairplay(arbiter, good)["status"] == "done", 60, step=0.2,
               what="the good game's analysis")
    assert fairplay(arbiter, broken) == {"status": "failed"}
    f = fairplay(arbiter, good)
    # Medians and interquartile ranges of two values: their mean, and half their gap.
    assert f["white"]["median_seconds"] == pytest.approx(55), f
    assert f["white"]["spread_seconds"] == pytest.approx(45), f
    assert f["black"]["median_seconds"] == pytest.approx(145), f
    assert f["black"]["spread_seconds"] == pytest.approx(125), f
    assert f["white"]["under_minute"] == 0.5 and f["black"]["under_minute"] == 0.5, f
    assert f"fair play: game {broken} not analysed" in k.log_text()
    assert "does not replay" in psql(world["url"], "SELECT failure FROM fairplay_queue"
                                     f" WHERE game_id = '{broken}'")
    # Queued again by hand (an operator's re-analysis): analysed again, the figures
    # replaced, and off the queue.
    when = f"SELECT analysed_at FROM fairplay_results WHERE game_id = '{good}'"
    before = psql(world["url"], when)
    psql(world["url"], "INSERT INTO fairplay_queue (game_id, queued_at)"
         f" VALUES ('{good}', now())")
    wait_until(lambda: psql(world["url"], "SELECT count(*) FROM fairplay_queue"
                            f" WHERE game_id = '{good}'").strip() == "0", 60, step=0.2,
               what="the game analysed again")
    after = psql(world["url"], when)
    assert after != before, (before, after)
    assert fairplay(arbiter, good)["white"]["median_seconds"] == pytest.approx(55)


def test_the_players_list_over_the_last_10_25_and_100_games(world):
    """Twelve games, their figures written straight into the store (analysed a day apart,
    the oldest first): the last 10 leave out the two oldest, the last 25 and 100 keep
    every one; shares are weighted by the moves each game counted."""
    ea, ra, e, r = world["ea"], world["ra"], world["e"], world["r"]
    arbiter = world["arbiter"]
    rows = []
    for i in range(12):
        _, g = challenge(ea, ra, r["id"], "glinski", ("white", "black")[i % 2])
        ra.call("POST", "/v1/games/{id}/resign", [g["id"]], expect=200)
        eng_white = g["white"]["id"] == e["id"]
        # The two oldest: the engine's player matched little; then nearly always.
        eng = (4, 0.25, 0.5, 80.0, 200.0) if i < 2 else (10 + i, 0.9, 1.0, 5.0, 30.0)
        rnd = (8, 0.1, 0.3, 120.0, 300.0)
        white, black = (eng, rnd) if eng_white else (rnd, eng)
        values = ", ".join(str(x) for side in (white, black)
                           for x in (side[0], side[1], side[2], side[3], side[4], 0,
                                     1.0 if side[4] < 60 else 0.0))
        rows.append(f"('{g['id']}', 3000, {values}, now() - interval '{12 - i} days')")
    psql(world["url"], "DELETE FROM fairplay_queue; INSERT INTO fairplay_results (game_id,"
         " nodes, white_moves, white_top1, white_top3, white_acpl, white_median_seconds,"
         " white_spread_seconds, white_under_minute, black_moves, black_top1, black_top3,"
         " black_acpl, black_median_seconds, black_spread_seconds, black_under_minute,"
         " analysed_at) VALUES " + ", ".join(rows))

    _, listed = arbiter.call("GET", "/v1/arbiter/fairplay",
                             query={"variant": "glinski", "min_games": 12}, expect=200)
    assert [p["player"]["id"] for p in listed["players"]] == [e["id"], r["id"]], listed
    top = listed["players"][0]
    old_moves, new_moves = 4 + 4, sum(10 + i for i in range(2, 12))
    assert top["last10"]["games"] == 10 and top["last10"]["moves"] == new_moves, top
    assert top["last10"]["top1"] == pytest.approx(0.9), top
    assert top["last10"]["under_minute"] == pytest.approx(1), top
    every = old_moves + new_moves
    for window in ("last25", "last100"):
        assert top[window]["games"] == 12 and top[window]["moves"] == every, top
        assert top[window]["top1"] == pytest.approx((8 * 0.25 + new_moves * 0.9) / every)
        assert top[window]["acpl"] == pytest.approx((8 * 80 + new_moves * 5) / every)
        assert top[window]["under_minute"] == pytest.approx(new_moves / every)
    assert top["games"] == 12 and top["top1"] == pytest.approx(top["last100"]["top1"])
    assert len(top["recent"]) == 10 and top["recent"][0]["median_seconds"] == 30, top
    low = listed["players"][1]
    assert low["last10"]["top1"] == pytest.approx(0.1) and low["last25"]["games"] == 12

    # Among players of a similar rating (within 200 points in the variant): the two are
    # compared while their ratings are 150 apart, not when 250 apart.
    def rate(white, black):
        psql(world["url"], f"UPDATE ratings SET rating = CASE player_id WHEN '{e['id']}' THEN"
             f" {white} ELSE {black} END WHERE variant = 'glinski'"
             f" AND player_id IN ('{e['id']}', '{r['id']}')")
        return arbiter.call("GET", "/v1/arbiter/fairplay", query={"variant": "glinski"},
                            expect=200)[1]["players"]
    near = {p["player"]["id"]: p for p in rate(1600, 1750)}
    assert (near[e["id"]]["rating"], near[r["id"]]["rating"]) == (1600, 1750), near
    assert near[e["id"]]["similar_players"] == near[r["id"]]["similar_players"] == 1, near
    # e: higher top1 and lower acpl than r (hand-written above): above r on both.
    assert (near[e["id"]]["top1_percentile_similar"], near[e["id"]]["acpl_percentile_similar"],
            near[r["id"]]["top1_percentile_similar"], near[r["id"]]["acpl_percentile_similar"]) \
        == (1, 1, 0, 0), near
    far = {p["player"]["id"]: p for p in rate(1600, 1850)}
    for p in far.values():
        assert p["similar_players"] == 0 and p["top1_percentile_similar"] is None, far
        assert p["acpl_percentile_similar"] is None, far


def test_an_arbiter_warns_a_reviewed_player_and_the_log_says_who_and_why(world):
    """A fair-play review (written straight into the queue, as the analysis writes one)
    answered with a warning: the item is resolved, the player sees the message, the log
    names the arbiter and the reason."""
    api, ea, ra, e, r = world["api"], world["ea"], world["ra"], world["e"], world["r"]
    arbiter = world["arbiter"]
    _, g = challenge(ea, ra, r["id"], "korpalski", "white")
    item = f"Fp{os.urandom(4).hex()}"
    psql(world["url"], "INSERT INTO arbiter_queue (id, kind, game_id, player_id, details,"
         f" created_at) VALUES ('{item}', 'fairplay-review', '{g['id']}', '{e['id']}',"
         f" '{{\"variant\": \"korpalski\", \"player_id\": \"{e['id']}\"}}', now())")
    _, queue = arbiter.call("GET", "/v1/arbiter/queue", expect=200)
    assert [i["kind"] for i in queue["items"] if i["id"] == item] == ["fairplay-review"]

    warn = "/v1/arbiter/queue/{id}/warn"
    body = {"reason": "top1 0.97 over 10 games", "message": "Engines are forbidden here."}
    ea.call("POST", warn, [item], json=body, expect=403)
    arbiter.call("POST", warn, [item], json={"reason": "no message"}, expect=400)
    arbiter.call("POST", warn, ["nosuchitem"], json=body, expect=404)
    _, done = arbiter.call("POST", warn, [item], json=body, expect=200)
    assert done["id"] == item and done["status"] == "resolved" and done["log_id"], done
    _, again = arbiter.call("POST", warn, [item], json=body, expect=409)
    assert again["type"] == "/problems/conflict", again
    # An item of another kind is not answered with a warning.
    _, req = ra.call("POST", "/v1/games/{id}/arbiter-request", [g["id"]],
                     json={"text": "my opponent is too strong"}, expect=202)
    arbiter.call("POST", warn, [req["request_id"]], json=body, expect=409)
    _, queue = arbiter.call("GET", "/v1/arbiter/queue", expect=200)
    assert item not in [i["id"] for i in queue["items"]], queue

    # The player sees the message, and only the player.
    _, mine = ea.call("GET", "/v1/players/me/warnings", expect=200)
    assert [(w["id"], w["message"]) for w in mine["warnings"]] == \
        [(done["log_id"], body["message"])], mine
    assert ra.call("GET", "/v1/players/me/warnings", expect=200)[1] == {"warnings": []}
    api.call("GET", "/v1/players/me/warnings", expect=401)

    # The log: who, about whom, why; arbiters only.
    _, me = arbiter.call("GET", "/v1/players/me", expect=200)
    _, log = arbiter.call("GET", "/v1/arbiter/log", expect=200)
    entry = log["entries"][0]
    assert entry["id"] == done["log_id"] and entry["action"] == "warn", log
    assert entry["arbiter"]["id"] == me["id"] and entry["player"]["id"] == e["id"], entry
    assert entry["item_id"] == item and entry["reason"] == body["reason"], entry
    assert entry["message"] == body["message"], entry
    _, other = arbiter.call("GET", "/v1/arbiter/log", query={"player": r["id"]}, expect=200)
    assert other == {"entries": []}
    arbiter.call("GET", "/v1/arbiter/log", query={"player": "not an id"}, expect=400)
    ea.call("GET", "/v1/arbiter/log", expect=403)
