"""Web Push: the VAPID key, a player's subscriptions, and pushes through the outbox.

The receiving side is written here from the RFCs with python3-cryptography, as an
independent oracle: a push-service stand-in on loopback checks each request's VAPID
header (RFC 8292: an ES256 JWT whose signature verifies with the server's public key,
aud the endpoint's origin, exp within 24 hours, sub the contact) and decrypts the
aes128gcm body (RFC 8291 over RFC 8188) with the browser's private key and auth secret.
"""

import base64
import http.server
import json
import random
import subprocess
import threading
import time

import pytest
from cryptography.hazmat.primitives import hashes, serialization
from cryptography.hazmat.primitives.asymmetric import ec
from cryptography.hazmat.primitives.asymmetric.utils import encode_dss_signature
from cryptography.hazmat.primitives.ciphers.aead import AESGCM
from cryptography.hazmat.primitives.kdf.hkdf import HKDF

from korp_client import Api
from korp_fixtures import Korpd, free_port, wait_until

CONTACT = "mailto:push-test@example.org"
RNG = random.Random(8291)
WAIT = 30


def b64u(data):
    return base64.urlsafe_b64encode(data).rstrip(b"=").decode()


def unb64u(text):
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


class Browser:
    """A browser's subscription keys (seeded: the same run, the same keys)."""

    def __init__(self):
        self.key = ec.derive_private_key(RNG.randrange(1, 2**255), ec.SECP256R1())
        self.public = self.key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
        self.auth = RNG.randbytes(16)

    def subscription(self, endpoint):
        return {"endpoint": endpoint, "expirationTime": None,
                "keys": {"p256dh": b64u(self.public), "auth": b64u(self.auth)}}

    def decrypt(self, body):
        """RFC 8291 section 3.4 and RFC 8188 section 2, the receiving side."""
        salt, rs, idlen = body[:16], int.from_bytes(body[16:20], "big"), body[20]
        sender = body[21:21 + idlen]
        record = body[21 + idlen:]
        assert idlen == 65 and len(record) <= rs
        shared = self.key.exchange(ec.ECDH(), ec.EllipticCurvePublicKey.from_encoded_point(
            ec.SECP256R1(), sender))
        ikm = HKDF(hashes.SHA256(), 32, self.auth,
                   b"WebPush: info\x00" + self.public + sender).derive(shared)
        cek = HKDF(hashes.SHA256(), 16, salt, b"Content-Encoding: aes128gcm\x00").derive(ikm)
        nonce = HKDF(hashes.SHA256(), 12, salt, b"Content-Encoding: nonce\x00").derive(ikm)
        plain = AESGCM(cek).decrypt(nonce, record, None)
        assert plain.endswith(b"\x02"), "the last record ends with the delimiter 2"
        return json.loads(plain[:-1].rstrip(b"\x00"))


class PushService:
    """A push service on loopback: answers each path with the next of its statuses
    (201 when none is left) and keeps every request."""

    def __init__(self):
        self.port = free_port()
        self.origin = f"http://127.0.0.1:{self.port}"
        self.requests = []
        self.answers = {}
        self.lock = threading.Lock()
        service = self

        class Handler(http.server.BaseHTTPRequestHandler):
            def do_POST(self):
                body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
                with service.lock:
                    service.requests.append((self.path, dict(self.headers), body))
                    queue = service.answers.get(self.path, [])
                    status = queue.pop(0) if queue else 201
                self.send_response(status)
                self.send_header("Content-Length", "0")
                self.end_headers()

            def log_message(self, *args):
                pass

        self.server = http.server.ThreadingHTTPServer(("127.0.0.1", self.port), Handler)
        self.thread = threading.Thread(target=self.server.serve_forever, daemon=True)
        self.thread.start()

    def to(self, path):
        with self.lock:
            return [(h, b) for p, h, b in self.requests if p == path]

    def close(self):
        self.server.shutdown()
        self.server.server_close()


