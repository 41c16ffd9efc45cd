"""Two korpd processes behind a real HAProxy (Debian's, on loopback), with
deploy/haproxy.cfg: a stream through the proxy sees moves made through either process;
killing a korpd loses no acknowledged move, and a client that reconnects with
Last-Event-ID misses nothing."""

import os
import shutil
import subprocess
import time

import pytest
import requests

from korp_client import Api
from korp_fixtures import free_port, stop_process, wait_until
from test_events import Stream

CONFIG = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "deploy",
                      "haproxy.cfg")


@pytest.fixture
def haproxy():
    binary = shutil.which("haproxy") or "/usr/sbin/haproxy"
    if not os.path.exists(binary):
        pytest.skip("haproxy (Debian package haproxy) is not installed")
    started = []

    def start(backend1, backend2):
        port = free_port()
        env = dict(os.environ, KORP_HAPROXY_BIND=f"127.0.0.1:{port}",
                   KORPD_1=backend1, KORPD_2=backend2)
        proc = subprocess.Popen([binary, "-db", "-f", CONFIG], env=env,
                                stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        started.append(proc)
        base = f"http://127.0.0.1:{port}"

        def up():
            assert proc.poll() is None, "haproxy exited"
            try:
                return requests.get(base + "/healthz", timeout=2).status_code == 200
            except requests.RequestException:
                return False
        wait_until(up, 20, what="haproxy to answer")
        return base

    yield start
    for proc in started:
        stop_process(proc)


def test_two_korpd_behind_haproxy(shared_db_url, start_korpd, haproxy):
    k1 = start_korpd(shared_db_url)
    k2 = start_korpd(shared_db_url)
    base = haproxy(f"127.0.0.1:{k1.port}", f"127.0.0.1:{k2.port}")
    front = Api(base)
    wa, _ = front.new_player("ha")
    ba, b = front.new_player("hb")
    gid = wa.new_game(ba, b["id"])["id"]

    # Black follows its games through the proxy; moves go to each korpd directly.
    s = Stream(base, token=ba.token)
    assert s.status() == 200
    via = [Api(k1.base, wa.token), Api(k2.base, ba.token), Api(k2.base, wa.token),
           Api(k1.base, ba.token)]
    plies = ["K@e1", "K@e8", "N@c3", "N@f6"]
    for api, move in zip(via, plies):
        api.move(gid, move)
    seen = s.events(4)
    assert [e["data"]["san"] for e in seen] == plies

    # One korpd dies (SIGKILL). Moves go on through the proxy; the client reconnects
    # through it with Last-Event-ID and gets every acknowledged move, once each.
    k1.proc.kill()
    k1.proc.wait(timeout=10)
    acknowledged = []
    more = [(wa, "Nb1"), (ba, "Ng8"), (wa, "Nc3"), (ba, "Nf6")]
    for player, move in more:
        # A client retries a move whose answer it did not get; the Idempotency-Key makes
        # the retry return the first answer if the first attempt was played after all.
        key = f"scaleout-{gid}-{len(acknowledged)}"
        for _ in range(20):        # bounded: the proxy may need a moment to drop korpd1
            try:
                status, body = player.call("POST", "/v1/games/{id}/moves", [gid],
                                           json={"move": move, "ply": 4 + len(acknowledged)},
                                           headers={"Idempotency-Key": key})
            except requests.ConnectionError:
                status, body = None, None   # the proxy dropped the connection: retry
            if status == 201:
                acknowledged.append(move)
                break
            assert status in (None, 502, 503), body
            time.sleep(0.25)
    assert acknowledged == [m for _, m in more]
    s.close()
    again = Stream(base, token=ba.token, last_event_id=seen[-1]["id"])
    assert again.status() == 200
    rest = again.events(4, timeout=15)
    assert [e["data"]["san"] for e in rest] == acknowledged
    assert [e["data"]["ply"] for e in rest] == [5, 6, 7, 8]
    assert again.quiet(0.5) == []
    again.close()
    game = Api(k2.base).game(gid)
    assert game["ply"] == 8 and game["moves"] == plies + acknowledged
