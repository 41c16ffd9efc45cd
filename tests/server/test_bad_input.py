"""Bad input, class by class: every request a client may get wrong gets a 4xx
answer with an RFC 9457 problem body (type, title, status, detail) that says
what was wrong; never a 5xx, never a crash.  After every test korpd must
still be running, answer /healthz, and have no sanitizer report in its log
(run against a -DKORP_SANITIZE=ON build to make that check bite).

Answers are checked against openapi.yaml (statuses the route declares, the
problem schema, required headers) with openapi_check; raw bytes (non-UTF-8,
over-long bodies, broken JSON, odd paths) are sent with requests or
http.client directly and checked the same way."""

import http.client
import json
import urllib.parse
import uuid

import pytest
import requests

from korp_client import Api
from openapi_check import check, check_problem, spec

JSON = {"Content-Type": "application/json"}
LIMIT = 64 * 1024
# A well-formed id (10 base62 characters) that no resource has.
NO_SUCH_ID = "ZZZZZZZZZ0"
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:", "ThreadSanitizer", "MemorySanitizer")


# ---------------------------------------------------------------------------
# korpd must survive every test


def assert_alive(korpd):
    assert korpd.proc.poll() is None, \
        f"korpd exited with {korpd.proc.returncode}:\n{korpd.log_text()[-4000:]}"
    r = requests.get(korpd.base + "/healthz", timeout=30)
    assert r.status_code == 200, f"/healthz: {r.status_code} {r.text}"
    log = korpd.log_text()
    for mark in SANITIZER_MARKS:
        assert mark not in log, f"sanitizer report in korpd's log:\n{log[-6000:]}"


@pytest.fixture(autouse=True)
def korpd_survives(korpd):
    yield
    assert_alive(korpd)


# ---------------------------------------------------------------------------
# helpers


def name(prefix="bi"):
    return f"{prefix}_{uuid.uuid4().hex[:12]}"


def assert_problem(r, method, template, status, slug=None, words=()):
    """r is a 4xx problem (status: an int or "4xx") that the contract allows for
    (method, template); its detail is a sentence naming one of `words`."""
    assert r.status_code < 500, \
        f"{method} {r.request.url if r.request else template}: {r.status_code} {r.text[:500]}"
    if template is not None:
        check(r, method, template)
    body = check_problem(r, slug or problem_slug(r))
    if status == "4xx":
        assert 400 <= r.status_code < 500, f"{r.status_code} {r.text}"
    else:
        assert r.status_code == status, f"expected {status}, got {r.status_code} {r.text}"
    detail = body["detail"]
    assert isinstance(detail, str) and len(detail.strip()) >= 10, f"detail too thin: {body}"
    if words:
        assert any(w.lower() in detail.lower() for w in words), \
            f"the detail {detail!r} names none of {words}"
    return body


def problem_slug(r):
    """The slug the problem claims (check_problem then checks the body's shape)."""
    try:
        t = json.loads(r.content.decode("utf-8")).get("type", "")
    except (UnicodeDecodeError, ValueError, AttributeError) as e:
        raise AssertionError(f"the problem body is not UTF-8 JSON ({e}): {r.content[:300]!r}")
    return t[len("/problems/"):] if t.startswith("/problems/") else "?"


class RawResponse(requests.Response):
    """A requests.Response built from http.client, so openapi_check can read it."""


def raw_request(base, method, path, body=None, headers=None):
    """Sends exactly this path (no normalisation, no re-encoding) and these bytes."""
    u = urllib.parse.urlsplit(base)
    conn = http.client.HTTPConnection(u.hostname, u.port, timeout=30)
    try:
        conn.putrequest(method, path, skip_accept_encoding=True)
        for k, v in (headers or {}).items():
            conn.putheader(k, v)
        if body is not None:
            conn.putheader("Content-Length", str(len(body)))
        conn.endheaders(body)
        resp = conn.getresponse()
        r = RawResponse()
        r.status_code = resp.status
        for k, v in resp.getheaders():
            r.headers[k] = v
        r._content = resp.read()
        r.url = base + path
        r.request = requests.Request(method, base + "/raw").prepare()
        r.request.url = base + path
        return r
    finally:
        conn.close()


# ---------------------------------------------------------------------------
# a small world shared by the module: two players, an arbiter, games


class World:
    def __init__(self, korpd, arbiter):
        self.base = korpd.base
        self.anon = Api(korpd.base)
        self.a, self.a_body = self.anon.new_player("bia")
        self.b, self.b_body = self.anon.new_player("bib")
        self.arbiter = arbiter
        # a Korpalski game, A white, nobody has moved: A is to move
        self.gid = self.a.new_game(self.b, self.b_body["id"])["id"]

    def token(self, who):
        return {"a": self.a.token, "b": self.b.token, "arbiter": self.arbiter.token,
                None: None}[who]

    def fresh_game(self, variant="korpalski"):
        return self.a.new_game(self.b, self.b_body["id"], variant=variant)["id"]

    def post(self, path, data, token=None, headers=None, content_type="application/json"):
        h = {}
        if content_type is not None:
            h["Content-Type"] = content_type
        if token is not None:
            h["Authorization"] = f"Bearer {token}"
        h.update(headers or {})
        return requests.post(self.base + path, data=data, headers=h, timeout=30)


@pytest.fixture(scope="module")
def world(korpd, arbiter):
    return World(korpd, arbiter)


@pytest.fixture
def fresh(world):
    """A new Korpalski game (A white, to move) for a test whose requests could change
    a game if korpd wrongly accepted them; its state is returned to compare."""
    gid = world.fresh_game()
    return gid, world.anon.game(gid)


# The routes that take a JSON body: (template, who calls, a valid body, fields).
# A body listed here is never sent as is (the clock and adjudication would act).
def json_routes(w, gid=None):
    gid = gid or w.gid
    return {
        "players": ("/v1/players", None, {"name": name()},
                    {"name": "string", "email": "string|null"}),
        "challenges": ("/v1/challenges", "a",
                       {"variant": "korpalski", "opponent": w.b_body["id"], "color": "white",
                        "days_per_move": None, "fifty_move_rule": True},
                       {"variant": "string", "opponent": "string", "color": "string",
                        "days_per_move": "integer|null", "fifty_move_rule": "boolean"}),
        "moves": (f"/v1/games/{gid}/moves", "a", {"move": "K@e4", "ply": 0},
                  {"move": "string", "ply": "integer"}),
        "claims": (f"/v1/games/{gid}/claims", "a", {"kind": "threefold", "move": "K@e4"},
                   {"kind": "string", "move": "string"}),
        "draw": (f"/v1/games/{gid}/draw", "a", {"action": "offer"}, {"action": "string"}),
        "adjudication": (f"/v1/games/{gid}/adjudication", "arbiter",
                         {"result": "1-0", "reason": "a test"},
                         {"result": "string", "reason": "string"}),
        "clock": ("/v1/admin/clock", "arbiter", {"offset_seconds": 0},
                  {"offset_seconds": "integer"}),
        # give-time and leave
        "give-time": (f"/v1/games/{gid}/give-time", "a", {"days": 1}, {"days": "integer"}),
        "leave": ("/v1/players/me/leave", "a", {"start": "2026-12-01", "days": 1},
                  {"start": "string", "days": "integer"}),
    }


