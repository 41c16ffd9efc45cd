"""Accounts, tokens and streams: each test checks one defect a security probe found
and fails if it comes back.

  3   revoking a token or signing out ends the event streams opened with it, in every korpd
  5   at most 20 live tokens a player; one rate limit for all of a player's tokens
  6   caps on event streams per player and per client address
  10  a sign-up with a taken name hashes nothing; sign-ups never take the last hash slot
  11  password change, the list of sessions, sign out everywhere, an absolute lifetime
  12  password policy (NIST SP 800-63B): code points, a maximum, common passwords
  15  sign-ups per address per hour (KORP_SIGNUP_LIMIT)

Every korpd here is one of the test's own (tests/server/korp_fixtures.py), on loopback;
every wait has a deadline."""

import os
import socket
import subprocess
import sys
import threading
import time
import uuid

import pytest
import requests

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))

from korp_fixtures import Postgres, made_by, wait_until  # noqa: E402
from openapi_check import check  # noqa: E402

PASSWORD = "correct horse battery"


# ---------------------------------------------------------------- fixtures


@pytest.fixture
def start(start_korpd, shared_db_url):
    """start(url=None, **settings) -> a korpd of the test's own (conftest.py's
    start_korpd), on the suite's database unless told another."""
    return lambda url=None, **settings: start_korpd(url or shared_db_url, **settings)


# ---------------------------------------------------------------- helpers


def unique(prefix):
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def call(base, method, template, params=(), token=None, session=None, csrf=None,
         json=None, expect=None):
    """One request, its answer checked against openapi.yaml; returns the response."""
    path = template
    for p in params:
        path = path.replace(path[path.index("{"):path.index("}") + 1], p, 1)
    headers = {}
    if token:
        headers["Authorization"] = f"Bearer {token}"
    if csrf:
        headers["X-CSRF-Token"] = csrf
    r = (session or requests).request(method, base + path, json=json, headers=headers,
                                      timeout=30)
    check(r, method, template)
    if expect is not None:
        assert r.status_code == expect, f"{method} {path}: {r.status_code} {r.text}"
    return r


def sign_up(base, name=None, password=PASSWORD):
    name = name or unique("acc")
    body = {"name": name}
    if password is not None:
        body["password"] = password
    return call(base, "POST", "/v1/players", json=body, expect=201).json()


def sign_in(base, name, password=PASSWORD, expect=200):
    """(requests.Session holding the cookie, csrf token)."""
    s = requests.Session()
    r = call(base, "POST", "/v1/session", session=s, json={"name": name, "password": password},
             expect=expect)
    return s, (r.json()["csrf_token"] if r.status_code == 200 else None)


class Stream:
    """GET /v1/events on a raw socket (Connection: close, so that the end of the stream
    closes the socket); a reader thread notes the status and when the stream ends."""

    def __init__(self, base, token=None, cookie=None, query=""):
        host, port = base.split("//")[1].split(":")
        self.sock = socket.create_connection((host, int(port)), timeout=30)
        lines = [f"GET /v1/events{query} HTTP/1.1", f"Host: {host}",
                 "Accept: text/event-stream", "Connection: close"]
        if token:
            lines.append(f"Authorization: Bearer {token}")
        if cookie:
            lines.append(f"Cookie: korp_session={cookie}")
        self.sock.sendall(("\r\n".join(lines) + "\r\n\r\n").encode())
        self.data = b""
        self.headed = threading.Event()
        self.ended = threading.Event()
        threading.Thread(target=self._read, daemon=True).start()
        assert self.headed.wait(10), "no answer to GET /v1/events"

    def _read(self):
        try:
            while True:
                chunk = self.sock.recv(65536)
                if not chunk:
                    return
                self.data += chunk
                if b"\r\n\r\n" in self.data:
                    self.headed.set()
                # The last chunk of a chunked body: the stream is over.
                if self.data.endswith(b"\r\n0\r\n\r\n") or self.data.endswith(b"\n0\r\n\r\n"):
                    return
        except OSError:
            return
        finally:
            self.headed.set()
            self.ended.set()

    @property
    def status(self):
        return int(self.data.split(b" ", 2)[1]) if self.data.startswith(b"HTTP/") else 0

    def header(self, name):
        head = self.data.split(b"\r\n\r\n", 1)[0].decode(errors="replace")
        for line in head.split("\r\n")[1:]:
            k, _, v = line.partition(":")
            if k.strip().lower() == name.lower():
                return v.strip()
        return None

    def close(self):
        try:
            self.sock.close()
        except OSError:
            pass


