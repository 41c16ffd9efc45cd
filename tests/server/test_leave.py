"""Leave against a real korpd on a database of each test's own:
bookings stop both clocks of a player's games and push their deadlines, the yearly
allowance, overlaps, cancelling and ending early, `leave_allowed: false`.

Each test first sets korpd's clock to a chosen day of next year (the test clock only
moves forward), so that the calendar (year ends, the days of each month) is known here
and every expected date is worked out with Python's own calendar."""

import datetime

from korp_fixtures import wait_until
from test_clocks import (DAY, NEXT_YEAR, UTC, Clock, on_day, parse_time, seconds_between,  # noqa: F401
                         world)


def day_text(d):
    return d.strftime("%Y-%m-%d")


def midnight(d):
    """A day's 00:00 UTC as the API writes it."""
    return d.strftime("%Y-%m-%dT00:00:00Z")


def at(text, seconds):
    """The time `seconds` after an API time, written as the API writes it."""
    return (parse_time(text) + datetime.timedelta(seconds=seconds)).strftime("%Y-%m-%dT%H:%M:%SZ")


def book(api, start, days, expect=201):
    return api.call("POST", "/v1/players/me/leave", json={"start": start, "days": days},
                    expect=expect)[1]


def leave(api):
    return api.call("GET", "/v1/players/me/leave", expect=200)[1]


def on_leave_until(api, player_id):
    return api.call("GET", "/v1/players/{id}", [player_id], expect=200)[1]["on_leave_until"]


def test_leave_stops_both_clocks_and_pushes_the_deadline(world):
    (wa, w), black = world.opponents()
    ba, b = black
    clock = Clock(world)
    today = on_day(clock, datetime.date(NEXT_YEAR, 3, 10), 12)
    two_days = {"type": "fischer", "initial_days": 2, "increment_days": 0, "max_days": 2}
    ch, a = world.game(wa, black, clock=two_days)                  # leave stops it
    ch, c = world.game(wa, black, clock=two_days, leave_allowed=False)
    assert ch["leave_allowed"] is False and c["leave_allowed"] is False
    _, p = world.game(wa, black, days_per_move=3)
    assert a["leave_allowed"] is True

    # An hour later White books three days from today: from now to the 13th, 00:00.
    clock.forward(3600)
    booking = book(wa, day_text(today), 3)
    end = midnight(today + datetime.timedelta(days=3))
    assert booking["end"] == end and booking["days"] == 3
    assert booking["start"].startswith(day_text(today)) and booking["start"] > a["created_at"]
    used_before_leave = seconds_between(a["created_at"], booking["start"])
    assert 3600 <= used_before_leave <= 3602, used_before_leave
    assert on_leave_until(ba, w["id"]) == end and on_leave_until(wa, b["id"]) is None

    # Game A: no time runs for either side until the leave ends, then White has what it
    # had when the leave began; its deadline moves that much later.
    white_left = 2 * DAY - used_before_leave
    a = wa.game(a["id"])
    assert a["clock"]["paused_until"] == end
    assert a["clock"]["remaining"] == {"white": white_left, "black": 2 * DAY}
    assert a["deadline"] == at(end, white_left)
    # Game C ignores leave: its deadline stays two days after its start.
    c = wa.game(c["id"])
    assert c["clock"]["paused_until"] is None
    assert c["deadline"] == at(c["created_at"], 2 * DAY)

    # Two days later (still on leave) C has run out, A has not.
    clock.forward(2 * DAY)
    wait_until(
        lambda: wa.game(c["id"])["status"] == "finished", 15, step=0.25,
        what="game C to end on time")
    c = wa.game(c["id"])
    assert (c["result"], c["termination"]) == ("0-1", "timeout")
    # A request on A checks its time first: it is not over, it is White's turn.
    _, err = ba.call("POST", "/v1/games/{id}/moves", [a["id"]], json={"move": "K@e8"},
                     expect=409)
    assert err["type"] == "/problems/not-your-turn", err
    a = wa.game(a["id"])
    assert a["status"] == "active" and a["clock"]["remaining"]["white"] == white_left

    # Moves are still accepted on leave: in the per-move game Black's turn starts now,
    # but its three days start when the leave ends.
    p = wa.move(p["id"], "K@e1")
    assert p["clock"]["paused_until"] == end
    assert p["clock"]["remaining"] == {"white": 3 * DAY, "black": 3 * DAY}
    assert p["deadline"] == at(end, 3 * DAY)

    # After the leave, a minute before A's pushed deadline: still White's turn.
    clock.to(parse_time(a["deadline"]) - datetime.timedelta(seconds=60))
    _, err = ba.call("POST", "/v1/games/{id}/moves", [a["id"]], json={"move": "K@e8"},
                     expect=409)
    assert err["type"] == "/problems/not-your-turn", err
    a = wa.game(a["id"])
    assert a["clock"]["paused_until"] is None
    assert 0 < a["clock"]["remaining"]["white"] <= 62
    assert on_leave_until(ba, w["id"]) is None
    # Past it, White loses on time.
    clock.forward(120)
    wait_until(
        lambda: wa.game(a["id"])["status"] == "finished", 15, step=0.25,
        what="game A to end on time")
    a = wa.game(a["id"])
    assert (a["result"], a["termination"]) == ("0-1", "timeout")
    assert a["clock"]["remaining"] == {"white": 0, "black": 2 * DAY}


