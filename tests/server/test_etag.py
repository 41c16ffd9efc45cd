"""Conditional reads of a game against a real korpd on a database of
each test's own: every game resource carries an ETag that stays while nothing stored
changes (the seconds of a running clock included) and changes with each stored change (a
move, a draw offer, a claim, give-time, a leave starting and ending, a resignation), and
If-None-Match (one tag, a list, W/ or not, `*`) is answered 304 with no body.

What the tags must follow is worked out here from the rules of the issue (the stored
state), never from korpd's tags themselves: a test only compares tags with tags."""

import datetime

import requests

from openapi_check import check
from test_clocks import DAY, NEXT_YEAR, UTC, Clock, on_day, seconds_between, world  # noqa: F401
from test_games_flow import CORNERS_AND_KNIGHTS, claim, knight_shuffle, play

FISCHER = {"type": "fischer", "initial_days": 3, "increment_days": 1, "max_days": 4}
RESOURCES = ["/v1/games/{id}", "/v1/games/{id}/moves", "/v1/games/{id}/legal-moves",
             "/v1/games/{id}/pgn", "/v1/games/{id}/analysis"]


def fetch(api, template, gid, inm=None, token=None, query=None):
    """GET a game resource, checked against openapi.yaml; returns (status, ETag, body,
    the response)."""
    headers = {} if inm is None else {"If-None-Match": inm}
    if token is not None:
        headers["Authorization"] = f"Bearer {token}"
    r = api.http.get(api.base + template.replace("{id}", gid), headers=headers, params=query,
                   timeout=30)
    body = check(r, "GET", template)
    return r.status_code, r.headers.get("ETag"), body, r


def tags(api, gid):
    out = {}
    for t in RESOURCES:
        status, etag, _, r = fetch(api, t, gid)
        assert status == 200 and etag, (t, status)
        assert r.headers["Cache-Control"] == "no-cache", (t, r.headers["Cache-Control"])
        out[t] = etag
    return out


def all_changed(before, after, what):
    same = [t for t in RESOURCES if before[t] == after[t]]
    assert not same, f"{what}: tags unchanged for {same}"


def game_changed_only(before, after, what):
    """A change the game object shows but no move: the game's own tag and those derived
    from it change; the move list's stays."""
    assert before["/v1/games/{id}"] != after["/v1/games/{id}"], what
    assert before["/v1/games/{id}/moves"] == after["/v1/games/{id}/moves"], what


def test_tags_stay_while_the_clock_runs_and_answer_304(world):
    (wa, _), black = world.opponents()
    clock = Clock(world)
    _, g = world.game(wa, black, clock=FISCHER)
    gid = g["id"]
    wa.move(gid, "K@e1")
    first = tags(world.api, gid)
    assert first == tags(world.api, gid)
    _, _, game, _ = fetch(world.api, "/v1/games/{id}", gid)
    # An hour and a day pass: Black's remaining time counts down, nothing stored changes.
    clock.forward(3600)
    clock.forward(DAY)
    _, _, later, _ = fetch(world.api, "/v1/games/{id}", gid)
    assert game["clock"]["remaining"]["black"] - later["clock"]["remaining"]["black"] >= DAY + 3600
    assert later["clock"]["remaining"]["white"] == game["clock"]["remaining"]["white"]
    assert later["deadline"] == game["deadline"]
    assert tags(world.api, gid) == first
    assert first["/v1/games/{id}"].startswith('W/"')

    for t in RESOURCES:
        etag = first[t]
        opaque = etag[2:] if etag.startswith("W/") else etag
        for inm in (etag, opaque, "W/" + opaque, f'"{"0" * 32}", {etag}',
                    f'W/"{"1" * 32}",{opaque}  ', "*"):
            status, got, body, r = fetch(world.api, t, gid, inm=inm)
            assert status == 304, (t, inm, status)
            assert got == etag and r.headers["Cache-Control"] == "no-cache", (t, inm)
            assert r.content == b"" and body is None, (t, inm)
        for inm in (f'"{"0" * 32}"', f'W/"{"0" * 32}", "{"f" * 32}"', "not-a-tag", '""'):
            status, got, body, r = fetch(world.api, t, gid, inm=inm)
            assert status == 200 and got == etag and r.content, (t, inm, status)
    # `*` matches only a resource that is there.
    status, _, body, _ = fetch(world.api, "/v1/games/{id}", "A" * 10, inm="*")
    assert status == 404 and body["type"] == "/problems/not-found"
    # Keep-alive holds across a 304 (no body, the connection reused).
    s = requests.Session()
    url = world.api.base + "/v1/games/" + gid
    for _ in range(3):
        r = s.get(url, headers={"If-None-Match": first["/v1/games/{id}"]}, timeout=30)
        assert r.status_code == 304 and r.headers.get("Connection", "") != "close"