@pytest.fixture
def streams():
    yield from made_by(Stream)


def cookie_of(session):
    return session.cookies.get("korp_session")


# ---------------------------------------------------------------- item 3


def test_revoking_a_token_or_signing_out_ends_its_streams_in_every_korpd(start, streams):
    # Two korpd on one database: the revocation goes through one, the streams are on the
    # other.  A long keep-alive: nothing but the revocation could end them in time.
    a = start(KORP_SSE_KEEPALIVE_SECONDS=300)
    b = start(KORP_SSE_KEEPALIVE_SECONDS=300)
    p = sign_up(a.base)
    other = call(a.base, "POST", "/v1/players/me/tokens", token=p["token"], expect=201).json()
    revoked = streams(b.base, token=p["token"])
    kept = streams(b.base, token=other["token"])
    assert revoked.status == kept.status == 200
    first = call(a.base, "GET", "/v1/players/me/tokens", token=p["token"], expect=200)
    first_id = first.json()["tokens"][0]["id"]
    call(a.base, "DELETE", "/v1/players/me/tokens/{id}", [first_id], token=other["token"],
         expect=204)
    assert revoked.ended.wait(5), "the revoked token's stream on the other korpd still runs"
    assert not kept.ended.is_set(), "a stream of another token of the player ended too"

    # Signing out ends the session's streams, and only its own.
    web, csrf = sign_in(a.base, p["name"])
    web2, _ = sign_in(a.base, p["name"])
    out = streams(b.base, cookie=cookie_of(web))
    stays = streams(b.base, cookie=cookie_of(web2))
    assert out.status == stays.status == 200
    call(a.base, "DELETE", "/v1/session", session=web, csrf=csrf, expect=204)
    assert out.ended.wait(5), "the signed-out session's stream still runs"
    assert not stays.ended.is_set()
    assert not kept.ended.is_set()


# ---------------------------------------------------------------- item 5


def test_a_player_holds_at_most_20_tokens(start):
    k = start()
    p = sign_up(k.base, password=None)
    made = [call(k.base, "POST", "/v1/players/me/tokens", token=p["token"], expect=201).json()
            for _ in range(19)]
    # The sign-up's token and 19 more: the 21st is refused, saying why and what to do.
    r = call(k.base, "POST", "/v1/players/me/tokens", token=p["token"], expect=409)
    assert "20" in r.json()["detail"] and "revoke" in r.json()["detail"], r.text
    listed = call(k.base, "GET", "/v1/players/me/tokens", token=p["token"],
                  expect=200).json()["tokens"]
    assert len(listed) == 20
    # Oldest first (openapi.yaml), to the microsecond: made within the same second,
    # they must not come back in the order of their ids.
    assert [t["id"] for t in listed[1:]] == [t["id"] for t in made]
    # Revoking one makes room for one.
    call(k.base, "DELETE", "/v1/players/me/tokens/{id}", [made[0]["id"]], token=p["token"],
         expect=204)
    call(k.base, "POST", "/v1/players/me/tokens", token=p["token"], expect=201)


def test_all_of_a_players_tokens_share_one_rate_limit(start):
    # One player, five tokens, each with a burst of 5 and 1 request a second: spread over
    # the tokens, the player still gets one token's worth (5 at once, then 1 a second), not
    # five times that.
    limited = start(KORP_RATE_LIMIT=1, KORP_RATE_BURST=5)
    q = sign_up(limited.base, password=None)
    tokens = [q["token"]] + [
        call(limited.base, "POST", "/v1/players/me/tokens", token=q["token"]).json()["token"]
        for _ in range(4)]
    began = time.monotonic()
    codes = [call(limited.base, "GET", "/v1/players/me", token=tokens[i % 5]).status_code
             for i in range(25)]
    elapsed = time.monotonic() - began
    accepted = codes.count(200)
    # The four token creations above took from the same player's bucket too.
    assert accepted <= 5 + int(elapsed) + 1, (codes, elapsed)
    assert 429 in codes, codes


# ---------------------------------------------------------------- item 6


