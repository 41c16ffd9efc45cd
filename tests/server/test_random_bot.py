"""The example bot (examples/random-bot) against a real korpd: two bot processes play
each other in both variants until every game ends by the rules or by resignation at the
move cap, and `korp replay` (the rules library outside korpd) checks every move of every
record.  Then the same while connections are cut under the bots and korpd is killed and
restarted (they resume with Last-Event-ID), and under a rate limit (429 and Retry-After);
and against a stand-in korpd whose event stream the test writes byte for byte.

Every bot runs with --seed (SEEDS below), and every random choice of the test itself
comes from a seeded random.Random: a failure can be run again with the same choices.
No check depends on how a random game goes: where a test needs a game that is still
going on, it plays one side of that game itself."""

import json
import os
import random
import signal
import socket
import subprocess
import tempfile
import threading
import time

import pytest
import requests

from korp_client import Api
from korp_fixtures import bind_free, free_port, made_by, stop_process, wait_until

RULE_ENDS = {"checkmate", "stalemate", "insufficient-material", "threefold", "fifty-move"}
# The bots' --seed, one per role, so that no two bots draw the same numbers.
SEEDS = {"white": 1601, "black": 1602, "lone": 1603}
# Random Korpalski games seldom mate: a cap keeps them short, and the bot resigns at it.
MAX_PLIES = 160


class Bot:
    """One random-bot process, its stderr in a file; stopped by PID."""

    def __init__(self, binary, base, token, *args, seed):
        self.log = tempfile.NamedTemporaryFile(prefix="random-bot-", suffix=".log",
                                               delete=False)
        env = dict(os.environ, KORP_TOKEN=token)
        env.pop("KORP_URL", None)
        self.proc = subprocess.Popen([binary, base, "--seed", str(seed), *args], env=env, stdin=subprocess.DEVNULL,
                                     stdout=subprocess.DEVNULL, stderr=self.log)

    def text(self):
        with open(self.log.name, errors="replace") as f:
            return f.read()

    def count(self, words):
        """How many lines of the log hold words."""
        return sum(words in line for line in self.text().splitlines())

    def wait(self, timeout):
        """The exit status; AssertionError (with the log's end) if it takes longer."""
        try:
            return self.proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            tail = "\n".join(self.text().splitlines()[-30:])
            raise AssertionError(f"random-bot {self.proc.pid} still running after "
                                 f"{timeout} s; its log ends:\n{tail}") from None

    def stop(self):
        if self.proc.poll() is None:
            stop_process(self.proc)
        self.log.close()
        os.unlink(self.log.name)


@pytest.fixture
def start_bot(bot_binary):
    """start(base, token, *args, seed): a bot on base with token; every bot a
    test starts has a --seed."""
    def start(base, token, *args, seed):
        return Bot(bot_binary, base, token, *args, seed=seed)

    yield from made_by(start, stop="stop")


class Proxy:
    """A TCP relay on a loopback port of its own to the korpd of the moment: the bots
    keep one URL while the test cuts every connection or puts another korpd behind it."""

    def __init__(self, target_port):
        self.target = target_port
        self.lock = threading.Lock()
        self.sockets = []
        self.cuts = 0
        self.listener = socket.socket()
        self.listener.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        port = bind_free(self.listener)
        self.listener.listen(64)
        self.base = f"http://127.0.0.1:{port}"
        threading.Thread(target=self._accept, daemon=True).start()

    def _accept(self):
        while True:
            try:
                client, _ = self.listener.accept()
            except OSError:
                return
            try:
                upstream = socket.create_connection(("127.0.0.1", self.target), timeout=5)
                upstream.settimeout(None)
            except OSError:
                client.close()          # no korpd behind: the client sees the door shut
                continue
            with self.lock:
                self.sockets += [client, upstream]
            for a, b in ((client, upstream), (upstream, client)):
                threading.Thread(target=self._pipe, args=(a, b), daemon=True).start()

    @staticmethod
    def _shut(s):
        try:
            s.shutdown(socket.SHUT_RDWR)
        except OSError:
            pass

    def _pipe(self, src, dst):
        try:
            while True:
                data = src.recv(65536)
                if not data:
                    break
                dst.sendall(data)
        except OSError:
            pass
        finally:
            self._shut(src)
            self._shut(dst)
            with self.lock:
                for s in (src, dst):
                    if s in self.sockets:
                        self.sockets.remove(s)
                        s.close()

    def cut(self):
        """Drops every open connection, as a failing network or load balancer would."""
        with self.lock:
            live = list(self.sockets)
            self.cuts += 1
        for s in live:
            self._shut(s)

    def close(self):
        self._shut(self.listener)
        self.listener.close()
        self.cut()