TEMPLATES = {
    "players": "/v1/players",
    "challenges": "/v1/challenges",
    "moves": "/v1/games/{id}/moves",
    "claims": "/v1/games/{id}/claims",
    "draw": "/v1/games/{id}/draw",
    "adjudication": "/v1/games/{id}/adjudication",
    "clock": "/v1/admin/clock",
    # give-time and leave
    "give-time": "/v1/games/{id}/give-time",
    "leave": "/v1/players/me/leave",
}
ROUTES = list(TEMPLATES)


def send(world, route, data, content_type="application/json", headers=None, gid=None):
    path, who, _, _ = json_routes(world, gid)[route]
    if isinstance(data, (dict, list)):
        data = json.dumps(data).encode()
    return world.post(path, data, world.token(who), headers, content_type)


def game_unchanged(world, gid, before):
    after = world.anon.game(gid)
    for k in ("ply", "fen", "status", "moves", "draw_offer", "updated_at", "result"):
        assert after[k] == before[k], f"a refused request changed the game's {k}: " \
                                      f"{before[k]!r} -> {after[k]!r}"


# ---------------------------------------------------------------------------
# 413: bodies over 64 KiB


@pytest.mark.parametrize("route", ROUTES + ["tokens"])
def test_body_over_64_kib_is_413(world, route):
    padding = b" " * (LIMIT + 1)
    if route == "tokens":
        r = world.post("/v1/players/me/tokens", b"{}" + padding, world.a.token)
        template = "/v1/players/me/tokens"
    else:
        r = send(world, route, b"{}" + padding)
        template = TEMPLATES[route]
    assert_problem(r, "POST", template, 413, "body-too-large", ("64 KiB", "large"))


def test_body_of_exactly_64_kib_is_read(world):
    body = b'{"name":"x"}'
    body += b" " * (LIMIT - len(body))
    r = world.post("/v1/players", body)
    # read and judged on its content (a 1-character name), not refused for its size
    assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("name",))


def test_chunked_body_over_64_kib_is_refused_and_korpd_lives(world, korpd):
    def chunks():
        yield b'{"name":"'
        for _ in range(80):
            yield b"a" * 1024
        yield b'"}'
    try:
        r = requests.post(world.base + "/v1/players", data=chunks(), headers=JSON, timeout=30)
    except requests.ConnectionError:
        # korpd closes the connection instead of reading a chunked body without end:
        # acceptable (it cannot announce 413 in the middle of a chunked upload)
        pass
    else:
        assert_problem(r, "POST", "/v1/players", 413, "body-too-large")
    assert_alive(korpd)


def test_content_length_lie_is_refused(world):
    # announces 1 MiB and sends nothing: korpd answers 413 from the header alone
    r = raw_request(world.base, "POST", "/v1/players", None,
                    {"Content-Type": "application/json", "Content-Length": str(1 << 20)})
    assert_problem(r, "POST", "/v1/players", 413, "body-too-large")


# ---------------------------------------------------------------------------
# 415: wrong or missing Content-Type


BAD_TYPES = [None, "text/plain", "application/x-www-form-urlencoded", "multipart/form-data",
             "application/jsonx", "application/json-seq", "json", "", "text/json",
             "application/xml"]


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("ctype", BAD_TYPES, ids=lambda c: repr(c))
def test_wrong_content_type_is_415(world, route, ctype):
    r = send(world, route, b'{"x":1}', content_type=ctype)
    assert_problem(r, "POST", TEMPLATES[route], 415, "unsupported-media-type",
                   ("application/json",))


@pytest.mark.parametrize("ctype", ["application/json; charset=utf-8", "Application/JSON",
                                   "application/json;charset=UTF-8"])
def test_json_content_type_with_parameters_or_case_is_read(world, ctype):
    # a control: the body is read (and refused for its unknown member), not the type
    r = send(world, "players", b'{"name":"ok_name","bogus":1}', content_type=ctype)
    assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("bogus",))


def test_content_type_with_non_utf8_bytes_is_415_in_utf8(world):
    r = world.post("/v1/players", b'{"name":"abc"}', content_type=b"text/\xff\xfeplain")
    # the problem body must itself be UTF-8 JSON even if korpd quotes the header
    assert_problem(r, "POST", "/v1/players", 415, "unsupported-media-type")


# ---------------------------------------------------------------------------
# 400: bodies that are not a JSON object


MALFORMED = [
    b"{", b"}", b'{"move":}', b"{'move':'x'}", b'{"move":"x",}', b'{"move" "x"}',
    b'{"move":"x"', b'{"a":NaN}', b'{"a":Infinity}', b'{"a":-Infinity}', b'{"a":01}',
    b'{"a":.5}', b'{"a":1.}', b'{"a":+1}', b'{"a":0x10}', b'{"a":"\\x41"}', b'{"a":"\\u12"}',
    b'{"a":"\\uZZZZ"}', b'{"a":tru}', b'{"a":nul}', b'{"a":"open}', b"/*c*/{}",
    b'{"a":1/*c*/}', b"{a:1}", b'{"a"=1}', b'{"a":[1,]}', b'{"a":[1 2]}', b'{,}',
    b'{"a":1,,"b":2}', b"\x00", b"   ", b"\n",
    # raw control characters inside a string must be escaped (RFC 8259 section 7)
    b'{"move":"K@e4\x01"}', b'{"move":"K@\te4"}', b'{"move":"K@e4\x00"}',
]


def refused_field(world, fresh, route, field, value):
    """The route's valid body with field set to value, sent on the fresh game: 400
    bad-request naming the field, the game as it was."""
    gid, before = fresh
    _, _, valid, _ = json_routes(world, gid)[route]
    r = send(world, route, {**valid, field: value}, gid=gid)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", (field,))
    game_unchanged(world, gid, before)


def refused_unchanged(world, fresh, route, body):
    """body sent to route on the fresh game: 400 bad-request, the game as it was."""
    gid, before = fresh
    r = send(world, route, body, gid=gid)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request")
    game_unchanged(world, gid, before)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("body", MALFORMED, ids=lambda b: repr(b)[:40])
def test_malformed_json_is_400(world, fresh, route, body):
    refused_unchanged(world, fresh, route, body)


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("body", [b"[]", b'[{"move":"K@e4"}]', b"1", b"-0.5", b'"move"',
                                  b"null", b"true", b"false", b'""'],
                         ids=lambda b: b.decode())
def test_body_that_is_not_an_object_is_400(world, route, body):
    r = send(world, route, body)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", ("object", "JSON"))


@pytest.mark.parametrize("route", ROUTES)
def test_empty_body_is_400(world, route):
    r = send(world, route, b"")
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", ("empty", "body"))


@pytest.mark.parametrize("route", ROUTES)
def test_no_body_and_no_content_type_is_4xx(world, route):
    path, who, _, _ = json_routes(world)[route]
    h = {"Authorization": f"Bearer {world.token(who)}"} if who else {}
    r = requests.post(world.base + path, headers=h, timeout=30)
    # the contract does not say whether an absent body is "not JSON" (415) or "empty" (400)
    assert r.status_code in (400, 415), r.text
    assert_problem(r, "POST", TEMPLATES[route], "4xx")


