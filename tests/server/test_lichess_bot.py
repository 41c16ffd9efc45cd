"""lichess-bot's whole sequence of requests, in the order that program makes them, against
a real korpd, in both variants; then two bot processes of examples/lichess-bot (the shim
for python-chess-based bots, korp's engine behind UCI) play a whole game on korpd.

Every expectation about a shape comes from lichess's published API description (the
lichess-org/api repository, doc/specs/: the schema files named in the comments), or from
how lichess-bot (lichess-bot-devs/lichess-bot, lib/lichess.py) reads the answer; none is
copied from korpd's own output."""

import json
import os
import subprocess
import sys
import threading
import time
from pathlib import Path
from urllib.parse import urljoin

import pytest
import requests

from korp_client import Api
from korp_fixtures import wait_until
from test_lichess import NdStream

VARIANTS = ["korpalski", "glinski"]
EXAMPLE = Path(__file__).resolve().parents[2] / "examples" / "lichess-bot"

# Required properties and their types, from lichess's schemas (doc/specs/schemas/*.yaml).
# ChallengeJson.yaml: required id, url, status, challenger, destUser, variant, rated, speed,
# timeControl, color, perf (perf itself requires icon and name).
CHALLENGE = {"id": str, "url": str, "status": str, "challenger": dict, "destUser": dict,
             "variant": dict, "rated": bool, "speed": str, "timeControl": dict,
             "color": str, "perf": dict}
# GameEventInfo.yaml: the properties of gameStart's and gameFinish's `game` (none required
# there; lichess-bot reads id, and nowPlaying's fields are the same object).
GAME_INFO = {"id": str, "gameId": str, "fullId": str, "color": str, "fen": str,
             "lastMove": str, "source": str, "variant": dict, "speed": str, "perf": str,
             "rated": bool, "hasMoved": bool, "opponent": dict, "isMyTurn": bool,
             "status": dict}
# GameFullEvent.yaml: required type, id, variant, speed, perf, rated, createdAt, white,
# black, initialFen, state.
GAME_FULL = {"type": str, "id": str, "variant": dict, "speed": str, "perf": dict,
             "rated": bool, "createdAt": int, "white": dict, "black": dict,
             "initialFen": str, "state": dict}
# GameStateEvent.yaml: required type, moves, wtime, btime, winc, binc, status (integers).
GAME_STATE = {"type": str, "moves": str, "wtime": int, "btime": int, "winc": int,
              "binc": int, "status": str}
# ChatLineEvent.yaml: required type, room (player|spectator), username, text.
CHAT_LINE = {"type": str, "room": str, "username": str, "text": str}
# GameStatusName.yaml: the words of a game's status.
STATUS_NAMES = {"created", "started", "aborted", "mate", "resign", "stalemate", "timeout",
                "draw", "outoftime", "cheat", "noStart", "unknownFinish", "variantEnd"}
# ChallengeDeclinedJson.yaml: declineReasonKey's words.
DECLINE_KEYS = {"generic", "later", "tooFast", "tooSlow", "timeControl", "rated", "casual",
                "standard", "variant", "noBot", "onlyBot"}


def shaped(obj, schema, what):
    """Asserts obj has every required property of schema, each of its type; returns obj."""
    assert isinstance(obj, dict), f"{what}: {obj!r}"
    for key, kind in schema.items():
        assert key in obj, f"{what}: no {key!r} in {obj!r}"
        value = obj[key]
        if kind is int:     # JSON integers: bool is not one, a float with no fraction is
            assert not isinstance(value, bool) and float(value).is_integer(), \
                f"{what}: {key}={value!r} is not an integer"
        else:
            assert isinstance(value, kind), f"{what}: {key}={value!r} is not {kind.__name__}"
    return obj


class LichessBotClient:
    """Requests as lichess-bot's lib/lichess.py makes them: one session with the Bearer
    header and its User-Agent, URLs joined onto the configured base URL, POST bodies as
    it sends them (a token as text, forms for chat and decline), a 2 s timeout on calls
    and 15 s on streams."""

    def __init__(self, url, token):
        self.url, self.token = url, token
        self.session = requests.Session()
        self.session.headers.update({"Authorization": f"Bearer {token}",
                                     "User-Agent": "lichess-bot/korp-test user:?"})

    def get(self, path, **kw):
        return self.session.get(urljoin(self.url, path), timeout=kw.pop("timeout", 2), **kw)

    def post(self, path, **kw):
        return self.session.post(urljoin(self.url, path), timeout=2, **kw)

    def post_json(self, path, expect=200, **kw):
        """api_post: raises for a status >= 400, and reads the body as JSON."""
        r = self.post(path, **kw)
        assert r.status_code == expect, f"POST {path}: {r.status_code} {r.text}"
        return r.json()

    def stream(self, path):
        return NdStream.of(self.get(path, stream=True, timeout=15))