@pytest.fixture
def proxy():
    yield from made_by(Proxy)


def replay(korp, command, pgn):
    out = subprocess.run([korp, command], input=pgn, capture_output=True, text=True,
                         timeout=30)
    assert out.returncode == 0, f"korp {command}: {out.stderr}\n{pgn}"
    return out.stdout


def check_game(api, korp, gid, max_plies):
    """The game is over, by the rules or by resignation at the cap, and `korp replay`
    accepts every move of its record, reaching korpd's position at every ply.
    Returns the termination."""
    g = api.game(gid)
    assert g["status"] == "finished", g
    term = g["termination"]
    pgn = api.call("GET", "/v1/games/{id}/pgn", [gid], expect=200)[1]
    moves = api.call("GET", "/v1/games/{id}/moves", [gid], expect=200)[1]["moves"]
    lines = replay(korp, "replay", pgn).splitlines()
    plies = [line.split(" ", 2) for line in lines[:-1]]
    assert len(plies) == g["ply"] == len(moves)
    assert [p[1] for p in plies] == g["moves"]
    assert [p[2] for p in plies] == [m["fen"] for m in moves]
    verdict = lines[-1]
    if term in ("checkmate", "stalemate", "insufficient-material"):
        # The final position ends the game by itself, with the same result.
        assert verdict == f"result {g['result']} {term}", (verdict, g)
    else:
        assert verdict == "result * ongoing", (verdict, g)
        if term == "resignation":
            # Only at the cap, by the side to move there.
            assert g["ply"] == max_plies, g
            assert g["result"] == ("0-1" if g["to_move"] == "white" else "1-0"), g
        else:
            assert term in ("threefold", "fifty-move"), g
            assert g["result"] == "1/2-1/2", g
            facts = json.loads(replay(korp, "analyse", pgn))
            assert facts["threefold_claimable" if term == "threefold"
                         else "fifty_move_claimable"], (facts, g)
    return term


def challenge(api, opponent_id, variant, color):
    return api.call("POST", "/v1/challenges",
                    json={"variant": variant, "opponent": opponent_id, "color": color},
                    expect=201)[1]["id"]


def challenge_after(api, previous, opponent_id, variant, color):
    """A challenge once the previous one to the same opponent is accepted (one open
    challenge per pair at a time)."""
    wait_until(lambda: api.call("GET", "/v1/challenges/{id}", [previous],
                                expect=200)[1]["status"] == "accepted",
               60, what=f"challenge {previous} to be accepted")
    return challenge(api, opponent_id, variant, color)


def games_of(api, player_id):
    _, page = api.call("GET", "/v1/games", query={"player": player_id, "limit": 100},
                       expect=200)
    return page["games"]


def test_two_bots_play_both_variants_to_a_lawful_end(korpd, korp_binary, start_bot):
    api = Api(korpd.base)
    wa, w = api.new_player("rbw")
    ba, b = api.new_player("rbb")

    # Before the bots start: a game in progress (Black to move) and an open challenge.
    started = wa.new_game(ba, b["id"], variant="korpalski", color="white")
    wa.move(started["id"], "K@e1", ply=0)
    pending = challenge(wa, b["id"], "glinski", "black")

    args = ("--max-plies", str(MAX_PLIES), "--games", "4")
    bot_w = start_bot(korpd.base, wa.token, *args, seed=SEEDS["white"])
    bot_b = start_bot(korpd.base, ba.token, *args, seed=SEEDS["black"])
    # The bots hear of these from their streams.
    wait_until(lambda: "stream: open" in bot_b.text(), 20, what="bot b's stream")
    later = [challenge_after(wa, pending, b["id"], "korpalski", "black")]
    later.append(challenge_after(wa, later[0], b["id"], "glinski", "white"))

    assert bot_w.wait(60) == 0, bot_w.text()
    assert bot_b.wait(60) == 0, bot_b.text()

    games = games_of(api, w["id"])
    assert len(games) == 4
    assert sorted((g["variant"], g["white"]["id"] == w["id"]) for g in games) == [
        ("glinski", False), ("glinski", True), ("korpalski", False), ("korpalski", True)]
    for g in games:
        check_game(api, korp_binary, g["id"], MAX_PLIES)
    log_b = bot_b.text()
    for cid in [pending] + later:
        assert f"accept challenge {cid}: game" in log_b, log_b
    # One line per action: every move of each bot is in its log.
    for bot, side in ((bot_w, w), (bot_b, b)):
        text = bot.text()
        for g in games:
            mine = 0 if g["white"]["id"] == side["id"] else 1
            sans = [san for i, san in enumerate(g["moves"]) if i % 2 == mine]
            if g["id"] == started["id"] and mine == 0:
                sans = sans[1:]         # the test played White's first move itself
            logged = [line.split(": ", 2)[2].split(" (")[0] for line in text.splitlines()
                      if f"random-bot: move {g['id']} ply " in line]
            assert logged == sans, (g["id"], logged, sans)


