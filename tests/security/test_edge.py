"""The HTTP edge against a hostile client, part two: a client address forged with a
long X-Forwarded-For through a trusted proxy, the dear routes' weight in the rate
limiter, request bodies sent slowly or without end, and a chunked body over the
limit.  Each against a korpd of its own on the suite's database.

Clients come from chosen loopback addresses (127.0.0.0/8); a test that stands for a
trusted proxy connects from 127.0.0.1, the proxy korpd trusts."""

import http.client
import json
import re
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
    """Every status code in data, also one that follows a body without a line break
    (pipelined answers)."""
    return re.findall(rb"HTTP/1\.[01] (\d{3})", data)


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



# ---------------------------------------------------------------------------
# An invalid Content-Length: one answer, korpd's, and the connection closed
#
# RFC 9110 8.6: Content-Length = 1*DIGIT; RFC 9112 6.3: a request whose
# Content-Length is invalid has no framing: 400, then close.  libmicrohttpd 0.9.75
# answered these itself, writing its status line and headers twice.

def one_answer(data):
    """The single HTTP response in data, read by its own Content-Length:
    (status, headers with lower-case names, body); fails on anything after it."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    assert sep, data[:300]
    lines = head.split(b"\r\n")
    assert lines[0].startswith(b"HTTP/1.1 "), data[:300]
    headers = {}
    for line in lines[1:]:
        name, _, value = line.partition(b":")
        key = name.strip().lower().decode()
        assert key not in headers, (key, data[:300])
        headers[key] = value.strip().decode()
    length = int(headers["content-length"])
    assert len(rest) == length, (length, data[:600])
    return int(lines[0].split(b" ")[1]), headers, rest


def post_with(length_line, body=b"{}", head_end=b"\r\n"):
    return (b"POST /v1/players HTTP/1.1" + head_end + b"Host: korp" + head_end +
            b"Content-Type: application/json" + head_end + length_line + head_end + head_end +
            body)


def assert_refused(got, closed, status, problem):
    assert closed, got
    code, headers, body = one_answer(got)
    assert code == status, got
    assert headers["content-type"] == "application/problem+json", headers
    assert headers["connection"].lower() == "close", headers
    assert headers["x-content-type-options"] == "nosniff", headers
    doc = json.loads(body)
    assert (doc["status"], doc["type"]) == (status, f"/problems/{problem}"), doc


def test_an_invalid_content_length_is_answered_once(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url)
    # Not 1*DIGIT: a sign, letters, hex, an exponent, a list, nothing; and blanks after
    # the digits, which libmicrohttpd does not strip (it would misread them too).
    for value in [b"-1", b"-0", b"+5", b"abc", b"0x2", b"1e2", b"2,2", b"", b"2 ", b"2\t"]:
        got, closed = exchange(k.port, post_with(b"Content-Length: " + value))
        assert_refused(got, closed, 400, "bad-request")
        assert b"Content-Length" in json.loads(one_answer(got)[2])["detail"].encode()
    # The header spelt in another case, the lines ended by LF alone (both read by
    # libmicrohttpd as such), the value folded onto a second line.
    for data in [post_with(b"content-LENGTH: -1"),
                 post_with(b"Content-Length: -1", head_end=b"\n"),
                 post_with(b"Content-Length: 2\r\n 2")]:
        got, closed = exchange(k.port, data)
        assert_refused(got, closed, 400, "bad-request")
    # A number past 64 bits is a body too large, as any past 64 KiB is.
    for value in [b"99999999999999999999999", b"18446744073709551616"]:
        got, closed = exchange(k.port, post_with(b"Content-Length: " + value))
        assert_refused(got, closed, 413, "body-too-large")
    # The head sent in pieces: judged once whole.
    s = socket.create_connection(("127.0.0.1", k.port), timeout=10)
    data = post_with(b"Content-Length: -1")
    for piece in (data[:20], data[20:50], data[50:]):
        s.sendall(piece)
    got = b""
    deadline = time.monotonic() + 6
    while time.monotonic() < deadline:
        chunk = s.recv(65536)
        if not chunk:
            break
        got += chunk
    s.close()
    assert_refused(got, True, 400, "bad-request")
    # Valid lengths are served as before: spaces before the digits are allowed.
    for value in [b"2", b"  2", b"002"]:
        got, _ = exchange(k.port, post_with(b"Content-Length: " + value) +
                          b"GET /healthz HTTP/1.1\r\nHost: korp\r\nConnection: close\r\n\r\n")
        assert status_lines(got) == [b"400", b"200"], (value, got[:300])
        assert b"'name' is required" in got, got[:400]
    got, _ = exchange(k.port, b"GET /healthz HTTP/1.1\r\nHost: korp\r\nContent-Length: 0\r\n"
                              b"Connection: close\r\n\r\n")
    assert status_lines(got) == [b"200"], got[:300]


def test_pipelined_heads_with_an_invalid_length_are_answered_once(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url)
    healthz = b"GET /healthz HTTP/1.1\r\nHost: korp\r\n\r\n"
    # Sent together, after a request without a body and after one with a body: the
    # stream's framing is broken from that head on; korpd answers 400 once and closes.
    for data in [healthz + post_with(b"Content-Length: -1"),
                 post_with(b"Content-Length: 2") + healthz + post_with(b"Content-Length: x")]:
        got, closed = exchange(k.port, data)
        assert_refused(got, closed, 400, "bad-request")
    # Pipelined valid requests are all answered, in order.
    got, _ = exchange(k.port, healthz + post_with(b"Content-Length: 2") +
                      b"GET /healthz HTTP/1.1\r\nHost: korp\r\nConnection: close\r\n\r\n")
    assert status_lines(got) == [b"200", b"400", b"200"], got[:600]


def read_answer(s, wait=6.0):
    """Bytes from s until korpd closes it or wait seconds pass: (bytes, closed)."""
    got, deadline = b"", time.monotonic() + wait
    while time.monotonic() < deadline:
        s.settimeout(max(0.05, deadline - time.monotonic()))
        try:
            chunk = s.recv(65536)
        except socket.timeout:
            break
        except ConnectionResetError:
            return got + b"<reset>", True
        if not chunk:
            return got, True
        got += chunk
    return got, False


def first_answer(data):
    """The first whole answer at the start of data (read by its Content-Length), or
    None while it is not whole."""
    head, sep, rest = data.partition(b"\r\n\r\n")
    m = re.search(rb"(?i)\r\ncontent-length: *(\d+)", head) if sep else None
    if m is None or len(rest) < int(m.group(1)):
        return None
    return head + sep + rest[:int(m.group(1))]


def read_one(s):
    """One whole answer from s: its bytes."""
    got, deadline = b"", time.monotonic() + 10
    while time.monotonic() < deadline:
        if first_answer(got) is not None:
            return got
        s.settimeout(max(0.05, deadline - time.monotonic()))
        chunk = s.recv(65536)
        assert chunk, got
        got += chunk
    raise AssertionError(f"no whole answer in 10 s: {got[:300]!r}")


def kept_alive(port):
    """A connection whose first request was answered (200): the heads that follow
    reach libmicrohttpd, not the gate."""
    s = socket.create_connection(("127.0.0.1", port), timeout=10)
    s.sendall(b"GET /healthz HTTP/1.1\r\nHost: korp\r\n\r\n")
    assert status_lines(read_one(s)) == [b"200"]
    return s


def test_a_later_head_with_an_invalid_length_is_answered_once(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url)
    # On an open connection, after an answer: libmicrohttpd reads these heads itself,
    # and answered each with its status line and headers twice.
    for value, status, problem in [(b"-1", 400, "bad-request"), (b"abc", 400, "bad-request"),
                                   (b"2 ", 400, "bad-request"),
                                   (b"99999999999999999999999", 413, "body-too-large")]:
        s = kept_alive(k.port)
        s.sendall(post_with(b"Content-Length: " + value))
        got, closed = read_answer(s)
        s.close()
        assert_refused(got, closed, status, problem)
    # Sent in pieces, the head's end a moment after its start.
    s = kept_alive(k.port)
    s.setsockopt(socket.IPPROTO_TCP, socket.TCP_NODELAY, 1)
    data = post_with(b"Content-Length: -1")
    for piece in (data[:20], data[20:50], data[50:]):
        s.sendall(piece)
    got, closed = read_answer(s)
    s.close()
    assert_refused(got, closed, 400, "bad-request")
    # Pipelined behind a chunked body, which the gate cannot follow.
    chunked = (b"POST /v1/players HTTP/1.1\r\nHost: korp\r\nContent-Type: application/json\r\n"
               b"Transfer-Encoding: chunked\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
    got, closed = exchange(k.port, chunked + post_with(b"Content-Length: -1"))
    first = first_answer(got)
    assert first is not None, got[:600]
    assert status_lines(first) == [b"400"] and b"'name' is required" in first, got[:600]
    assert_refused(got[len(first):], closed, 400, "bad-request")


def nothing_came(s):
    """Whether nothing has arrived on s (nor its end): looked at once, not waited for."""
    readable, _, _ = select.select([s], [], [], 0)
    return not readable


def test_a_refused_length_is_answered_on_its_own_connection(shared_db_url, start_korpd):
    # A korpd with one I/O thread, so that every connection shares it: another
    # connection's head, open when the refused one comes, is left alone, and served.
    k = start_korpd(shared_db_url, KORP_HTTP_THREADS=1)
    waiting = kept_alive(k.port)
    waiting.sendall(b"GET /healthz HTTP/1.1\r\nHost: korp\r\n")       # not whole yet
    refused = kept_alive(k.port)
    refused.sendall(post_with(b"Content-Length: -1"))
    got, closed = read_answer(refused)
    refused.close()
    assert_refused(got, closed, 400, "bad-request")
    waiting.sendall(b"Connection: close\r\n\r\n")
    got, closed = read_answer(waiting)
    waiting.close()
    assert closed and status_lines(got) == [b"200"], got[:600]
    assert b'"status":"ok"' in got, got[:600]


def test_a_refused_length_korpd_cannot_place_is_answered_where_it_belongs(shared_db_url,
                                                                          start_korpd):
    # Two heads with an invalid Content-Length open on one thread at once, one whole,
    # one still coming: korpd cannot tell which one libmicrohttpd refused, and writes
    # to neither; each is refused and closed on its own connection when it is whole.
    k = start_korpd(shared_db_url, KORP_HTTP_THREADS=1)
    coming = kept_alive(k.port)
    # The length's line is followed by another, so that libmicrohttpd has taken it in.
    coming.sendall(b"POST /v1/players HTTP/1.1\r\nHost: korp\r\nContent-Length: -1\r\n"
                   b"Content-Type: application/json\r\n")
    whole = kept_alive(k.port)
    whole.sendall(post_with(b"Content-Length: -1"))
    got, closed = read_answer(whole)
    whole.close()
    assert closed and status_lines(got)[:1] == [b"400"], got[:600]
    # Whatever answered the whole head was written before its answer came: the
    # other connection has nothing.
    assert nothing_came(coming)
    coming.sendall(b"\r\n{}")
    got, closed = read_answer(coming)
    coming.close()
    assert closed and status_lines(got)[:1] == [b"400"], got[:600]
    assert b"<reset>" not in got, got[:600]


def test_chunked_with_a_content_length_is_refused(shared_db_url, start_korpd):
    k = start_korpd(shared_db_url)
    # RFC 9112 6.1: both framings at once is refused (or read as chunked, and the
    # connection closed after the answer either way); korpd refuses it, once.
    for length in [b"2", b"0", b"-1"]:
        got, closed = exchange(k.port, b"POST /v1/players HTTP/1.1\r\nHost: korp\r\n"
                                       b"Content-Type: application/json\r\n"
                                       b"Transfer-Encoding: chunked\r\nContent-Length: " +
                               length + b"\r\n\r\n2\r\n{}\r\n0\r\n\r\n")
        assert_refused(got, closed, 400, "bad-request")


def test_a_slow_head_is_cut_before_libmicrohttpd_sees_it(shared_db_url, start_korpd):
    # The gate holds a connection until its first head is whole: a head never
    # finished is closed at the head's deadline, and the address's connection
    # count is given back.
    k = start_korpd(shared_db_url, KORP_REQUEST_HEAD_SECONDS=2, KORP_CONNECTIONS_PER_ADDRESS=2)
    src = "127.0.0.61"
    held = []
    for _ in range(2):
        s = socket.socket()
        s.bind((src, 0))
        s.connect(("127.0.0.1", k.port))
        s.sendall(b"GET /healthz HTTP/1.1\r\nHost: ko")
        held.append(s)
    started = time.monotonic()
    # A third from the same address is refused while two wait in the gate.
    third, closed = raw(k.port, b"GET /healthz HTTP/1.1\r\nHost: korp\r\n\r\n", src=src, wait=1)
    assert third == b"" and closed, third
    for s in held:
        s.settimeout(6)
        try:
            assert s.recv(100) == b""
        except ConnectionResetError:
            pass   # closed with the unread head in its buffer: a reset
        s.close()
    assert 1.5 <= time.monotonic() - started <= 5
    # Counted out: the address is served again.
    got, _ = raw(k.port, b"GET /healthz HTTP/1.1\r\nHost: korp\r\nConnection: close\r\n\r\n",
                 src=src)
    assert status_lines(got) == [b"200"], got
