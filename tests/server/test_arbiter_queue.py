"""The arbiter's queue and the perpetual-check claim.
The lines are checked by hand on an empty Korpalski board (every piece in the
reserves): after 1. K@e1 K@h8 2. Q@b1 N@a5 White shuttles its queen between b8
(check along the 8th rank, c8-g8 empty) and b1 (check along b1-h7), the black king
between h8 and h7; Qb2 checks nothing (b2-h8 is blocked by nothing but misses h7,
and the 2nd rank and b-file miss h7), Kg8 would stand on the queen's rank.
Every answer is checked against openapi.yaml by korp_client.Api."""
import time

from test_events import Stream
from test_games_flow import play

OPENING = ["K@e1", "K@h8", "Q@b1", "N@a5"]
PERPETUAL = "Qb8+ Kh7 Qb1+ Kh8 Qb8+"
CLAIMS = "/v1/games/{id}/claims"


def new_game(a, b, pb):
    _, ch = a.call("POST", "/v1/challenges", json={"variant": "korpalski", "opponent": pb["id"],
                                                   "color": "white"}, expect=201)
    return b.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)[1]["game"]


def queue_items(arbiter):
    return arbiter.call("GET", "/v1/arbiter/queue", expect=200)[1]["items"]


def arbiter_events(base, token, count, timeout=10):
    """The player's first `count` `arbiter` events, read from the start of
    their stream (Last-Event-ID 0)."""
    s = Stream(base, token=token, last_event_id=0)
    try:
        found, deadline = [], time.monotonic() + timeout
        while len(found) < count:
            assert time.monotonic() < deadline, f"only {found} arbiter events"
            for e in s.events(1, timeout=max(0.1, deadline - time.monotonic())):
                if e["event"] == "arbiter":
                    found.append(e["data"])
        return found
    finally:
        s.close()


def test_perpetual_claim_queued_and_resolved_by_adjudication(api, two_players, arbiter):
    wa, w, ba, b = two_players
    gid = new_game(wa, ba, b)["id"]
    play(wa, ba, gid, OPENING, 0)
    _, body = wa.call("POST", CLAIMS, [gid], json={"kind": "perpetual", "line": PERPETUAL},
                      expect=202)
    assert body["pending"] is True
    claim_id = body["claim_id"]
    # The game goes on: it is still White's move, nothing was played.
    g = wa.game(gid)
    assert (g["status"], g["ply"]) == ("active", 4)
    mine = [i for i in queue_items(arbiter) if i["id"] == claim_id]
    assert len(mine) == 1
    item = mine[0]
    assert (item["kind"], item["game_id"]) == ("perpetual", gid)
    assert item["details"] == {"claimant": w["id"], "color": "white", "ply": 4,
                               "line": PERPETUAL}
    # A request from Black about the same game joins the queue after it.
    _, req = ba.call("POST", "/v1/games/{id}/arbiter-request", [gid],
                     json={"text": "please rule on the perpetual"}, expect=202)
    ids = [i["id"] for i in queue_items(arbiter)]
    assert ids.index(claim_id) < ids.index(req["request_id"])
    request = [i for i in queue_items(arbiter) if i["id"] == req["request_id"]][0]
    assert request["kind"] == "request"
    assert request["details"]["text"] == "please rule on the perpetual"
    # The arbiter upholds it: the adjudication resolves both items.
    arbiter.call("POST", "/v1/games/{id}/adjudication", [gid],
                 json={"result": "1/2-1/2", "reason": "perpetual check upheld"}, expect=200)
    left = [i["id"] for i in queue_items(arbiter)]
    assert claim_id not in left and req["request_id"] not in left
    for token in (wa.token, ba.token):
        (event,) = arbiter_events(api.base, token, 1)
        assert event["decision"] == "adjudicated"
        assert event["reason"] == "perpetual check upheld"
        assert event["game_id"] == gid and event["result"] == "1/2-1/2"
        assert sorted(i["id"] for i in event["items"]) == sorted([claim_id, req["request_id"]])


