"""POST /v1/analyse: the engine's best lines for signed-in players,
never for a game the asker is still playing, rate-limited per player, on a
korpd and PostgreSQL of this module's own."""

import os
import subprocess
import threading
import uuid

import pytest
import requests

from korp_client import Api
from korp_fixtures import Korpd, Postgres

# Analyses per player per hour in this module's korpd: small, so that the
# limit test reaches it (every other test uses fresh players).
PER_HOUR = 3

# Korpalski, White to move, both reserves empty (every other man captured:
# no drop can block).  Hand analysis: Ra8 checks along the eighth rank; the
# black king on h8 cannot go to g8 (the rook covers it), g7 and h7 hold its
# own pawns, and no black man can reach b8-g8 or take the rook.  So 1. Ra8#
# is mate in one, and no other white move mates (the king's moves give no
# check; the rook's other moves give none either: the king stands on h8 and
# h-file checks are blocked by h7).
MATE_IN_ONE = "7k/6pp/8/8/8/8/8/R5K1[] w - - 0 40"
MATE_MOVE_UCI = "a1a8"
MATE_MOVE_SAN = "Ra8#"
# The starting position of Korpalski (rules file, section 5).
KORPALSKI_START = "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1"


@pytest.fixture(scope="module")
def server():
    path = os.environ.get("KORPD")
    if not path:
        pytest.skip("KORPD is not set: run through ctest (scripts/test.sh)")
    pg = Postgres()
    k = Korpd(path, pg.url, KORP_ANALYSIS_PER_HOUR=PER_HOUR)
    yield path, pg, k
    k.close()
    pg.close()


@pytest.fixture
def api(server):
    return Api(server[2].base)


def make_arbiter(server):
    path, pg, k = server
    env = dict(os.environ, KORP_DATABASE_URL=pg.url)
    name = f"arb_{uuid.uuid4().hex[:12]}"
    out = subprocess.run([path, "admin", "create-arbiter", name], env=env,
                         capture_output=True, text=True, timeout=60, check=True)
    token = out.stdout.strip()
    assert token.startswith("korp_"), out
    me = Api(k.base, token).call("GET", "/v1/players/me", expect=200)[1]
    return Api(k.base, token), me


def analyse(who, expect=None, **body):
    return who.call("POST", "/v1/analyse", json=body, expect=expect)


def game_in_play(white, black_api, black):
    """A Korpalski game between them with both kings placed; (id, fen)."""
    g = white.new_game(black_api, black["id"], variant="korpalski", color="white")
    white.move(g["id"], "K@e1")
    black_api.move(g["id"], "K@e8")
    g = white.game(g["id"])
    assert g["status"] == "active"
    return g["id"], g["fen"]


def test_mate_in_one_is_found_first(api):
    me, _ = api.new_player("an")
    _, body = analyse(me, 200, variant="korpalski", fen=MATE_IN_ONE, multipv=3,
                      movetime_ms=300)
    first = body["lines"][0]
    assert first.get("mate") == 1, body
    assert first["pv_uci"][0] == MATE_MOVE_UCI
    assert first["pv_san"][0] == MATE_MOVE_SAN
    assert body["depth"] >= 1 and body["nodes"] > 0
    # The other lines do not mate at once: at most a longer mate, or a score.
    for line in body["lines"][1:]:
        assert line.get("mate") != 1 and line["pv_uci"][0] != MATE_MOVE_UCI


@pytest.mark.parametrize("variant", ["korpalski", "glinski"])
def test_multipv_lines_have_distinct_first_moves(api, variant):
    me, _ = api.new_player("mp")
    if variant == "korpalski":
        fen = KORPALSKI_START
    else:
        fen = api.call("POST", "/v1/replay", json={"variant": "glinski", "moves": []},
                       expect=200)[1]["start"]
    _, body = analyse(me, 200, variant=variant, fen=fen, multipv=3, movetime_ms=300)
    firsts = [line["pv_uci"][0] for line in body["lines"]]
    assert len(firsts) == 3 and len(set(firsts)) == 3, body
    # Each line is a legal sequence: the rules replay it from the position.
    for line in body["lines"]:
        api.call("POST", "/v1/replay",
                 json={"variant": variant, "fen": fen, "moves": line["pv_uci"]}, expect=200)
        assert len(line["pv_san"]) == len(line["pv_uci"])
    # One line only when asked (the arbiter's page asks for one).
    _, one = analyse(me, 200, variant=variant, fen=fen, multipv=1, movetime_ms=100)
    assert len(one["lines"]) == 1


