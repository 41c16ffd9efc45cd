#!/usr/bin/env python3
"""A bot written for lichess's Bot API, playing on korp: it makes the requests lichess-bot
makes, in its order (token test, profile, upgrade, event stream, accept or decline
challenges, one game stream per game, moves, chat, resign), and chooses its moves with a
UCI engine through korp_shim (the engine keeps the board; korp sends the moves).

    python3 bot.py --url http://127.0.0.1:8080/ --token korp_... --engine "korp uci"

Standard library only.  It logs one line per thing it does, on standard output."""

import argparse
import json
import queue
import sys
import threading
import time
import urllib.error
import urllib.parse
import urllib.request

from korp_shim import UciEngine, VariantBoard

VARIANTS = ("korpalski", "glinski")
# How often in a row a game's stream is opened, and a call sent, before the bot gives up.
STREAM_TRIES = 10
SEND_TRIES = 3


def log(text):
    print(f"{time.strftime('%H:%M:%S')} {text}", flush=True)


class Lichess:
    """lichess's Bot API at a base URL (korpd's), with a Bearer token."""

    def __init__(self, url, token):
        self.url, self.token = url, token

    def _request(self, method, path, body=None, ctype=None, query=None, timeout=10):
        url = urllib.parse.urljoin(self.url, path)
        if query:
            url += "?" + urllib.parse.urlencode(query)
        req = urllib.request.Request(url, data=body, method=method)
        req.add_header("Authorization", f"Bearer {self.token}")
        req.add_header("User-Agent", "korp-lichess-bot-example")
        if ctype:
            req.add_header("Content-Type", ctype)
        return urllib.request.urlopen(req, timeout=timeout)

    def call(self, method, path, form=None, payload=None, text=None, query=None):
        """A JSON answer; raises urllib.error.HTTPError for a status >= 400."""
        body, ctype = None, None
        if form is not None:
            body, ctype = urllib.parse.urlencode(form).encode(), \
                "application/x-www-form-urlencoded"
        elif payload is not None:
            body, ctype = json.dumps(payload).encode(), "application/json"
        elif text is not None:
            body = text.encode()
        elif method == "POST":
            body = b""
        with self._request(method, path, body, ctype, query) as r:
            return json.loads(r.read() or b"null")

    def stream(self, path, into):
        """Reads an ndjson stream on a thread: each object into the queue (None at its
        end).  Empty lines are keep-alives; the read times out after 15 s of nothing, as
        lichess-bot's does."""
        def read():
            try:
                with self._request("GET", path, timeout=15) as r:
                    for raw in r:
                        if raw.strip():
                            into.put(json.loads(raw))
            except (OSError, ValueError) as e:
                log(f"stream {path}: {e}")
            into.put(None)
        threading.Thread(target=read, daemon=True).start()


