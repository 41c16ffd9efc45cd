"""Refusals a page can show name their reason as a code finer than the problem's type
(pages say it in their language): sign-up and passwords, draw claims (their answer's
`code`), conditional lines, tournament dates and entries, open challenges.  Which rule
each request breaks is read from the rules by hand: a name is 2 to 30 characters, a
password 8 to 128 and not the player's name nor a common one (web/data/common-passwords.txt),
a threefold claim needs the position three times, a line of conditional moves an even
number of moves, a tournament of at most max_players."""

import uuid

from test_arbiter_queue import new_game

PASSWORD = "correct horse battery"


def fresh(prefix):
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


def refused(api, method, url, params=(), body=None, status=400):
    return api.call(method, url, list(params), json=body, expect=status)[1]


def test_sign_up_refusals(api):
    def sign_up(body, status):
        return refused(api, "POST", "/v1/players", body=body, status=status)["reason"]

    assert sign_up({"name": "a"}, 400) == "name-invalid"
    assert sign_up({"name": fresh("e"), "email": "not an address"}, 400) == "email-invalid"
    assert sign_up({"name": fresh("s"), "password": "short"}, 400) == "password-length"
    name = fresh("same")
    assert sign_up({"name": name, "password": name.upper()}, 400) == "password-is-name"
    assert sign_up({"name": fresh("c"), "password": "qwertyuiop"}, 400) == "password-common"
    taken = fresh("Taken")
    api.call("POST", "/v1/players", json={"name": taken}, expect=201)
    assert sign_up({"name": taken.lower()}, 409) == "name-taken"


def test_password_change_refusals(api):
    name = fresh("pw")
    _, me = api.call("POST", "/v1/players", json={"name": name, "password": PASSWORD},
                     expect=201)
    pa = api.as_(me["token"])
    err = refused(pa, "PUT", "/v1/players/me/password",
                  body={"current_password": "wrong one, surely", "new_password": PASSWORD + "!"},
                  status=403)
    assert (err["type"], err["reason"]) == ("/problems/forbidden", "password-wrong"), err
    err = refused(pa, "PUT", "/v1/players/me/password",
                  body={"current_password": PASSWORD, "new_password": "12345678"}, status=400)
    assert err["reason"] == "password-common", err


def claim(player, gid, kind):
    return player.call("POST", "/v1/games/{id}/claims", [gid], json={"kind": kind},
                       expect=200)[1]


def test_claims_answer_with_a_code(api, two_players):
    wa, w, ba, b = two_players
    gid = new_game(wa, ba, b)["id"]
    # The first position of the game has occurred once; no ply has passed.
    c = claim(wa, gid, "threefold")
    assert (c["accepted"], c["code"]) == (False, "threefold-short"), c
    c = claim(wa, gid, "fifty-move")
    assert (c["accepted"], c["code"]) == (False, "fifty-move-short"), c
    gid = wa.new_game(ba, b["id"], fifty_move_rule=False)["id"]
    c = claim(wa, gid, "fifty-move")
    assert (c["accepted"], c["code"]) == (False, "no-fifty-move-rule"), c


def test_conditional_line_of_odd_length(api, two_players):
    wa, w, ba, b = two_players
    gid = new_game(wa, ba, b)["id"]
    err = refused(ba, "PUT", "/v1/games/{id}/conditional-moves", [gid],
                  {"lines": [["K@e1", "K@e8", "Q@d1"]]}, 400)
    assert (err["type"], err["reason"]) == ("/problems/bad-request", "line-length-odd"), err


def tournament(director, status=201, **extra):
    body = {"name": "reasons", "variant": "glinski", "max_players": 3, "rated": False, **extra}
    return director.call("POST", "/v1/tournaments", json=body, expect=status)[1]


def test_tournament_refusals(api):
    da, _ = api.new_player("td")
    err = tournament(da, 422, min_rating=1800, max_rating=1500)
    assert (err["type"], err["reason"]) == ("/problems/invalid-value", "rating-range-empty"), err
    err = tournament(da, 422, starts_at="2001-01-01T12:00:00Z")
    assert err["reason"] == "starts-in-the-past", err
    err = tournament(da, 400, starts_at="2001-02-30T12:00:00Z")
    assert err["reason"] == "time-unreadable", err

    t = tournament(da)
    join = "/v1/tournaments/{id}/join"
    players = [api.new_player("tp")[0] for _ in range(4)]
    outsider = players.pop()
    err = refused(outsider, "POST", "/v1/tournaments/{id}/withdraw", [t["id"]], status=409)
    assert err["reason"] == "not-entered", err
    players[0].call("POST", join, [t["id"]], expect=200)
    err = refused(players[0], "POST", join, [t["id"]], status=409)
    assert err["reason"] == "already-entered", err
    for p in players[1:]:
        p.call("POST", join, [t["id"]], expect=200)
    err = refused(outsider, "POST", join, [t["id"]], status=409)
    assert (err["type"], err["reason"]) == ("/problems/conflict", "tournament-full"), err


def test_one_open_challenge_to_a_player(api, two_players):
    wa, w, ba, b = two_players
    body = {"variant": "korpalski", "opponent": b["id"]}
    _, ch = wa.call("POST", "/v1/challenges", json=body, expect=201)
    err = refused(wa, "POST", "/v1/challenges", body=body, status=409)
    assert err["reason"] == "challenge-open-already", err
    # Accepted once, the challenge is no longer open.
    ba.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)
    err = refused(ba, "POST", "/v1/challenges/{id}/accept", [ch["id"]], status=409)
    assert err["reason"] == "challenge-not-open", err


def test_a_round_robin_of_two_is_not_started(api):
    da, _ = api.new_player("td")
    t = tournament(da)
    for p in [api.new_player("tp")[0] for _ in range(2)]:
        p.call("POST", "/v1/tournaments/{id}/join", [t["id"]], expect=200)
    err = refused(da, "POST", "/v1/tournaments/{id}/start", [t["id"]], status=409)
    assert err["reason"] == "too-few-players", err