def test_the_limit_per_player_answers_429_after_it(api):
    me, _ = api.new_player("rl")
    for _ in range(PER_HOUR):
        analyse(me, 200, variant="korpalski", fen=KORPALSKI_START, multipv=1,
                movetime_ms=100)
    r = requests.post(api.base + "/v1/analyse", timeout=30,
                      headers={"Authorization": f"Bearer {me.token}"},
                      json={"variant": "korpalski", "fen": KORPALSKI_START, "multipv": 1,
                            "movetime_ms": 100})
    assert r.status_code == 429, r.text
    assert int(r.headers["Retry-After"]) >= 1
    assert r.json()["type"] == "/problems/too-many-requests"
    # Another player is not limited by this one.
    other, _ = api.new_player("rl")
    analyse(other, 200, variant="korpalski", fen=KORPALSKI_START, multipv=1, movetime_ms=100)


def test_refused_for_the_askers_active_game_by_id_and_by_position(api):
    wa, w = api.new_player("w")
    ba, b = api.new_player("b")
    game_id, fen = game_in_play(wa, ba, b)
    for who in (wa, ba):
        _, p = analyse(who, 403, variant="korpalski", fen=fen, game_id=game_id)
        assert p["type"] == "/problems/analysis-own-game"
        # The position pasted without the game's id, and with other move counters.
        _, p = analyse(who, 403, variant="korpalski", fen=fen)
        assert p["type"] == "/problems/analysis-own-game" and game_id in p["detail"]
        board, side, castling, ep = fen.split(" ")[:4]
        analyse(who, 403, variant="korpalski", fen=f"{board} {side} {castling} {ep} 0 1")
        # Naming the game with another position is refused all the same.
        analyse(who, 403, variant="korpalski", fen=KORPALSKI_START, game_id=game_id)
    # Refusals spend nothing of the hourly allowance.
    for _ in range(PER_HOUR):
        analyse(wa, 200, variant="korpalski", fen=KORPALSKI_START, multipv=1, movetime_ms=100)


def test_allowed_once_the_game_is_over(api):
    wa, w = api.new_player("w")
    ba, b = api.new_player("b")
    game_id, fen = game_in_play(wa, ba, b)
    ba.call("POST", "/v1/games/{id}/resign", [game_id], expect=200)
    assert wa.game(game_id)["status"] == "finished"
    _, body = analyse(wa, 200, variant="korpalski", fen=fen, game_id=game_id, multipv=2,
                      movetime_ms=100)
    assert len(body["lines"]) == 2


def test_an_arbiter_may_analyse_others_games_but_not_their_own(api, server):
    wa, w = api.new_player("w")
    ba, b = api.new_player("b")
    game_id, fen = game_in_play(wa, ba, b)
    arb, arb_me = make_arbiter(server)
    analyse(arb, 200, variant="korpalski", fen=fen, game_id=game_id, multipv=1,
            movetime_ms=100)
    analyse(arb, 200, variant="korpalski", fen=fen, multipv=1, movetime_ms=100)
    # A game the arbiter plays: refused like anyone's.
    own_id, own_fen = game_in_play(arb, ba, b)
    _, p = analyse(arb, 403, variant="korpalski", fen=own_fen, game_id=own_id)
    assert p["type"] == "/problems/analysis-own-game"


def test_unsigned_is_401(api):
    _, p = analyse(api, 401, variant="korpalski", fen=KORPALSKI_START)
    assert p["type"] == "/problems/unauthorized"


