"""Refusals a page shows carry a `reason` finer than their problem type, so that the page
can say why in its language: checked against the rules by hand on an empty Korpalski board
(every man in the reserves, so a draw by agreement is not allowed; K@e1 gives no check),
and a game without a time limit (no time to give)."""

from test_arbiter_queue import new_game

CLAIMS = "/v1/games/{id}/claims"


def refused(api, method, url, gid, body, status):
    _, err = api.call(method, url, [gid], json=body, expect=status)
    return err


def test_refusals_name_their_reason(api, two_players):
    wa, w, ba, b = two_players
    gid = new_game(wa, ba, b)["id"]

    err = refused(wa, "POST", "/v1/games/{id}/draw", gid, {"action": "offer"}, 422)
    assert err["type"] == "/problems/draw-not-allowed", err
    assert err["reason"] == "agreement-not-allowed", err

    err = refused(wa, "POST", CLAIMS, gid, {"kind": "perpetual", "line": "K@e1 K@h8"}, 422)
    assert (err["type"], err["reason"]) == ("/problems/invalid-value", "line-not-check"), err
    err = refused(wa, "POST", CLAIMS, gid, {"kind": "perpetual", "line": "Qz9+"}, 422)
    assert err["reason"] == "line-move-refused", err
    err = refused(wa, "POST", CLAIMS, gid, {"kind": "perpetual", "line": " "}, 422)
    assert err["reason"] == "line-empty", err

    # White is to move: White may neither give time nor set conditional moves.
    err = refused(wa, "POST", "/v1/games/{id}/give-time", gid, {"days": 1}, 409)
    assert (err["type"], err["reason"]) == ("/problems/conflict", "give-time-on-your-turn"), err
    err = refused(wa, "PUT", "/v1/games/{id}/conditional-moves", gid,
                  {"lines": [["K@h8", "Q@b1"]]}, 409)
    assert err["reason"] == "conditional-on-your-turn", err
    # Black waits, but the game has no time limit.
    err = refused(ba, "POST", "/v1/games/{id}/give-time", gid, {"days": 1}, 409)
    assert err["reason"] == "no-time-limit", err


def test_other_conflicts_keep_their_type_as_reason(api, two_players):
    wa, w, ba, b = two_players
    gid = new_game(wa, ba, b)["id"]
    err = refused(ba, "POST", "/v1/games/{id}/moves", gid, {"move": "K@e8"}, 409)
    assert err["reason"] == err["type"].rsplit("/", 1)[1], err