def legal_moves(api, gid):
    return api.call("GET", "/v1/games/{id}/legal-moves", [gid], expect=200)[1]["moves"]


def play_quiet_move(api, gid, ply, rng):
    """The test's own move in a Korpalski game: its king at ply 0, else a pawn drop
    (a drop never gives check, so it cannot end the game).  Returns its SAN."""
    moves = [m for m in legal_moves(api, gid)
             if m["uci"].startswith("K@" if ply == 0 else "P@")]
    assert moves, (gid, ply)
    chosen = rng.choice(sorted(moves, key=lambda m: m["uci"]))
    api.move(gid, chosen["uci"], ply=ply)
    return chosen["san"]


def test_bots_survive_cut_connections_and_a_korpd_restart(shared_db_url, start_korpd,
                                                          korp_binary, start_bot, proxy):
    """Two bots play each other in both variants, and bot b also plays White's moves
    of a third game against the test, which makes a quiet move only when the test says.
    That game is certainly going on at every cut and at the restart (it is the test's
    turn: the bot can do nothing in it), so the test knows each time that the bot has to
    resume to answer, whatever the random games have done meanwhile."""
    cap = 400
    rng = random.Random(1604)
    k1 = start_korpd(shared_db_url)
    front = proxy(k1.port)
    api = Api(front.base)
    wa, w = api.new_player("rrw")
    ba, b = api.new_player("rrb")
    ha, h = api.new_player("rrh")

    # The test's game with bot b (the test plays White), the bot to answer K@..
    held = ha.new_game(ba, b["id"], variant="korpalski", color="white")["id"]
    mine = [play_quiet_move(ha, held, 0, rng)]

    bot_w = start_bot(front.base, wa.token, "--max-plies", str(cap), "--games", "2",
                      "--max-backoff", "2", seed=SEEDS["white"])
    bot_b = start_bot(front.base, ba.token, "--max-plies", str(cap), "--games", "3",
                      "--max-backoff", "2", seed=SEEDS["black"])
    bots = (bot_w, bot_b)
    wait_until(lambda: all(bot.count("stream: open") for bot in bots), 20,
               what="the bots' streams")
    ids = [challenge(wa, b["id"], "korpalski", "white")]
    ids.append(challenge_after(wa, ids[0], b["id"], "glinski", "black"))

    # The test watches korpd directly, not through the proxy it cuts.
    def games(k):
        return games_of(Api(k.base), b["id"])

    def random_games(k):
        return [g for g in games(k) if g["id"] != held]

    def held_ply(k):
        return Api(k.base).game(held)["ply"]

    def total_ply(k):
        return sum(g["ply"] for g in random_games(k))

    def wait_for_answer(k, ply, what):
        wait_until(lambda: held_ply(k) == ply + 1, 30, step=0.02,
                   what=f"bot b's answer at ply {ply + 1} {what}")

    wait_for_answer(k1, 1, "at the start")
    wait_until(lambda: len(random_games(k1)) == 2 and
               all(g["ply"] >= 10 or g["status"] != "active" for g in random_games(k1)),
               20, step=0.01, what="both random games to get going")

    # The network fails the bots a few times: every connection cut at once, streams and
    # calls in flight alike.  Each time, both bots come back with Last-Event-ID.
    for _ in range(2):
        resumed = [bot.count("stream: open (resuming)") for bot in bots]
        front.cut()
        wait_until(lambda: all(bot.count("stream: open (resuming)") > n
                               for bot, n in zip(bots, resumed)),
                   20, step=0.02, what="both bots to resume their streams after a cut")
    mine.append(play_quiet_move(Api(k1.base, ha.token), held, 2, rng))
    wait_for_answer(k1, 3, "after the cuts")
    mark = total_ply(k1)
    wait_until(lambda: total_ply(k1) >= mark + 10 or
               all(g["status"] != "active" for g in random_games(k1)),
               20, step=0.01, what="the random games to go on after the cuts")

    # korpd dies (SIGKILL: no goodbye) and another takes its place on the same database.
    # The proxy still points at the dead one until the test has looked at the games and
    # made its move: what the bots do next, they do through the new korpd, and the move
    # happened while they were away, so only Last-Event-ID (or the catch-up) brings it.
    resumed = [bot.count("stream: open (resuming)") for bot in bots]
    k1.kill9()
    k2 = start_korpd(shared_db_url, port=free_port(avoid={k1.port}))
    before = games(k2)
    assert any(g["status"] == "active" for g in before), before     # the held game at least
    assert next(g for g in before if g["id"] == held)["ply"] == 4, before
    mine.append(play_quiet_move(Api(k2.base, ha.token), held, 4, rng))
    front.target = k2.port
    wait_for_answer(k2, 5, "after the restart")
    wait_until(lambda: all(bot.count("stream: open (resuming)") > n
                           for bot, n in zip(bots, resumed)),
               20, step=0.02, what="both bots to resume their streams on the new korpd")

    # The test's game ends as the test decides: it resigns.
    Api(k2.base, ha.token).call("POST", "/v1/games/{id}/resign", [held], expect=200)
    assert bot_w.wait(60) == 0, bot_w.text()
    assert bot_b.wait(60) == 0, bot_b.text()
    after = games(k2)
    assert len(after) == 3
    for g in after:
        if g["id"] != held:
            check_game(Api(k2.base), korp_binary, g["id"], cap)
    # Each game that was going on when korpd died went on after it, through the new
    # korpd (the bots could not reach it before the snapshot): a move, or an end that
    # plays none (a claimed draw, a resignation).
    for g in before:
        if g["status"] == "active":
            a = next(a for a in after if a["id"] == g["id"])
            assert a["ply"] > g["ply"] or a["termination"] in (
                "resignation", "threefold", "fifty-move"), (g, a)
    # The held game: the test's three moves and the bot's three answers, each once.
    g = Api(k2.base).game(held)
    assert (g["status"], g["termination"], g["result"], g["ply"]) == (
        "finished", "resignation", "0-1", 6), g
    assert g["moves"][0::2] == mine, (g["moves"], mine)
    log_b = bot_b.text()
    for ply, san in ((2, g["moves"][1]), (4, g["moves"][3]), (6, g["moves"][5])):
        assert log_b.count(f"random-bot: move {held} ply {ply}: {san} (") == 1, log_b
    assert log_b.count(f"random-bot: move {held} ply ") == 3, log_b
    pgn = Api(k2.base).call("GET", "/v1/games/{id}/pgn", [held], expect=200)[1]
    assert len(replay(korp_binary, "replay", pgn).splitlines()) == 6 + 1
    for bot in bots:
        text = bot.text()
        resumed = text.count(f"stream: connecting to {front.base}/v1/events with Last-Event-ID")
        assert resumed >= 3, text
    assert all(f"accept challenge {cid}: game" in log_b for cid in ids)


