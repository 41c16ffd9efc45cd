"""Challenge caps, link expiry and address confirmation: nobody's inbox can be
flooded through korp.

  7   one open directed challenge per (challenger, opponent): 409; at most
      KORP_CHALLENGES_PER_DAY per challenger in 24 hours: 429 with Retry-After; no
      email for a challenge that is no longer open when its delivery runs
  8   an address is mailed nothing but a signed, expiring confirmation link until its
      owner follows it (KORP_EMAIL_CONFIRMATION=required, the default); GET
      /v1/players/me shows email_confirmed
  13  unsubscribe links expire (90 days)

Real parts only: korpd, PostgreSQL, postfix's smtp-sink. Links are taken from the mails
smtp-sink received, never built by the test. Time moves with korpd's test clock on a
database of this module's own cluster (the clock is one per database)."""

import os
import re
import subprocess
import sys
import threading
import uuid
from contextlib import closing
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest
import requests

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))

from korp_fixtures import Postgres, wait_until  # noqa: E402
from openapi_check import check  # noqa: E402

MAIL_FROM = "korp@example.org"
WAIT = 20
CONFIRM_SUBJECT = "Confirm your email address for korp"


@pytest.fixture(scope="module")
def cluster():
    with closing(Postgres()) as pg:
        yield pg


@pytest.fixture
def fresh_db(cluster):
    return cluster.fresh_database("inbox")


def korpd_with_mail(start_korpd, db_url, sink, **settings):
    env = dict(KORP_SMTP_URL=sink.url, KORP_MAIL_FROM=MAIL_FROM, KORP_TEST_CLOCK=1,
               KORP_NOTIFY_BACKOFF_SCALE=0.001)
    env.update(settings)
    k = start_korpd(db_url, **env)
    k.db_url = db_url
    return k


def call(base, method, path, token=None, body=None, expect=None, template=None, **kw):
    headers = {"Authorization": f"Bearer {token}"} if token else {}
    r = requests.request(method, base + path, json=body, headers=headers, timeout=30, **kw)
    check(r, method, template or path)
    if expect is not None:
        assert r.status_code == expect, (method, path, r.status_code, r.text)
    return r


def sign_up(base, prefix, email=True):
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    body = {"name": name}
    if email:
        body["email"] = f"{name}@example.org"
    p = call(base, "POST", "/v1/players", body=body, expect=201).json()
    return dict(p, email=body.get("email"))


def challenge(base, token, opponent, expect=201):
    return call(base, "POST", "/v1/challenges", token,
                {"variant": "korpalski", "opponent": opponent}, expect=expect)


def cancel(base, token, challenge_id):
    call(base, "POST", f"/v1/challenges/{challenge_id}/cancel", token, expect=200,
         template="/v1/challenges/{id}/cancel")


def sql(db_url, query):
    out = subprocess.run(["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d",
                          db_url], input=query, capture_output=True, text=True, timeout=30,
                         env=os.environ)
    assert out.returncode == 0, (query, out.stderr)
    return out.stdout.strip()


def settle(db_url, what):
    """Until korpd owes no delivery: whatever was owed has arrived or failed for good."""
    wait_until(lambda: sql(db_url, "SELECT count(*) FROM deliveries WHERE status = 'pending'")
               == "0", WAIT, what=f"korpd to owe nothing ({what})")


def mails(sink, address):
    return sink.messages(to=address)


def link_in(message, path):
    body = message.msg.get_content()
    found = re.findall(r"https?://[^\s<>]+" + re.escape(path) + r"\?[^\s<>]+", body)
    assert len(found) == 1, (path, body)
    return found[0]


def local(url):
    """The path and query of a link, to send to korpd itself."""
    parts = urlsplit(url)
    return parts.path + "?" + parts.query


def tamper(url):
    parts = urlsplit(url)
    query = [(k, (v[:-1] + ("a" if v[-1] != "a" else "b")) if k == "sig" else v)
             for k, v in parse_qsl(parts.query)]
    return urlunsplit(parts._replace(query=urlencode(query)))


def move_clock(k, arbiter_token, seconds):
    call(k.base, "POST", "/v1/admin/clock", arbiter_token, {"offset_seconds": seconds},
         expect=200)


