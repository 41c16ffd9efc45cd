"""korpd against a PostgreSQL that restarts, goes away or hangs, and korpd's
own stop: what an operator meets.  Each test has a cluster of its own."""

import json
import select
import signal
import socket
import threading
import time

import requests

from korp_fixtures import wait_until


def health(k, timeout=30):
    return requests.get(k.base + "/healthz", timeout=timeout)


def _request_raw(k, path):
    """Sends a whole GET on a socket of its own (the answer is read later)."""
    s = socket.create_connection(("127.0.0.1", k.port), timeout=30)
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n".encode())
    return s


def _read_by_korpd(k, client):
    """Whether korpd has read everything the client sent: the receive queue of its
    side of the connection (in /proc/net/tcp) is empty."""
    mine = client.getsockname()[1]
    with open("/proc/net/tcp") as f:
        for line in f.readlines()[1:]:
            fields = line.split()
            local, remote, queues = fields[1], fields[2], fields[4]
            if int(local.split(":")[1], 16) == k.port and int(remote.split(":")[1], 16) == mine:
                return int(queues.split(":")[1], 16) == 0
    return False


def _answer(client):
    """The status and JSON body of the answer on a raw socket (read to its close)."""
    answer = b""
    while (chunk := client.recv(4096)):
        answer += chunk
    client.close()
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)


