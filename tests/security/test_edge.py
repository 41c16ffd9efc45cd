"""The HTTP edge against a hostile client, part two: a client address forged with a
long X-Forwarded-For through a trusted proxy, the dear routes' weight in the rate
limiter, request bodies sent slowly or without end, and a chunked body over the
limit.  Each against a korpd of its own on the suite's database.

Clients come from chosen loopback addresses (127.0.0.0/8); a test that stands for a
trusted proxy connects from 127.0.0.1, the proxy korpd trusts."""

import http.client
import json
import select
import socket
import time
import uuid

from test_security import raw

PROXY = "127.0.0.1"

# Entries enough to pass 1 KiB, which korpd once read of the header and no further.
FILLER = ", ".join(f"10.0.{i // 250}.{i % 250 + 1}" for i in range(150))
assert len(FILLER) > 1200


def request(port, method, path, lines=(), body=None, src=PROXY):
    """(status, headers, body) of one request from src with the given X-Forwarded-For
    lines, each a header line of its own."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=(src, 0))
    try:
        conn.putrequest(method, path)
        for line in lines:
            conn.putheader("X-Forwarded-For", line)
        data = None
        if body is not None:
            data = json.dumps(body).encode()
            conn.putheader("Content-Type", "application/json")
            conn.putheader("Content-Length", str(len(data)))
        conn.endheaders(data)
        r = conn.getresponse()
        return r.status, dict(r.getheaders()), r.read()
    finally:
        conn.close()


def exchange(port, data, wait=6.0):
    """Sends bytes on a raw socket and reads until korpd closes it or wait seconds
    pass: (bytes received, whether korpd closed the connection)."""
    return raw(port, data, wait=wait)


def status_lines(data):
    return [line.split(b" ")[1] for line in data.split(b"\r\n") if line.startswith(b"HTTP/1.")]


# ---------------------------------------------------------------------------
# X-Forwarded-For read whole


def test_long_forwarded_for_cannot_open_metrics(shared_db_url, start_korpd):
    # The proxy's own address may read /metrics (a scraper on its host); 127.0.0.9 may
    # not, whatever it writes to the left of the entry the proxy appends.
    k = start_korpd(shared_db_url, KORP_TRUSTED_PROXIES=PROXY,
                    KORP_METRICS_ALLOW=f"{PROXY}, 127.0.0.8")
    assert request(k.port, "GET", "/metrics", ["127.0.0.9"])[0] == 403
    assert request(k.port, "GET", "/metrics", ["127.0.0.8"])[0] == 200
    # The client's long line, then the proxy's: the proxy's line counts.
    assert request(k.port, "GET", "/metrics", [f"{FILLER}, 127.0.0.8", "127.0.0.9"])[0] == 403
    # One line joined by the proxy, past 1 KiB: neither the proxy nor a forged entry.
    assert request(k.port, "GET", "/metrics", [f"{FILLER}, 127.0.0.8, 127.0.0.9"])[0] == 403
    assert "using its end" not in k.log_text()


def test_long_forwarded_for_cannot_lift_a_sign_in_lock(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url, KORP_TRUSTED_PROXIES=PROXY)
    name, password = f"locked_{uuid.uuid4().hex[:10]}", "pw-" + uuid.uuid4().hex
    assert request(k.port, "POST", "/v1/players", body={"name": name, "password": password},
                   src="127.0.0.2")[0] == 201

    def sign_in(lines, pw):
        return request(k.port, "POST", "/v1/session", lines,
                       {"name": name, "password": pw})[0]

    # Ten wrong passwords from the client behind the proxy lock that client out.
    assert [sign_in(["127.0.0.40"], "wrong-password-1") for _ in range(10)] == [401] * 10
    assert sign_in(["127.0.0.40"], password) == 429
    # The same client, forging a new address to the left of the proxy's entry.
    assert sign_in([f"{FILLER}, 127.0.0.41", "127.0.0.40"], password) == 429
    assert sign_in([f"{FILLER}, 127.0.0.41, 127.0.0.40"], password) == 429
    # Another client is not locked.
    assert sign_in(["127.0.0.42"], password) == 200


# ---------------------------------------------------------------------------
# Dear routes weigh more in the rate limiter


def served_before_429(port, path, src, most=80):
    """Requests from src answered before the first 429, and that 429's headers."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=15, source_address=(src, 0))
    try:
        for n in range(most):
            conn.request("GET", path)
            r = conn.getresponse()
            r.read()
            if r.status == 429:
                return n, dict(r.getheaders())
        return most, {}
    finally:
        conn.close()