TRAILING = [b'{"move":"K@e4"} x', b'{"move":"K@e4"}{}', b'{"move":"K@e4"}\x00',
            b'{"move":"K@e4"},', b'{"move":"K@e4"}]', b'{"move":"K@e4"} // c',
            b'{"move":"K@e4"}\n{"move":"K@d4"}', b'{"move":"K@e4"}"x"']


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("body", TRAILING, ids=lambda b: repr(b)[:40])
def test_trailing_garbage_after_the_json_is_400(world, fresh, route, body):
    refused_unchanged(world, fresh, route, body)


def test_trailing_whitespace_is_fine(world):
    # a control: whitespace after the value is allowed by JSON
    r = send(world, "players", b'{"name":"x"} \r\n\t ')
    assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("name",))


# ---------------------------------------------------------------------------
# 400: nesting deeper than 8


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("depth", [9, 10, 64, 5000])
def test_nesting_deeper_than_8_is_400(world, route, depth):
    _, _, valid, fields = json_routes(world)[route]
    field = next(iter(fields))
    # the body object is level 1; depth - 1 arrays inside one of its members
    body = ('{"%s":' % field + "[" * (depth - 1) + "]" * (depth - 1) + "}").encode()
    r = send(world, route, body)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", ("nest", "deep", "depth"))


@pytest.mark.parametrize("route", ROUTES)
def test_nesting_of_objects_and_a_bare_array_is_400(world, route):
    r = send(world, route, b'{"a":' * 12 + b"1" + b"}" * 12)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", ("nest", "deep", "depth"))
    r = send(world, route, b"[" * 20 + b"]" * 20)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request")


def test_nesting_of_8_is_parsed_and_brackets_in_strings_do_not_count(world):
    # depth 8 exactly: parsed, then refused for the member's type
    r = send(world, "players", b'{"name":' + b"[" * 7 + b"]" * 7 + b"}")
    assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("name",))
    # brackets inside a string are text: a move that cannot be read (422), not nesting
    gid = world.fresh_game()
    r = world.post(f"/v1/games/{gid}/moves", json.dumps({"move": "[[[[[[[[[[[[[["}).encode(),
                   world.a.token)
    assert_problem(r, "POST", "/v1/games/{id}/moves", 422, "illegal-move")


# ---------------------------------------------------------------------------
# 400: a value of the wrong type, for every field of every route


SAMPLES = {
    "string": ["x", "K@e4"],
    "integer": [1, 0, -3],
    "number": [1.5, -0.25, 1e300],
    "boolean": [True, False],
    "null": [None],
    "array": [[], ["x"], [1]],
    "object": [{}, {"x": 1}],
}
ACCEPTS = {"string": {"string"}, "integer": {"integer"}, "boolean": {"boolean"},
           "null": {"null"}}


def wrong_values(ftype):
    allowed = set()
    for part in ftype.split("|"):
        allowed |= ACCEPTS[part]
    out = []
    for kind, values in SAMPLES.items():
        if kind in allowed:
            continue
        for v in values:
            out.append(v)
    if "integer" in allowed:
        out += ["1", "0"]      # numbers as strings
    if "boolean" in allowed:
        out += ["true", "false"]  # booleans as strings (1 and 0 are among the integers)
    return out


def type_cases():
    fields = {
        "players": {"name": "string", "email": "string|null", "password": "string"},
        "challenges": {"variant": "string", "opponent": "string|null", "color": "string",
                       "days_per_move": "integer|null", "fifty_move_rule": "boolean"},
        "moves": {"move": "string", "ply": "integer"},
        "claims": {"kind": "string", "move": "string"},
        "draw": {"action": "string"},
        "adjudication": {"result": "string", "reason": "string"},
        "clock": {"offset_seconds": "integer"},
        # give-time and leave
        "give-time": {"days": "integer"},
        "leave": {"start": "string", "days": "integer"},
    }
    for route, fs in fields.items():
        for field, ftype in fs.items():
            for v in wrong_values(ftype):
                # booleans 1/0 are also integers: only wrong where no integer fits
                yield pytest.param(route, field, v, id=f"{route}.{field}={json.dumps(v)}")


@pytest.mark.parametrize("route,field,value", list(type_cases()))
def test_wrong_type_for_each_field_is_400(world, fresh, route, field, value):
    refused_field(world, fresh, route, field, value)


@pytest.mark.parametrize("route", ROUTES)
def test_missing_required_field_is_400(world, route):
    _, _, valid, fields = json_routes(world)[route]
    required = {"players": ["name"], "challenges": ["variant", "opponent"], "moves": ["move"],
                "claims": ["kind"], "draw": ["action"], "adjudication": ["result", "reason"],
                "clock": ["offset_seconds"],
                # give-time and leave
                "give-time": ["days"], "leave": ["start", "days"]}[route]
    for field in required:
        body = {k: v for k, v in valid.items() if k != field}
        r = send(world, route, body)
        assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", (field,))
    r = send(world, route, {})
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", tuple(required))


# ---------------------------------------------------------------------------
# 400: unknown and duplicate members


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("extra", ["bogus", "Move", "colour", "NAME", "id", "__proto__", "",
                                   "a" * 200, "\u00e9t\u00e9"])
def test_unknown_member_is_400(world, fresh, route, extra):
    gid, before = fresh
    _, _, valid, _ = json_routes(world, gid)[route]
    body = dict(valid)
    body[extra] = 1
    r = send(world, route, json.dumps(body, ensure_ascii=False).encode(), gid=gid)
    words = (extra[:20],) if extra and extra.isascii() else ("unknown",)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", words)
    game_unchanged(world, gid, before)


@pytest.mark.parametrize("route", ROUTES)
def test_unknown_member_with_a_long_multibyte_name_is_answered_in_utf8(world, route):
    # korpd may shorten a long member name in its detail, but not in the middle of a
    # character: the problem must stay UTF-8 JSON
    for key in ["a" * 63 + "\u00e9", "\u00e9" * 40, "a" * 62 + "\U0001F600"]:
        r = send(world, route, json.dumps({key: 1}, ensure_ascii=False).encode())
        assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request")


@pytest.mark.parametrize("route", ROUTES)
def test_duplicate_member_is_400(world, fresh, route):
    gid, before = fresh
    _, _, valid, fields = json_routes(world, gid)[route]
    field = next(iter(fields))
    text = json.dumps(valid)
    dup = text[:-1] + ", " + json.dumps(field) + ": " + json.dumps(valid[field]) + "}"
    r = send(world, route, dup.encode(), gid=gid)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", (field,))
    # the same member with different values: which one wins must not matter
    other = '{"%s": 1, "%s": "x"}' % (field, field)
    r = send(world, route, other.encode(), gid=gid)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request")
    game_unchanged(world, gid, before)


def test_duplicate_move_member_plays_nothing(world):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    r = world.post(f"/v1/games/{gid}/moves", b'{"move":"K@e4","move":"K@d4"}', world.a.token)
    assert_problem(r, "POST", "/v1/games/{id}/moves", 400, "bad-request", ("move",))
    game_unchanged(world, gid, before)


# ---------------------------------------------------------------------------
# 400: move strings over 32 bytes (bytes, not characters)


@pytest.mark.parametrize("route", ["moves", "claims"])
@pytest.mark.parametrize("move", ["a" * 33, "K@e4" + " " * 29, "\u017c" * 17, "\u20ac" * 11,
                                  "\U0001F600" * 9, "x" * 1000, ""],
                         ids=lambda m: f"{len(m.encode())}B")