def test_allowance_per_calendar_year_overlaps_and_cancelling(world):
    wa, w = world.player("w")
    clock = Clock(world)
    y1 = NEXT_YEAR
    today = datetime.date(y1, 11, 1)
    clock.to(datetime.datetime(y1, 11, 1, 12, 0, tzinfo=UTC))
    assert leave(wa) == {"allowance": 45, "used": 0, "remaining": 45, "bookings": []}

    # Ten days from 27 December: five in this year, five in the next.
    first = book(wa, f"{y1}-12-27", 10)
    assert (first["start"], first["end"], first["days"]) == \
        (f"{y1}-12-27T00:00:00Z", f"{y1 + 1}-01-06T00:00:00Z", 10)
    assert leave(wa) == {"allowance": 45, "used": 5, "remaining": 40, "bookings": [first]}

    # 41 more days this year is one too many.
    err = book(wa, f"{y1}-11-10", 41, expect=422)
    assert err["type"] == "/problems/leave-exceeded", err
    assert (err["year"], err["remaining"]) == (y1, 40), err
    assert "40" in err["detail"]
    # 40 fit exactly: 10 November to 19 December.
    second = book(wa, f"{y1}-11-10", 40)
    assert second["end"] == f"{y1}-12-20T00:00:00Z"
    err = book(wa, f"{y1}-12-20", 1, expect=422)
    assert (err["year"], err["remaining"]) == (y1, 0)

    # Overlaps are 409, before any counting: the last day of the second booking, and
    # two days inside the first.
    for start, days in ((f"{y1}-12-19", 1), (f"{y1}-12-30", 2), (f"{y1}-11-01", 10)):
        err = book(wa, start, days, expect=409)
        assert err["type"] == "/problems/conflict", err
        assert err["reason"] == "leave-overlap", err

    # Next year: five used by the first booking, forty more right after it (adjacent,
    # not overlapping), then none left there.
    third = book(wa, f"{y1 + 1}-01-06", 40)
    assert third["end"] == f"{y1 + 1}-02-15T00:00:00Z"
    err = book(wa, f"{y1 + 1}-03-01", 1, expect=422)
    assert (err["year"], err["remaining"]) == (y1 + 1, 0)

    # Cancelling a booking that has not started gives its days back.
    wa.call("DELETE", "/v1/players/me/leave/{id}", [second["id"]], expect=204)
    assert leave(wa) == {"allowance": 45, "used": 5, "remaining": 40,
                         "bookings": [first, third]}
    fourth = book(wa, f"{y1}-12-20", 1)
    assert leave(wa)["used"] == 6
    # Nobody else's booking can be cancelled: it is not found for them.
    other, _ = world.player("o")
    other.call("DELETE", "/v1/players/me/leave/{id}", [fourth["id"]], expect=404)
    wa.call("DELETE", "/v1/players/me/leave/{id}", [second["id"]], expect=404)

    # The first day may be today or up to 365 days ahead.
    b_api, _ = world.player("r")
    last = today + datetime.timedelta(days=365)
    assert book(b_api, day_text(last), 1)["start"] == midnight(last)
    for start in (day_text(today - datetime.timedelta(days=1)),
                  day_text(last + datetime.timedelta(days=1))):
        err = book(b_api, start, 1, expect=400)
        assert err["type"] == "/problems/bad-request", err
    for body in ({"start": f"{y1}-02-30", "days": 1}, {"start": f"{y1}-1-05", "days": 1},
                 {"start": "tomorrow!!", "days": 1}, {"start": day_text(today), "days": 0},
                 {"start": day_text(today), "days": 367}, {"start": day_text(today)},
                 {"start": day_text(today), "days": 1, "reason": "holiday"}):
        b_api.call("POST", "/v1/players/me/leave", json=body, expect=400)


def test_ending_leave_early_gives_days_back_and_pulls_deadlines_in(world):
    (wa, w), black = world.opponents()
    clock = Clock(world)
    today = on_day(clock, datetime.date(NEXT_YEAR, 6, 1), 9)
    _, g = world.game(wa, black, days_per_move=1)
    clock.forward(600)
    booking = book(wa, day_text(today), 5)
    used = seconds_between(g["created_at"], booking["start"])
    end = midnight(today + datetime.timedelta(days=5))
    assert wa.game(g["id"])["deadline"] == at(end, DAY - used)
    assert on_leave_until(wa, w["id"]) == end

    # Ended while it runs: it lasts to the end of today, one day counted.
    wa.call("DELETE", "/v1/players/me/leave/{id}", [booking["id"]], expect=204)
    end_today = midnight(today + datetime.timedelta(days=1))
    mine = leave(wa)
    assert mine["used"] == 1 and mine["remaining"] == 44
    assert mine["bookings"] == [{**booking, "end": end_today, "days": 1}]
    assert on_leave_until(wa, w["id"]) == end_today
    g = wa.game(g["id"])
    assert g["deadline"] == at(end_today, DAY - used)
    assert g["clock"]["paused_until"] == end_today
    # Ending it again changes nothing; once it is over it cannot be cancelled.
    wa.call("DELETE", "/v1/players/me/leave/{id}", [booking["id"]], expect=204)
    assert leave(wa)["bookings"] == [{**booking, "end": end_today, "days": 1}]
    clock.to(parse_time(end_today) + datetime.timedelta(seconds=60))
    _, err = wa.call("DELETE", "/v1/players/me/leave/{id}", [booking["id"]], expect=409)
    assert err["type"] == "/problems/conflict"
    assert on_leave_until(wa, w["id"]) is None
    assert wa.game(g["id"])["clock"]["paused_until"] is None