def arbiter(korpd_binary, db_url):
    out = subprocess.run([korpd_binary, "admin", "create-arbiter", f"arb_{uuid.uuid4().hex[:8]}"],
                         env=dict(os.environ, KORP_DATABASE_URL=db_url),
                         capture_output=True, text=True, timeout=60, check=True)
    return out.stdout.strip()


def me(k, token):
    return call(k.base, "GET", "/v1/players/me", token, expect=200).json()


# ---------------------------------------------------------------------------
# Item 7

def test_one_open_challenge_per_opponent_and_a_daily_cap(start_korpd, shared_db_url):
    k = start_korpd(shared_db_url, KORP_CHALLENGES_PER_DAY=6)
    a, b, c = (sign_up(k.base, n, email=False) for n in ("ch", "cb", "cc"))
    first = challenge(k.base, a["token"], b["id"]).json()
    again = challenge(k.base, a["token"], b["id"], expect=409).json()
    assert first["id"] in again["detail"], again
    challenge(k.base, b["token"], a["id"])          # the other way round is another pair
    challenge(k.base, a["token"], c["id"])          # another opponent
    cancel(k.base, a["token"], first["id"])
    challenge(k.base, a["token"], b["id"])          # once cancelled, a new one may go
    # Many at once to one new opponent: exactly one is made.
    d = sign_up(k.base, "cd", email=False)
    codes = []
    lock = threading.Lock()

    def one():
        r = requests.post(k.base + "/v1/challenges", timeout=30,
                          headers={"Authorization": f"Bearer {a['token']}"},
                          json={"variant": "glinski", "opponent": d["id"]})
        with lock:
            codes.append(r.status_code)

    threads = [threading.Thread(target=one) for _ in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(60)
    assert sorted(codes) == [201] + [409] * 7, codes
    # a made 5 (b, c, b again, d, and now one to anyone): the 6th is the last allowed.
    call(k.base, "POST", "/v1/challenges", a["token"], {"variant": "korpalski", "opponent": None},
         expect=201)
    e = sign_up(k.base, "ce", email=False)
    challenge(k.base, a["token"], e["id"])
    over = challenge(k.base, a["token"], sign_up(k.base, "cf", email=False)["id"], expect=429)
    wait = int(over.headers["Retry-After"])
    assert 1 <= wait <= 86400, over.headers
    assert "24 hours" in over.json()["detail"]
    # b's own allowance is untouched.
    challenge(k.base, b["token"], c["id"])


def test_the_daily_cap_frees_a_place_24_hours_after_a_challenge(start_korpd, korpd_binary,
                                                                fresh_db):
    k = start_korpd(fresh_db, KORP_CHALLENGES_PER_DAY=2, KORP_TEST_CLOCK=1)
    arb = arbiter(korpd_binary, fresh_db)
    a = sign_up(k.base, "dc", email=False)
    for _ in range(2):
        challenge(k.base, a["token"], sign_up(k.base, "dd", email=False)["id"])
    r = challenge(k.base, a["token"], sign_up(k.base, "de", email=False)["id"], expect=429)
    wait = int(r.headers["Retry-After"])
    assert 86000 <= wait <= 86400, wait     # the oldest leaves the window in about a day
    move_clock(k, arb, wait - 30)
    challenge(k.base, a["token"], sign_up(k.base, "df", email=False)["id"], expect=429)
    move_clock(k, arb, wait + 1)
    challenge(k.base, a["token"], sign_up(k.base, "dg", email=False)["id"])


def test_no_email_for_a_challenge_no_longer_open_when_its_delivery_runs(
        start_korpd, korpd_binary, fresh_db, sink):
    # The HTTP korpd delivers nothing (no workers): every challenge is made and cancelled
    # before any delivery runs; then a --notify-only korpd runs them.
    k = korpd_with_mail(start_korpd, fresh_db, sink, KORP_NOTIFY_WORKERS=0,
                        KORP_EMAIL_CONFIRMATION="off")
    a = sign_up(k.base, "fa")
    b = sign_up(k.base, "fb")
    for _ in range(20):
        made = challenge(k.base, a["token"], b["id"]).json()
        cancel(k.base, a["token"], made["id"])
    kept = challenge(k.base, a["token"], b["id"]).json()
    owed = sql(fresh_db, "SELECT count(*) FROM deliveries WHERE channel = 'email'"
                         " AND type = 'challenge' AND status = 'pending'")
    assert owed == "21", owed
    start_korpd(fresh_db, KORP_SMTP_URL=sink.url, KORP_MAIL_FROM=MAIL_FROM,
                KORP_NOTIFY_WORKERS=1, args=("--notify-only",), http=False)
    settle(fresh_db, "the 21 challenge emails")
    got = mails(sink, b["email"])
    assert len(got) == 1, [m.subject for m in got]
    assert kept["id"] in got[0].msg.get_content(), got[0].msg.get_content()
    dropped = sql(fresh_db, "SELECT count(*) FROM deliveries WHERE type = 'challenge'"
                            " AND status = 'failed' AND last_error = 'the challenge is no longer open'")
    assert dropped == "20", dropped


# ---------------------------------------------------------------------------
# Items 8, 13, 15

def test_an_address_gets_only_its_confirmation_until_confirmed(start_korpd, korpd_binary,
                                                               fresh_db, sink):
    # KORP_EMAIL_CONFIRMATION left out: korpd's default (the suite's fixtures say off).
    k = korpd_with_mail(start_korpd, fresh_db, sink, KORP_EMAIL_CONFIRMATION=None)
    arb = arbiter(korpd_binary, fresh_db)
    a = sign_up(k.base, "ga")
    b = sign_up(k.base, "gb")
    assert b["email_confirmed"] is False
    assert me(k, b["token"])["email_confirmed"] is False
    first = challenge(k.base, a["token"], b["id"]).json()
    settle(fresh_db, "the confirmations")
    got = mails(sink, b["email"])
    assert [m.subject for m in got] == [CONFIRM_SUBJECT], [m.subject for m in got]
    assert sql(fresh_db, "SELECT count(*) FROM deliveries WHERE channel = 'email'"
                         " AND type = 'challenge'") == "0"
    link = link_in(got[0], "/v1/email/confirm")
    assert b["id"] in link

    # A forged link is refused; the page (GET) confirms nothing; its button (POST) does.
    r = call(k.base, "POST", local(tamper(link)), template="/v1/email/confirm", expect=403)
    page = requests.get(k.base + local(link), timeout=30)
    assert page.status_code == 200 and "<form" in page.text, page.text
    assert page.headers["Content-Security-Policy"].startswith("default-src 'none'")
    assert me(k, b["token"])["email_confirmed"] is False
    r = requests.post(k.base + local(link), timeout=30)
    assert r.status_code == 200 and "confirmed" in r.text.lower(), r.text
    assert me(k, b["token"])["email_confirmed"] is True
    prefs = call(k.base, "GET", "/v1/players/me/notifications", b["token"], expect=200).json()
    assert prefs["email_confirmed"] is True

    # Confirmed: the next challenge is mailed, with an unsubscribe link that works ...
    cancel(k.base, a["token"], first["id"])
    second = challenge(k.base, a["token"], b["id"]).json()
    settle(fresh_db, "the challenge email")
    got = [m for m in mails(sink, b["email"]) if m.subject != CONFIRM_SUBJECT]
    assert len(got) == 1 and second["id"] in got[0].msg.get_content(), [m.subject for m in got]
    unsubscribe = str(got[0].msg["List-Unsubscribe"]).strip()[1:-1]
    assert "exp=" in unsubscribe, unsubscribe
    call(k.base, "GET", local(unsubscribe), template="/v1/unsubscribe", expect=200)
    # ... for 90 days.
    move_clock(k, arb, 89 * 86400)
    call(k.base, "GET", local(unsubscribe), template="/v1/unsubscribe", expect=200)
    move_clock(k, arb, 90 * 86400 + 60)
    r = call(k.base, "POST", local(unsubscribe), template="/v1/unsubscribe", expect=403)
    assert "expired" in r.json()["detail"]
    assert call(k.base, "GET", "/v1/players/me/notifications", b["token"],
                expect=200).json()["email_enabled"] is True

    # A new address is unconfirmed again; the old address's link confirms nothing.
    new_address = f"new_{uuid.uuid4().hex[:8]}@example.org"
    prefs = call(k.base, "PUT", "/v1/players/me/notifications", b["token"],
                 {"email_address": new_address}, expect=200).json()
    assert prefs["email_confirmed"] is False
    r = call(k.base, "POST", local(link), template="/v1/email/confirm", expect=403)
    assert me(k, b["token"])["email_confirmed"] is False
    settle(fresh_db, "the new address's confirmation")
    new_link = link_in(mails(sink, new_address)[0], "/v1/email/confirm")
    # Its link works for 3 days; then another can be asked for.
    move_clock(k, arb, 90 * 86400 + 60 + 3 * 86400 + 60)
    r = call(k.base, "POST", local(new_link), template="/v1/email/confirm", expect=403)
    assert "expired" in r.json()["detail"]
    call(k.base, "POST", "/v1/players/me/email/confirmation", b["token"], expect=202)
    settle(fresh_db, "the confirmation sent again")
    again = [m for m in mails(sink, new_address) if m.subject == CONFIRM_SUBJECT]
    assert len(again) == 2, [m.subject for m in again]
    newest = [link_in(m, "/v1/email/confirm") for m in again]
    fresh_link = [x for x in newest if x != new_link]
    assert len(fresh_link) == 1, newest
    assert requests.post(k.base + local(fresh_link[0]), timeout=30).status_code == 200
    assert me(k, b["token"])["email_confirmed"] is True
    call(k.base, "POST", "/v1/players/me/email/confirmation", b["token"], expect=409)


def test_confirmations_to_one_account_are_limited(start_korpd, fresh_db, sink):
    # Nothing is delivered while the address changes (no workers); then a --notify-only
    # korpd delivers what is owed.
    k = korpd_with_mail(start_korpd, fresh_db, sink, KORP_EMAIL_CONFIRMATION="required",
                        KORP_NOTIFY_WORKERS=0)
    c = sign_up(k.base, "hc")                         # owes one
    addresses = [f"h{i}_{uuid.uuid4().hex[:6]}@example.org" for i in range(3)]
    for address in addresses:                         # a second and a third, then none
        call(k.base, "PUT", "/v1/players/me/notifications", c["token"],
             {"email_address": address}, expect=200)
    r = call(k.base, "POST", "/v1/players/me/email/confirmation", c["token"], expect=429)
    assert "Retry-After" in r.headers
    owed = sql(fresh_db, "SELECT count(*) FROM deliveries WHERE type = 'email_confirm'")
    assert owed == "3", owed
    start_korpd(fresh_db, KORP_SMTP_URL=sink.url, KORP_MAIL_FROM=MAIL_FROM,
                KORP_NOTIFY_WORKERS=1, args=("--notify-only",), http=False)
    settle(fresh_db, "the confirmations")
    # The three owed name the sign-up's address and the first two given since; the
    # current one was owed none (the fourth in 24 hours): nothing leaves at all.
    got = sink.messages()
    assert got == [], [(m.subject, m.rcpts) for m in got]
    dropped = sql(fresh_db, "SELECT count(*) FROM deliveries WHERE type = 'email_confirm'"
                            " AND status = 'failed'"
                            " AND last_error = 'the player has changed the address since'")
    assert dropped == "3", dropped


def test_confirmation_off_mails_at_once(start_korpd, fresh_db, sink):
    k = korpd_with_mail(start_korpd, fresh_db, sink, KORP_EMAIL_CONFIRMATION="off")
    a = sign_up(k.base, "ia")
    b = sign_up(k.base, "ib")
    assert b["email_confirmed"] is True and me(k, b["token"])["email_confirmed"] is True
    challenge(k.base, a["token"], b["id"])
    settle(fresh_db, "the challenge email")
    assert [m.subject for m in mails(sink, b["email"])] and \
        all(m.subject != CONFIRM_SUBJECT for m in mails(sink, b["email"]))