def test_bot_waits_out_the_rate_limit(shared_db_url, start_korpd, korp_binary, start_bot):
    # Public routes (/analysis, /legal-moves) count against the address, shared here by
    # both bots and the test; moves count against each token.
    k = start_korpd(shared_db_url, KORP_RATE_LIMIT=20, KORP_RATE_BURST=10)
    api = Api(k.base)
    wa, w = api.new_player("rlw")
    ba, b = api.new_player("rlb")
    challenge(wa, b["id"], "korpalski", "white")
    args = ("--max-plies", "16", "--games", "1")
    bot_w = start_bot(k.base, wa.token, *args, seed=SEEDS["white"])
    bot_b = start_bot(k.base, ba.token, *args, seed=SEEDS["black"])
    # However slowly the bots run (a loaded machine, a sanitizer build), their buckets
    # (each token's and its player's) are kept empty by the test's own requests with
    # the same tokens until a bot has met a 429.
    drained = threading.Event()

    def drain():
        deadline = time.monotonic() + 60
        with requests.Session() as s:
            while time.monotonic() < deadline and \
                    "HTTP 429" not in bot_w.text() + bot_b.text():
                for token in (wa.token, ba.token):
                    s.get(f"{k.base}/v1/players/me", timeout=10,
                          headers={"Authorization": f"Bearer {token}"})
        drained.set()

    drainer = threading.Thread(target=drain, daemon=True)
    drainer.start()
    assert bot_w.wait(120) == 0, bot_w.text()
    assert bot_b.wait(120) == 0, bot_b.text()
    drainer.join(70)
    assert drained.is_set()
    both = bot_w.text() + bot_b.text()
    assert "HTTP 429; retry 1 in" in both and "(Retry-After)" in both, both
    # The checks go through a korpd of their own without a limit, on the same database:
    # the limited one's bucket for this address may still be empty.
    checker = Api(start_korpd(shared_db_url).base)
    (g,) = games_of(checker, w["id"])
    assert check_game(checker, korp_binary, g["id"], 16) in RULE_ENDS | {"resignation"}


