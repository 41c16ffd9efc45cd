"""One player's dead webhook endpoint must not delay anyone else's
notifications.

Two players point their webhooks at a black hole (a loopback TCP server that accepts
connections and never answers) and play a game, so korpd owes it dozens of
deliveries, each of which can only end by korpd's webhook timeout (10 s, the
default).  Then an unrelated player is challenged: their webhook (to the Node
receiver of tests/server, which checks the Standard Webhooks signature) and their
email (postfix's smtp-sink) must both arrive within a few seconds.  Before the fix two
workers shared by email and webhooks sent one delivery at a time, 10 s each, oldest
first: the unrelated ones waited minutes.

The black hole also counts connections: in the first timeout period no more than the
per-endpoint budget (2) may be open to it at once.

Every process is the test's own, on loopback, stopped by its PID; every wait has a
deadline."""

import os
import socket
import sys
import threading
import time

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))

from korp_client import Api  # noqa: E402
from korp_fixtures import (Korpd, Postgres, SmtpSink, WebhookReceiver,  # noqa: E402
                           bind_free, ensure_node_modules)
from test_notify import (MAIL_FROM, new_game, play, player, register,  # noqa: E402
                         shuffle_game)

FAST = 5.0          # seconds: "within a few seconds"
TIMEOUT = 10        # korpd's webhook timeout (its default, set explicitly here)
PLIES = 24          # each a delivery to the black hole for both players


class BlackHole:
    """A loopback TCP server that accepts every connection and never answers; it
    records when each connection was accepted."""

    def __init__(self):
        self.sock = socket.socket()
        bind_free(self.sock)
        self.sock.listen(128)
        self.sock.settimeout(0.2)
        self.port = self.sock.getsockname()[1]
        self.accepted = []          # monotonic times
        self.conns = []
        self.stop = threading.Event()
        self.thread = threading.Thread(target=self._run, daemon=True)
        self.thread.start()

    def _run(self):
        while not self.stop.is_set():
            try:
                conn, _ = self.sock.accept()
            except socket.timeout:
                continue
            except OSError:
                return
            self.accepted.append(time.monotonic())
            self.conns.append(conn)     # held open, never read, never answered

    def url(self, path):
        return f"http://127.0.0.1:{self.port}{path}"

    def close(self):
        self.stop.set()
        self.thread.join(timeout=5)
        for c in self.conns:
            c.close()
        self.sock.close()


@pytest.fixture
def parts(korpd_binary):
    """A database of its own, smtp-sink, the receiver, a black hole and korpd."""
    ensure_node_modules()
    pg = Postgres()
    made = []
    try:
        url = pg.fresh_database("isolation")
        sink = SmtpSink()
        made.append(sink)
        receiver = WebhookReceiver()
        made.append(receiver)
        hole = BlackHole()
        made.append(hole)
        k = Korpd(korpd_binary, url,
                  KORP_WEBHOOK_ALLOW_PRIVATE=1, KORP_WEBHOOK_TIMEOUT_SECONDS=TIMEOUT,
                  KORP_SMTP_URL=sink.url, KORP_MAIL_FROM=MAIL_FROM)
        made.append(k)
        yield dict(korpd=k, sink=sink, receiver=receiver, hole=hole)
    finally:
        for part in reversed(made):
            part.close()
        pg.close()


def test_a_dead_endpoint_does_not_hold_others(parts):
    k, sink, receiver, hole = parts["korpd"], parts["sink"], parts["receiver"], parts["hole"]
    api = Api(k.base)

    # The flood: two players whose webhooks go to the black hole, and a game between
    # them (a delivery per move, for each).
    wa, a = player(api, "hole_a", email=False)
    ba, b = player(api, "hole_b", email=False)
    for pa in (wa, ba):
        pa.call("POST", "/v1/webhooks", json={"url": hole.url("/hook")}, expect=201)
    _, game = new_game(wa, ba, b)
    play(wa, ba, game["id"], shuffle_game(PLIES))
    deadline = time.monotonic() + 10
    while not hole.accepted and time.monotonic() < deadline:
        time.sleep(0.05)
    assert hole.accepted, "korpd never connected to the black hole"

    # The unrelated player: a webhook to a healthy receiver, and an email address.
    va, v = player(api, "victim")
    register(va, receiver, "/victim", events=["challenge"])
    ca, c = player(api, "challenger", email=False)
    started = time.monotonic()
    ch = ca.call("POST", "/v1/challenges",
                 json={"variant": "korpalski", "opponent": v["id"], "color": "white"},
                 expect=201)[1]

    hook_at = mail_at = None
    while time.monotonic() - started < FAST and (hook_at is None or mail_at is None):
        if hook_at is None and any(
                (r.get("json") or {}).get("data", {}).get("challenge_id") == ch["id"]
                for r in receiver.received("/victim")):
            hook_at = time.monotonic() - started
        if mail_at is None and sink.messages(to=v["email"]):
            mail_at = time.monotonic() - started
        time.sleep(0.05)
    owed = len(hole.accepted)
    assert hook_at is not None, (
        f"the victim's webhook did not arrive within {FAST} s while the black hole was "
        f"owed {2 * PLIES} deliveries")
    assert mail_at is not None, f"the victim's email did not arrive within {FAST} s"

    # The budget: within one timeout period after the first connection, at most two
    # connections to the black hole (the rest waited, not hung up on it too).
    first = hole.accepted[0]
    within = [t for t in hole.accepted if t - first < TIMEOUT - 1]
    assert 1 <= len(within) <= 2, (len(within), owed)