def test_postgres_restart_under_running_korpd(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_DB_POOL_SIZE=2)
    # Both pooled connections are opened and idle when the server restarts.
    replies = []
    threads = [threading.Thread(target=lambda: replies.append(health(k))) for _ in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert [r.status_code for r in replies] == [200] * 4
    own_postgres.restart()
    # korpd serves again without a restart of its own, from the first request.
    for _ in range(4):
        r = health(k)
        assert r.status_code == 200, r.text
        assert r.json()["database"]["reachable"] is True


def test_postgres_down_is_503_without_its_words(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_DB_TIMEOUT_MS=1000)
    own_postgres.stop()
    r = health(k)
    assert r.status_code == 503
    assert r.headers["Retry-After"].isdigit()
    body = r.json()
    assert body["status"] == "degraded"
    assert body["database"] == {"reachable": False, "error": "the database cannot be reached"}
    # libpq's text (host, port, user) went to the log, not to the client.
    assert str(own_postgres.port) not in r.text and "korp@" not in r.text
    assert str(own_postgres.port) in k.log_text() or "connect" in k.log_text()
    own_postgres.start()
    assert health(k).status_code == 200


def test_hung_postgres_answers_503_within_the_deadline(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_DB_TIMEOUT_MS=1000, KORP_DB_POOL_SIZE=1,
                    KORP_HTTP_THREADS=4)
    assert health(k).status_code == 200
    own_postgres.freeze()
    try:
        # Three at once on one connection: one waits for its statement's
        # deadline, the others for a free connection; none forever.  Each is
        # sent once korpd has read the one before: a libmicrohttpd worker
        # blocked on the database accepts no connection, so each lands on a
        # worker of its own and the three wait at the same time.
        clients, started = [], []
        for _ in range(3):
            started.append(time.monotonic())
            clients.append(_request_raw(k, "/healthz"))
            wait_until(lambda: _read_by_korpd(k, clients[-1]), 5,
                       what="korpd to read the request")
        results = []
        for client, start in zip(clients, started):
            status, body = _answer(client)
            results.append((status, body["database"].get("error"), time.monotonic() - start))
        assert all(status == 503 for status, _, _ in results), results
        assert all(elapsed < 6 for _, _, elapsed in results), results
        reasons = {reason for _, reason, _ in results}
        assert "no database connection came free in time" in reasons, reasons

        # SIGTERM with a request in flight on the hung database: it ends at
        # its deadline, then korpd exits 0 (well inside the 10 s grace).
        client = _request_raw(k, "/healthz")
        wait_until(lambda: _read_by_korpd(k, client), 5, what="korpd to read the request")
        # Read and not answered: waiting on the hung database.
        assert select.select([client], [], [], 0)[0] == []
        start = time.monotonic()
        k.signal(signal.SIGTERM)
        assert k.wait(timeout=15) == 0
        assert time.monotonic() - start < 8
        answer = b""
        while (chunk := client.recv(4096)):
            answer += chunk
        client.close()
        assert answer.startswith(b"HTTP/1.1 503 "), answer[:200]
    finally:
        own_postgres.thaw()


def _partial_upload(k, total=10, first="abc"):
    """Opens a request whose body is still coming: a request in flight.  It asks for
    "100 Continue", which libmicrohttpd sends only once korpd's handler has taken the
    request (and counted it in flight), and waits for it: no sleep to guess at."""
    s = socket.create_connection(("127.0.0.1", k.port), timeout=10)
    s.sendall(f"POST /nowhere HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              f"Expect: 100-continue\r\nContent-Length: {total}\r\n\r\n".encode())
    got = b""
    while b"\r\n\r\n" not in got:
        chunk = s.recv(4096)
        assert chunk, "korpd closed the connection instead of continuing"
        got += chunk
    assert got.startswith(b"HTTP/1.1 100"), got
    s.sendall(first.encode())
    return s


def _read_status(s):
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(65536)
        if not chunk:
            break
        data += chunk
    return int(data.split(b" ", 2)[1]) if data else None


def _refused(k):
    """Whether korpd's port refuses connections: it has stopped listening."""
    try:
        socket.create_connection(("127.0.0.1", k.port), timeout=2).close()
        return False
    except OSError:
        return True


def test_sigterm_finishes_the_request_in_flight(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url)
    s = _partial_upload(k)
    k.signal(signal.SIGTERM)
    # No new connections while it drains; and draining, it waits for its request.
    wait_until(lambda: _refused(k), 5, what="the listening socket to close")
    assert k.proc.poll() is None, "korpd left before its request finished"

    s.sendall(b"defghij")
    assert _read_status(s) == 404
    s.close()
    assert k.wait(timeout=10) == 0
    assert "stopped" in k.log_text()


def test_second_signal_exits_at_once(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_SHUTDOWN_SECONDS=60)
    s = _partial_upload(k)
    k.signal(signal.SIGTERM)
    # The first signal has been taken (korpd stopped listening) before the second comes.
    wait_until(lambda: _refused(k), 5, what="the listening socket to close")
    assert k.proc.poll() is None
    start = time.monotonic()
    k.signal(signal.SIGINT)
    assert k.wait(timeout=5) == 1
    assert time.monotonic() - start < 2
    s.close()


def test_too_large_body_is_refused_before_it_is_read(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url)
    # Announced too large: the answer comes without a byte of the body.
    s = socket.create_connection(("127.0.0.1", k.port), timeout=10)
    s.sendall(b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Content-Length: 10000000\r\n\r\n")
    assert _read_status(s) == 413
    s.close()

    # Not announced (chunked): libmicrohttpd cannot answer in the middle of a
    # body, so the connection is closed once past 64 KiB, long before the end.
    # A small send buffer, so that what the kernels buffer stays small beside the
    # 10 MiB a server reading everything would take.
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 32768)
    s.settimeout(10)
    s.connect(("127.0.0.1", k.port))
    s.sendall(b"POST /healthz HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\n"
              b"Transfer-Encoding: chunked\r\n\r\n")
    chunk = b"%x\r\n%s\r\n" % (8192, b"x" * 8192)
    sent = 0
    for _ in range(1280):            # up to 10 MiB
        try:
            s.sendall(chunk)
            sent += 8192
        except OSError:
            break
    print(f"{sent} bytes sent before the connection closed")
    assert sent < 5 * 1024 * 1024, f"{sent} bytes were taken before the connection closed"
    s.close()
    # The server is still fine.
    assert health(k).status_code == 200


def test_every_request_has_an_id_and_an_access_log_line(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url)
    r = requests.get(k.base + "/v1/games/aZ3kP9qwX2", headers={"X-Request-Id": "trace-42"},
                     timeout=10)
    assert r.status_code == 404 and r.headers["X-Request-Id"] == "trace-42"
    r = requests.get(k.base + "/healthz", timeout=10)
    generated = r.headers["X-Request-Id"]
    assert len(generated) == 16 and generated.isalnum()
    # A client's id with spaces or too long is replaced, not echoed.
    r = requests.get(k.base + "/healthz", headers={"X-Request-Id": "a b"}, timeout=10)
    assert r.headers["X-Request-Id"] != "a b"

    def logged():
        text = k.log_text()
        return ("GET /v1/games/{id} 404" in text and "id=trace-42" in text and
                "GET /healthz 200" in text and f"id={generated}" in text)
    wait_until(logged, 5, what="the access-log lines")



def _keepalive_get(s, path):
    """One GET on a kept-alive socket; its status and JSON body (by Content-Length)."""
    s.sendall(f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n".encode())
    data = b""
    while b"\r\n\r\n" not in data:
        chunk = s.recv(4096)
        assert chunk, "korpd closed the connection"
        data += chunk
    head, _, body = data.partition(b"\r\n\r\n")
    length = next(int(line.split(b":")[1]) for line in head.split(b"\r\n")
                  if line.lower().startswith(b"content-length:"))
    while len(body) < length:
        chunk = s.recv(4096)
        assert chunk, "korpd closed the connection"
        body += chunk
    return int(head.split()[1]), json.loads(body)


def test_a_request_waiting_on_the_database_holds_up_no_other_connection(own_postgres,
                                                                       start_korpd):
    """Requests run on korpd's request workers, not on the thread that reads
    their connection, so a request stuck on the database delays no request of another
    connection.  Before, libmicrohttpd's threads ran the handlers and each kept-alive
    connection stays on the thread that accepted it: every connection sharing the stuck
    request's thread waited for its deadline (with 2 threads, about half of them)."""
    k = start_korpd(own_postgres.url, KORP_DB_TIMEOUT_MS=10000, KORP_DB_POOL_SIZE=2,
                    KORP_HTTP_THREADS=2)
    assert health(k).status_code == 200
    # Nine kept-alive connections, all accepted before anything is stuck.
    conns = [socket.create_connection(("127.0.0.1", k.port), timeout=30) for _ in range(9)]
    for s in conns:
        assert _keepalive_get(s, "/v1/games/not.an.id")[0] == 404
    own_postgres.freeze()
    try:
        stuck_since = time.monotonic()
        conns[0].sendall(b"GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n")
        wait_until(lambda: _read_by_korpd(k, conns[0]), 5, what="korpd to read the request")
        # The other eight ask for something that needs no database (an id korpd
        # refuses by its form): each is answered at once.
        for s in conns[1:]:
            s.settimeout(3)
            status, body = _keepalive_get(s, "/v1/games/not.an.id")
            assert status == 404 and body["status"] == 404, body
        assert time.monotonic() - stuck_since < 5
        # The stuck request itself gets its deadline's 503.
        status, body = _keepalive_get(conns[0], "/healthz")
        assert status == 503, body
    finally:
        own_postgres.thaw()
        for s in conns:
            s.close()