def test_event_streams_are_capped_per_player_and_per_address(start, streams):
    k = start(KORP_STREAMS_PER_PLAYER=2, KORP_STREAMS_PER_ADDRESS=3,
              KORP_SSE_KEEPALIVE_SECONDS=7)
    p = sign_up(k.base, password=None)
    q = sign_up(k.base, password=None)
    r = sign_up(k.base, password=None)
    assert streams(k.base, token=p["token"]).status == 200
    assert streams(k.base, token=p["token"]).status == 200
    third = streams(k.base, token=p["token"])
    assert third.status == 429, third.data[:400]
    assert third.header("Retry-After") == "7"
    assert b"/problems/too-many-requests" in third.data
    # Another player from the same address: the address holds 3.
    assert streams(k.base, token=q["token"]).status == 200
    over = streams(k.base, token=r["token"])
    assert over.status == 429 and b"address" in over.data, over.data[:400]


def test_a_closed_stream_frees_its_place(start, streams):
    k = start(KORP_STREAMS_PER_PLAYER=1, KORP_SSE_KEEPALIVE_SECONDS=1)
    p = sign_up(k.base, password=None)
    s = streams(k.base, token=p["token"])
    assert s.status == 200
    assert streams(k.base, token=p["token"]).status == 429
    s.close()
    # The keep-alive write finds the closed connection within a few intervals.
    wait_until(lambda: streams(k.base, token=p["token"]).status == 200, 15,
               step=0.5, what="the closed stream's place to be free")


# ---------------------------------------------------------------- item 10


def test_taken_names_and_sign_up_floods_do_not_starve_sign_ins(start):
    k = start(KORP_SIGNUP_LIMIT=0, KORP_HTTP_THREADS=16, KORP_DB_POOL_SIZE=8)
    me = sign_up(k.base)
    taken = sign_up(k.base)["name"]
    # A taken name is refused without hashing the password.
    r = call(k.base, "POST", "/v1/players", json={"name": taken.upper(), "password": PASSWORD},
             expect=409)
    assert "taken" in r.json()["detail"]

    stop = threading.Event()
    answers = []

    def flood(new_names):
        http = requests.Session()
        deadline = time.monotonic() + 20
        while not stop.is_set() and time.monotonic() < deadline:
            name = unique("fl") if new_names else taken
            r = http.post(k.base + "/v1/players", json={"name": name, "password": PASSWORD},
                          timeout=30)
            answers.append(r.status_code)

    threads = [threading.Thread(target=flood, args=(i < 2,), daemon=True) for i in range(6)]
    for t in threads:
        t.start()
    try:
        wait_until(lambda: len(answers) >= 20, 20, what="the flood to be under way")
        statuses = [call(k.base, "POST", "/v1/session",
                         json={"name": me["name"], "password": PASSWORD}).status_code
                    for _ in range(8)]
    finally:
        stop.set()
        for t in threads:
            t.join(30)
    # Every sign-in went through: none was told korpd was busy hashing.
    assert statuses == [200] * 8, statuses
    assert 409 in answers and 201 in answers, sorted(set(answers))


# ---------------------------------------------------------------- item 11


def test_password_change_sessions_list_and_sign_out_everywhere(start, streams):
    k = start(KORP_SSE_KEEPALIVE_SECONDS=300)
    p = sign_up(k.base)
    here, csrf = sign_in(k.base, p["name"])
    there, _ = sign_in(k.base, p["name"])
    elsewhere_stream = streams(k.base, cookie=cookie_of(there))
    assert elsewhere_stream.status == 200

    listed = call(k.base, "GET", "/v1/players/me/sessions", session=here, expect=200).json()
    assert len(listed["sessions"]) == 2
    assert [s["current"] for s in listed["sessions"]].count(True) == 1

    # A wrong current password changes nothing.
    call(k.base, "PUT", "/v1/players/me/password", session=here, csrf=csrf,
         json={"current_password": "not it at all", "new_password": "staple of the old mill"},
         expect=403)
    # A common new password is refused.
    call(k.base, "PUT", "/v1/players/me/password", session=here, csrf=csrf,
         json={"current_password": PASSWORD, "new_password": "password1"}, expect=400)
    call(k.base, "PUT", "/v1/players/me/password", session=here, csrf=csrf,
         json={"current_password": PASSWORD, "new_password": "staple of the old mill"},
         expect=204)
    # This session stays, the other ends (and its stream), the token stays.
    call(k.base, "GET", "/v1/session", session=here, expect=200)
    call(k.base, "GET", "/v1/session", session=there, expect=401)
    assert elsewhere_stream.ended.wait(5), "the ended session's stream still runs"
    call(k.base, "GET", "/v1/players/me", token=p["token"], expect=200)
    sign_in(k.base, p["name"], PASSWORD, expect=401)
    again, _ = sign_in(k.base, p["name"], "staple of the old mill")

    # Sign out everywhere else: the asking session stays.
    ended = call(k.base, "DELETE", "/v1/players/me/sessions", session=here, csrf=csrf,
                 expect=200).json()
    assert ended == {"ended": 1}
    call(k.base, "GET", "/v1/session", session=again, expect=401)
    call(k.base, "GET", "/v1/session", session=here, expect=200)
    # With a token: every session ends.
    assert call(k.base, "DELETE", "/v1/players/me/sessions", token=p["token"],
                expect=200).json() == {"ended": 1}
    call(k.base, "GET", "/v1/session", session=here, expect=401)