def test_a_dear_route_empties_the_bucket_sooner(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url, KORP_RATE_LIMIT=1, KORP_RATE_BURST=40)
    # Unknown ids: charged all the same (the limit comes before the lookup).
    dear, dear_headers = served_before_429(k.port, "/v1/tournaments/nosuchtournament/pgn",
                                           "127.0.0.50")
    cheap, cheap_headers = served_before_429(k.port, "/v1/games/nosuchgame", "127.0.0.51")
    assert 1 <= dear <= 3, dear
    assert 40 <= cheap <= 60, cheap
    assert int(dear_headers["Retry-After"]) >= 1
    assert int(cheap_headers["Retry-After"]) >= 1


# ---------------------------------------------------------------------------
# Request bodies: a deadline for the whole body, 413 for a chunked one too large


def test_a_body_trickled_is_cut_at_its_deadline(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url, KORP_REQUEST_HEAD_SECONDS=2)
    s = socket.create_connection(("127.0.0.1", k.port), timeout=10)
    started = time.monotonic()
    s.sendall(b"POST /v1/players HTTP/1.1\r\nHost: korp\r\nContent-Type: application/json\r\n"
              b"Content-Length: 100\r\n\r\n")
    closed_after = None
    # A byte every 0.5 s (while korpd says nothing) would keep an idle timeout from
    # ever firing: korpd must close within its deadline, here 2 s.
    while closed_after is None and time.monotonic() - started < 10:
        try:
            s.sendall(b" ")
            if select.select([s], [], [], 0.5)[0] and s.recv(4096) == b"":
                closed_after = time.monotonic() - started
        except OSError:
            closed_after = time.monotonic() - started
    s.close()
    assert closed_after is not None, "korpd kept a 10 s body open"
    assert 1.5 <= closed_after <= 5, closed_after
    # A body sent at once is served as before.
    assert request(k.port, "GET", "/healthz", src="127.0.0.3")[0] == 200


def test_a_chunk_that_never_ends_is_cut(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url, KORP_REQUEST_HEAD_SECONDS=2)
    started = time.monotonic()
    got, closed = exchange(k.port, b"POST /v1/players HTTP/1.1\r\nHost: korp\r\n"
                                   b"Content-Type: application/json\r\n"
                                   b"Transfer-Encoding: chunked\r\n\r\n"
                                   b"ffffffffffffffff\r\n{\"name\"", wait=8)
    assert closed, got
    assert time.monotonic() - started <= 5


def test_a_chunked_body_too_large_is_answered_413(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url)
    body = b"".join(b"4000\r\n" + b" " * 0x4000 + b"\r\n" for _ in range(5)) + b"0\r\n\r\n"
    got, _ = exchange(k.port, b"POST /v1/players HTTP/1.1\r\nHost: korp\r\n"
                              b"Content-Type: application/json\r\nConnection: close\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\n" + body)
    assert status_lines(got) == [b"413"], got[:300]
    assert b"body-too-large" in got or b"larger than 64 KiB" in got, got[:600]
    # Under the limit, chunked, the request is read and routed as before.
    small = json.dumps({"name": "x"}).encode()
    got, _ = exchange(k.port, b"POST /v1/players HTTP/1.1\r\nHost: korp\r\n"
                              b"Content-Type: application/json\r\nConnection: close\r\n"
                              b"Transfer-Encoding: chunked\r\n\r\n" +
                      f"{len(small):x}\r\n".encode() + small + b"\r\n0\r\n\r\n")
    assert status_lines(got) == [b"400"], got[:300]