@pytest.mark.parametrize("body, status, field", [
    ({"variant": "chess", "fen": KORPALSKI_START}, 422, "variant"),
    ({"variant": "korpalski", "fen": "not a position"}, 422, "fen"),
    ({"variant": "glinski", "fen": KORPALSKI_START}, 422, "fen"),
    ({"variant": "korpalski", "fen": KORPALSKI_START, "multipv": 0}, 400, "multipv"),
    ({"variant": "korpalski", "fen": KORPALSKI_START, "multipv": 6}, 400, "multipv"),
    ({"variant": "korpalski", "fen": KORPALSKI_START, "movetime_ms": 99}, 400, "movetime_ms"),
    ({"variant": "korpalski", "fen": KORPALSKI_START, "movetime_ms": 5001}, 400,
     "movetime_ms"),
    ({"variant": "korpalski", "fen": KORPALSKI_START, "multipv": "3"}, 400, "multipv"),
    ({"variant": "korpalski"}, 400, "fen"),
    ({"variant": "korpalski", "fen": KORPALSKI_START, "game_id": "no such game"}, 400,
     "game_id"),
    ({"variant": "korpalski", "fen": KORPALSKI_START, "game_id": "nosuchgame"}, 404,
     "game_id"),
])
def test_bad_input_names_the_field(api, body, status, field):
    me, _ = api.new_player("bad")
    _, p = analyse(me, status, **body)
    assert field in p["detail"], p


def test_busy_engine_answers_503_and_http_goes_on(server, start_korpd):
    """With one search at a time, a second analysis while a long one runs is
    503 with Retry-After, and other requests are served meanwhile."""
    path, pg, _ = server
    k = start_korpd(pg.url, KORP_ANALYSIS_CONCURRENT=1, KORP_ANALYSIS_PER_HOUR=1000)
    api = Api(k.base)
    long_one, _ = api.new_player("long")
    short_one, _ = api.new_player("short")
    body = {"variant": "korpalski", "fen": KORPALSKI_START, "multipv": 1}

    def post(who, ms):
        return requests.post(k.base + "/v1/analyse", timeout=30,
                             headers={"Authorization": f"Bearer {who.token}"},
                             json={**body, "movetime_ms": ms})

    # Two 5 s searches asked at once: whichever comes second finds the one slot
    # taken whatever the order the threads run in.  The refused one answers at
    # once, while the other still searches, and other routes answer meanwhile.
    answers = {}
    refused = threading.Event()

    def run(who):
        r = post(who, 5000)
        answers[who.token] = r
        if r.status_code == 503:
            refused.set()

    threads = [threading.Thread(target=run, args=(who,)) for who in (long_one, short_one)]
    for t in threads:
        t.start()
    assert refused.wait(timeout=20), {k: v.status_code for k, v in answers.items()}
    short_one.call("GET", "/v1/players/me", expect=200)
    for t in threads:
        t.join(timeout=30)
    codes = sorted(r.status_code for r in answers.values())
    assert codes == [200, 503], codes
    r = next(r for r in answers.values() if r.status_code == 503)
    assert int(r.headers["Retry-After"]) >= 1
    assert r.json()["type"] == "/problems/unavailable"


def test_two_searches_at_once_each_have_their_own_engine(server, start_korpd):
    """Two analyses in parallel (the default cap, 2) both answer, each its own
    position's mate: no engine state is shared between the HTTP threads."""
    path, pg, _ = server
    k = start_korpd(pg.url, KORP_ANALYSIS_PER_HOUR=1000)
    api = Api(k.base)
    # Black to move in the mirror image of MATE_IN_ONE: 1... Ra1 is mate by the
    # same hand analysis, colours and ranks swapped.
    mirrored = "r5k1/8/8/8/8/8/6PP/7K[] b - - 0 40"
    jobs = [(MATE_IN_ONE, MATE_MOVE_UCI), (mirrored, "a8a1")] * 2
    answers = [None] * len(jobs)
    who = [api.new_player("par")[0] for _ in jobs]

    def run(i):
        answers[i] = analyse(who[i], None, variant="korpalski", fen=jobs[i][0], multipv=2,
                             movetime_ms=1500)

    for start in (0, 2):
        threads = [threading.Thread(target=run, args=(i,)) for i in (start, start + 1)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(timeout=30)
    for (fen, mate), (status, body) in zip(jobs, answers):
        assert status == 200, body
        assert body["lines"][0].get("mate") == 1 and body["lines"][0]["pv_uci"][0] == mate, body