def of_type(kind):
    return lambda o: o.get("type") == kind


@pytest.mark.parametrize("variant", VARIANTS)
def test_lichess_bots_sequence_of_requests(korpd, variant):
    api = Api(korpd.base)
    bot_api, b = api.new_player("lbot")
    human, h = api.new_player("human")
    li = LichessBotClient(korpd.base + "/", bot_api.token)

    # 1. Lichess.__init__: the token test, the token as the body (no Content-Type); it
    #    reads body[token]["scopes"] and wants bot:play among them.
    r = li.post("/api/token/test", data=bot_api.token)
    assert r.status_code == 200 and r.headers["Content-Type"].startswith("application/json")
    info = r.json()[bot_api.token]
    assert "bot:play" in info["scopes"].split(",") and info["userId"] == b["id"]

    # 2. get_profile: username (and title, to decide on the upgrade).
    profile = li.get("/api/account").json()
    assert profile["username"] == b["name"] and profile.get("title") != "BOT"

    # 3. upgrade_to_bot_account, then the profile again shows the BOT title.
    assert li.post_json("/api/bot/account/upgrade") == {"ok": True}
    assert li.get("/api/account").json()["title"] == "BOT"

    # 4. get_ongoing_games: nowPlaying, empty.
    assert li.get("/api/account/playing").json() == {"nowPlaying": []}

    # 5. get_event_stream: ndjson, an empty line when nothing is open.
    events = li.stream("/api/stream/event")
    assert events.response.status_code == 200
    assert events.response.headers["Content-Type"] == "application/x-ndjson"
    assert events.line() is None

    # 6. A person challenges the bot (berserk's JSON, unlimited time); the event stream
    #    brings it; lichess-bot accepts it.
    ch = human.call("POST", "/api/challenge/{username}", [b["name"]],
                    json={"variant": variant, "color": "black", "rated": False},
                    expect=200)[1]
    line = events.until(of_type("challenge"))
    c = shaped(line["challenge"], CHALLENGE, "challenge")
    assert c["id"] == ch["id"] and c["status"] == "created"
    assert c["challenger"]["id"] == h["id"] and c["destUser"]["id"] == b["id"]
    assert c["variant"]["key"] == variant and {"icon", "name"} <= set(c["perf"])
    assert li.post_json(f"/api/challenge/{c['id']}/accept") == {"ok": True}

    # 7. gameStart: the game takes the challenge's id (lichess-bot matches the two).
    start = shaped(events.until(of_type("gameStart"))["game"], GAME_INFO, "gameStart")
    gid = start["id"]
    assert gid == start["gameId"] == c["id"] and start["color"] == "white"
    assert start["isMyTurn"] is True and start["status"]["name"] == "started"
    playing = li.get("/api/account/playing").json()["nowPlaying"]
    assert [shaped(g, {k: v for k, v in GAME_INFO.items() if k not in ("id", "status")},
                   "nowPlaying")["gameId"] for g in playing] == [gid]

    # 8. get_game_stream: gameFull first.
    game = li.stream(f"/api/bot/game/stream/{gid}")
    assert game.response.status_code == 200
    assert game.response.headers["Content-Type"] == "application/x-ndjson"
    full = shaped(game.line(), GAME_FULL, "gameFull")
    assert full["type"] == "gameFull" and full["id"] == gid
    assert full["white"]["id"] == b["id"] and full["white"]["title"] == "BOT"
    assert full["black"]["id"] == h["id"] and full["variant"]["key"] == variant
    state = shaped(full["state"], GAME_STATE, "gameFull.state")
    assert state["moves"] == "" and state["status"] == "started"

    # 9. The greeting: chat() posts a form to the player room; the line comes back on
    #    the game stream, the sender's own too (as lichess does).
    assert li.post_json(f"/api/bot/game/{gid}/chat",
                        data={"room": "player", "text": "Good luck!"}) == {"ok": True}
    chat = shaped(game.until(of_type("chatLine")), CHAT_LINE, "chatLine")
    assert (chat["room"], chat["username"], chat["text"]) == ("player", b["name"], "Good luck!")

    # 10. make_move: the move in the path, offeringDraw as a query word; then the person
    #     moves through /v1/; each move brings a gameState whose moves grow by one.
    played = []
    for turn in range(2):
        move = api.call("GET", "/v1/games/{id}/legal-moves", [gid],
                        expect=200)[1]["moves"][0]["uci"]
        if turn == 0:
            assert li.post_json(f"/api/bot/game/{gid}/move/{move}",
                                params={"offeringDraw": "false"}) == {"ok": True}
        else:
            human.move(gid, move)
        played.append(move)
        st = shaped(game.until(of_type("gameState")), GAME_STATE, "gameState")
        assert st["moves"].split(" ") == played and st["status"] == "started"
        assert st["status"] in STATUS_NAMES

    # 11. A move with a draw offer: the next gameState shows White's offer (wdraw).
    move = api.call("GET", "/v1/games/{id}/legal-moves", [gid], expect=200)[1]["moves"][0]
    assert li.post_json(f"/api/bot/game/{gid}/move/{move['uci']}",
                        params={"offeringDraw": "true"}) == {"ok": True}
    played.append(move["uci"])
    if variant == "glinski":
        # The move and then the offer: a gameState with White's offer (wdraw) follows.
        st = game.until(lambda o: o.get("type") == "gameState" and o["wdraw"])
        assert st["bdraw"] is False and st["moves"].split(" ") == played
    else:
        # Korpalski agrees draws only once both reserves are empty (docs/rules/
        # korpalski.md): the offer is dropped, the move stands.
        st = game.until(of_type("gameState"))
        assert st["wdraw"] is False and st["moves"].split(" ") == played
        assert human.game(gid)["draw_offer"] is None
    # An illegal move: lichess's 400 with {"error"}; lichess-bot's api_post raises on it.
    r = li.post(f"/api/bot/game/{gid}/move/a1a1", params={"offeringDraw": "false"})
    assert r.status_code == 400 and set(r.json()) == {"error"}

    # 12. Idle: an empty line within lichess-bot's 15 s read timeout.  Each event is told as
    # the game stands when it is read, so the move's own gameState may come after the
    # offer's, showing the same state: only such a repeat may come before the empty line.
    deadline = time.monotonic() + 10
    while (line := game.line(timeout=max(0.1, deadline - time.monotonic()))) is not None:
        assert line.get("type") == "gameState" and line["moves"].split(" ") == played, line

    # 13. resign: the last gameState (status resign, Black wins) and gameFinish.
    assert li.post_json(f"/api/bot/game/{gid}/resign") == {"ok": True}
    st = game.until(lambda o: o.get("type") == "gameState" and o["status"] != "started")
    assert (st["status"], st["winner"]) == ("resign", "black")
    finish = shaped(events.until(of_type("gameFinish"))["game"], GAME_INFO, "gameFinish")
    assert finish["id"] == gid and finish["winner"] == "black"
    assert finish["status"]["name"] == "resign"
    game.close()
    assert li.get("/api/account/playing").json() == {"nowPlaying": []}

    # 14. get_game_pgn: the text, from /game/export/{id}.
    r = li.get(f"/game/export/{gid}")
    assert r.status_code == 200 and '[Result "0-1"]' in r.text
    assert f'[White "{b["name"]}"]' in r.text

    # 15. decline_challenge: a form body written out ("reason=..."), with its
    #     Content-Type; the challenger's event stream hears why.
    theirs = LichessBotClient(korpd.base + "/", human.token).stream("/api/stream/event")
    ch = human.call("POST", "/api/challenge/{username}", [b["name"]],
                    data={"variant": variant}, expect=200)[1]
    assert events.until(of_type("challenge"))["challenge"]["id"] == ch["id"]
    r = li.post(f"/api/challenge/{ch['id']}/decline", data="reason=variant",
                headers={"Content-Type": "application/x-www-form-urlencoded"})
    assert r.status_code == 200 and r.json() == {"ok": True}
    declined = theirs.until(lambda o: o.get("type") == "challengeDeclined" and
                            o["challenge"]["id"] == ch["id"])["challenge"]
    shaped(declined, CHALLENGE, "challengeDeclined")
    assert declined["declineReasonKey"] == "variant" and declined["declineReasonKey"] in \
        DECLINE_KEYS and declined["declineReason"]

    # 16. abort: a game with no moves yet; its stream ends the game as aborted.
    ch = human.call("POST", "/api/challenge/{username}", [b["name"]],
                    data={"variant": variant, "color": "white"}, expect=200)[1]
    li.post_json(f"/api/challenge/{ch['id']}/accept")
    assert events.until(of_type("gameStart"))["game"]["id"] == ch["id"]
    game = li.stream(f"/api/bot/game/stream/{ch['id']}")
    assert game.line()["type"] == "gameFull"
    assert li.post_json(f"/api/bot/game/{ch['id']}/abort") == {"ok": True}
    assert game.until(of_type("gameState"))["status"] == "aborted"
    assert events.until(of_type("gameFinish"))["game"]["id"] == ch["id"]

    # 17. The calls of matchmaking: get_online_bots (ndjson of users), is_online
    #     (/api/users/status, reads "online"), get_public_data.
    r = li.get("/api/bot/online")
    assert r.status_code == 200 and r.headers["Content-Type"] == "application/x-ndjson"
    bots = [json.loads(x) for x in r.text.split("\n") if x]
    assert {"id": b["id"], "username": b["name"], "title": "BOT"} in bots
    status = li.get("/api/users/status", params={"ids": b["id"]}).json()
    assert status[0]["id"] == b["id"] and status[0].get("online") is True
    assert li.get(f"/api/user/{b['name']}").json()["title"] == "BOT"
    for s in (game, events, theirs):
        s.close()