def verify_vapid(headers, origin, server_key):
    """The Authorization header's JWT, checked as a push service does; its claims."""
    scheme, _, params = headers["Authorization"].partition(" ")
    assert scheme == "vapid"
    fields = dict(p.strip().split("=", 1) for p in params.split(","))
    assert fields["k"] == server_key
    head, claims, signature = fields["t"].split(".")
    assert json.loads(unb64u(head)) == {"typ": "JWT", "alg": "ES256"}
    raw = unb64u(signature)
    assert len(raw) == 64, "ES256 is r || s, 64 bytes"
    public = ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), unb64u(server_key))
    public.verify(encode_dss_signature(int.from_bytes(raw[:32], "big"),
                                       int.from_bytes(raw[32:], "big")),
                  f"{head}.{claims}".encode(), ec.ECDSA(hashes.SHA256()))
    c = json.loads(unb64u(claims))
    assert c["aud"] == origin
    assert c["sub"] == CONTACT
    assert time.time() < c["exp"] <= time.time() + 24 * 3600
    return c


@pytest.fixture(scope="module")
def service():
    s = PushService()
    yield s
    s.close()


@pytest.fixture(scope="module")
def server(korpd_binary, shared_db_url):
    port = free_port()
    k = Korpd(korpd_binary, shared_db_url, port=port, KORP_PUSH_CONTACT=CONTACT,
              KORP_WEBHOOK_ALLOW_PRIVATE=1, KORP_NOTIFY_BACKOFF_SCALE=0.001,
              KORP_SWEEP_SECONDS=1,
              KORP_PUBLIC_URL=f"http://127.0.0.1:{port}")
    yield k
    k.close()


@pytest.fixture
def api(server):
    return Api(server.base)


def server_key(api):
    _, body = api.call("GET", "/v1/push/key", expect=200)
    return body["vapid_public_key"]


def subscribe(pa, browser, endpoint, expect=201):
    return pa.call("POST", "/v1/players/me/push-subscriptions",
                   json=browser.subscription(endpoint), expect=expect)[1]


def listed(pa):
    return pa.call("GET", "/v1/players/me/push-subscriptions", expect=200)[1]["subscriptions"]


def test_key_is_an_uncompressed_p256_point(api):
    key = unb64u(server_key(api))
    assert len(key) == 65 and key[0] == 4
    ec.EllipticCurvePublicKey.from_encoded_point(ec.SECP256R1(), key)   # raises if not
    assert server_key(api) == b64u(key), "one key for the database, unpadded base64url"


def test_key_is_kept_in_the_database(korpd_binary, shared_db_url, api):
    """A second korpd on the same database signs with the same key."""
    other = Korpd(korpd_binary, shared_db_url, KORP_PUSH_CONTACT=CONTACT)
    try:
        assert server_key(Api(other.base)) == server_key(api)
    finally:
        other.close()


def test_key_from_a_file(korpd_binary, shared_db_url, tmp_path):
    """KORP_VAPID_PRIVATE_KEY_FILE: the key pair of a PEM file, not the database's."""
    key = ec.derive_private_key(RNG.randrange(1, 2**255), ec.SECP256R1())
    pem = tmp_path / "vapid.pem"
    pem.write_bytes(key.private_bytes(serialization.Encoding.PEM,
                                      serialization.PrivateFormat.PKCS8,
                                      serialization.NoEncryption()))
    other = Korpd(korpd_binary, shared_db_url, KORP_PUSH_CONTACT=CONTACT,
                  KORP_VAPID_PRIVATE_KEY_FILE=str(pem))
    try:
        assert unb64u(server_key(Api(other.base))) == key.public_key().public_bytes(
            serialization.Encoding.X962, serialization.PublicFormat.UncompressedPoint)
    finally:
        other.close()


