"""Bots written for lichess: the calls lichess-bot makes, replayed against a
real korpd (token test, profile, upgrade, nowPlaying, moves through /api/
with the opponent moving through /v1/, draw offers, resign, abort), in both
variants.  Every answer is checked against openapi.yaml by the client; the
expected values come from lichess's shapes and from the rules, not from korpd."""

import json
import os
import queue
import signal
import subprocess
import threading
import time
from datetime import datetime, timezone

import pytest
import requests

from korp_client import Api
from korp_fixtures import TableLock, wait_until
from openapi_check import check

VARIANTS = ["korpalski", "glinski"]


def lichess(api, method, template, params=(), expect=200, **kw):
    """Calls an /api/ route as lichess-bot does (forms or plain text, no JSON)."""
    return api.call(method, template, params, expect=expect, **kw)[1]


def legal(api, gid):
    return [m["uci"] for m in api.call("GET", "/v1/games/{id}/legal-moves", [gid],
                                       expect=200)[1]["moves"]]


def started(bot, human, human_id, variant):
    """The bot challenges the human (as White) through /v1/, who accepts."""
    return bot.new_game(human, human_id, variant=variant, color="white")["id"]


def challenged(bot, human, human_name, variant, **form):
    """The bot challenges the human as lichess-bot does (a form); returns the challenge."""
    return lichess(bot, "POST", "/api/challenge/{username}", [human_name],
                   data={"variant": variant, "color": "white", **form})


class NdStream:
    """One ndjson stream read line by line by a thread of its own."""

    def __init__(self, base, path, token):
        self._follow(requests.get(base + path, headers={"Authorization": f"Bearer {token}"},
                                  stream=True, timeout=30))

    @classmethod
    def of(cls, response):
        """The stream of a response already asked for (stream=True)."""
        s = cls.__new__(cls)
        s._follow(response)
        return s

    def _follow(self, response):
        self.response = response
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        try:
            for line in self.response.iter_lines(chunk_size=1):
                self.lines.put(line)
        except Exception:  # the stream was closed
            pass

    def line(self, timeout=10):
        """The next line: a parsed object, or None for an empty line."""
        raw = self.lines.get(timeout=timeout)
        return json.loads(raw) if raw else None

    def until(self, pred, timeout=10):
        """Reads objects until one satisfies pred; returns it (empty lines are skipped)."""
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            assert left > 0, "no such line came"
            obj = self.line(timeout=left)
            if obj is not None and pred(obj):
                return obj

    def close(self):
        self.response.close()


def test_token_test_names_each_token_or_null(api):
    a, p = api.new_player("bot")
    r = requests.post(api.base + "/api/token/test", data=f"{a.token}, nosuchtoken",
                      headers={"Content-Type": "text/plain"}, timeout=30)
    body = check(r, "POST", "/api/token/test")
    assert r.status_code == 200
    assert body == {a.token: {"userId": p["id"],
                              "scopes": "bot:play,board:play,challenge:read,challenge:write",
                              "expires": None},
                    "nosuchtoken": None}


def test_no_token_is_lichess_401(api):
    for method, path in (("GET", "/api/account"), ("GET", "/api/account/playing"),
                         ("POST", "/api/bot/account/upgrade"),
                         ("POST", "/api/bot/game/{id}/resign")):
        ids = ["aZ3kP9qwX2"] if "{" in path else []
        body = lichess(Api(api.base), method, path, ids, expect=401)
        assert body == {"error": "No such token"}
        body = lichess(Api(api.base, "korp_not_a_token"), method, path, ids, expect=401)
        assert body == {"error": "No such token"}


def test_profile_and_upgrade(api):
    bot, p = api.new_player("bot")
    me = lichess(bot, "GET", "/api/account")
    assert me["id"] == p["id"] and me["username"] == p["name"] and "title" not in me
    # Glicko-2's starting values (Glickman's paper): 1500 and 350, provisional.
    for v in VARIANTS:
        assert me["perfs"][v] == {"rating": 1500, "rd": 350, "prov": True, "games": 0}
    assert lichess(bot, "POST", "/api/bot/account/upgrade") == {"ok": True}
    assert lichess(bot, "GET", "/api/account")["title"] == "BOT"
    # Asked again: it is one already.
    assert lichess(bot, "POST", "/api/bot/account/upgrade") == {"ok": True}