def test_move_over_32_bytes_or_empty_is_400(world, route, move):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    body = {"move": move} if route == "moves" else {"kind": "threefold", "move": move}
    r = world.post(f"/v1/games/{gid}/{route}", json.dumps(body, ensure_ascii=False).encode(),
                   world.a.token)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", ("move",))
    game_unchanged(world, gid, before)


@pytest.mark.parametrize("move", ["a" * 32, "\u017c" * 16, "\U0001F600" * 8, "K@e4" + " " * 28])
def test_move_of_32_bytes_is_read_as_a_move(world, move):
    # a control: 32 bytes is allowed; these cannot be read as moves (422), or are (201)
    gid = world.fresh_game()
    r = world.post(f"/v1/games/{gid}/moves", json.dumps({"move": move}).encode(),
                   world.a.token)
    if r.status_code == 201:
        check(r, "POST", "/v1/games/{id}/moves")
    else:
        body = assert_problem(r, "POST", "/v1/games/{id}/moves", 422, "illegal-move")
        assert body["move"] == move and body["ply"] == 0


# ---------------------------------------------------------------------------
# 400: text that is not UTF-8


NON_UTF8 = {
    "latin1": b"caf\xe9",
    "overlong-slash": b"a\xc0\xafb",
    "overlong-nul": b"a\xc0\x80b",
    "overlong-3byte": b"a\xe0\x80\xafb",
    "overlong-4byte": b"a\xf0\x80\x80\xafb",
    "surrogate-high": b"a\xed\xa0\x80b",
    "surrogate-low": b"a\xed\xbf\xbfb",
    "surrogate-pair-cesu": b"\xed\xa0\xbd\xed\xb8\x80",
    "above-10ffff": b"\xf4\x90\x80\x80",
    "f5": b"\xf5\x80\x80\x80",
    "ff": b"\xff",
    "fe": b"\xfe\xff",
    "lone-continuation": b"a\x80b",
    "truncated-2": b"a\xc3",
    "truncated-3": b"a\xe2\x82",
    "truncated-4": b"a\xf0\x9f\x98",
}


@pytest.mark.parametrize("route", ROUTES)
@pytest.mark.parametrize("kind", list(NON_UTF8))
def test_non_utf8_in_a_json_string_is_400(world, fresh, route, kind):
    gid, before = fresh
    _, _, valid, fields = json_routes(world, gid)[route]
    # a string member where there is one (the clock has none: its number becomes a string)
    field = next((f for f, t in fields.items() if t.startswith("string")), next(iter(fields)))
    body = json.dumps({**valid, field: "@@"}).encode().replace(b"@@", NON_UTF8[kind])
    r = send(world, route, body, gid=gid)
    assert_problem(r, "POST", TEMPLATES[route], 400, "bad-request", ("UTF-8", "utf8", "encoding"))
    game_unchanged(world, gid, before)


@pytest.mark.parametrize("kind", list(NON_UTF8))
def test_non_utf8_outside_strings_is_400(world, kind):
    bad = NON_UTF8[kind]
    for body in [b'{"' + bad + b'":1}', b"{" + bad + b"}", b'{"name":"abc"}' + bad,
                 bad + b'{"name":"abc"}']:
        r = world.post("/v1/players", body)
        assert_problem(r, "POST", "/v1/players", 400, "bad-request")


@pytest.mark.parametrize("encoding", ["utf-16", "utf-16-le", "utf-16-be", "utf-32",
                                      "latin-1", "cp1250"])
def test_body_in_another_encoding_is_400(world, encoding):
    text = '{"name":"\u017c\u00f3\u0142w_%s"}' % uuid.uuid4().hex[:6]
    r = world.post("/v1/players", text.encode(encoding, errors="replace"))
    assert_problem(r, "POST", "/v1/players", 400, "bad-request")


@pytest.mark.parametrize("escape", [b"\\ud800", b"\\udc00", b"\\ud800\\u0041", b"\\udfff\\ud800",
                                    b"\\ud83d", b"x\\ud83dx"])
def test_escaped_lone_surrogate_is_400(world, escape):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    r = world.post(f"/v1/games/{gid}/moves", b'{"move":"K@e4' + escape + b'"}', world.a.token)
    assert_problem(r, "POST", "/v1/games/{id}/moves", 400, "bad-request")
    r = world.post("/v1/players", b'{"name":"ab' + escape + b'"}')
    assert_problem(r, "POST", "/v1/players", 400, "bad-request")
    game_unchanged(world, gid, before)


def test_valid_utf8_and_escaped_pairs_are_read(world):
    # controls: well-formed non-ASCII text is read and judged on its meaning
    gid = world.fresh_game()
    for move in ["\u017c\u00f3\u0142w", "K@e4\u00e9", "\U0001F600"]:
        r = world.post(f"/v1/games/{gid}/moves", json.dumps({"move": move}).encode(),
                       world.a.token)
        body = assert_problem(r, "POST", "/v1/games/{id}/moves", 422, "illegal-move")
        assert body["move"] == move
    r = world.post(f"/v1/games/{gid}/moves", b'{"move":"\\ud83d\\ude00"}', world.a.token)
    assert_problem(r, "POST", "/v1/games/{id}/moves", 422, "illegal-move")


# ---------------------------------------------------------------------------
# NUL characters: a string with \u0000 must not be read as the text before it


def test_nul_in_a_move_plays_nothing(world):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    for body in [b'{"move":"K@e4\\u0000junk"}', b'{"move":"K@e4\\u0000"}']:
        r = world.post(f"/v1/games/{gid}/moves", body, world.a.token)
        assert r.status_code in (400, 422), \
            f"{body!r} -> {r.status_code} {r.text[:300]}: the move before the NUL was played"
        assert_problem(r, "POST", "/v1/games/{id}/moves", r.status_code)
    game_unchanged(world, gid, before)


def test_nul_in_a_name_creates_no_player(world):
    stem = f"nul{uuid.uuid4().hex[:10]}"
    r = world.post("/v1/players", json.dumps({"name": stem + "\u0000tail"}).encode())
    assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("name",))
    # the name before the NUL is still free
    r = world.post("/v1/players", json.dumps({"name": stem}).encode())
    assert r.status_code == 201, f"'{stem}' was taken by the NUL request: {r.text}"


@pytest.mark.parametrize("route,field,value", [
    ("challenges", "variant", "korpalski\u0000x"),
    ("challenges", "color", "white\u0000x"),
    ("claims", "kind", "threefold\u0000x"),
    ("draw", "action", "offer\u0000x"),
    ("adjudication", "result", "1-0\u0000x"),
])
def test_nul_in_an_enum_is_400(world, fresh, route, field, value):
    refused_field(world, fresh, route, field, value)


# ---------------------------------------------------------------------------
# 400: numbers out of range


@pytest.mark.parametrize("days", [0, 61, 1.5, 1e300, -1, -0.5, 1e-300, 100, 2 ** 63, -(2 ** 63) - 1,
                                  1e19, 60.000001, 0.99999, "1e400", "-1e400", "-0",
                                  "1e99999999999"])
def test_days_per_move_out_of_range_is_400(world, days):
    # strings here are JSON number literals sent as written (1e400 is beyond a double)
    value = days if isinstance(days, str) else json.dumps(days)
    r = world.post("/v1/challenges",
                   ('{"variant":"korpalski","opponent":"%s","days_per_move":%s}'
                    % (world.b_body["id"], value)).encode(), world.a.token)
    assert_problem(r, "POST", "/v1/challenges", 400, "bad-request", ("days_per_move",))