def test_push_off_without_a_contact(korpd_binary, shared_db_url):
    off = Korpd(korpd_binary, shared_db_url, KORP_PUSH_CONTACT=None)
    try:
        a = Api(off.base)
        status, body = a.call("GET", "/v1/push/key")
        assert status == 404 and body["type"].endswith("not-found")
        pa, _ = a.new_player("off")
        status, _ = pa.call("POST", "/v1/players/me/push-subscriptions",
                            json=Browser().subscription("http://127.0.0.1:9/x"))
        assert status == 404
        assert "push notifications are off" in off.log_text()
    finally:
        off.close()


def test_subscriptions_listed_and_deleted(api, service):
    pa, _ = api.new_player("sub")
    browser = Browser()
    first = subscribe(pa, browser, service.origin + "/a")["id"]
    again = subscribe(pa, browser, service.origin + "/a")["id"]
    assert again == first, "the same endpoint keeps its id"
    second = subscribe(pa, Browser(), service.origin + "/b")["id"]
    got = listed(pa)
    assert [s["id"] for s in got] == [first, second]
    assert [s["endpoint"] for s in got] == [service.origin + "/a", service.origin + "/b"]
    assert all(set(s) == {"id", "endpoint", "created_at"} for s in got)
    other, _ = api.new_player("other")
    assert listed(other) == []
    other.call("DELETE", "/v1/players/me/push-subscriptions/{id}", [first], expect=404)
    pa.call("DELETE", "/v1/players/me/push-subscriptions/{id}", [first], expect=204)
    pa.call("DELETE", "/v1/players/me/push-subscriptions/{id}", [first], expect=404)
    assert [s["id"] for s in listed(pa)] == [second]
    Api(api.base).call("GET", "/v1/players/me/push-subscriptions", expect=401)


def test_at_most_ten_a_player(api, service):
    pa, _ = api.new_player("ten")
    for i in range(10):
        subscribe(pa, Browser(), f"{service.origin}/ten/{i}")
    body = subscribe(pa, Browser(), f"{service.origin}/ten/10", expect=409)
    assert body["type"].endswith("conflict")
    subscribe(pa, Browser(), f"{service.origin}/ten/3")   # a known endpoint is no new one


@pytest.mark.parametrize("keys", [
    {"p256dh": b64u(b"\x04" + bytes(64))},                # not on the curve
    {"p256dh": b64u(b"\x04" + bytes(63))},                # 64 bytes
    {"p256dh": "compressed"},                             # 33 bytes: compressed? no
    {"p256dh": "not base64url!"},
    {"auth": b64u(bytes(15))},
    {"auth": b64u(bytes(17))},
    {"auth": base64.b64encode(bytes(16)).decode()},       # padded standard base64
])
def test_bad_keys_are_invalid_values(api, service, keys):
    pa, _ = api.new_player("bad")
    body = Browser().subscription(service.origin + "/bad")
    if "p256dh" in keys and keys["p256dh"] == "compressed":
        good = unb64u(body["keys"]["p256dh"])
        keys = {"p256dh": b64u(bytes([2 + good[64] % 2]) + good[1:33])}
    body["keys"].update(keys)
    status, problem = pa.call("POST", "/v1/players/me/push-subscriptions", json=body)
    assert status == 422 and problem["type"].endswith("invalid-value"), problem
    assert listed(pa) == []


@pytest.mark.parametrize("endpoint", ["ftp://127.0.0.1/x", "not a url", "mailto:a@example.org"])
def test_bad_endpoints_are_invalid_values(api, endpoint):
    pa, _ = api.new_player("ep")
    status, problem = pa.call("POST", "/v1/players/me/push-subscriptions",
                              json=Browser().subscription(endpoint))
    assert status == 422 and problem["type"].endswith("invalid-value"), problem