def test_upgrade_refused_after_a_game(api, two_players):
    wa, w, ba, b = two_players
    started(wa, ba, b["id"], "korpalski")
    body = lichess(wa, "POST", "/api/bot/account/upgrade", expect=400)
    assert set(body) == {"error"} and body["error"]
    assert "title" not in lichess(wa, "GET", "/api/account")


@pytest.mark.parametrize("variant", VARIANTS)
def test_a_game_as_lichess_bot_plays_it(api, variant):
    bot, b = api.new_player("bot")
    human, h = api.new_player("human")
    lichess(bot, "POST", "/api/bot/account/upgrade")
    assert lichess(bot, "GET", "/api/account/playing") == {"nowPlaying": []}
    gid = started(bot, human, h["id"], variant)

    playing = lichess(bot, "GET", "/api/account/playing")["nowPlaying"]
    assert len(playing) == 1
    g = playing[0]
    assert (g["gameId"], g["fullId"], g["color"]) == (gid, gid, "white")
    assert (g["hasMoved"], g["isMyTurn"], g["lastMove"]) == (False, True, "")
    assert g["opponent"] == {"id": h["id"], "username": h["name"], "rating": 1500}
    assert (g["perf"], g["speed"], g["variant"]["key"]) == (variant, "correspondence", variant)
    theirs = lichess(human, "GET", "/api/account/playing")["nowPlaying"][0]
    assert (theirs["color"], theirs["isMyTurn"]) == ("black", False)

    # Refusals in lichess's shape.
    assert set(lichess(human, "POST", "/api/bot/game/{id}/move/{move}",
                       [gid, legal(api, gid)[0]], expect=400)) == {"error"}
    assert set(lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", [gid, "a1a1"],
                       expect=400)) == {"error"}
    assert set(lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", ["aZ3kP9qwX2", "e2e4"],
                       expect=404)) == {"error"}
    lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", [gid, "e2e4"],
            query={"offeringDraw": "maybe"}, expect=400)

    # White through the Bot API, Black through /v1/, White through the Board API.
    first = legal(api, gid)
    if variant == "glinski":
        assert "f5f6" in first   # the f-pawn's step, from Glinski's start
    move = "f5f6" if variant == "glinski" else first[0]
    if variant == "korpalski":
        assert "@" in move       # the board starts empty: every first move is a drop
    assert lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", [gid, move]) == {"ok": True}
    human.move(gid, legal(api, gid)[0])
    g = lichess(bot, "GET", "/api/account/playing")["nowPlaying"][0]
    assert (g["hasMoved"], g["isMyTurn"]) == (True, True)
    assert g["lastMove"] == api.call("GET", "/v1/games/{id}/moves", [gid],
                                     expect=200)[1]["moves"][-1]["uci"]

    # A move with a draw offer: the human declines it through the Board API.
    assert lichess(bot, "POST", "/api/board/game/{id}/move/{move}", [gid, legal(api, gid)[0]],
                   query={"offeringDraw": "true"}) == {"ok": True}
    lichess(human, "POST", "/api/board/game/{id}/draw/{accept}", [gid, "perhaps"], expect=400)
    # No claim holds after three plies.
    assert set(lichess(bot, "POST", "/api/board/game/{id}/claim-draw", [gid],
                       expect=400)) == {"error"}
    if variant == "korpalski":
        # Korpalski agrees draws only with both reserves empty, and they are full at the
        # start (docs/rules/korpalski.md): the offer is dropped, the move stands, "yes" is
        # refused.
        assert human.game(gid)["draw_offer"] is None and human.game(gid)["ply"] == 3
        assert set(lichess(human, "POST", "/api/bot/game/{id}/draw/{accept}", [gid, "yes"],
                           expect=400)) == {"error"}
        assert lichess(human, "POST", "/api/bot/game/{id}/resign", [gid]) == {"ok": True}
        over = human.game(gid)
        assert (over["status"], over["result"]) == ("finished", "1-0")
    else:
        assert human.game(gid)["draw_offer"] == "white"
        assert lichess(human, "POST", "/api/board/game/{id}/draw/{accept}", [gid, "no"]) == \
            {"ok": True}
        assert human.game(gid)["draw_offer"] is None
        # "yes" offers; the bot's "yes" then accepts it.
        assert lichess(human, "POST", "/api/bot/game/{id}/draw/{accept}", [gid, "yes"]) == \
            {"ok": True}
        assert human.game(gid)["draw_offer"] == "black"
        assert lichess(bot, "POST", "/api/bot/game/{id}/draw/{accept}", [gid, "yes"]) == \
            {"ok": True}
        over = human.game(gid)
        assert (over["status"], over["result"]) == ("finished", "1/2-1/2")
    assert lichess(bot, "GET", "/api/account/playing") == {"nowPlaying": []}
    assert set(lichess(bot, "POST", "/api/bot/game/{id}/resign", [gid], expect=400)) == \
        {"error"}

    # Resign, and abort, in games of their own.
    gid = started(bot, human, h["id"], variant)
    assert lichess(human, "POST", "/api/board/game/{id}/resign", [gid]) == {"ok": True}
    over = human.game(gid)
    assert (over["status"], over["result"]) == ("finished", "1-0")
    gid = started(bot, human, h["id"], variant)
    assert lichess(bot, "POST", "/api/bot/game/{id}/abort", [gid]) == {"ok": True}
    assert human.game(gid)["status"] == "aborted"
    # A stranger sees no game there.
    stranger, _ = api.new_player("x")
    assert set(lichess(stranger, "POST", "/api/board/game/{id}/abort", [gid],
                       expect=404)) == {"error"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_challenges_as_lichess_clients_send_them(api, variant):
    bot, b = api.new_player("bot")
    human, h = api.new_player("human")
    # lichess-bot's form, the name in another case: one accepted.
    c = challenged(bot, human, h["name"].upper(), variant, rated="true", days="3")
    assert (c["status"], c["rated"], c["speed"], c["color"]) == \
        ("created", True, "correspondence", "white")
    assert c["timeControl"] == {"type": "correspondence", "daysPerTurn": 3}
    assert c["challenger"] == {"id": b["id"], "name": b["name"]}
    assert c["destUser"] == {"id": h["id"], "name": h["name"]}
    assert c["variant"]["key"] == variant
    assert lichess(human, "POST", "/api/challenge/{id}/accept", [c["id"]]) == {"ok": True}
    mine = api.call("GET", "/v1/challenges/{id}", [c["id"]], expect=200)[1]
    # The game takes the challenge's id, as on lichess.
    assert mine["status"] == "accepted" and mine["game_id"] == c["id"]
    g = lichess(bot, "GET", "/api/account/playing")["nowPlaying"]
    assert [(x["gameId"], x["color"], x["rated"]) for x in g] == \
        [(mine["game_id"], "white", True)]
    # Accepted once: not again.
    assert set(lichess(human, "POST", "/api/challenge/{id}/accept", [c["id"]],
                       expect=400)) == {"error"}

    # One declined with a form body and one of lichess's reasons.
    c = challenged(bot, human, h["name"], variant)
    assert c["timeControl"] == {"type": "unlimited"} and c["rated"] is False
    lichess(human, "POST", "/api/challenge/{id}/decline", [c["id"]],
            data={"reason": "notAReason"}, expect=400)
    # Only the challenged player declines; for another, there is no such challenge.
    assert set(lichess(bot, "POST", "/api/challenge/{id}/decline", [c["id"]],
                       data={"reason": "later"}, expect=404)) == {"error"}
    assert lichess(human, "POST", "/api/challenge/{id}/decline", [c["id"]],
                   data={"reason": "tooFast"}) == {"ok": True}
    assert api.call("GET", "/v1/challenges/{id}", [c["id"]], expect=200)[1]["status"] == \
        "declined"

    # berserk's JSON, then cancelled by the challenger.
    c = lichess(bot, "POST", "/api/challenge/{username}", [h["name"]],
                json={"variant": variant, "color": "black", "rated": False, "days": 7})
    assert (c["color"], c["timeControl"]["daysPerTurn"]) == ("black", 7)
    assert lichess(bot, "POST", "/api/challenge/{id}/cancel", [c["id"]]) == {"ok": True}
    assert api.call("GET", "/v1/challenges/{id}", [c["id"]], expect=200)[1]["status"] == \
        "cancelled"
    assert set(lichess(human, "POST", "/api/challenge/{id}/accept", [c["id"]],
                       expect=400)) == {"error"}

    # What korp cannot play, and whom there is not.
    for form in ({"clock.limit": "300", "clock.increment": "0"}, {"days": "15"},
                 {"variant": "standard"}, {"color": "green"}, {"rated": "maybe"}):
        assert set(lichess(bot, "POST", "/api/challenge/{username}", [h["name"]],
                           data={"variant": variant, **form}, expect=400)) == {"error"}
    assert lichess(bot, "POST", "/api/challenge/{username}", ["nobody_of_that_name"],
                   data={"variant": variant}, expect=404) == {"error": "No such user"}
    assert set(lichess(bot, "POST", "/api/challenge/{username}", [b["name"]],
                       data={"variant": variant}, expect=400)) == {"error"}


@pytest.mark.parametrize("variant", VARIANTS)
def test_chat_users_and_the_pgn_export(api, variant):
    bot, b = api.new_player("bot")
    human, h = api.new_player("human")
    lichess(bot, "POST", "/api/bot/account/upgrade")
    gid = started(bot, human, h["id"], variant)

    # lichess-bot greets both rooms with a form: the player room is korp's messages.
    assert lichess(bot, "POST", "/api/bot/game/{id}/chat", [gid],
                   data={"room": "player", "text": "Good luck & have fun"}) == {"ok": True}
    assert set(lichess(bot, "POST", "/api/bot/game/{id}/chat", [gid],
                       data={"room": "spectator", "text": "hi"}, expect=400)) == {"error"}
    lichess(bot, "POST", "/api/bot/game/{id}/chat", [gid],
            data={"room": "player", "text": "x" * 141}, expect=400)
    # berserk's JSON, through the Board API.
    assert lichess(human, "POST", "/api/board/game/{id}/chat", [gid],
                   json={"room": "player", "text": "Thanks, you too"}) == {"ok": True}
    lines = [{"text": "Good luck & have fun", "user": b["name"]},
             {"text": "Thanks, you too", "user": h["name"]}]
    assert lichess(bot, "GET", "/api/bot/game/{id}/chat", [gid]) == lines
    assert lichess(human, "GET", "/api/board/game/{id}/chat", [gid]) == lines
    stranger, _ = api.new_player("x")
    assert set(lichess(stranger, "GET", "/api/bot/game/{id}/chat", [gid],
                       expect=404)) == {"error"}
    # The messages are korp's: /v1/ shows the same.
    assert [m["text"] for m in human.call("GET", "/v1/games/{id}/messages", [gid],
                                          expect=200)[1]["messages"]] == \
        ["Good luck & have fun", "Thanks, you too"]

    # Users, public.
    anyone = Api(api.base)
    u = lichess(anyone, "GET", "/api/user/{username}", [b["name"].lower()])
    assert (u["id"], u["username"], u["title"]) == (b["id"], b["name"], "BOT")
    assert lichess(anyone, "GET", "/api/user/{username}", ["nobody_here"], expect=404) == \
        {"error": "No such user"}
    status = lichess(anyone, "GET", "/api/users/status",
                     query={"ids": f"{b['name']},nobody_here,{h['id']}"})
    assert status == [{"id": b["id"], "name": b["name"], "title": "BOT"},
                      {"id": h["id"], "name": h["name"]}]

    # The PGN export, after White's move and Black's resignation.
    lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", [gid, legal(api, gid)[0]])
    lichess(human, "POST", "/api/board/game/{id}/resign", [gid])
    r = requests.get(api.base + f"/game/export/{gid}", timeout=30)
    check(r, "GET", "/game/export/{id}")
    assert r.status_code == 200 and r.headers["Content-Type"].startswith(
        "application/x-chess-pgn")
    assert r.text == requests.get(api.base + f"/v1/games/{gid}/pgn", timeout=30).text
    assert f'[White "{b["name"]}"]' in r.text and f'[Black "{h["name"]}"]' in r.text
    assert '[Result "1-0"]' in r.text and r.text.rstrip().endswith("1-0")
    r = requests.get(api.base + "/game/export/aZ3kP9qwX2", timeout=30)
    assert r.status_code == 404 and check(r, "GET", "/game/export/{id}") == \
        {"error": "No such game"}


def test_now_playing_is_the_same_after_a_restart(start_korpd, shared_db_url):
    first = start_korpd(shared_db_url)
    api = Api(first.base)
    bot, _ = api.new_player("bot")
    human, h = api.new_player("human")
    gid = started(bot, human, h["id"], "glinski")
    lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", [gid, "f5f6"])
    before = lichess(bot, "GET", "/api/account/playing")
    assert [g["lastMove"] for g in before["nowPlaying"]] == ["f5f6"]
    first.close()
    again = start_korpd(shared_db_url)
    assert lichess(Api(again.base, bot.token), "GET", "/api/account/playing") == before


@pytest.mark.parametrize("variant", VARIANTS)
def test_the_event_and_game_streams(api, variant):
    bot, b = api.new_player("bot")
    human, h = api.new_player("human")
    lichess(bot, "POST", "/api/bot/account/upgrade")
    ev = NdStream(api.base, "/api/stream/event", bot.token)
    assert ev.response.status_code == 200
    assert ev.response.headers["Content-Type"] == "application/x-ndjson"
    assert ev.line() is None    # nothing open yet: an empty line

    # A challenge, declined: both hear of it, the challenger of the decline.
    c = challenged(bot, human, h["name"], variant)
    hv = NdStream(api.base, "/api/stream/event", human.token)
    assert hv.line() == {"type": "challenge", "challenge": c}   # open at connect
    line = ev.until(lambda o: o["type"] == "challenge")
    assert line["challenge"]["id"] == c["id"]
    lichess(human, "POST", "/api/challenge/{id}/decline", [c["id"]], data={"reason": "later"})
    line = ev.until(lambda o: o["type"] == "challengeDeclined")
    assert line["challenge"]["id"] == c["id"] and line["challenge"]["status"] == "declined"
    assert line["challenge"]["declineReasonKey"] == "later"
    assert line["challenge"]["declineReason"]
    # Declined through /v1/, without a reason: the generic one.
    c = challenged(bot, human, h["name"], variant)
    human.call("POST", "/v1/challenges/{id}/decline", [c["id"]], expect=200)
    line = ev.until(lambda o: o["type"] == "challengeDeclined" and
                    o["challenge"]["id"] == c["id"])
    assert line["challenge"]["declineReasonKey"] == "generic"
    # One cancelled.
    c = challenged(bot, human, h["name"], variant)
    lichess(bot, "POST", "/api/challenge/{id}/cancel", [c["id"]])
    assert hv.until(lambda o: o["type"] == "challengeCanceled")["challenge"]["id"] == c["id"]

    # One accepted: gameStart to both, and to a stream opened afterwards.
    # No time limit: the suites share korp's test clock, which others move on by days.
    c = challenged(bot, human, h["name"], variant)
    lichess(human, "POST", "/api/challenge/{id}/accept", [c["id"]])
    gid = c["id"]
    assert api.call("GET", "/v1/challenges/{id}", [c["id"]], expect=200)[1]["game_id"] == gid
    for s, color in ((ev, "white"), (hv, "black")):
        g = s.until(lambda o: o["type"] == "gameStart")["game"]
        assert (g["id"], g["gameId"], g["color"]) == (gid, gid, color)
    again = NdStream(api.base, "/api/stream/event", bot.token)
    assert again.until(lambda o: o["type"] == "gameStart")["game"]["gameId"] == gid
    again.close()

    # The game's streams, the Bot API's for the bot, the Board API's for the human.
    bs = NdStream(api.base, f"/api/bot/game/stream/{gid}", bot.token)
    hs = NdStream(api.base, f"/api/board/game/stream/{gid}", human.token)
    start = human.game(gid)
    for s in (bs, hs):
        full = s.line()
        assert (full["type"], full["id"], full["speed"]) == ("gameFull", gid, "correspondence")
        assert "daysPerTurn" not in full and "clock" not in full
        assert full["variant"]["key"] == variant
        assert (full["white"]["id"], full["white"]["title"]) == (b["id"], "BOT")
        assert (full["black"]["id"], full["black"]["name"]) == (h["id"], h["name"])
        assert full["initialFen"] == start["fen"]
        assert full["state"]["moves"] == "" and full["state"]["status"] == "started"
        created = datetime.strptime(start["created_at"], "%Y-%m-%dT%H:%M:%SZ")
        assert full["createdAt"] == created.replace(tzinfo=timezone.utc).timestamp() * 1000

    # White through /api/, Black through /v1/: each side's move in both streams.
    played = []
    for mover in ("bot", "human"):
        move = legal(api, gid)[0]
        if mover == "bot":
            lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", [gid, move])
        else:
            human.move(gid, move)
        played.append(move)
        for s in (bs, hs):
            st = s.until(lambda o: o["type"] == "gameState")
            assert st["moves"] == " ".join(played)
            assert (st["status"], st["wdraw"], st["bdraw"]) == ("started", False, False)
            # lichess's API gives a side without a clock 2^31 - 1 ms.
            assert st["wtime"] == st["btime"] == 2**31 - 1 and st["winc"] == st["binc"] == 0
    assert played == [m["uci"] for m in api.call("GET", "/v1/games/{id}/moves", [gid],
                                                 expect=200)[1]["moves"]]

    # The player room's chat: every line, the sender's own too.
    lichess(human, "POST", "/api/board/game/{id}/chat", [gid],
            data={"room": "player", "text": "well played"})
    for s in (bs, hs):
        assert s.until(lambda o: o["type"] == "chatLine") == \
            {"type": "chatLine", "room": "player", "username": h["name"], "text": "well played"}

    # The end: the last state, and gameFinish on the event streams.
    lichess(human, "POST", "/api/board/game/{id}/resign", [gid])
    for s in (bs, hs):
        st = s.until(lambda o: o["type"] == "gameState")
        assert (st["status"], st["winner"]) == ("resign", "white")
    for s in (ev, hv):
        g = s.until(lambda o: o["type"] == "gameFinish")["game"]
        assert (g["id"], g["gameId"], g["winner"]) == (gid, gid, "white")
    for s in (ev, hv, bs, hs):
        s.close()

    # Only the players stream a game.
    stranger, _ = api.new_player("x")
    r = requests.get(api.base + f"/api/bot/game/stream/{gid}",
                     headers={"Authorization": f"Bearer {stranger.token}"}, timeout=30)
    assert r.status_code == 404 and check(r, "GET", "/api/bot/game/stream/{id}") == \
        {"error": "No such game"}


def test_an_idle_stream_gets_empty_lines(api, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b["id"], "glinski")
    s = NdStream(api.base, f"/api/board/game/stream/{gid}", wa.token)
    assert s.line()["type"] == "gameFull"
    # lichess's clients take 7 s of silence as a sign of life: one comes within 10.
    assert s.line(timeout=10) is None
    s.close()


def test_a_bot_account_cannot_move_through_the_web_board(api):
    # A bot account with a password may sign in, but the web board's move form is not its.
    password = "correct horse battery"
    _, b = api.call("POST", "/v1/players", json={"name": f"webbot{time.time_ns() % 10**9}",
                                                 "password": password}, expect=201)
    bot = Api(api.base, b["token"])
    assert lichess(bot, "POST", "/api/bot/account/upgrade") == {"ok": True}
    human, h = api.new_player("human")
    gid = started(bot, human, h["id"], "glinski")
    web = requests.Session()
    signed = web.post(api.base + "/v1/session", json={"name": b["name"], "password": password},
                      timeout=30)
    assert signed.status_code == 200, signed.text
    r = web.post(api.base + f"/v1/games/{gid}/moves", json={"move": "f5f6", "ply": 0},
                 headers={"X-CSRF-Token": signed.json()["csrf_token"]}, timeout=30)
    assert r.status_code == 403
    assert check(r, "POST", "/v1/games/{id}/moves")["type"] == "/problems/forbidden"
    assert human.game(gid)["ply"] == 0
    # Its token still moves, through /v1/ as through the Bot API.
    bot.move(gid, "f5f6")
    human.move(gid, legal(api, gid)[0])
    assert lichess(bot, "POST", "/api/bot/game/{id}/move/{move}",
                   [gid, legal(api, gid)[0]]) == {"ok": True}


def test_the_lichess_routes_are_counted_in_the_metrics(start_korpd, shared_db_url):
    # The lichess routes sit far down the route table: each has its own counters.
    k = start_korpd(shared_db_url)
    bot, _ = Api(k.base).new_player("bot")
    for _ in range(3):
        lichess(bot, "GET", "/api/account")
    lichess(bot, "GET", "/api/user/{username}", ["nobody_here"], expect=404)
    text = requests.get(k.base + "/metrics", timeout=30).text
    assert 'korp_http_requests_total{method="GET",route="/api/account",status="200"} 3' in text
    assert 'korp_http_requests_total{method="GET",route="/api/user/{username}",status="404"} 1' \
        in text


def test_the_bots_online_are_those_with_a_stream_open(api):
    bot, b = api.new_player("bot")
    lichess(bot, "POST", "/api/bot/account/upgrade")
    person, p = api.new_player("person")

    def online():
        r = requests.get(api.base + "/api/bot/online", params={"nb": "300"}, timeout=30)
        check(r, "GET", "/api/bot/online")
        assert r.status_code == 200 and r.headers["Content-Type"] == "application/x-ndjson"
        return [json.loads(line) for line in r.text.splitlines()]

    assert b["id"] not in [u["id"] for u in online()]
    streams = [NdStream(api.base, "/api/stream/event", t) for t in (bot.token, person.token)]
    for s in streams:
        s.line()
    listed = online()
    assert {"id": b["id"], "username": b["name"], "title": "BOT"} in listed
    assert p["id"] not in [u["id"] for u in listed]    # not a bot account
    for s in streams:
        s.close()
    for nb in ("0", "301", "x"):
        assert set(lichess(Api(api.base), "GET", "/api/bot/online", query={"nb": nb},
                           expect=400)) == {"error"}


def test_a_bot_online_is_seen_by_every_korpd_of_the_database(start_korpd, shared_db_url):
    # Two korpd processes on one database: a bot's stream on one is seen by the other.
    here, there = start_korpd(shared_db_url), start_korpd(shared_db_url)
    bot, b = Api(here.base).new_player("bot")
    lichess(bot, "POST", "/api/bot/account/upgrade")

    def listed():
        r = requests.get(there.base + "/api/bot/online", params={"nb": "300"}, timeout=30)
        check(r, "GET", "/api/bot/online")
        return b["id"] in [json.loads(line)["id"] for line in r.text.splitlines()]

    def status():
        return lichess(Api(there.base), "GET", "/api/users/status", query={"ids": b["id"]})

    assert not listed() and status() == [{"id": b["id"], "name": b["name"], "title": "BOT"}]
    s = NdStream(here.base, "/api/stream/event", bot.token)
    assert s.line() is None
    assert listed()
    # lichess names "online" only when true.
    assert status() == [{"id": b["id"], "name": b["name"], "title": "BOT", "online": True}]
    s.close()
    # The closed stream clears its stamp (korpd sees the close at its next write at the
    # latest, the keep-alive within 7 s).
    wait_until(lambda: not listed(), 20, step=0.2, what="the bot to go offline")
    assert "online" not in status()[0]


FAILED_READS = "korp_event_stream_read_failures_total"


def test_a_line_the_database_cannot_make_yet_comes_once_it_can(own_postgres, start_korpd):
    # Each line of a bot's streams is made from the database when its event is read. When
    # that read fails, the line comes at the stream's next read: before, it was skipped
    # for good, and a bot waited for a gameStart or an opponent's move that never came.
    k = start_korpd(own_postgres.url, KORP_DB_TIMEOUT_MS=1000, KORP_EVENTS_BACKSTOP_MS=1000)
    api = Api(k.base)
    bot, b = api.new_player("bot")
    human, h = api.new_player("human")
    events = NdStream(k.base, "/api/stream/event", bot.token)
    assert events.line() is None
    failed = k.metric(FAILED_READS)
    # A game's start as lichess writes it names the opponent's ratings: their table is
    # locked while the game starts, so that the event's line cannot be made.
    lock = TableLock(own_postgres.url, "ratings")
    try:
        gid = human.new_game(bot, b["id"], variant="glinski", color="white")["id"]
        # The stream's read waits for the table, then gives up.
        wait_until(lambda: k.metric(FAILED_READS) > failed, 20, step=0.05,
                   what="the stream's read to give up")
    finally:
        lock.release()
    start = events.until(lambda o: o["type"] == "gameStart", timeout=20)
    assert start["game"]["gameId"] == gid and start["game"]["opponent"]["id"] == h["id"]

    # The same in one game's stream, for the human's move. The move locks the moves' table
    # itself, so it is made through a second korpd while the stream's is stopped, and the
    # table locked before the stream's korpd goes on and reads the move's event.
    game = NdStream(k.base, f"/api/bot/game/stream/{gid}", bot.token)
    assert game.until(lambda o: o["type"] == "gameFull")["state"]["moves"] == ""
    other = Api(start_korpd(own_postgres.url).base, human.token)
    move = legal(other, gid)[0]
    failed = k.metric(FAILED_READS)
    lock = None
    os.kill(k.proc.pid, signal.SIGSTOP)
    try:
        other.move(gid, move)
        lock = TableLock(own_postgres.url, "moves")
    finally:
        os.kill(k.proc.pid, signal.SIGCONT)
    try:
        # The stream's read waits for the table, then gives up.
        wait_until(lambda: k.metric(FAILED_READS) > failed, 20, step=0.05,
                   what="the stream's read to give up")
    finally:
        if lock is not None:
            lock.release()
    state = game.until(lambda o: o["type"] == "gameState", timeout=20)
    assert state["moves"] == move and state["status"] == "started"
    for s in (events, game):
        s.close()


def test_a_game_stream_tells_each_state_once(own_postgres, start_korpd):
    # A game stream's lines are the game as it stands when their events are read: two
    # events read together (here a copy of the human's move event, read with the bot's
    # move) would tell the same state twice. lichess tells a state when it changes.
    k = start_korpd(own_postgres.url)
    api = Api(k.base)
    bot, b = api.new_player("bot")
    human, h = api.new_player("human")
    gid = human.new_game(bot, b["id"], variant="glinski", color="white")["id"]
    game = NdStream(k.base, f"/api/bot/game/stream/{gid}", bot.token)
    assert game.until(lambda o: o["type"] == "gameFull")["state"]["moves"] == ""
    first = legal(human, gid)[0]
    human.move(gid, first)
    assert game.until(lambda o: o["type"] == "gameState")["moves"] == first
    subprocess.run(["psql", "-X", "-Atq", "-v", "ON_ERROR_STOP=1", own_postgres.url, "-c",
                    "INSERT INTO events (player_id, game_id, type, payload, created_at)"
                    " SELECT player_id, game_id, type, payload, created_at FROM events"
                    f" WHERE player_id = '{b['id']}' AND game_id = '{gid}' AND type = 'move'"
                    " ORDER BY id DESC LIMIT 1"], check=True, timeout=30)
    second = legal(bot, gid)[0]
    lichess(bot, "POST", "/api/bot/game/{id}/move/{move}", [gid, second])
    # A chat line after the move: what came before it is all the move brought.
    lichess(human, "POST", "/api/board/game/{id}/chat", [gid],
            data={"room": "player", "text": "next"})
    seen = []
    while not seen or seen[-1]["type"] != "chatLine":
        line = game.line(timeout=20)
        if line is not None:
            seen.append(line)
    assert [(o["type"], o.get("moves")) for o in seen] == \
        [("gameState", f"{first} {second}"), ("chatLine", None)], seen
    game.close()


def test_what_the_opening_told_is_not_told_again(own_postgres, start_korpd):
    # The event stream reads the last event's id, then its opening (the open challenges and
    # active games): an event committed between the two reads is in both. Such events are
    # made here by copying the rows of a challenge and a game start the opening told.
    k = start_korpd(own_postgres.url)
    api = Api(k.base)
    bot, b = api.new_player("bot")
    human, h = api.new_player("human")
    gid = human.new_game(bot, b["id"], variant="glinski")["id"]
    ch = human.call("POST", "/v1/challenges", json={"variant": "korpalski", "opponent": b["id"]},
                    expect=201)[1]["id"]
    events = NdStream(k.base, "/api/stream/event", bot.token)
    opening = [events.line(), events.line()]
    assert [(o["type"], o.get("challenge", o.get("game", {})).get("id")) for o in opening] == \
        [("challenge", ch), ("gameStart", gid)]
    subprocess.run(["psql", "-X", "-Atq", "-v", "ON_ERROR_STOP=1", own_postgres.url, "-c",
                    "INSERT INTO events (player_id, game_id, type, payload, created_at)"
                    " SELECT player_id, game_id, type, payload, created_at FROM events"
                    f" WHERE player_id = '{b['id']}' AND (payload->>'challenge_id' = '{ch}'"
                    f" AND type = 'challenge' OR type = 'game_start' AND game_id = '{gid}')"
                    " ORDER BY id"], check=True, timeout=30)
    # The next event read after them: the challenge cancelled. Nothing came before it.
    human.call("POST", "/v1/challenges/{id}/cancel", [ch], expect=200)
    later = []
    while not later or later[-1]["type"] != "challengeCanceled":
        line = events.line(timeout=20)
        if line is not None:
            later.append(line)
    assert [o["type"] for o in later] == ["challengeCanceled"]
    events.close()