@pytest.mark.parametrize("days", [1, 60, None, 1.0])
def test_days_per_move_in_range_is_accepted(world, days):
    _, ch = world.a.call("POST", "/v1/challenges",
                         json={"variant": "glinski", "opponent": world.b_body["id"],
                               "days_per_move": days}, expect=201)
    assert ch["days_per_move"] == (None if days is None else int(days))
    world.a.call("POST", "/v1/challenges/{id}/cancel", [ch["id"]], expect=200)


@pytest.mark.parametrize("ply", [-1, 1.5, 1e300, -1e300, 1e19, 2 ** 63, 2 ** 64, -(2 ** 63),
                                 "1e400", "-1e400", "0.5"])
def test_ply_out_of_range_is_400(world, ply):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    value = ply if isinstance(ply, str) else json.dumps(ply)
    r = world.post(f"/v1/games/{gid}/moves", ('{"move":"K@e4","ply":%s}' % value).encode(),
                   world.a.token)
    assert_problem(r, "POST", "/v1/games/{id}/moves", 400, "bad-request", ("ply",))
    game_unchanged(world, gid, before)


@pytest.mark.parametrize("ply", [1, 1000, 2 ** 31, 2 ** 31 + 1, 4294967296])
def test_large_ply_is_a_mismatch_not_a_crash(world, ply):
    gid = world.fresh_game()
    r = world.post(f"/v1/games/{gid}/moves",
                   json.dumps({"move": "K@e4", "ply": ply}).encode(), world.a.token)
    # within the integer range korpd accepts it is a ply mismatch; beyond it a 400
    assert r.status_code in (400, 409), r.text
    assert_problem(r, "POST", "/v1/games/{id}/moves", r.status_code,
                   "ply-mismatch" if r.status_code == 409 else "bad-request", ("ply",))
    assert world.anon.game(gid)["ply"] == 0


@pytest.mark.parametrize("offset", [-1, 1.5, 1e300, -1e300, 2 ** 63, 1e19, '"60"', "1e400",
                                    "-1e400", "-0.5"])
def test_clock_offset_out_of_range_is_400(world, offset):
    value = offset if isinstance(offset, str) else json.dumps(offset)
    r = world.post("/v1/admin/clock", ('{"offset_seconds":%s}' % value).encode(),
                   world.arbiter.token)
    assert_problem(r, "POST", "/v1/admin/clock", 400, "bad-request", ("offset_seconds",))


# ---------------------------------------------------------------------------
# 400: bad enums


ENUMS = {
    ("challenges", "variant"): ["Korpalski", "KORPALSKI", "chess", "crazyhouse", "", " korpalski",
                                "korpalski ", "glinski2", "hex", "korpalsk", "k" * 200],
    ("challenges", "color"): ["White", "green", "", "random ", "none", "w", "both"],
    ("claims", "kind"): ["Threefold", "three-fold", "fifty", "perpetual", "", "fifty_move",
                         "50-move", "repetition"],
    ("draw", "action"): ["Offer", "propose", "accept ", "", "resign", "claim", "cancel"],
    ("adjudication", "result"): ["1-1", "2-0", "1/2", "*", "0.5-0.5", "", "1-0 ", "3/4-3/4",
                                 "1/2-1/2 ", "white"],
}


@pytest.mark.parametrize("route,field,value",
                         [pytest.param(r, f, v, id=f"{r}.{f}={v!r}")
                          for (r, f), vs in ENUMS.items() for v in vs])
def test_bad_enum_is_400(world, fresh, route, field, value):
    refused_field(world, fresh, route, field, value)


def test_bad_enum_in_a_claim_by_the_wrong_side_is_still_400(world):
    # the body is judged before the game: B is not to move, but the kind is bad
    r = world.post(f"/v1/games/{world.gid}/claims", b'{"kind":"perpetual"}', world.b.token)
    assert_problem(r, "POST", "/v1/games/{id}/claims", 400, "bad-request", ("kind",))


# ---------------------------------------------------------------------------
# names and emails


# Latin letters with accents are names (test_player_names.py: żółw, café); emoji are not.
BAD_NAMES = ["a", "x" * 31, "x" * 64, "x" * 65, "x" * 60000, "a b", " ab", "ab ",
             "\U0001F600\U0001F600",
             "x'); DROP TABLE players;--", "a;b", "a.b",
             "a/b", "a@b", "<script>", "", "ab\tc", "ab\nc", "\u0430\u0431\u0432",  # Cyrillic
             "\uff41\uff42",  # full-width
             "ab\u200bcd",  # zero-width space
             "null", ]


@pytest.mark.parametrize("bad", BAD_NAMES, ids=lambda n: repr(n)[:30])
def test_bad_name_is_400(world, bad):
    if bad == "null":   # a control: "null" is a fine name if free; only its JSON null is bad
        r = world.post("/v1/players", b'{"name":null}')
        assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("name",))
        return
    r = world.post("/v1/players", json.dumps({"name": bad}, ensure_ascii=False).encode())
    assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("name",))


def test_sql_looking_names_and_ids_do_not_hurt(world):
    for text in ["x'); DROP TABLE players;--", "' OR '1'='1", "\"; SELECT pg_sleep(5);--"]:
        r = world.post("/v1/players", json.dumps({"name": text}).encode())
        assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("name",))
        r = world.post("/v1/challenges",
                       json.dumps({"variant": "korpalski", "opponent": text}).encode(),
                       world.a.token)
        assert_problem(r, "POST", "/v1/challenges", 404, "not-found")
    # the tables are there
    world.anon.new_player("after_sql")
    world.anon.call("GET", "/v1/players/{id}", [world.a_body["id"]], expect=200)


def test_taken_name_in_another_case_is_409(world):
    stem = f"Case_{uuid.uuid4().hex[:8]}"
    world.anon.call("POST", "/v1/players", json={"name": stem}, expect=201)
    for other in [stem.lower(), stem.upper(), stem]:
        r = world.post("/v1/players", json.dumps({"name": other}).encode())
        assert_problem(r, "POST", "/v1/players", 409, "conflict", (other, "taken"))


def test_names_of_2_and_30_characters_are_fine(world):
    world.anon.call("POST", "/v1/players", json={"name": "n-" + uuid.uuid4().hex[:28]},
                    expect=201)
    # 2 characters: may be taken by an earlier run of the suite on the same database
    two = uuid.uuid4().hex[:2]
    status, _ = world.anon.call("POST", "/v1/players", json={"name": two})
    assert status in (201, 409)


BAD_EMAILS = ["nope", "@x.org", "x@", "a@b@c.org", "a b@c.org", "<a@b.org>", "a@b.org, c@d.org",
              'a"b@c.org', "a@" + "b" * 253, "", "ab", "a@b.org;x", "a@b.org\n", "\t@x.org"]


@pytest.mark.parametrize("email", BAD_EMAILS, ids=lambda e: repr(e)[:30])
def test_bad_email_is_400(world, email):
    r = world.post("/v1/players", json.dumps({"name": name("em"), "email": email}).encode())
    assert_problem(r, "POST", "/v1/players", 400, "bad-request", ("email",))