def test_private_endpoints_refused_by_default(korpd_binary, shared_db_url):
    strict = Korpd(korpd_binary, shared_db_url, KORP_PUSH_CONTACT=CONTACT)
    try:
        pa, _ = Api(strict.base).new_player("strict")
        status, problem = pa.call("POST", "/v1/players/me/push-subscriptions",
                                  json=Browser().subscription("https://127.0.0.1:9/x"))
        assert status == 422 and problem["type"].endswith("invalid-value"), problem
    finally:
        strict.close()


def a_game_where_black_waits(api):
    wa, w = api.new_player("pw")
    ba, b = api.new_player("pb")
    return wa, ba, wa.new_game(ba, b["id"])


def test_a_move_is_pushed_encrypted_and_signed(api, server, service):
    wa, ba, game = a_game_where_black_waits(api)
    browser = Browser()
    path = f"/move/{game['id']}"
    subscribe(ba, browser, service.origin + path)
    wa.move(game["id"], "K@e1")
    wait_until(lambda: service.to(path), WAIT, what="the push of the move")
    headers, body = service.to(path)[0]
    assert headers["Content-Encoding"] == "aes128gcm"
    assert int(headers["TTL"]) > 0
    assert headers["Urgency"] == "normal"
    verify_vapid(headers, service.origin, server_key(api))
    message = browser.decrypt(body)
    assert set(message) == {"type", "title", "body", "url", "game_id"}
    assert message["type"] == "move"
    assert message["game_id"] == game["id"]
    assert message["url"] == f"{server.base}/games/{game['id']}"
    assert message["title"] and message["body"]
    assert len(service.to(path)) == 1, "the mover is told nothing; black once"


def test_pushes_speak_the_players_language(api, service):
    wa, ba, game = a_game_where_black_waits(api)
    ba.call("PUT", "/v1/players/me/notifications", json={"language": "pl"}, expect=200)
    english_browser, polish_browser = Browser(), Browser()
    wa.call("PUT", "/v1/players/me/notifications", json={"language": "en"}, expect=200)
    subscribe(ba, polish_browser, service.origin + "/pl")
    subscribe(wa, english_browser, service.origin + "/en")
    wa.move(game["id"], "K@e1")
    ba.move(game["id"], "K@e8")
    wait_until(lambda: service.to("/pl") and service.to("/en"), WAIT, what="both pushes")
    polish = polish_browser.decrypt(service.to("/pl")[0][1])
    english = english_browser.decrypt(service.to("/en")[0][1])
    assert polish["type"] == english["type"] == "move"
    assert polish["title"] != english["title"]


def test_busy_service_is_retried(api, service):
    wa, ba, game = a_game_where_black_waits(api)
    service.answers["/busy"] = [503, 429]
    subscribe(ba, Browser(), service.origin + "/busy")
    wa.move(game["id"], "K@e1")
    wait_until(lambda: len(service.to("/busy")) >= 3, WAIT, what="two retries")
    assert len(listed(ba)) == 1


@pytest.mark.parametrize("status", [404, 410])
def test_gone_subscription_is_forgotten(api, service, status):
    wa, ba, game = a_game_where_black_waits(api)
    path = f"/gone/{status}"
    service.answers[path] = [status]
    subscribe(ba, Browser(), service.origin + path)
    keep = subscribe(ba, Browser(), service.origin + path + "/kept")["id"]
    wa.move(game["id"], "K@e1")
    wait_until(lambda: [s["id"] for s in listed(ba)] == [keep], WAIT,
               what="the expired subscription to be forgotten")
    assert len(service.to(path)) == 1, "no retry after the push service said it is gone"