class FakeKorpd:
    """Just enough of korpd for the bot to start, and an event stream the test writes
    byte for byte: CRLF line ends, a comment, data over two lines, then an event cut
    off half-way and silence.  Records the Last-Event-ID of each stream request."""

    FIRST = (b": keep-alive\r\n\r\n"
             b"id: 41\r\nevent: challenge\r\n"
             b"data: {\"challenge_id\": \"C000000001\", \"status\": \"open\",\r\n"
             b"data:  \"opponent\": \"Fake000001\", \"variant\": \"glinski\"}\r\n\r\n"
             b"id: 42\nevent: move\ndata: {\"ply\": ")

    def __init__(self):
        import http.server

        fake = self
        self.resumed_from = []
        self.stop = threading.Event()

        class Handler(http.server.BaseHTTPRequestHandler):
            def log_message(self, *args):
                pass

            def reply(self, status, body):
                data = json.dumps(body).encode()
                self.send_response(status)
                self.send_header("Content-Type", "application/json")
                self.send_header("Content-Length", str(len(data)))
                self.end_headers()
                self.wfile.write(data)

            def do_GET(self):
                if self.path == "/v1/players/me":
                    self.reply(200, {"id": "Fake000001", "name": "fake"})
                elif self.path == "/v1/challenges":
                    self.reply(200, {"incoming": [], "outgoing": []})
                elif self.path.startswith("/v1/games?"):
                    self.reply(200, {"games": [], "next": None})
                elif self.path == "/v1/events":
                    fake.resumed_from.append(self.headers.get("Last-Event-ID"))
                    self.send_response(200)
                    self.send_header("Content-Type", "text/event-stream")
                    self.end_headers()
                    if len(fake.resumed_from) == 1:
                        self.wfile.write(FakeKorpd.FIRST)
                    self.wfile.flush()
                    fake.stop.wait(20)      # then silence, until the test ends
                else:
                    self.reply(404, {"type": "/problems/not-found", "detail": "fake"})

            def do_POST(self):
                self.reply(409, {"type": "/problems/conflict", "detail": "fake conflict"})

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), Handler,
                                                      bind_and_activate=False)
        bind_free(self.server.socket)
        self.server.server_address = self.server.socket.getsockname()
        self.server.server_activate()
        self.server.daemon_threads = True
        self.base = f"http://127.0.0.1:{self.server.server_address[1]}"
        threading.Thread(target=self.server.serve_forever, daemon=True).start()

    def close(self):
        self.stop.set()
        self.server.shutdown()
        self.server.server_close()


def test_bot_parses_the_stream_and_resumes_a_silent_one(start_bot):
    fake = FakeKorpd()
    try:
        bot = start_bot(fake.base, "korp_" + "x" * 32, "--idle-timeout", "1",
                        "--max-backoff", "1", seed=SEEDS["lone"])
        wait_until(lambda: len(fake.resumed_from) >= 2, 15, what="the bot to reconnect")
        text = bot.text()
        # The multi-line CRLF event came through whole and was acted on.
        assert "accept challenge C000000001: HTTP 409: fake conflict" in text, text
        # Silence counts as a dead connection; the next request resumes after the last
        # complete event (41), not the half-received one (42).
        assert "stream: nothing for 1 s; reconnecting" in text, text
        assert fake.resumed_from[:2] == [None, "41"], fake.resumed_from
        bot.proc.send_signal(signal.SIGTERM)
        assert bot.wait(10) == 0, bot.text()
        assert "stopping on a signal" in bot.text()
    finally:
        fake.close()