def test_good_email_and_null_email_are_fine(world):
    world.anon.call("POST", "/v1/players", json={"name": name("em"), "email": "a.b+c@d.example"},
                    expect=201)
    _, p = world.anon.call("POST", "/v1/players", json={"name": name("em"), "email": None},
                           expect=201)
    _, me = world.anon.as_(p["token"]).call("GET", "/v1/players/me", expect=200)
    assert me["email"] is None


# ---------------------------------------------------------------------------
# 401: missing, malformed, unknown or revoked tokens


def token_operations():
    # korp's own API; the lichess-shaped routes (/api/, /game/export/) answer
    # lichess's {"error": ...} and are held to it in test_lichess.py.
    for template, item in spec()["paths"].items():
        if not template.startswith("/v1/"):
            continue
        for method, op in item.items():
            if method not in ("get", "post", "put", "patch", "delete"):
                continue
            if op.get("security") == [] or not op.get("security"):
                continue
            yield method.upper(), template


def fill(template, world):
    ids = {"/v1/players/me/tokens/{id}": NO_SUCH_ID, "/v1/challenges/{id}/accept": NO_SUCH_ID,
           "/v1/challenges/{id}/decline": NO_SUCH_ID, "/v1/challenges/{id}/cancel": NO_SUCH_ID}
    return template.replace("{id}", ids.get(template, world.gid)).replace("{delivery}", "msg_1")


# The id routes of conditional moves, notes and messages with a body, for the id tests only (two of them are PUTs, which the
# body tests above, all POSTs, do not send).
CONVERSATION_BODIES = {
    "/v1/games/{id}/conditional-moves": {"lines": [["K@e5", "K@e4"]]},
    "/v1/games/{id}/notes": {"text": "a note"},
    "/v1/games/{id}/messages": {"text": "a message"},
}
# The arbiter's: valid bodies of the other {id} routes that take one.
ID_ROUTE_BODIES = {"/v1/games/{id}/arbiter-request": {"text": "a test"},
                   "/v1/arbiter/queue/{id}/dismiss": {"reason": "a test"},
                   "/v1/arbiter/queue/{id}/warn": {"reason": "a test", "message": "a warning"}}


def body_for(template, world):
    if template in ID_ROUTE_BODIES:
        return json.dumps(ID_ROUTE_BODIES[template]).encode()
    for route, t in TEMPLATES.items():
        if t == template:
            return json.dumps(json_routes(world)[route][2]).encode()
    if template in CONVERSATION_BODIES:
        return json.dumps(CONVERSATION_BODIES[template]).encode()
    return None


def bad_authorizations(world):
    revoked_api, _ = world.anon.new_player("rev")
    _, t = revoked_api.call("POST", "/v1/players/me/tokens", expect=201)
    revoked_api.as_(t["token"]).call("DELETE", "/v1/players/me/tokens/{id}", [t["id"]],
                                     expect=204)
    return {
        "missing": None,
        "basic": "Basic dXNlcjpwYXNz",
        "scheme-only": "Bearer",
        "scheme-space": "Bearer ",
        "token-scheme": f"Token {world.a.token}",
        "no-scheme": world.a.token,
        "unknown": "Bearer korp_" + "A" * 32,
        "malformed": "Bearer not-a-token",
        "truncated": f"Bearer {world.a.token[:-1]}",
        "extended": f"Bearer {world.a.token}x",
        "two-tokens": f"Bearer {world.a.token}, Bearer {world.b.token}",
        "long": "Bearer " + "k" * 8000,
        "non-utf8": b"Bearer korp_\xff\xfe" + b"A" * 30,
        "revoked": f"Bearer {t['token']}",
    }


@pytest.fixture(scope="module")
def bad_auth(world):
    return bad_authorizations(world)


AUTH_KINDS = ["missing", "basic", "scheme-only", "scheme-space", "token-scheme", "no-scheme",
              "unknown", "malformed", "truncated", "extended", "two-tokens", "long", "non-utf8",
              "revoked"]


@pytest.mark.parametrize("kind", AUTH_KINDS)
def test_bad_authorization_is_401_with_www_authenticate(world, bad_auth, kind):
    auth = bad_auth[kind]
    ops = list(token_operations())
    assert len(ops) >= 12, ops
    for method, template in ops:
        h = dict(JSON)
        if auth is not None:
            h["Authorization"] = auth
        before = world.anon.game(world.gid)
        r = requests.request(method, world.base + fill(template, world),
                             data=body_for(template, world), headers=h, timeout=30)
        body = assert_problem(r, method, template, 401, "unauthorized", ("token", "Bearer"))
        assert r.headers.get("WWW-Authenticate", "").startswith("Bearer"), \
            f"{method} {template}: WWW-Authenticate is {r.headers.get('WWW-Authenticate')!r}"
        game_unchanged(world, world.gid, before)
        assert "korp_" not in body["detail"], "the detail repeats a token"


def test_scheme_is_case_insensitive(world):
    # a control (RFC 9110 section 11.1: the scheme is case-insensitive)
    for scheme in ["bearer", "BEARER", "Bearer"]:
        r = requests.get(world.base + "/v1/players/me",
                         headers={"Authorization": f"{scheme} {world.a.token}"}, timeout=30)
        check(r, "GET", "/v1/players/me")
        assert r.status_code == 200, (scheme, r.text)


def test_public_routes_ignore_a_bad_token(world, bad_auth):
    for kind in ["basic", "unknown", "non-utf8", "revoked"]:
        r = requests.get(world.base + f"/v1/games/{world.gid}",
                         headers={"Authorization": bad_auth[kind]}, timeout=30)
        check(r, "GET", "/v1/games/{id}")
        assert r.status_code == 200, (kind, r.text)


def test_a_players_token_on_arbiter_routes_is_403(world):
    for path, template, body in [
            (f"/v1/games/{world.gid}/adjudication", "/v1/games/{id}/adjudication",
             {"result": "1-0", "reason": "x"}),
            ("/v1/admin/clock", "/v1/admin/clock", {"offset_seconds": 0})]:
        before = world.anon.game(world.gid)
        r = world.post(path, json.dumps(body).encode(), world.a.token)
        assert_problem(r, "POST", template, 403, "forbidden", ("arbiter",))
        game_unchanged(world, world.gid, before)


# ---------------------------------------------------------------------------
# 404: ids that do not exist, for every route with an {id}


def id_operations():
    for template, item in spec()["paths"].items():
        if "{id}" not in template or not template.startswith("/v1/"):
            continue
        for method, op in item.items():
            if method in ("get", "post", "put", "patch", "delete"):
                yield method.upper(), template


def caller_for(template, world):
    if (template.endswith("/adjudication") or template.endswith("/fairplay")
            or template.startswith("/v1/arbiter/")):
        return world.arbiter.token
    return world.a.token


def ask(world, method, template, raw_id, raw=False):
    """One call of (method, template) with raw_id (already percent-encoded) as the id."""
    path = template.replace("{id}", raw_id)
    h = {"Authorization": f"Bearer {caller_for(template, world)}", **JSON}
    body = body_for(template, world)
    if raw:
        return raw_request(world.base, method, path, body, h)
    return requests.request(method, world.base + path, data=body, headers=h, timeout=30)


def test_every_id_route_is_covered():
    ops = list(id_operations())
    # games (9 routes), challenges (3), players (1), tokens (1)
    assert len(ops) >= 14, ops