def test_invalid_lines_are_422_naming_the_move(api, two_players):
    wa, w, ba, b = two_players
    gid = new_game(wa, ba, b)["id"]
    play(wa, ba, gid, OPENING, 0)
    cases = [
        ("Qb8+ Kh7 Qb2 Kh8", "move 3", "check"),      # legal, but no check
        ("Qb9+ Kh7", "move 1", None),                 # no such square
        ("Qb8+ Kg8", "move 2", None),                 # the king into check
        ("Kh7 Qb8", "move 1", None),                  # Black's move first
        ("Qh7+ Kxh7 Qb2", "move 3", None),            # the queen is gone
    ]
    for line, which, why in cases:
        _, err = wa.call("POST", CLAIMS, [gid], json={"kind": "perpetual", "line": line},
                         expect=422)
        assert err["type"] == "/problems/invalid-value", err
        assert which in err["detail"], (line, err)
        if why:
            assert why in err["detail"], (line, err)
    # The side not to move may not claim; a stranger may not either.
    _, err = ba.call("POST", CLAIMS, [gid], json={"kind": "perpetual", "line": "Kh7"},
                     expect=409)
    assert err["type"] == "/problems/not-your-turn"
    sa, _ = api.new_player("x")
    sa.call("POST", CLAIMS, [gid], json={"kind": "perpetual", "line": PERPETUAL}, expect=403)
    sa.call("POST", "/v1/games/{id}/arbiter-request", [gid], json={"text": "hi"},
            expect=403)
    # A perpetual claim needs its line, and takes no move.
    wa.call("POST", CLAIMS, [gid], json={"kind": "perpetual"}, expect=400)
    wa.call("POST", CLAIMS, [gid], json={"kind": "perpetual", "line": PERPETUAL,
                                         "move": "Qb8+"}, expect=400)
    assert wa.game(gid)["ply"] == 4


def test_dismiss_and_the_queue_is_arbiter_only(api, two_players, arbiter):
    wa, w, ba, b = two_players
    gid = new_game(wa, ba, b)["id"]
    play(wa, ba, gid, OPENING, 0)
    claim_id = wa.call("POST", CLAIMS, [gid], json={"kind": "perpetual", "line": PERPETUAL},
                       expect=202)[1]["claim_id"]
    err = wa.call("GET", "/v1/arbiter/queue", expect=403)[1]
    assert err["type"] == "/problems/forbidden"
    wa.call("POST", "/v1/arbiter/queue/{id}/dismiss", [claim_id], json={"reason": "no"},
            expect=403)
    api.call("GET", "/v1/arbiter/queue", expect=401)
    _, done = arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [claim_id],
                           json={"reason": "Black escapes with Kg6"}, expect=200)
    assert done == {"id": claim_id, "status": "dismissed"}
    assert claim_id not in [i["id"] for i in queue_items(arbiter)]
    arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [claim_id],
                 json={"reason": "again"}, expect=409)
    arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", ["nosuchitem1"],
                 json={"reason": "x"}, expect=404)
    arbiter.call("POST", "/v1/arbiter/queue/{id}/dismiss", [claim_id], json={}, expect=400)
    for token in (wa.token, ba.token):
        (event,) = arbiter_events(api.base, token, 1)
        assert (event["decision"], event["reason"]) == ("dismissed", "Black escapes with Kg6")
        assert event["items"] == [{"id": claim_id, "kind": "perpetual"}]
    # The game went on all along.
    assert wa.game(gid)["status"] == "active"
    wa.move(gid, "Qb8+", ply=4)


def test_an_arbiter_with_a_password_signs_in_on_the_web_board(api, korpd_binary, shared_db_url):
    """`korpd admin create-arbiter NAME --password-stdin`: the arbiter's page needs an
    arbiter who signs in with a password (a session), not only a token."""
    import os
    import subprocess
    import uuid
    env = dict(os.environ, KORP_DATABASE_URL=shared_db_url)
    name = f"arbw_{uuid.uuid4().hex[:10]}"
    out = subprocess.run([korpd_binary, "admin", "create-arbiter", name, "--password-stdin"],
                         input="a long enough passphrase\n", env=env, capture_output=True,
                         text=True, timeout=60)
    assert out.returncode == 0, out.stderr
    token = out.stdout.strip()
    _, me = api.as_(token).call("GET", "/v1/players/me", expect=200)
    assert (me["name"], me["role"]) == (name, "arbiter")
    _, session = api.call("POST", "/v1/session",
                          json={"name": name, "password": "a long enough passphrase"}, expect=200)
    assert session["player"]["id"] == me["id"]
    # The password policy holds here too: too short, nothing made.
    short = subprocess.run([korpd_binary, "admin", "create-arbiter", name + "x",
                            "--password-stdin"], input="short\n", env=env,
                           capture_output=True, text=True, timeout=60)
    assert short.returncode == 2 and "password" in short.stderr
    _, found = api.call("GET", "/v1/players", query={"name": name + "x"}, expect=200)
    assert [p for p in found["players"] if p["name"] == name + "x"] == []