def test_tags_change_with_each_stored_change(world):
    (wa, _), black = world.opponents()
    ba, _ = black
    clock = Clock(world)
    day = on_day(clock, datetime.date(NEXT_YEAR, 3, 10), 12)
    # Glinski: a draw may be offered at any time.
    _, g = world.game(wa, black, variant="glinski", clock=FISCHER)
    gid = g["id"]
    t0 = tags(world.api, gid)

    wa.move(gid, "h5")
    t1 = tags(world.api, gid)
    all_changed(t0, t1, "a move")
    status, _, _, _ = fetch(world.api, "/v1/games/{id}", gid, inm=t0["/v1/games/{id}"])
    assert status == 200, "a stale tag gets the game"

    ba.call("POST", "/v1/games/{id}/draw", [gid], json={"action": "offer"}, expect=200)
    t2 = tags(world.api, gid)
    game_changed_only(t1, t2, "a draw offer")
    wa.call("POST", "/v1/games/{id}/draw", [gid], json={"action": "decline"}, expect=200)
    t3 = tags(world.api, gid)
    game_changed_only(t2, t3, "a declined offer")

    # White gives Black a day: Black's deadline moves.
    wa.call("POST", "/v1/games/{id}/give-time", [gid], json={"days": 1}, expect=200)
    t4 = tags(world.api, gid)
    game_changed_only(t3, t4, "give-time")

    # White books two days of leave from tomorrow: Black's deadline moves two days later
    # at once (both clocks stop during it); the pause itself shows once it runs.
    _, _, before, _ = fetch(world.api, "/v1/games/{id}", gid)
    _, booked = wa.call("POST", "/v1/players/me/leave",
                        json={"start": (day + datetime.timedelta(days=1)).isoformat(),
                              "days": 2}, expect=201)
    _, _, shown, _ = fetch(world.api, "/v1/games/{id}", gid)
    t5 = tags(world.api, gid)
    assert shown["clock"]["paused_until"] is None
    assert seconds_between(before["deadline"], shown["deadline"]) == 2 * DAY
    game_changed_only(t4, t5, "a leave booked")
    clock.to(datetime.datetime(NEXT_YEAR, 3, 11, 6, 0, tzinfo=UTC))
    _, _, paused, _ = fetch(world.api, "/v1/games/{id}", gid)
    assert paused["clock"]["paused_until"] == booked["end"]
    t6 = tags(world.api, gid)
    game_changed_only(t5, t6, "a leave starting")
    # Within the leave nothing changes, whatever the hour.
    clock.forward(6 * 3600)
    assert tags(world.api, gid) == t6
    # The leave ends: the pause is gone from the game, the tag changes.
    clock.to(datetime.datetime(NEXT_YEAR, 3, 13, 1, 0, tzinfo=UTC))
    _, _, after, _ = fetch(world.api, "/v1/games/{id}", gid)
    assert after["clock"]["paused_until"] is None
    t7 = tags(world.api, gid)
    game_changed_only(t6, t7, "a leave ending")

    ba.call("POST", "/v1/games/{id}/resign", [gid], expect=200)
    t8 = tags(world.api, gid)
    game_changed_only(t7, t8, "a resignation")


def test_tags_follow_claims(world):
    api = world.api
    (wa, _), black = world.opponents()
    ba, _ = black
    gid = world.game(wa, black)[1]["id"]
    play(wa, ba, gid, CORNERS_AND_KNIGHTS + knight_shuffle(4), 0)
    before = tags(api, gid)
    # The position has occurred twice: the claim is rejected and nothing changes.
    c = claim(wa, gid, "threefold")
    assert c["accepted"] is False
    assert tags(api, gid) == before
    play(wa, ba, gid, knight_shuffle(4), 8)
    during = tags(api, gid)
    all_changed(before, during, "four moves")
    # Third occurrence: the claim ends the game; every tag follows.
    c = claim(wa, gid, "threefold")
    assert c["accepted"] is True and c["game"]["status"] == "finished"
    after = tags(api, gid)
    game_changed_only(during, after, "an upheld claim")
    assert after["/v1/games/{id}/pgn"] != during["/v1/games/{id}/pgn"]
    assert after["/v1/games/{id}/legal-moves"] != during["/v1/games/{id}/legal-moves"]


def test_pgn_with_notes_is_tagged_privately(world):
    api = world.api
    wa, _ = world.player("w")
    gid = world.game(wa, world.player("b"))[1]["id"]
    wa.call("PUT", "/v1/games/{id}/notes", [gid], json={"text": "plan: K@e1"}, expect=200)
    status, etag, _, r = fetch(api, "/v1/games/{id}/pgn", gid, token=wa.token,
                               query={"notes": "true"})
    assert status == 200 and "plan: K@e1" in r.text
    assert r.headers["Cache-Control"] == "private, no-cache"
    status, _, _, r = fetch(api, "/v1/games/{id}/pgn", gid, token=wa.token,
                            query={"notes": "true"}, inm=etag)
    assert status == 304 and r.headers["Cache-Control"] == "private, no-cache"
    wa.call("PUT", "/v1/games/{id}/notes", [gid], json={"text": "plan: K@d1"}, expect=200)
    status, etag2, _, r = fetch(api, "/v1/games/{id}/pgn", gid, token=wa.token,
                                query={"notes": "true"}, inm=etag)
    assert status == 200 and etag2 != etag and "plan: K@d1" in r.text
    # Anyone else's copy (no notes) has the public tag.
    _, public, _, _ = fetch(api, "/v1/games/{id}/pgn", gid)
    assert public not in (etag, etag2)