@pytest.mark.parametrize("method,template", list(id_operations()))
def test_unknown_id_is_404(world, method, template):
    before = world.anon.game(world.gid)
    for raw_id in [NO_SUCH_ID, "0000000000", "aaaaaaaaaa", "x", NO_SUCH_ID.lower()]:
        r = ask(world, method, template, raw_id)
        assert_problem(r, method, template, 404, "not-found")
    game_unchanged(world, world.gid, before)


@pytest.mark.parametrize("method,template", list(id_operations()))
def test_an_id_of_another_kind_is_404(world, method, template):
    # ids are not interchangeable: a player's id is no game, token or challenge, a
    # game's id no player (a game made from a challenge shares the challenge's id,
    # as lichess's games do, so a game's id is not used against the challenges)
    other = world.a_body["id"] if any(k in template for k in ("/games/", "/tokens/", "/challenges/")) \
        else world.gid
    r = ask(world, method, template, other)
    assert_problem(r, method, template, 404, "not-found")


def test_another_players_token_id_is_404(world):
    _, t = world.b.call("POST", "/v1/players/me/tokens", expect=201)
    r = requests.delete(world.base + f"/v1/players/me/tokens/{t['id']}",
                        headers={"Authorization": f"Bearer {world.a.token}"}, timeout=30)
    assert_problem(r, "DELETE", "/v1/players/me/tokens/{id}", 404, "not-found")
    # it still works for its owner
    world.b.as_(t["token"]).call("GET", "/v1/players/me", expect=200)


ODD_IDS = {
    "nul": "%00",
    "nul-inside": "abc%00def",
    "dotdot": "..",
    "dot": ".",
    "dotdot-encoded": "%2E%2E",
    "slash-encoded": "a%2Fb",
    "space": "%20",
    "newline": "a%0Ab",
    "cr-lf": "a%0D%0AX-Injected:%201",
    "quote": "%22%27",
    "sql": "%27%3B%20DROP%20TABLE%20games%3B--",
    "percent": "%25",
    "percent-bad": "%zz",
    "latin1": "%E9",
    "ff": "%FF",
    "overlong": "%C0%AF",
    "surrogate": "%ED%A0%80",
    "e-acute": "%C3%A9",
    "emoji": "%F0%9F%98%80",
    "long-64": "x" * 64,
    "long-65": "x" * 65,
    "long-1000": "x" * 1000,
    "long-unicode": "%C3%A9" * 100,
    "long-unicode-odd": "a" + "%C3%A9" * 100,
    "long-emoji": "%F0%9F%98%80" * 60,
    "control": "%01%02%7F",
}


@pytest.mark.parametrize("kind", list(ODD_IDS))
def test_odd_id_is_404_on_every_id_route(world, kind):
    # a malformed id is 404 by the contract; a path no route matches is 404 too
    before = world.anon.game(world.gid)
    failures = []
    for method, template in id_operations():
        r = ask(world, method, template, ODD_IDS[kind], raw=True)
        try:
            assert_problem(r, method, template, 404, "not-found")
            assert "X-Injected" not in r.headers
        except AssertionError as e:
            failures.append(f"{method} {template}: {str(e).splitlines()[0][:300]}")
    game_unchanged(world, world.gid, before)
    assert not failures, f"id {ODD_IDS[kind][:40]!r}:\n" + "\n".join(failures)


@pytest.mark.parametrize("method,template", [op for op in id_operations()
                                             if op[1].startswith("/v1/games/{id}/")])
def test_nul_after_a_real_id_is_not_another_route(world, fresh, method, template):
    # "/v1/games/<id>%00/pgn" names no resource: korpd must not serve "/v1/games/<id>"
    gid, before = fresh
    r = ask(world, method, template, gid + "%00", raw=True)
    assert_problem(r, method, template, 404, "not-found")
    r = ask(world, method, template, gid + "%00x", raw=True)
    assert_problem(r, method, template, 404, "not-found")
    game_unchanged(world, gid, before)


@pytest.mark.parametrize("path", ["/v1/nope", "/v2/games", "/v1/games/x/y/z", "/v1//games",
                                  "/v1/games/" + NO_SUCH_ID + "/", "/V1/GAMES", "/" + "a" * 5000,
                                  "/v1/" + "%C3%A9" * 150, "/v1/%FF"])
def test_unknown_path_is_404(world, path):
    r = raw_request(world.base, "GET", path)
    assert r.status_code == 404, r.text
    check_problem(r, "not-found", 404)


# ---------------------------------------------------------------------------
# 400: query parameters out of range


BAD_QUERIES = [
    "limit=0", "limit=101", "limit=-1", "limit=abc", "limit=1.5", "limit=", "limit=1e2",
    "limit=0x10", "limit=5abc", "limit=99999999999999999999", "limit=%FF",
    "status=bad", "status=ACTIVE", "status=", "status=active,finished", "status=%FF",
    "variant=chess", "variant=", "variant=KORPALSKI", "variant=%FF",
    "player=" + "x" * 65,
    "cursor=abc", "cursor=", "cursor=.", "cursor=1.", "cursor=.abc", "cursor=x.abc",
    "cursor=1.abc!", "cursor=1.abc.def", "cursor=-1.abc", "cursor=%FF", "cursor=1.%FF",
    "cursor=eyJ0IjoiMjAyNi0xMS0yMlQxMzo0NjowMFoifQ",
    "cursor=99999999999999999999." + NO_SUCH_ID,
    "cursor=12345678901234567890123." + NO_SUCH_ID,
    "cursor=9223372036854775808." + NO_SUCH_ID,
    "cursor=" + "1" * 1000 + "." + NO_SUCH_ID,
    "cursor=1." + "a" * 1000,
]


@pytest.mark.parametrize("query", BAD_QUERIES, ids=lambda q: q[:50])
def test_bad_query_parameter_is_400(world, query):
    r = raw_request(world.base, "GET", "/v1/games?" + query)
    param = query.split("=", 1)[0]
    assert_problem(r, "GET", "/v1/games", 400, "bad-request", (param,))


@pytest.mark.parametrize("query", ["player=%FF", "player=%C0%AF", "player=a%00b",
                                   "player=%ED%A0%80"])
def test_non_utf8_player_filter_is_not_a_5xx(world, query):
    # an unknown player id gives an empty list (contract); malformed text may be 400
    r = raw_request(world.base, "GET", "/v1/games?" + query)
    assert r.status_code in (200, 400), f"{query}: {r.status_code} {r.text}"
    body = check(r, "GET", "/v1/games")
    if r.status_code == 200:
        assert body["games"] == []
    else:
        assert_problem(r, "GET", "/v1/games", 400, "bad-request", ("player",))


def test_well_formed_foreign_cursor_is_not_a_5xx(world):
    # a cursor korpd did not make but that looks like one: the contract says 400;
    # korpd cannot tell it from a real one without signing cursors, so a page is tolerated
    for cursor in ["1." + NO_SUCH_ID, "0.a", "9223372036854775807." + NO_SUCH_ID]:
        r = requests.get(world.base + "/v1/games", params={"cursor": cursor}, timeout=30)
        assert r.status_code in (200, 400), f"{cursor}: {r.status_code} {r.text}"
        check(r, "GET", "/v1/games")