class Game(threading.Thread):
    """One game: its stream, the engine's moves on our turns."""

    def __init__(self, li, me, game_id, args):
        super().__init__(daemon=True)
        self.li, self.me, self.id, self.args = li, me, game_id, args

    def run(self):
        engine = None
        failures = 0
        try:
            # A stream that ends while the game goes on (korpd restarted, the connection
            # lost) is opened again: it starts with the game as it stands.
            while failures < STREAM_TRIES:
                lines = queue.Queue()
                self.li.stream(f"/api/bot/game/stream/{self.id}", lines)
                full = lines.get()
                if full is None or full.get("type") != "gameFull":
                    failures += 1
                    time.sleep(min(failures, 5))
                    continue
                failures = 0
                white = full["white"].get("id") == self.me
                variant = full["variant"]["key"]
                if engine is None:
                    log(f"game {self.id}: gameFull, {variant}, "
                        f"playing {'white' if white else 'black'}")
                    engine = UciEngine(self.args.engine, variant)
                    self.send("chat", f"/api/bot/game/{self.id}/chat",
                              form={"room": "player", "text": "Good luck!"})
                state = full["state"]
                while state is not None:
                    if state.get("type") == "gameState":
                        if state["status"] != "started":
                            log(f"game {self.id}: over, {state['status']}, "
                                f"winner {state.get('winner', 'none')}")
                            return
                        self.turn(engine, full["initialFen"], variant, state["moves"], white)
                    state = lines.get()
                log(f"game {self.id}: the stream ended; opening it again")
                time.sleep(1)
            log(f"game {self.id}: no stream after {STREAM_TRIES} tries")
        finally:
            if engine is not None:
                engine.quit()

    def send(self, what, path, **kw):
        """POSTs path, again after a pause when no answer came or korpd failed (5xx), at
        most SEND_TRIES times; whether it was done."""
        for attempt in range(1, SEND_TRIES + 1):
            try:
                self.li.call("POST", path, **kw)
                return True
            except urllib.error.HTTPError as e:
                log(f"game {self.id}: {what} refused: {e.code} {e.read()!r}")
                if e.code < 500:
                    return False
            except OSError as e:   # no answer: korpd restarting, the connection lost
                log(f"game {self.id}: {what} not sent: {e}")
            if attempt < SEND_TRIES:
                time.sleep(attempt)
        return False

    def turn(self, engine, initial_fen, variant, moves, white):
        board = VariantBoard.from_moves(initial_fen, moves, variant)
        if board.turn != white:
            return
        if self.args.max_plies and board.ply() >= self.args.max_plies:
            log(f"game {self.id}: resign at ply {board.ply()} (the cap)")
            self.send("resign", f"/api/bot/game/{self.id}/resign")
            return
        move = engine.play(board, depth=self.args.depth)
        if move is None:
            log(f"game {self.id}: the engine has no move at ply {board.ply()}")
            return
        # Sent again only when no answer came: a move korpd played already is refused
        # (not the bot's turn any more), never played twice.
        if self.send(f"move {move.uci()}", f"/api/bot/game/{self.id}/move/{move.uci()}",
                     query={"offeringDraw": "false"}):
            log(f"game {self.id} move {board.ply()} {move.uci()}")


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--url", required=True, help="korpd's address, e.g. http://127.0.0.1:8080/")
    p.add_argument("--token", required=True)
    p.add_argument("--engine", required=True, help='a UCI engine\'s command, e.g. "korp uci"')
    p.add_argument("--depth", type=int, default=3, help="the engine's search depth")
    p.add_argument("--games", type=int, default=0, help="stop after this many (0: never)")
    p.add_argument("--max-plies", type=int, default=0, help="resign at this ply (0: never)")
    p.add_argument("--challenge", help="challenge this user (as White) at start")
    p.add_argument("--variant", default="korpalski", choices=VARIANTS)
    args = p.parse_args()

    li = Lichess(args.url, args.token)
    info = li.call("POST", "/api/token/test", text=args.token).get(args.token)
    if not info or "bot:play" not in info["scopes"].split(","):
        sys.exit("the token is not known, or may not play as a bot")
    profile = li.call("GET", "/api/account")
    me = profile["id"]
    if profile.get("title") != "BOT":
        li.call("POST", "/api/bot/account/upgrade")
        log(f"{profile['username']}: upgraded to a bot account")
    log(f"{profile['username']}: {len(li.call('GET', '/api/account/playing')['nowPlaying'])} "
        "games in play")

    events = queue.Queue()
    li.stream("/api/stream/event", events)
    if args.challenge:
        c = li.call("POST", f"/api/challenge/{args.challenge}",
                    payload={"variant": args.variant, "color": "white", "rated": False})
        log(f"challenge {c['id']} sent to {args.challenge}")
    finished, playing = 0, {}
    while not args.games or finished < args.games:
        event = events.get()
        if event is None:
            sys.exit("the event stream ended")
        kind = event["type"]
        if kind == "challenge":
            c = event["challenge"]
            if c["challenger"]["id"] == me:
                continue
            # A challenge cancelled meanwhile (or accepted elsewhere) is refused: skip it.
            try:
                if c["variant"]["key"] in VARIANTS:
                    li.call("POST", f"/api/challenge/{c['id']}/accept")
                    log(f"challenge {c['id']}: accepted")
                else:
                    li.call("POST", f"/api/challenge/{c['id']}/decline",
                            form={"reason": "variant"})
                    log(f"challenge {c['id']}: declined")
            except urllib.error.HTTPError as e:
                log(f"challenge {c['id']}: {e.code} {e.read()!r}")
        elif kind == "gameStart" and event["game"]["id"] not in playing:
            log(f"gameStart {event['game']['id']}")
            playing[event["game"]["id"]] = Game(li, me, event["game"]["id"], args)
            playing[event["game"]["id"]].start()
        elif kind == "gameFinish":
            finished += 1
            log(f"gameFinish {event['game']['id']}: winner "
                f"{event['game'].get('winner', 'none')}")
    for game in playing.values():
        game.join(timeout=30)


if __name__ == "__main__":
    main()
