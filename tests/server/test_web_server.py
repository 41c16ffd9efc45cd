"""The server side of the web board: the page and its files with
their headers, people's passwords and sessions (cookie, CSRF), finding
players by name, and open challenges.  The page itself is tested in a real
browser (tests/web/)."""

import re
import uuid

import requests

from korp_client import Api


def signup(api, name, password="correct horse battery"):
    _, p = api.call("POST", "/v1/players", json={"name": name, "password": password},
                    expect=201)
    return p


def sign_in(base, name, password="correct horse battery"):
    s = requests.Session()
    r = s.post(base + "/v1/session", json={"name": name, "password": password}, timeout=30)
    return s, r


def unique(prefix):
    # Not the clock: two calls in one millisecond would give the same name.
    return f"{prefix}{uuid.uuid4().hex[:10]}"


def test_the_page_is_served_with_a_strict_policy(korpd):
    for path in ["/", "/games/aZ3kP9qwX2", "/settings", "/login"]:
        r = requests.get(korpd.base + path, timeout=30)
        assert r.status_code in (200, 404), (path, r.status_code)
        if r.status_code == 404:      # a build without web/ has no page
            continue
        assert r.headers["Content-Type"].startswith("text/html"), r.headers
        csp = r.headers["Content-Security-Policy"]
        assert "default-src 'none'" in csp and "script-src 'self'" in csp, csp
        assert "unsafe-inline" not in csp and "http" not in csp, csp
        assert r.headers["X-Content-Type-Options"] == "nosniff"
        head = requests.head(korpd.base + path, timeout=30)
        assert head.status_code == 200 and head.content == b"", head.status_code
        etag = r.headers["ETag"]
        again = requests.get(korpd.base + path, headers={"If-None-Match": etag}, timeout=30)
        assert again.status_code == 304 and again.content == b"", again.status_code
    for path in ["/assets/../korpd", "/assets/.hidden", "/assets/%2e%2e/x", "/assets/nope.js"]:
        r = requests.get(korpd.base + path, timeout=30)
        assert r.status_code == 404, (path, r.status_code)


def test_sign_in_gives_a_cookie_and_changes_need_the_csrf_token(korpd):
    api = Api(korpd.base)
    name = unique("web")
    me = signup(api, name)
    session, r = sign_in(korpd.base, name.upper())
    assert r.status_code == 200, r.text
    body = r.json()
    assert body["player"] == {"id": me["id"], "name": name}
    cookie = r.headers["Set-Cookie"]
    for part in ["korp_session=", "HttpOnly", "SameSite=Strict", "Path=/"]:
        assert part in cookie, cookie
    assert session.get(korpd.base + "/v1/session", timeout=30).json() == body
    assert session.get(korpd.base + "/v1/players/me", timeout=30).json()["id"] == me["id"]
    # A change with the cookie alone is refused; with the CSRF token it is made.
    r = session.post(korpd.base + "/v1/players/me/tokens", timeout=30)
    assert r.status_code == 403 and "X-CSRF-Token" in r.json()["detail"], r.text
    r = session.post(korpd.base + "/v1/players/me/tokens", timeout=30,
                     headers={"X-CSRF-Token": "korp_" + "A" * 32})
    assert r.status_code == 403, r.text
    r = session.post(korpd.base + "/v1/players/me/tokens", timeout=30,
                     headers={"X-CSRF-Token": body["csrf_token"]})
    assert r.status_code == 201, r.text
    # Signing out ends the session for good.
    r = session.delete(korpd.base + "/v1/session", headers={"X-CSRF-Token": body["csrf_token"]},
                       timeout=30)
    assert r.status_code == 204 and "Max-Age=0" in r.headers["Set-Cookie"], r.headers
    old = requests.get(korpd.base + "/v1/players/me", timeout=30,
                       cookies={"korp_session": cookie.split(";")[0].split("=", 1)[1]})
    assert old.status_code == 401, old.text


def test_wrong_passwords_and_unknown_names_are_refused_alike(korpd):
    api = Api(korpd.base)
    name = unique("pw")
    signup(api, name)
    _, wrong = sign_in(korpd.base, name, "not the password")
    _, nobody = sign_in(korpd.base, unique("nobody"), "not the password")
    assert wrong.status_code == nobody.status_code == 401
    assert wrong.json()["detail"] == nobody.json()["detail"]
    # A bot's account (no password) cannot sign in.
    _, bot = api.call("POST", "/v1/players", json={"name": unique("bot")}, expect=201)
    _, r = sign_in(korpd.base, bot["name"], "anything at all")
    assert r.status_code == 401
    # Too short a password is refused at sign-up.
    api.call("POST", "/v1/players", json={"name": unique("short"), "password": "1234567"},
             expect=400)


def test_sign_ins_are_rate_limited_per_name(korpd):
    api = Api(korpd.base)
    name = unique("rl")
    signup(api, name)
    codes = [sign_in(korpd.base, name, "wrong password")[1].status_code for _ in range(12)]
    assert codes[:10] == [401] * 10 and codes[10:] == [429, 429], codes
    _, r = sign_in(korpd.base, name)
    assert r.status_code == 429 and int(r.headers["Retry-After"]) > 0, r.headers


def test_players_are_found_by_the_start_of_their_name(korpd):
    api = Api(korpd.base)
    stem = unique("Fnd")
    made = [signup(api, stem + s)["id"] for s in ["a", "b", "_c"]]
    _, found = api.call("GET", "/v1/players", query={"name": stem.lower()}, expect=200)
    assert sorted(p["id"] for p in found["players"]) == sorted(made), found
    # '_' is a letter of names here, not LIKE's wildcard.
    _, found = api.call("GET", "/v1/players", query={"name": stem + "_"}, expect=200)
    assert [p["id"] for p in found["players"]] == [made[2]], found
    api.call("GET", "/v1/players", query={"name": "a%"}, expect=400)
    api.call("GET", "/v1/players", expect=400)


def test_an_open_challenge_is_taken_by_whoever_accepts_first(korpd, two_players):
    a, pa, b, pb = two_players
    _, c = a.call("POST", "/v1/challenges",
                  json={"variant": "glinski", "opponent": None, "color": "black"}, expect=201)
    assert c["opponent"] is None and c["status"] == "open"
    _, shown = Api(korpd.base).call("GET", "/v1/challenges/{id}", [c["id"]], expect=200)
    assert shown == c
    Api(korpd.base).call("GET", "/v1/challenges/{id}", ["NoSuchOne0"], expect=404)
    _, listed = Api(korpd.base).call("GET", "/v1/challenges/open", expect=200)
    assert c["id"] in [x["id"] for x in listed["challenges"]]
    a.call("POST", "/v1/challenges/{id}/accept", [c["id"]], expect=403)
    b.call("POST", "/v1/challenges/{id}/decline", [c["id"]], expect=403)
    _, accepted = b.call("POST", "/v1/challenges/{id}/accept", [c["id"]], expect=201)
    game = accepted["game"]
    assert game["variant"] == "glinski"
    assert game["black"]["id"] == pa["id"] and game["white"]["id"] == pb["id"], game
    b.call("POST", "/v1/challenges/{id}/accept", [c["id"]], expect=409)
    _, listed = Api(korpd.base).call("GET", "/v1/challenges/open", expect=200)
    assert c["id"] not in [x["id"] for x in listed["challenges"]]
    assert re.fullmatch(r"[0-9A-Za-z]{10}", game["id"])