def test_good_queries_are_fine(world):
    world.fresh_game()
    world.fresh_game("glinski")
    for q in [{"limit": 1}, {"limit": 100}, {"status": "active"}, {"variant": "glinski"},
              {"player": world.a_body["id"], "limit": 2}, {"player": NO_SUCH_ID}]:
        world.anon.call("GET", "/v1/games", query=q, expect=200)
    _, page = world.anon.call("GET", "/v1/games", query={"player": world.a_body["id"],
                                                          "limit": 1}, expect=200)
    assert page["next"] is not None
    world.anon.call("GET", "/v1/games", query={"player": world.a_body["id"], "limit": 1,
                                               "cursor": page["next"]}, expect=200)


# ---------------------------------------------------------------------------
# 405 with Allow


def wrong_methods():
    for template, item in spec()["paths"].items():
        offered = {m.upper() for m in item if m in ("get", "post", "put", "patch", "delete")}
        for m in ["GET", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]:
            if m not in offered:
                yield pytest.param(template, m, offered, id=f"{m} {template}")


@pytest.mark.parametrize("template,method,offered", list(wrong_methods()))
def test_wrong_method_is_405_with_allow(world, template, method, offered):
    path = template.replace("{id}", world.gid if "/games/" in template else NO_SUCH_ID)
    r = requests.request(method, world.base + path, data=b"{}",
                         headers={"Authorization": f"Bearer {world.a.token}", **JSON},
                         timeout=30)
    check(r, method, template)    # 405 and the MethodNotAllowed response, Allow required
    body = check_problem(r, "method-not-allowed", 405)
    allow = {m.strip().upper() for m in r.headers["Allow"].split(",") if m.strip()}
    assert offered <= allow <= offered | {"HEAD", "OPTIONS"}, \
        f"{method} {template}: Allow {r.headers['Allow']!r}, the path offers {offered}"
    assert method in body["detail"], body


# ---------------------------------------------------------------------------
# Idempotency-Key


@pytest.mark.parametrize("key", ["k" * 65, "k" * 1000, ""], ids=["65", "1000", "empty"])
def test_bad_idempotency_key_is_400(world, key):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    r = world.post(f"/v1/games/{gid}/moves", b'{"move":"K@e4"}', world.a.token,
                   {"Idempotency-Key": key})
    assert_problem(r, "POST", "/v1/games/{id}/moves", 400, "bad-request", ("Idempotency-Key",))
    game_unchanged(world, gid, before)


def test_non_utf8_idempotency_key_is_4xx(world):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    for key in [b"\xff\xfe", b"key-\xe9", b"\xc0\xaf"]:
        r = world.post(f"/v1/games/{gid}/moves", b'{"move":"K@e4"}', world.a.token,
                       {"Idempotency-Key": key})
        assert_problem(r, "POST", "/v1/games/{id}/moves", 400, "bad-request",
                       ("Idempotency-Key",))
    game_unchanged(world, gid, before)


def test_idempotency_key_reused_for_another_game_is_refused_in_contract(world):
    # "the key alone names the request": a key already used for a move in one game,
    # sent with a move in another game, must not play that move; whatever korpd
    # answers (the first answer again, or a refusal) must be one the route declares
    g1, g2 = world.fresh_game(), world.fresh_game()
    key = "reuse-" + uuid.uuid4().hex
    r1 = world.post(f"/v1/games/{g1}/moves", b'{"move":"K@e4"}', world.a.token,
                    {"Idempotency-Key": key})
    assert r1.status_code == 201, r1.text
    before = world.anon.game(g2)
    r2 = world.post(f"/v1/games/{g2}/moves", b'{"move":"K@d4"}', world.a.token,
                    {"Idempotency-Key": key})
    assert r2.status_code < 500, r2.text
    check(r2, "POST", "/v1/games/{id}/moves")
    if r2.status_code != 201:
        assert_problem(r2, "POST", "/v1/games/{id}/moves", "4xx", words=("Idempotency-Key",))
    game_unchanged(world, g2, before)


def test_idempotency_key_of_64_characters_is_fine(world):
    gid = world.fresh_game()
    key = uuid.uuid4().hex * 2
    assert len(key) == 64
    r1 = world.post(f"/v1/games/{gid}/moves", b'{"move":"K@e4"}', world.a.token,
                    {"Idempotency-Key": key})
    check(r1, "POST", "/v1/games/{id}/moves")
    assert r1.status_code == 201, r1.text
    r2 = world.post(f"/v1/games/{gid}/moves", b'{"move":"K@e4"}', world.a.token,
                    {"Idempotency-Key": key})
    assert (r2.status_code, r2.json()) == (201, r1.json())
    assert world.anon.game(gid)["ply"] == 1


# ---------------------------------------------------------------------------
# opponents and challenge bodies that point nowhere


@pytest.mark.parametrize("opponent", [NO_SUCH_ID, "x", "\u00e9" * 32, "a" + "\u00e9" * 20,
                                      "\U0001F600" * 16, "a" * 64, "' OR 1=1 --"],
                         ids=lambda o: f"{o[:3]!r}-{len(o.encode())}B")
def test_challenge_to_an_unknown_opponent_is_404(world, opponent):
    r = world.post("/v1/challenges",
                   json.dumps({"variant": "korpalski", "opponent": opponent},
                              ensure_ascii=False).encode(), world.a.token)
    assert_problem(r, "POST", "/v1/challenges", 404, "not-found")


@pytest.mark.parametrize("opponent", ["", "a" * 65, "a" * 1000])
def test_challenge_opponent_of_bad_length_is_4xx(world, opponent):
    r = world.post("/v1/challenges",
                   json.dumps({"variant": "korpalski", "opponent": opponent}).encode(),
                   world.a.token)
    assert r.status_code in (400, 404), r.text
    assert_problem(r, "POST", "/v1/challenges", r.status_code, words=("opponent", "player"))


def test_challenging_oneself_is_400(world):
    r = world.post("/v1/challenges",
                   json.dumps({"variant": "korpalski", "opponent": world.a_body["id"]}).encode(),
                   world.a.token)
    assert_problem(r, "POST", "/v1/challenges", 400, "bad-request", ("yourself", "opponent"))


# ---------------------------------------------------------------------------
# routes without a body


def test_token_route_takes_no_body_or_an_empty_object(world):
    # controls
    world.a.call("POST", "/v1/players/me/tokens", expect=201)
    world.a.call("POST", "/v1/players/me/tokens", json={}, expect=201)
    # the contract's body schema is Empty (no members) with 400 and 415 declared
    for data, ctype, status in [(b'{"x":1}', "application/json", 400),
                                (b"{", "application/json", 400),
                                (b"[]", "application/json", 400),
                                (b"hello", "text/plain", 415)]:
        r = world.post("/v1/players/me/tokens", data, world.a.token, content_type=ctype)
        assert_problem(r, "POST", "/v1/players/me/tokens", status)


@pytest.mark.parametrize("route", ["resign", "abort"])
def test_garbage_body_on_a_bodiless_action_is_not_a_5xx(world, route):
    gid = world.fresh_game()
    before = world.anon.game(gid)
    # the contract declares no body for these: korpd may ignore one (and act) or refuse
    # it (and change nothing), but garbage must not make it fail
    r = world.post(f"/v1/games/{gid}/{route}", b"\xff{[garbage", world.b.token,
                   content_type="text/plain")
    assert r.status_code < 500, r.text
    if r.status_code >= 400:
        check_problem(r, problem_slug(r))
        game_unchanged(world, gid, before)