def test_deadline_near_is_urgent(api, service, server, shared_db_url):
    """A reminder (deadline_near) goes out with Urgency: high.  The game's deadline is
    brought within the reminder's window in the database (no clock to move)."""
    wa, w = api.new_player("dw")
    ba, b = api.new_player("db")
    game = wa.new_game(ba, b["id"], days_per_move=1)
    browser = Browser()
    ba.call("PUT", "/v1/players/me/notifications", json={"reminder_hours": 48}, expect=200)
    subscribe(ba, browser, service.origin + "/urgent")
    wa.move(game["id"], "K@e1")
    subprocess.run(["psql", "-X", "-q", "-v", "ON_ERROR_STOP=1", "-d", shared_db_url, "-c",
                    "UPDATE games SET deadline = korp_now() + interval '1 hour'"
                    f" WHERE id = '{game['id']}'"], check=True, timeout=30, capture_output=True)
    wait_until(lambda: any(browser.decrypt(b)["type"] == "deadline_near"
                           for _, b in service.to("/urgent")), WAIT, what="the reminder push")
    for headers, body in service.to("/urgent"):
        want = "high" if browser.decrypt(body)["type"] == "deadline_near" else "normal"
        assert headers["Urgency"] == want


def test_push_events_choose_what_is_pushed(api, service):
    """push_events is a preference beside email_events and webhook_events: a kind left out
    of it is not pushed."""
    wa, ba, game = a_game_where_black_waits(api)
    prefs = ba.call("GET", "/v1/players/me/notifications", expect=200)[1]
    assert prefs["push_events"] == ["challenge", "move", "draw_offer", "game_end",
                                    "deadline_near", "message"]
    status, problem = ba.call("PUT", "/v1/players/me/notifications",
                              json={"push_events": ["move", "nonsense"]})
    assert status == 422 and problem["type"].endswith("invalid-value")
    got = ba.call("PUT", "/v1/players/me/notifications", json={"push_events": ["game_end"]},
                  expect=200)[1]
    assert got["push_events"] == ["game_end"]
    browser = Browser()
    subscribe(ba, browser, service.origin + "/chosen")
    wa.move(game["id"], "K@e1")
    wa.call("POST", "/v1/games/{id}/resign", [game["id"]], expect=200)
    wait_until(lambda: service.to("/chosen"), WAIT, what="the game_end push")
    types = [browser.decrypt(body)["type"] for _, body in service.to("/chosen")]
    assert types == ["game_end"], "the move was not pushed, the end was"


def test_queue_of_games_where_it_is_your_move(api):
    """GET /v1/games?to_move=: the active games where the player is to move, soonest
    deadline first, games without a deadline last; none where the opponent is to move,
    none finished."""
    pa, p = api.new_player("queue")
    oa, o = api.new_player("opp")
    none = pa.new_game(oa, o["id"])                            # no deadline, P white to move
    three = pa.new_game(oa, o["id"], days_per_move=3)
    one = pa.new_game(oa, o["id"], days_per_move=1)
    theirs = oa.new_game(pa, p["id"], days_per_move=1)         # P black, white to move
    over = pa.new_game(oa, o["id"], days_per_move=1)
    pa.call("POST", "/v1/games/{id}/resign", [over["id"]], expect=200)
    _, got = api.call("GET", "/v1/games", query={"to_move": p["id"]}, expect=200)
    assert [g["id"] for g in got["games"]] == [one["id"], three["id"], none["id"]]
    assert got["next"] is None
    assert all(g["to_move"] == "white" and g["white"]["id"] == p["id"] for g in got["games"])
    _, got = api.call("GET", "/v1/games", query={"to_move": p["id"], "limit": 2}, expect=200)
    assert [g["id"] for g in got["games"]] == [one["id"], three["id"]]
    # The opponent's turn comes once P has moved.
    pa.move(one["id"], "K@e1")
    _, got = api.call("GET", "/v1/games", query={"to_move": o["id"]}, expect=200)
    want = sorted((api.game(g["id"]) for g in (one, theirs)), key=lambda g: g["deadline"])
    assert [g["id"] for g in got["games"]] == [g["id"] for g in want], "soonest deadline first"
    for bad in ({"to_move": p["id"], "player": p["id"]}, {"to_move": p["id"], "status": "finished"},
                {"to_move": "no such!"}):
        status, _ = api.call("GET", "/v1/games", query=bad)
        assert status == 400, bad