# ---- Two bots of examples/lichess-bot play a whole game.

def start_lichess_bot(base, token, korp, *args):
    """examples/lichess-bot/bot.py with korp's engine over UCI; its log in a pipe."""
    cmd = [sys.executable, str(EXAMPLE / "bot.py"), "--url", base + "/", "--token", token,
           "--engine", f"{korp} uci", *args]
    proc = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
                            env={**os.environ, "PYTHONUNBUFFERED": "1"})
    lines = []
    threading.Thread(target=lambda: lines.extend(proc.stdout), daemon=True).start()
    proc.log = lines
    return proc


@pytest.mark.parametrize("variant", VARIANTS)
def test_two_engine_bots_play_a_whole_game_through_the_bot_api(korpd, korp_binary, variant):
    api = Api(korpd.base)
    strong, s = api.new_player("strong")
    weak, w = api.new_player("weak")
    # The stronger searches deeper; the weaker resigns when its move cap is reached,
    # so that the game ends (by mate or resignation) within the test's time.
    bots = [start_lichess_bot(korpd.base, strong.token, korp_binary, "--depth", "3",
                              "--games", "1"),
            start_lichess_bot(korpd.base, weak.token, korp_binary, "--depth", "1",
                              "--games", "1", "--max-plies", "120",
                              "--challenge", s["name"], "--variant", variant)]
    try:
        def ended():
            games = api.call("GET", "/v1/games", query={"player": s["id"]},
                             expect=200)[1]["games"]
            return games and games[0]["status"] != "active" and games[0]

        try:
            wait_until(lambda: ended(), 240, step=0.2, what=f"the {variant} game to end")
        except AssertionError as e:
            # The bots' last words, as they stand when the wait gives up.
            raise AssertionError(f"{e}; logs:\n" + "".join(bots[0].log[-40:]) + "\n---\n"
                                 + "".join(bots[1].log[-40:]) + "\n--- korpd:\n"
                                 + "\n".join(korpd.log_text().splitlines()[-40:])) from None
        g = api.game(ended()["id"])
        for p in bots:
            assert p.wait(60) == 0, "".join(p.log)
    finally:
        for p in bots:
            if p.poll() is None:
                p.kill()
                p.wait()
    assert g["variant"] == variant and g["white"]["id"] == w["id"]
    assert g["status"] == "finished" and g["termination"] in ("checkmate", "resignation")
    # The deeper search wins; every move was posted through the Bot API by a bot.
    assert g["result"] == "0-1", g
    log = "".join(bots[0].log) + "".join(bots[1].log)
    assert "gameStart" in log and "gameFinish" in log
    moves = api.call("GET", "/v1/games/{id}/moves", [g["id"]], expect=200)[1]["moves"]
    posted = [x for x in log.splitlines() if f" {g['id']} move " in x]
    assert len(posted) == len(moves) and len(moves) >= 2