def test_a_session_ends_at_its_absolute_lifetime_however_often_used(korpd_binary, start):
    # Its own cluster: the test moves the database's clock.
    pg = Postgres()
    try:
        k = start(pg.url, KORP_TEST_CLOCK=1, KORP_SESSION_MAX_DAYS=2)
        env = dict(os.environ, KORP_DATABASE_URL=pg.url)
        arbiter = subprocess.run([korpd_binary, "admin", "create-arbiter", unique("arb")],
                                 env=env, capture_output=True, text=True, timeout=60,
                                 check=True).stdout.strip()
        p = sign_up(k.base)
        web, _ = sign_in(k.base, p["name"])
        # Used every day or so: 30 idle days are far off, only the 2-day lifetime can
        # end it.
        for hours in (23, 47):
            call(k.base, "POST", "/v1/admin/clock", token=arbiter,
                 json={"offset_seconds": hours * 3600}, expect=200)
            call(k.base, "GET", "/v1/session", session=web, expect=200)
        call(k.base, "POST", "/v1/admin/clock", token=arbiter,
             json={"offset_seconds": 49 * 3600}, expect=200)
        r = call(k.base, "GET", "/v1/session", session=web, expect=401)
        assert "sign in again" in r.json()["detail"]
    finally:
        pg.close()


# ---------------------------------------------------------------- item 12


def test_passwords_follow_nist_800_63b(start):
    k = start()

    def attempt(password):
        return call(k.base, "POST", "/v1/players",
                    json={"name": unique("pw"), "password": password}).status_code

    # Common ones are refused, in any case.
    for common in ("password", "12345678", "PassWord", "qwertyuiop", "iloveyou"):
        assert attempt(common) == 400, common
    # Length counts code points: two emoji are 8 bytes but 2 characters.
    assert attempt("\U0001F600\U0001F600") == 400
    assert attempt("ab\u00e9\u00e9\u00e9\u00e9c") == 400        # 7 characters, 11 bytes
    # A long passphrase in Cyrillic: 100 characters, 190 bytes.
    phrase = ("\u0437\u0438\u043c\u0430 \u043f\u0440\u0438\u0448\u043b\u0430 " * 10)[:100]
    assert len(phrase) == 100 and len(phrase.encode()) > 128
    assert attempt(phrase) == 201
    assert attempt("\u0439" * 128) == 201
    assert attempt("\u0439" * 129) == 400
    # The name itself is no password.
    name = unique("self")
    assert call(k.base, "POST", "/v1/players",
                json={"name": name, "password": name.upper()}).status_code == 400
    # The list is in the repository, with where it came from.
    data = os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "web", "data")
    with open(os.path.join(data, "common-passwords.txt")) as f:
        words = f.read().split("\n")
    assert len(words) > 3000 and "password" in words and "12345678" in words
    assert os.path.exists(os.path.join(data, "README.md"))


# ---------------------------------------------------------------- item 15


def test_sign_ups_are_limited_per_address(start):
    # Its own cluster: sign-ups are counted in the database, per address, for an hour.
    pg = Postgres()
    try:
        k = start(pg.url, KORP_SIGNUP_LIMIT=3)
        for _ in range(3):
            sign_up(k.base, password=None)
        r = call(k.base, "POST", "/v1/players", json={"name": unique("four")}, expect=429)
        wait = int(r.headers["Retry-After"])
        assert 0 < wait <= 3600, r.headers
        assert "3 players" in r.json()["detail"]
        # The limit holds across korpd processes: another one refuses too.
        other = start(pg.url, KORP_SIGNUP_LIMIT=3)
        call(other.base, "POST", "/v1/players", json={"name": unique("five")}, expect=429)
        # The test fixtures turn the limit off: the suite signs up many players.
        unlimited = start(pg.url)
        for _ in range(12):
            sign_up(unlimited.base, password=None)
    finally:
        pg.close()
