"""Turn notifications: email through a real SMTP server and signed webhooks
to a real HTTP endpoint, delivered by korpd's notify workers.

The parts are real processes on loopback, each stopped by its PID: a PostgreSQL cluster
of this module's own (a fresh database per test, so tests may kill and restart korpd and
move the test clock freely), korpd (also `korpd --notify-only`), postfix's `smtp-sink`
(each message to a file, parsed with Python's email package) and
webhook_receiver.mjs, which checks the signature of every delivery with the Standard
Webhooks reference library (npm `standardwebhooks`, pinned in package.json) and records
what it receives. Every korpd answer goes through korp_client.Api, which checks it
against openapi.yaml. Expected values come from the notifications' contract, the rules
and the game records in tests/data/, never from korpd's own answers.
"""

import base64
import datetime
import email.utils
import os
import re
import subprocess
import time
import uuid
from contextlib import closing
from urllib.parse import parse_qsl, urlencode, urlsplit, urlunsplit

import pytest
import requests

from korp_client import Api
from korp_fixtures import (Korpd, Postgres, WebhookReceiver, eventually, ensure_node_modules,
                           free_port)
from openapi_check import check, spec

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("KORP_TEST_DATA") or os.path.join(HERE, "..", "data")

MAIL_FROM = "korp@example.org"
ALL_EVENTS = {"challenge", "challenge_declined", "challenge_cancelled", "game_start", "move",
              "draw_offer", "claim", "game_end", "deadline_near",
              "message",
              "arbiter", "tournament_start", "tournament_end"}
DEFAULT_EMAIL_EVENTS = {"move", "challenge", "draw_offer", "game_end", "deadline_near",
                        "message", "arbiter", "tournament_start", "tournament_end"}
# Every korpd of these tests: receivers on 127.0.0.1, retries a thousand times sooner,
# the sweeper every second.
BASE_SETTINGS = dict(KORP_WEBHOOK_ALLOW_PRIVATE=1, KORP_NOTIFY_BACKOFF_SCALE=0.001,
                     KORP_SWEEP_SECONDS=1)
WAIT = 20          # seconds: the longest wait for a delivery that is due

TIME_RE = r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?(Z|[+-]\d\d:\d\d)"


# ---------------------------------------------------------------- game records

def load_sample():
    """The inventor's sample game (tests/data): per ply SAN, UCI, FEN after it and the
    inventor's Polish notation as published."""
    with open(os.path.join(DATA, "inventor-sample.fens.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f if line.strip()][1:]
    with open(os.path.join(DATA, "inventor-sample-polish.txt"), encoding="utf-8") as f:
        tokens = " ".join(l for l in f if not l.startswith("#")).split()
    polish = [t for t in (re.sub(r"^\d+\.", "", t) for t in tokens) if t]
    assert len(rows) == len(polish) == 56, (len(rows), len(polish))
    return [{"ply": int(p), "san": s, "uci": u, "fen": fen, "polish": pl}
            for (p, s, u, fen), pl in zip(rows, polish)]


SAMPLE = load_sample()


def shuffle_game(plies):
    """`plies` Korpalski plies that never end the game: kings to a1/h8, a knight each to
    b1/g8, then the knights go b1-c3-b1 and g8-f6-g8 (repetitions are only claimed)."""
    out = ["K@a1", "K@h8", "N@b1", "N@g8"]
    white_home = black_home = True
    while len(out) < plies:
        if len(out) % 2 == 0:
            out.append("Nc3" if white_home else "Nb1")
            white_home = not white_home
        else:
            out.append("Nf6" if black_home else "Ng8")
            black_home = not black_home
    return out[:plies]


# ---------------------------------------------------------------- processes

@pytest.fixture(scope="module")
def cluster():
    """This module's own PostgreSQL.  Only korpd processes are killed here, never the
    server, so it may skip fsync: its shutdown checkpoint (a dozen databases) then
    takes a moment instead of half a minute on a busy machine."""
    pg = Postgres()
    with open(os.path.join(pg.data, "postgresql.conf"), "a") as conf:
        conf.write("fsync = off\nfull_page_writes = off\n")
    pg.restart()
    with closing(pg):
        yield pg


@pytest.fixture
def fresh_db(cluster):
    return cluster.fresh_database("notify")


@pytest.fixture(scope="module")
def node_modules():
    return ensure_node_modules()


@pytest.fixture
def receiver(node_modules):
    with closing(WebhookReceiver()) as r:
        yield r


@pytest.fixture
def korpds(korpd_binary):
    """start(db_url, *args, sink=None, http=True, **settings): a korpd with
    BASE_SETTINGS, email through `sink` when given, KORP_PUBLIC_URL its own address;
    a setting given as None is left out of its environment."""
    started = []

    def start(db_url, *args, sink=None, http=True, **settings):
        port = free_port()
        env = dict(BASE_SETTINGS)
        env["KORP_PUBLIC_URL"] = f"http://127.0.0.1:{port}"
        if sink is not None:
            env.update(KORP_SMTP_URL=sink.url, KORP_MAIL_FROM=MAIL_FROM)
        # public="https": korpd is reached through TLS in front of it (links say
        # https://, as RFC 8058's one-click needs), the test talks to it in http.
        public = settings.pop("public", None)
        if public == "https":
            env["KORP_PUBLIC_URL"] = f"https://127.0.0.1:{port}"
        env.update(settings)
        k = Korpd(korpd_binary, db_url, args=args, port=port, http=http, **env)
        k.public = env["KORP_PUBLIC_URL"]
        started.append(k)
        return k

    yield start
    for k in started:
        k.close()


class Soft:
    """Contract disagreements noted without stopping the test, so that one run
    reports them all; done() (or the fixture's teardown) fails if there are any."""

    def __init__(self):
        self.failures = []
        self.reported = False

    def check(self, condition, what):
        if not condition:
            self.failures.append(what)
        return bool(condition)

    def equal(self, got, want, what):
        return self.check(got == want, f"{what}: expected {want!r}, got {got!r}")

    def status(self, response_or_code, want, what):
        code = getattr(response_or_code, "status_code", response_or_code)
        return self.check(code == want, f"{what}: expected status {want}, got {code}")

    def done(self):
        self.reported = True
        assert not self.failures, "contract disagreements:\n- " + "\n- ".join(self.failures)


@pytest.fixture
def soft():
    s = Soft()
    yield s
    if not s.reported and s.failures:
        pytest.fail("contract disagreements noted before the test stopped:\n- " +
                    "\n- ".join(s.failures), pytrace=False)


def create_arbiter(korpd_binary, db_url, base):
    env = dict(os.environ, KORP_DATABASE_URL=db_url)
    out = subprocess.run([korpd_binary, "admin", "create-arbiter", f"arb_{uuid.uuid4().hex[:10]}"],
                         env=env, capture_output=True, text=True, timeout=60, check=True)
    token = out.stdout.strip()
    assert token.startswith("korp_"), out
    return Api(base, token)


# ---------------------------------------------------------------- helpers

def player(api, prefix, email=True):
    name = f"{prefix}_{uuid.uuid4().hex[:10]}"
    body = {"name": name}
    if email:
        body["email"] = f"{name}@example.org"
    _, p = api.call("POST", "/v1/players", json=body, expect=201)
    return api.as_(p["token"]), dict(p, email=body.get("email"))


def challenge(api, opponent_id, variant="korpalski", color="white", days_per_move=None):
    return api.call("POST", "/v1/challenges",
                    json={"variant": variant, "opponent": opponent_id, "color": color,
                          "days_per_move": days_per_move}, expect=201)[1]


def new_game(wa, ba, b, **kw):
    ch = challenge(wa, b["id"], **kw)
    accepted = ba.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)[1]
    return ch, accepted["game"]


def play(white, black, gid, moves, first_ply=0):
    game = None
    for i, mv in enumerate(moves):
        ply = first_ply + i
        game = (white if ply % 2 == 0 else black).move(gid, mv, ply=ply)
        assert game["ply"] == ply + 1, (mv, game)
    return game


def moves_of(api, gid):
    return {m["ply"]: m for m in
            api.call("GET", "/v1/games/{id}/moves", [gid], expect=200)[1]["moves"]}


def prefs(pa):
    return pa.call("GET", "/v1/players/me/notifications", expect=200)[1]


def put_prefs(pa, body, expect=200):
    return pa.call("PUT", "/v1/players/me/notifications", json=body, expect=expect)[1]


def register(pa, receiver, path, events=None, **behaviour):
    """pa registers a webhook to receiver's `path`; the receiver learns its secret."""
    body = {"url": receiver.url(path)}
    if events is not None:
        body["events"] = events
    _, hook = pa.call("POST", "/v1/webhooks", json=body, expect=201)
    receiver.configure(path, secrets=[hook["secret"]], **behaviour)
    return hook


def deliveries(pa, hook_id):
    return pa.call("GET", "/v1/webhooks/{id}/deliveries", [hook_id], expect=200)[1]["deliveries"]


# ---------------------------------------------------------------- "nothing more"
#
# "Nothing more arrives" is checked once korpd owes nothing more, never after a pause.
# A delivery is written in the transaction of the event it carries (migration 003's
# trigger), so it exists once the request that made the event has been answered; it
# leaves the status pending only after the receiver (which records a request before
# answering it) or smtp-sink (which writes a message before accepting it) has it, or
# for good.  Once nothing is pending, whatever was owed has arrived and a count taken
# then is final.  Reminders and digests are made by korpd's sweep instead:
# sweep_runs() waits for a whole sweep that begins after it is called.

def sql(db_url, query, **params):
    """The rows of one query in the test's database (psql, unaligned: fields split by
    '|', rows by newlines); each param is a psql variable (:'name' in the query)."""
    argv = ["psql", "-X", "-q", "-t", "-A", "-v", "ON_ERROR_STOP=1", "-d", db_url]
    for name, value in params.items():
        argv += ["-v", f"{name}={value}"]
    out = subprocess.run(argv, input=query, capture_output=True, text=True, timeout=30)
    assert out.returncode == 0, (query, out.stderr)
    return out.stdout.strip()


def owes_nothing(db_url):
    return sql(db_url, "SELECT count(*) FROM deliveries WHERE status = 'pending'") == "0"


def settle(db_url, what, timeout=WAIT):
    """Waits until korpd owes no delivery at all (see above)."""
    eventually(lambda: owes_nothing(db_url), timeout, f"korpd to owe nothing ({what})")


def settle_hooks(what, *hooks, timeout=WAIT):
    """Waits until none of hooks ((owner's api, webhook), as the API lists its
    deliveries) has a delivery pending."""
    eventually(lambda: all(d["status"] != "pending" for pa, hook in hooks
                           for d in deliveries(pa, hook["id"])),
               timeout, f"nothing pending at the webhooks ({what})")


def sweep_runs(api, db_url, what):
    """Waits for korpd's sweep (deadline reminders, then digests, every
    KORP_SWEEP_SECONDS) to run from its start after now.  A marker player (no address,
    no games: it is never mailed) asks for a digest at 00 UTC, due at once; the sweep
    that marks it sent began its digests after it asked.  A second marker, made after
    the first is marked, is marked by a later sweep, whose reminders began after that."""
    for _ in range(2):
        ma, marker = player(api, "sweep", email=False)
        put_prefs(ma, {"digest": {"enabled": True, "hour_utc": 0}})
        eventually(lambda: sql(db_url, "SELECT digest_sent_on IS NOT NULL FROM "
                                       "notification_settings WHERE player_id = :'id'",
                               id=marker["id"]) == "t", WAIT, f"a sweep ({what})")


def msg_id(rec):
    return rec["headers"].get("webhook-id")


def event_key(rec):
    """What a delivery is about: (type, game id, ply) or (type, challenge id)."""
    body = rec["json"] or {}
    data = body.get("data") or {}
    kind = body.get("type")
    if kind and kind.startswith("challenge"):
        return (kind, data.get("challenge_id"))
    return (kind, data.get("game_id"), data.get("ply"))


def ok(rec):
    return rec["answered_status"] is not None and 200 <= rec["answered_status"] < 300


def delivered(receiver, path):
    """The first 2xx-answered record of each webhook-id at path, in arrival order."""
    seen, out = set(), []
    for rec in receiver.received(path):
        if ok(rec) and msg_id(rec) not in seen:
            seen.add(msg_id(rec))
            out.append(rec)
    return out


def keys(records):
    return sorted((event_key(r) for r in records), key=repr)


def assert_verified(records):
    bad = [(r["seq"], r["path"], msg_id(r), r["error"]) for r in records if not r["verified"]]
    assert not bad, f"deliveries whose signature standardwebhooks refused: {bad}"


def check_envelope(rec, clock_offset=0):
    """The parts of a delivery every one must have (the notifications' contract)."""
    h = rec["headers"]
    assert rec["method"] == "POST", rec
    assert h.get("content-type", "").split(";")[0].strip().lower() == "application/json", h
    assert re.fullmatch(r"msg_\d+", h.get("webhook-id", "")), h.get("webhook-id")
    assert re.fullmatch(r"\d+", h.get("webhook-timestamp", "")), h.get("webhook-timestamp")
    drift = int(h["webhook-timestamp"]) - rec["received_at"]
    assert abs(drift) < 60 or abs(drift - clock_offset) < 60, (drift, clock_offset)
    assert re.fullmatch(r"v1,[A-Za-z0-9+/]+={0,2}( v1,[A-Za-z0-9+/]+={0,2})*",
                        h.get("webhook-signature", "")), h.get("webhook-signature")
    body = rec["json"]
    assert isinstance(body, dict), rec["body"]
    assert body.get("type") in ALL_EVENTS, body
    assert re.fullmatch(TIME_RE, str(body.get("timestamp"))), body
    assert isinstance(body.get("data"), dict), body
    return body["data"]


GAME_DATA = ("game_id", "variant", "ply", "fen", "to_move", "status", "result", "termination",
             "draw_offer")


def check_game_data(data, game):
    """A game event's data against the game as korpd shows it at that moment."""
    missing = [k for k in GAME_DATA if k not in data]
    assert not missing, (missing, data)
    assert data["game_id"] == game["id"], (data, game["id"])
    for k in ("variant", "ply", "fen", "to_move", "status", "result", "termination"):
        assert data[k] == game[k], (k, data[k], game[k])


def check_move_data(data, gid, variant, moves, final_ply):
    """A move event's data against the game's move list (GET /v1/games/{id}/moves)."""
    missing = [k for k in GAME_DATA + ("san", "uci", "event_id") if k not in data]
    assert not missing, (missing, data)
    ply = data["ply"]
    m = moves[ply]
    assert data["game_id"] == gid and data["variant"] == variant, data
    assert (data["fen"], data["san"], data["uci"]) == (m["fen"], m["san"], m["uci"]), (data, m)
    assert data["to_move"] == ("black" if ply % 2 == 1 else "white"), data
    if ply < final_ply:
        assert (data["status"], data["result"], data["termination"]) == \
            ("active", "*", None), data
    assert data["draw_offer"] is None, data
    if variant == "korpalski":
        assert isinstance(data.get("polish"), str) and data["polish"], data
        row = SAMPLE[ply - 1]
        if m["san"] == row["san"] and "@" in row["san"]:
            # A drop reads the same in the short and the full Polish notation.
            assert data["polish"] == row["polish"], (data["polish"], row)
        elif m["san"] == row["san"]:
            assert row["uci"][2:4] in data["polish"], (data["polish"], row)


def check_challenge_data(data, ch, status):
    for k in ("challenge_id", "status", "variant", "challenger", "opponent", "game_id"):
        assert k in data, (k, data)
    assert data["challenge_id"] == ch["id"] and data["variant"] == ch["variant"], (data, ch)
    assert data["status"] == status, (data["status"], status)

    def names(ref, who):
        return ref == who["id"] or (isinstance(ref, dict) and ref.get("id") == who["id"])

    assert names(data["challenger"], ch["challenger"]), data
    assert names(data["opponent"], ch["opponent"]), data


def route_template(path):
    """The openapi.yaml path template a concrete path belongs to."""
    paths = spec()["paths"]
    if path in paths:
        return path
    for template in paths:
        rx = "^" + re.sub(r"\\\{[^}]*\\\}", "[^/]+", re.escape(template)) + "$"
        if re.match(rx, path):
            return template
    raise AssertionError(f"{path} is not a route in openapi.yaml")


# ---------------------------------------------------------------- email helpers

def your_move(sink, address):
    return [m for m in sink.messages(to=address) if m.subject.startswith("Your move in game ")]


def wait_count(fn, n, what, timeout=WAIT):
    return eventually(lambda: (lambda xs: xs if len(xs) >= n else None)(fn()), timeout, what)


def check_turn_email(soft, m, to, subject, sans, url, deadline=None):
    """A turn email: headers, encoding and text (the notifications' contract).  Each
    disagreement is noted in `soft`; returns (the decoded body, the List-Unsubscribe
    URL)."""
    msg = m.msg
    original = m.original()
    head, _, raw_body = original.partition(b"\n\n")
    where = f"email {msg['Subject']!r} to {to}"
    # Headers are ASCII (RFC 5322; anything else in encoded words), lines at most 998.
    soft.check(all(b < 128 for b in head), f"{where}: 8-bit bytes in the header")
    soft.check(all(len(line.rstrip(b"\r")) <= 998 for line in original.split(b"\n")),
               f"{where}: a line over 998 characters")
    soft.equal(str(msg["Subject"]), subject, f"{where}: Subject")
    soft.equal(email.utils.parseaddr(str(msg["From"]))[1], MAIL_FROM, f"{where}: From")
    soft.equal(email.utils.parseaddr(str(msg["To"]))[1].lower(), to.lower(), f"{where}: To")
    soft.check(f"<{MAIL_FROM}>" in m.mail_from, f"{where}: envelope sender {m.mail_from}")
    soft.check(any(f"<{to.lower()}>" in r.lower() for r in m.rcpts),
               f"{where}: envelope recipients {m.rcpts}")
    try:
        sent = email.utils.parsedate_to_datetime(str(msg["Date"]))
        now = datetime.datetime.now(datetime.timezone.utc)
        soft.check(sent.tzinfo is not None and abs((now - sent).total_seconds()) < 3600,
                   f"{where}: Date {msg['Date']} (now {now})")
    except (TypeError, ValueError):
        soft.check(False, f"{where}: Date {msg['Date']!r} is not an RFC 5322 date")
    soft.check(re.fullmatch(r"<[^<>@\s]+@[^<>@\s]+>", str(msg["Message-ID"]).strip()),
               f"{where}: Message-ID {msg['Message-ID']!r}")
    soft.equal(str(msg["MIME-Version"]).strip(), "1.0", f"{where}: MIME-Version")
    soft.equal(msg.get_content_type(), "text/plain", f"{where}: Content-Type")
    soft.equal((msg.get_content_charset() or "").lower(), "utf-8", f"{where}: charset")
    cte = str(msg.get("Content-Transfer-Encoding", "7bit")).strip().lower()
    soft.check(cte in ("7bit", "8bit", "quoted-printable", "base64"),
               f"{where}: Content-Transfer-Encoding {cte}")
    if cte != "8bit":
        soft.check(all(b < 128 for b in raw_body), f"{where}: 8-bit bytes in a {cte} body")
    body = msg.get_content()            # decodes the transfer encoding and UTF-8
    for san in sans:
        soft.check(san in body, f"{where}: {san!r} not in the body:\n{body}")
    soft.check(url in body, f"{where}: the game URL {url} not in the body:\n{body}")
    lu = str(msg["List-Unsubscribe"]).strip()
    assert re.fullmatch(r"<https?://[^<>\s]+>", lu), f"{where}: List-Unsubscribe {lu!r}"
    soft.equal(str(msg["List-Unsubscribe-Post"]).strip(), "List-Unsubscribe=One-Click",
               f"{where}: List-Unsubscribe-Post (RFC 8058)")
    if deadline is not None:
        when = datetime.datetime.strptime(deadline, "%Y-%m-%dT%H:%M:%SZ")
        soft.check(when.strftime("%Y-%m-%d") in body or
                   f"{when.day} {when.strftime('%B')}" in body,
                   f"{where}: the deadline {deadline} not in the body")
    return body, lu[1:-1]


def rank_label(line):
    """The rank digit a diagram line starts or ends with (not a move number)."""
    if len(line.strip()) < 8:
        return None
    m = re.match(r"^\s*([1-8])(?![0-9.])\b", line) or re.search(r"\b([1-8])\s*$", line)
    return m.group(1) if m else None


def assert_diagram(body, pieces):
    """A text board: eight rank lines in order (8 to 1, or 1 to 8 from Black's side),
    file letters a-h next to them, and `pieces` ({rank digit: glyphs, one of which must
    be on that rank's line})."""
    lines = body.splitlines()
    marks = [(i, rank_label(l)) for i, l in enumerate(lines)]
    marks = [(i, d) for i, d in marks if d]
    files = re.compile(r"a\s*b\s*c\s*d\s*e\s*f\s*g\s*h|h\s*g\s*f\s*e\s*d\s*c\s*b\s*a")
    for s in range(len(marks)):
        run = marks[s:s + 8]
        if "".join(d for _, d in run) not in ("87654321", "12345678"):
            continue
        first, last = run[0][0], run[-1][0]
        if last - first > 24:
            continue
        near = lines[max(0, first - 3):last + 4]
        assert any(files.search(l) for l in near), f"no file letters by the board:\n{body}"
        ranks = {d: lines[i] for i, d in run}
        for digit, glyphs in pieces.items():
            assert any(g in ranks[digit] for g in glyphs), (digit, glyphs, ranks[digit], body)
        return
    raise AssertionError(f"no diagram (eight rank lines in order) in the body:\n{body}")


def tamper(url):
    """The unsubscribe URL with its signature changed (its sig parameter, else the
    last path segment)."""
    parts = urlsplit(url)
    query = parse_qsl(parts.query, keep_blank_values=True)
    flip = lambda s: s[:-1] + ("A" if s[-1:] != "A" else "B")
    if any(k == "sig" for k, _ in query):
        query = [(k, flip(v) if k == "sig" else v) for k, v in query]
        return urlunsplit(parts._replace(query=urlencode(query)))
    return urlunsplit(parts._replace(path=flip(parts.path)))


def unsubscribe_request(method, url, **kw):
    """Sends to korpd itself what a mail client sends to the link (https in front
    of korpd ends at the proxy: here, the link's https is http)."""
    path = urlsplit(url).path
    url = urlunsplit(urlsplit(url)._replace(scheme="http"))
    r = requests.request(method, url, timeout=30, **kw)
    check(r, method, route_template(path))
    return r


ONE_CLICK = dict(data="List-Unsubscribe=One-Click",
                 headers={"Content-Type": "application/x-www-form-urlencoded"})


# ================================================================ 1. email

def test_turn_email_then_one_click_unsubscribe(korpds, fresh_db, sink, soft):
    k = korpds(fresh_db, sink=sink, public="https")
    api = Api(k.base)
    wa, w = player(api, "anna")
    ba, b = player(api, "bolek")
    _, game = new_game(wa, ba, b, days_per_move=3)
    gid = game["id"]
    wait_count(lambda: sink.messages(to=b["email"]), 1, "the challenge email to Bolek")

    # Three plies of the inventor's game: each mails the player now to move, once.
    for ply in range(3):
        mover = wa if ply % 2 == 0 else ba
        waiting = b if ply % 2 == 0 else w
        before = len(your_move(sink, waiting["email"]))
        mover.move(gid, SAMPLE[ply]["san"], ply=ply)
        wait_count(lambda: your_move(sink, waiting["email"]), before + 1,
                   f"the turn email after ply {ply + 1}")
    settle(fresh_db, "the first three plies")
    assert len(your_move(sink, b["email"])) == 2
    assert len(your_move(sink, w["email"])) == 1
    # Anna is told of nothing but her turn; Bolek of the challenge and his turns.
    assert len(sink.messages(to=w["email"])) == 1, [m.subject for m in sink.messages(to=w["email"])]
    assert len(sink.messages(to=b["email"])) == 3, [m.subject for m in sink.messages(to=b["email"])]

    # 2. Q@g4: the inventor writes H/g4 (hetman). K on c3 (rank 3), k on f2, Q on g4.
    after = wa.game(gid)
    assert after["ply"] == 3 and after["fen"] == SAMPLE[2]["fen"]
    last = your_move(sink, b["email"])[-1]
    body, unsubscribe = check_turn_email(
        soft, last, b["email"], f"Your move in game {gid} against {w['name']} (Korpalski)",
        ["Q@g4", "H/g4"], f"{k.public}/games/{gid}", deadline=after["deadline"])
    assert_diagram(body, {"4": "Q♕", "3": "K♔", "2": "k♚"})
    assert unsubscribe.startswith(k.public + "/"), (unsubscribe, k.public)

    # Glinski: the subject names the variant; the body has the SAN and the link.
    _, glinski = new_game(wa, ba, b, variant="glinski")
    wait_count(lambda: sink.messages(to=b["email"]), 4, "the second challenge email")
    wa.move(glinski["id"], "Qc3", ply=0)
    gl = wait_count(lambda: your_move(sink, b["email"]), 3, "the Glinski turn email")[-1]
    check_turn_email(soft, gl, b["email"],
                     f"Your move in game {glinski['id']} against {w['name']} (Glinski)",
                     ["Qc3"], f"{k.public}/games/{glinski['id']}")

    # One-click unsubscribe (RFC 8058): a forged link is refused, a GET changes nothing,
    # the POST turns Bolek's email off.
    forged = tamper(unsubscribe)
    r = unsubscribe_request("POST", forged, **ONE_CLICK)
    soft.status(r, 403, f"POST {forged} (a forged signature)")
    assert prefs(ba)["email_enabled"] is True
    r = unsubscribe_request("GET", unsubscribe)
    soft.status(r, 200, f"GET {unsubscribe}")
    soft.check(r.headers.get("Content-Type", "").startswith("text/html"),
               f"GET {unsubscribe}: a page, not {r.headers.get('Content-Type')}")
    assert prefs(ba)["email_enabled"] is True
    r = unsubscribe_request("POST", unsubscribe, **ONE_CLICK)
    assert r.status_code == 200, (r.status_code, r.text)
    assert prefs(ba)["email_enabled"] is False

    # Bolek moves (Anna is mailed), Anna moves (Bolek is not), Bolek moves again (Anna
    # is mailed: by then a mail to Bolek would have come too).
    b_before = len(sink.messages(to=b["email"]))
    ba.move(gid, SAMPLE[3]["san"], ply=3)
    wait_count(lambda: your_move(sink, w["email"]), 2, "Anna's turn email after ply 4")
    wa.move(gid, SAMPLE[4]["san"], ply=4)
    ba.move(gid, SAMPLE[5]["san"], ply=5)
    wait_count(lambda: your_move(sink, w["email"]), 3, "Anna's turn email after ply 6")
    settle(fresh_db, "plies 4 to 6")
    assert len(sink.messages(to=b["email"])) == b_before, \
        [m.subject for m in sink.messages(to=b["email"])]

    # Switched back on by the preferences, the next turn is mailed again.
    assert put_prefs(ba, {"email_enabled": True})["email_enabled"] is True
    wa.move(gid, SAMPLE[6]["san"], ply=6)
    wait_count(lambda: your_move(sink, b["email"]), 4, "Bolek's turn email once back on")
    soft.done()


# ================================================================ 2. webhooks

def test_signed_webhooks_reach_the_players_they_concern(korpds, fresh_db, receiver):
    k = korpds(fresh_db)
    api = Api(k.base)
    wa, w = player(api, "wha", email=False)
    ba, b = player(api, "whb", email=False)
    before = datetime.datetime.now(datetime.timezone.utc) - datetime.timedelta(seconds=2)

    hook_a = register(wa, receiver, "/hook/a")
    assert set(hook_a) >= {"id", "url", "events", "enabled", "disabled_reason", "created_at",
                           "secret"}, hook_a
    assert hook_a["url"] == receiver.url("/hook/a")
    assert set(hook_a["events"]) == ALL_EVENTS and len(hook_a["events"]) == len(ALL_EVENTS)
    assert (hook_a["enabled"], hook_a["disabled_reason"]) == (True, None)
    created = datetime.datetime.strptime(hook_a["created_at"], "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc)
    assert before <= created <= before + datetime.timedelta(seconds=60), hook_a["created_at"]
    m = re.fullmatch(r"whsec_([A-Za-z0-9+/]+={0,2})", hook_a["secret"])
    assert m, hook_a["secret"]
    assert len(base64.b64decode(m.group(1), validate=True)) >= 24
    hook_b = register(ba, receiver, "/hook/b")
    assert hook_b["secret"] != hook_a["secret"]
    end_only = register(wa, receiver, "/hook/a-end", events=["game_end"])
    assert end_only["events"] == ["game_end"]

    # Listing and reading: no secrets; someone else's webhook does not exist for you.
    listed = wa.call("GET", "/v1/webhooks", expect=200)[1]["webhooks"]
    assert {h["id"] for h in listed} == {hook_a["id"], end_only["id"]}
    assert all("secret" not in h for h in listed), listed
    one = wa.call("GET", "/v1/webhooks/{id}", [hook_a["id"]], expect=200)[1]
    assert "secret" not in one and one["url"] == hook_a["url"] and one["enabled"] is True
    ba.call("GET", "/v1/webhooks/{id}", [hook_a["id"]], expect=404)
    ba.call("DELETE", "/v1/webhooks/{id}", [hook_a["id"]], expect=404)
    api.call("GET", "/v1/webhooks", expect=401)
    api.call("POST", "/v1/webhooks", json={"url": receiver.url("/x")}, expect=401)
    wa.call("POST", "/v1/webhooks", json={"url": receiver.url("/x"), "events": ["nope"]},
            expect=422)

    # A Korpalski game: the challenge to Bolek, the start to both, each move to the
    # player whose turn it is, the end to both (and to Anna's game_end-only hook).
    ch, game = new_game(wa, ba, b)
    gid = game["id"]
    play(wa, ba, gid, [r["san"] for r in SAMPLE[:10]])
    wa.call("POST", "/v1/games/{id}/resign", [gid], expect=200)
    final = wa.game(gid)
    assert (final["status"], final["result"]) == ("finished", "0-1"), final
    # Declined and canceled challenges.
    declined = challenge(wa, b["id"])
    ba.call("POST", "/v1/challenges/{id}/decline", [declined["id"]], expect=200)
    canceled = challenge(wa, b["id"])
    wa.call("POST", "/v1/challenges/{id}/cancel", [canceled["id"]], expect=200)
    # Glinski allows draw offers at any time: an offer goes to the other player, a
    # declined one to both.
    gl_ch, gl = new_game(wa, ba, b, variant="glinski")
    wa.call("POST", "/v1/games/{id}/draw", [gl["id"]], json={"action": "offer"}, expect=200)
    ba.call("POST", "/v1/games/{id}/draw", [gl["id"]], json={"action": "decline"}, expect=200)
    # A threefold repetition claimed by Anna (White, to move after 12 plies): a claim
    # and the end, to both.
    gc_ch, gc = new_game(wa, ba, b)
    play(wa, ba, gc["id"], shuffle_game(12))
    claimed = wa.call("POST", "/v1/games/{id}/claims", [gc["id"]], json={"kind": "threefold"},
                      expect=200)[1]
    assert claimed["accepted"] is True, claimed
    claim_final = wa.game(gc["id"])
    assert (claim_final["result"], claim_final["termination"]) == ("1/2-1/2", "threefold")

    moves = moves_of(api, gid)
    claim_moves = moves_of(api, gc["id"])
    gcid = gc["id"]
    want_a = [("game_start", gid, 0), ("game_end", gid, 10),
              ("challenge_declined", declined["id"]), ("game_start", gl["id"], 0),
              ("draw_offer", gl["id"], 0), ("game_start", gcid, 0), ("claim", gcid, 12),
              ("game_end", gcid, 12)] + [("move", gid, p) for p in (2, 4, 6, 8, 10)] + \
        [("move", gcid, p) for p in range(2, 13, 2)]
    want_b = [("challenge", ch["id"]), ("game_start", gid, 0), ("game_end", gid, 10),
              ("challenge", declined["id"]), ("challenge", canceled["id"]),
              ("challenge_cancelled", canceled["id"]), ("challenge", gl_ch["id"]),
              ("game_start", gl["id"], 0), ("draw_offer", gl["id"], 0),
              ("draw_offer", gl["id"], 0), ("challenge", gc_ch["id"]), ("game_start", gcid, 0),
              ("claim", gcid, 12), ("game_end", gcid, 12)] + \
        [("move", gid, p) for p in (1, 3, 5, 7, 9)] + [("move", gcid, p) for p in range(1, 12, 2)]
    eventually(lambda: len(delivered(receiver, "/hook/a")) >= len(want_a) and
               len(delivered(receiver, "/hook/b")) >= len(want_b) and
               len(delivered(receiver, "/hook/a-end")) >= 2, WAIT, "the deliveries of the games")
    settle_hooks("the games", (wa, hook_a), (ba, hook_b), (wa, end_only))
    everything = receiver.received()
    assert_verified(everything)
    assert all(ok(r) for r in everything), [(r["path"], r["answered_status"]) for r in everything]
    for rec in everything:
        check_envelope(rec)
    for path in ("/hook/a", "/hook/b", "/hook/a-end"):
        ids = [msg_id(r) for r in receiver.received(path)]
        assert len(ids) == len(set(ids)), f"{path} got a webhook-id twice: {ids}"

    got_a = receiver.received("/hook/a")
    got_b = receiver.received("/hook/b")
    assert keys(got_a) == sorted(want_a, key=repr), keys(got_a)
    assert keys(got_b) == sorted(want_b, key=repr), keys(got_b)
    assert keys(receiver.received("/hook/a-end")) == \
        sorted([("game_end", gid, 10), ("game_end", gcid, 12)], key=repr)

    # Payloads against the game.
    for rec in got_a + got_b:
        data, kind = rec["json"]["data"], rec["json"]["type"]
        if kind == "move" and data["game_id"] == gid:
            check_move_data(data, gid, "korpalski", moves, 10)
        elif kind == "move":
            check_move_data(data, gcid, "korpalski", claim_moves, 13)
        elif kind in ("game_end", "claim"):
            check_game_data(data, final if data["game_id"] == gid else claim_final)
            assert data["draw_offer"] is None
        elif kind == "game_start":
            start = wa.game(data["game_id"])
            assert (data["ply"], data["to_move"], data["status"], data["result"]) == \
                (0, "white", "active", "*"), data
            assert data["variant"] == start["variant"] and data["termination"] is None
        elif kind == "challenge":
            want = {c["id"]: c for c in (ch, declined, canceled, gl_ch, gc_ch)}
            check_challenge_data(data, want[data["challenge_id"]], "open")
        elif kind == "challenge_declined":
            check_challenge_data(data, declined, "declined")
        elif kind == "challenge_cancelled":
            check_challenge_data(data, canceled, "cancelled")
        elif kind == "draw_offer":
            assert data["game_id"] == gl["id"] and data["variant"] == "glinski", data
    offers = sorted(((r["path"], r["json"]["data"]["draw_offer"]) for r in got_a + got_b
                     if r["json"]["type"] == "draw_offer"), key=repr)
    # The offer (draw_offer: white) to Bolek; after the decline, none, to both.
    assert offers == sorted([("/hook/a", None), ("/hook/b", None), ("/hook/b", "white")],
                            key=repr), offers

    # The deliveries korpd lists are the ones received, newest first, each delivered
    # on its first attempt.
    listed = deliveries(wa, hook_a["id"])
    assert {d["id"] for d in listed} == {msg_id(r) for r in got_a}, listed
    created_at = [d["created_at"] for d in listed]
    assert created_at == sorted(created_at, reverse=True), created_at
    numbers = [int(d["id"][len("msg_"):]) for d in listed]
    assert numbers == sorted(numbers, reverse=True), [d["id"] for d in listed]
    for d in listed:
        assert d["status"] == "delivered" and d["delivered_at"] and d["next_attempt_at"] is None, d
        assert len(d["attempts"]) == 1 and d["attempts"][0]["status_code"] == 200, d
        assert d["attempts"][0]["error"] is None and d["attempts"][0]["latency_ms"] >= 0, d
    ba.call("GET", "/v1/webhooks/{id}/deliveries", [hook_a["id"]], expect=404)

    # Rotation: for a day every delivery is signed with the new and the old secret.
    _, rotated = wa.call("POST", "/v1/webhooks/{id}/rotate-secret", [hook_a["id"]], expect=200)
    assert rotated["id"] == hook_a["id"]
    assert re.fullmatch(r"whsec_[A-Za-z0-9+/]+={0,2}", rotated["secret"]), rotated
    assert rotated["secret"] != hook_a["secret"]
    receiver.configure("/hook/a", secrets=[rotated["secret"], hook_a["secret"]])
    # Deleting Bolek's webhook stops his deliveries.
    ba.call("DELETE", "/v1/webhooks/{id}", [hook_b["id"]], expect=204)
    ba.call("GET", "/v1/webhooks/{id}", [hook_b["id"]], expect=404)
    b_count = len(receiver.received("/hook/b"))
    _, g2 = new_game(wa, ba, b)                  # game_start to Anna only
    play(wa, ba, g2["id"], ["K@e1", "K@e8"])     # Anna's turn: a move to Anna
    new = eventually(lambda: [r for r in receiver.received("/hook/a")
                              if event_key(r) == ("move", g2["id"], 2)], WAIT,
                     "the move after the rotation")
    assert new[0]["verified_by"] == [True, True], new[0]
    sigs = new[0]["headers"]["webhook-signature"].split(" ")
    assert len(sigs) == 2, sigs
    # Bolek's webhook is gone (the API shows it no more): the database says what is owed.
    settle(fresh_db, "the game after the deletion")
    assert len(receiver.received("/hook/b")) == b_count

    # The retry route sends a delivery again, with the same webhook-id.
    target = msg_id(new[0])
    _, again = wa.call("POST", "/v1/webhooks/{id}/deliveries/{delivery}/retry",
                       [hook_a["id"], target], expect=202)
    assert again["id"] == target, again
    twice = eventually(lambda: [r for r in receiver.received("/hook/a") if msg_id(r) == target]
                       if len([r for r in receiver.received("/hook/a")
                               if msg_id(r) == target]) >= 2 else None, WAIT,
                       "the delivery sent again")
    assert_verified(twice)
    assert twice[0]["body"] == twice[1]["body"], (twice[0]["body"], twice[1]["body"])
    ba.call("POST", "/v1/webhooks/{id}/deliveries/{delivery}/retry", [hook_a["id"], target],
            expect=404)


# ================================================================ 3. failures

def test_failed_deliveries_are_retried_and_410_disables(korpds, fresh_db, receiver):
    k = korpds(fresh_db, KORP_NOTIFY_BACKOFF_SCALE=0.001, KORP_WEBHOOK_TIMEOUT_SECONDS=1)
    api = Api(k.base)
    wa, w = player(api, "fla", email=False)
    ba, b = player(api, "flb", email=False)
    flaky = register(ba, receiver, "/hook/flaky", events=["move"],
                     responses=[{"status": 503}] * 3)
    later = register(ba, receiver, "/hook/later", events=["move"],
                     responses=[{"status": 503, "retry_after": "2"}])
    gone = register(ba, receiver, "/hook/gone", events=["move"], default={"status": 410})
    # No answer within KORP_WEBHOOK_TIMEOUT_SECONDS, then 200.
    slow = register(ba, receiver, "/hook/slow", events=["move"], responses=[{"hang": True}])
    # A redirect is an answer that is not 2xx: retried, never followed.
    moved = register(ba, receiver, "/hook/moved", events=["move"],
                     responses=[{"status": 307, "location": receiver.url("/hook/elsewhere")}])
    # Nothing listens there: connection refused, again and again.
    closed_url = f"http://127.0.0.1:{free_port()}/hook"
    closed = ba.call("POST", "/v1/webhooks", json={"url": closed_url, "events": ["move"]},
                     expect=201)[1]
    _, game = new_game(wa, ba, b)
    gid = game["id"]
    wa.move(gid, "K@c3", ply=0)

    eventually(lambda: delivered(receiver, "/hook/flaky") and delivered(receiver, "/hook/later")
               and receiver.received("/hook/gone") and delivered(receiver, "/hook/slow")
               and delivered(receiver, "/hook/moved"),
               WAIT, "the retried deliveries")
    # 503 three times, then 200: four attempts of one message, later ones further apart
    # (5 s, 5 min, 30 min, each x 0.001).
    tries = receiver.received("/hook/flaky")
    assert [r["answered_status"] for r in tries] == [503, 503, 503, 200], tries
    assert len({msg_id(r) for r in tries}) == 1, [msg_id(r) for r in tries]
    assert_verified(receiver.received())
    gaps = [b_["received_at"] - a_["received_at"] for a_, b_ in zip(tries, tries[1:])]
    assert gaps[2] > gaps[0] and gaps[2] > 0.5, gaps
    listed = deliveries(ba, flaky["id"])
    assert len(listed) == 1, listed
    d = listed[0]
    assert d["id"] == msg_id(tries[0]) and d["type"] == "move", d
    assert d["status"] == "delivered" and d["delivered_at"] and d["next_attempt_at"] is None, d
    codes = [a["status_code"] for a in d["attempts"]]
    assert sorted(codes) == [200, 503, 503, 503], d["attempts"]
    for a in d["attempts"]:
        assert re.fullmatch(TIME_RE, a["at"]) and a["latency_ms"] >= 0, a

    # Retry-After: 2 (not scaled) holds the next attempt back two seconds.
    two = receiver.received("/hook/later")
    assert [r["answered_status"] for r in two] == [503, 200], two
    assert two[1]["received_at"] - two[0]["received_at"] >= 1.95, two
    assert msg_id(two[0]) == msg_id(two[1])

    assert [r["answered_status"] for r in receiver.received("/hook/moved")] == [307, 200]
    assert receiver.received("/hook/elsewhere") == []
    # A timed-out attempt: no status, an error; the next one delivers.
    hung = receiver.received("/hook/slow")
    assert len(hung) == 2 and hung[0]["client_left"] and ok(hung[1]), hung
    assert 0.9 <= hung[1]["received_at"] - hung[0]["received_at"] < 10, hung
    d = deliveries(ba, slow["id"])[0]
    assert d["status"] == "delivered", d
    first, second = sorted(d["attempts"], key=lambda a: a["status_code"] or 0)
    assert first["status_code"] is None and first["error"], d["attempts"]
    assert first["latency_ms"] >= 900, first
    assert second["status_code"] == 200, d["attempts"]
    # Connection refused: failed attempts without a status, still owed.
    refused = eventually(lambda: [x for x in deliveries(ba, closed["id"]) if x["attempts"]],
                         WAIT, "an attempt at the closed port")[0]
    assert refused["status"] == "pending" and refused["next_attempt_at"], refused
    assert all(a["status_code"] is None and a["error"] for a in refused["attempts"]), refused

    # 410 Gone: the endpoint is disabled at once, nothing more is sent to it.
    assert [r["answered_status"] for r in receiver.received("/hook/gone")] == [410]
    off = ba.call("GET", "/v1/webhooks/{id}", [gone["id"]], expect=200)[1]
    assert off["enabled"] is False, off
    assert isinstance(off["disabled_reason"], str) and off["disabled_reason"], off
    ba.move(gid, "K@f2", ply=1)
    wa.move(gid, "Q@g4", ply=2)
    eventually(lambda: len(delivered(receiver, "/hook/flaky")) >= 2, WAIT,
               "the next move at the working endpoint")
    # Every endpoint but the closed port (owed for days) done with: a delivery to the
    # disabled one, if any were made, would be among them.
    working = [(ba, h) for h in (flaky, later, gone, slow, moved)]
    settle_hooks("plies 2 and 3", *working)
    assert len(receiver.received("/hook/gone")) == 1, receiver.received("/hook/gone")
    owed = deliveries(ba, gone["id"])
    assert owed and all(x["status"] == "failed" and x["next_attempt_at"] is None
                        for x in owed), owed
    assert later["id"] != gone["id"]

    # Enabled again, it gets the events that come after, not those it missed.
    receiver.configure("/hook/gone", default={"status": 200})
    on = ba.call("POST", "/v1/webhooks/{id}/enable", [gone["id"]], expect=200)[1]
    assert (on["enabled"], on["disabled_reason"]) == (True, None), on
    ba.move(gid, SAMPLE[3]["san"], ply=3)
    wa.move(gid, SAMPLE[4]["san"], ply=4)
    eventually(lambda: delivered(receiver, "/hook/gone"), WAIT, "a delivery once enabled")
    settle_hooks("plies 4 and 5", *working)
    assert keys(delivered(receiver, "/hook/gone")) == [("move", gid, 5)]

    # The process's counters (/metrics) saw deliveries, retries and failures.
    text = requests.get(k.base + "/metrics", timeout=30).text
    counts = {m.group(1): float(m.group(2)) for m in re.finditer(
        r'^korp_notifications_total\{channel="webhook",outcome="(\w+)"\} (\S+)$', text, re.M)}
    assert counts.get("delivered", 0) >= 4 and counts.get("retried", 0) >= 1 and \
        counts.get("failed", 0) >= 1, counts


def test_a_delivery_is_given_up_after_three_days(korpds, fresh_db, receiver):
    # Scale 1e-5: 5 s ... 10 h then daily, all within 3 days = 2.6 s.
    k = korpds(fresh_db, KORP_NOTIFY_BACKOFF_SCALE=0.00001)
    api = Api(k.base)
    wa, w = player(api, "gua", email=False)
    ba, b = player(api, "gub", email=False)
    down = register(ba, receiver, "/hook/down", events=["move"], default={"status": 503})
    _, game = new_game(wa, ba, b)
    wa.move(game["id"], "K@c3", ply=0)

    def given_up():
        listed = deliveries(ba, down["id"])
        return listed if listed and listed[0]["status"] == "failed" else None

    listed = eventually(given_up, 30, "the delivery to be given up", step=0.25)
    assert len(listed) == 1, listed
    d = listed[0]
    assert d["next_attempt_at"] is None and d["delivered_at"] is None, d
    # 1 + six fixed delays (17.6 h in all) + daily ones within 72 h: about 9 attempts
    # (fewer if the workers wake less often than the scaled delays), the last ones
    # a scaled day (0.86 s) apart.
    assert 3 <= len(d["attempts"]) <= 12, d["attempts"]
    assert all(a["status_code"] == 503 for a in d["attempts"]), d["attempts"]
    # Failed is final, and korpd records an attempt only once the receiver (which
    # records first) has answered it: every attempt listed has arrived, none is to come.
    got = receiver.received("/hook/down")
    assert len(got) == len(d["attempts"]), (len(got), len(d["attempts"]))
    assert deliveries(ba, down["id"]) == listed
    assert got[-1]["received_at"] - got[0]["received_at"] >= 1.0, \
        [r["received_at"] - got[0]["received_at"] for r in got]
    assert len({msg_id(r) for r in got}) == 1
    assert_verified(got)


def test_smtp_tls_required_never_sends_in_clear(korpds, fresh_db, sink):
    # smtp-sink offers no STARTTLS: with KORP_SMTP_TLS=required nothing may be sent; the
    # mails stay owed, and a korpd allowed to send in clear delivers them later.
    k1 = korpds(fresh_db, sink=sink, KORP_SMTP_TLS="required")
    api = Api(k1.base)
    wa, w = player(api, "tla")
    ba, b = player(api, "tlb")
    _, game = new_game(wa, ba, b)
    wa.move(game["id"], "K@c3", ply=0)
    # Bolek's two mails (the challenge, his move) tried three times each (at once,
    # 5 ms and 0.3 s later), each try refused for want of TLS, both still owed.
    tried = ("SELECT count(*) FROM deliveries d WHERE d.channel = 'email'"
             " AND d.status = 'pending' AND d.player_id = :'id'"
             " AND (SELECT count(*) FROM delivery_attempts a WHERE a.delivery_id = d.id) >= 3")
    eventually(lambda: sql(fresh_db, tried, id=b["id"]) == "2", WAIT,
               "three attempts at each mail")
    assert sql(fresh_db, "SELECT count(*) FROM deliveries WHERE channel = 'email'") == "2"
    assert sink.messages() == [], [m.subject for m in sink.messages()]
    assert k1.alive(), k1.log_text()
    k1.kill9()
    korpds(fresh_db, sink=sink)
    got = wait_count(lambda: sink.messages(to=b["email"]), 2, "the owed mails, in clear now")
    settle(fresh_db, "the owed mails")
    assert len(sink.messages(to=b["email"])) == 2 and len(your_move(sink, b["email"])) == 1
    assert got


# ================================================================ 4. crashes

def test_owed_notifications_survive_kill_9(korpds, fresh_db, receiver, sink):
    # A korpd that delivers nothing commits the moves; SIGKILL; another korpd sends all.
    k1 = korpds(fresh_db, sink=sink, KORP_NOTIFY_WORKERS=0)
    api = Api(k1.base)
    wa, w = player(api, "kla")
    ba, b = player(api, "klb")
    register(wa, receiver, "/hook/a")
    hook_b = register(ba, receiver, "/hook/b")
    ch, game = new_game(wa, ba, b)
    gid = game["id"]
    play(wa, ba, gid, [r["san"] for r in SAMPLE[:8]])
    owed = deliveries(ba, hook_b["id"])
    assert len(owed) == 6 and all(d["status"] == "pending" and d["attempts"] == []
                                  for d in owed), owed
    k1.kill9()
    # A delivery is claimed (attempts + 1, committed) before it is sent: with k1 gone
    # and nothing ever claimed, k1 sent nothing, and nothing of it is on its way.
    total, unclaimed = sql(fresh_db, "SELECT count(*), count(*) FILTER (WHERE attempts = 0"
                                     " AND status = 'pending') FROM deliveries").split("|")
    assert int(total) > 0 and unclaimed == total, (total, unclaimed)
    assert receiver.received() == [] and sink.messages() == []

    korpds(fresh_db, sink=sink)
    want_a = [("game_start", gid, 0)] + [("move", gid, p) for p in (2, 4, 6, 8)]
    want_b = [("challenge", ch["id"]), ("game_start", gid, 0)] + \
        [("move", gid, p) for p in (1, 3, 5, 7)]
    eventually(lambda: len(delivered(receiver, "/hook/a")) >= len(want_a) and
               len(delivered(receiver, "/hook/b")) >= len(want_b) and
               len(sink.messages(to=w["email"])) >= 4 and
               len(sink.messages(to=b["email"])) >= 5, WAIT, "the owed notifications")
    settle(fresh_db, "the owed notifications")
    assert keys(receiver.received("/hook/a")) == sorted(want_a, key=repr)
    assert keys(receiver.received("/hook/b")) == sorted(want_b, key=repr)
    assert_verified(receiver.received())
    assert len(your_move(sink, w["email"])) == 4 and len(sink.messages(to=w["email"])) == 4
    assert len(your_move(sink, b["email"])) == 4 and len(sink.messages(to=b["email"])) == 5
    ids = [str(m.msg["Message-ID"]) for m in sink.messages()]
    assert len(ids) == len(set(ids)), ids


def test_a_delivery_in_flight_when_korpd_dies_is_taken_over(korpds, fresh_db, receiver):
    lease = 2
    k1 = korpds(fresh_db, KORP_NOTIFY_LEASE_SECONDS=lease)
    api = Api(k1.base)
    wa, w = player(api, "ifa", email=False)
    ba, b = player(api, "ifb", email=False)
    hook_a = register(wa, receiver, "/hook/a", events=["move"], default={"hang": True})
    hook_b = register(ba, receiver, "/hook/b", events=["move"], default={"hang": True})
    _, game = new_game(wa, ba, b)
    gid = game["id"]
    play(wa, ba, gid, [r["san"] for r in SAMPLE[:4]])
    # The workers (two by default) hold deliveries the receiver does not answer.
    eventually(lambda: len(receiver.received()) >= 2, WAIT, "deliveries in flight")
    in_flight = {msg_id(r) for r in receiver.received()}
    k1.kill9()
    eventually(lambda: all(r["client_left"] for r in receiver.received()), 10,
               "the killed korpd's connections to close")
    for path in ("/hook/a", "/hook/b"):
        receiver.configure(path, default={"status": 200})

    started = time.monotonic()
    k2 = korpds(fresh_db, KORP_NOTIFY_LEASE_SECONDS=lease)
    want_a = [("move", gid, p) for p in (2, 4)]
    want_b = [("move", gid, p) for p in (1, 3)]
    eventually(lambda: len(delivered(receiver, "/hook/a")) >= 2 and
               len(delivered(receiver, "/hook/b")) >= 2, lease + WAIT,
               "every owed move, the ones in flight included")
    settle_hooks("the moves owed", (Api(k2.base, wa.token), hook_a),
                 (Api(k2.base, ba.token), hook_b))
    assert keys(delivered(receiver, "/hook/a")) == want_a
    assert keys(delivered(receiver, "/hook/b")) == want_b
    done = {msg_id(r) for r in receiver.received() if ok(r)}
    assert in_flight <= done, (in_flight, done)
    # Each message answered 200 once: none delivered twice.
    oks = [msg_id(r) for r in receiver.received() if ok(r)]
    assert len(oks) == len(set(oks)) == 4, oks
    assert_verified(receiver.received())
    assert time.monotonic() - started < lease + WAIT


# ================================================================ 5. two notifiers

def test_two_notifier_processes_deliver_everything_once(korpds, fresh_db, receiver, sink):
    web = korpds(fresh_db, sink=sink, KORP_NOTIFY_WORKERS=0)
    notifiers = [korpds(fresh_db, "--notify-only", sink=sink, http=False,
                        KORP_NOTIFY_WORKERS=2) for _ in range(2)]
    api = Api(web.base)
    wa, w = player(api, "twa")
    ba, b = player(api, "twb")
    register(wa, receiver, "/hook/a")
    register(ba, receiver, "/hook/b")
    ch, game = new_game(wa, ba, b)
    gid = game["id"]
    plies = 40
    play(wa, ba, gid, shuffle_game(plies))

    want_a = [("game_start", gid, 0)] + [("move", gid, p) for p in range(2, plies + 1, 2)]
    want_b = [("challenge", ch["id"]), ("game_start", gid, 0)] + \
        [("move", gid, p) for p in range(1, plies + 1, 2)]
    eventually(lambda: len(delivered(receiver, "/hook/a")) >= len(want_a) and
               len(delivered(receiver, "/hook/b")) >= len(want_b) and
               len(sink.messages()) >= plies + 1, WAIT + 10, "every notification")
    settle(fresh_db, "every notification")
    got = receiver.received()
    ids = [msg_id(r) for r in got]
    dupes = sorted({i for i in ids if ids.count(i) > 1})
    assert not dupes, f"webhook-ids delivered twice: {dupes}"
    assert keys(receiver.received("/hook/a")) == sorted(want_a, key=repr)
    assert keys(receiver.received("/hook/b")) == sorted(want_b, key=repr)
    assert_verified(got)
    assert all(ok(r) for r in got)
    mails = sink.messages()
    mids = [str(m.msg["Message-ID"]) for m in mails]
    assert len(mids) == len(set(mids)) == plies + 1, (len(mids), len(set(mids)))
    assert len(your_move(sink, w["email"])) == plies // 2
    assert len(your_move(sink, b["email"])) == plies // 2
    # All three processes are still up (no crash hidden behind the counts).
    assert all(n.alive() for n in notifiers), [n.log_text() for n in notifiers]
    assert web.alive(), web.log_text()


# ================================================================ 6. SSRF

SSRF_URLS = ["http://127.0.0.1/", "http://10.0.0.1/", "http://[::1]/", "http://169.254.169.254/",
             # the same kinds of place written otherwise
             "http://localhost/", "http://[::ffff:127.0.0.1]/", "http://2130706433/",
             "http://[fe80::1]/"]


def test_webhooks_to_private_addresses_are_refused(korpds, fresh_db, soft):
    k = korpds(fresh_db, KORP_WEBHOOK_ALLOW_PRIVATE=None)
    pa, _ = player(Api(k.base), "ssrf", email=False)
    for url in SSRF_URLS:
        code, problem = pa.call("POST", "/v1/webhooks", json={"url": url})
        if not soft.status(code, 422, f"POST /v1/webhooks {url} without "
                                      "KORP_WEBHOOK_ALLOW_PRIVATE"):
            continue
        assert problem["status"] == 422 and problem["type"].startswith("/problems/"), problem
        why = (problem.get("detail") or "").lower()
        soft.check(re.search(r"private|loopback|link-local|reserved|internal|not allowed",
                             why), f"POST /v1/webhooks {url}: the problem does not say why: "
                                   f"{problem}")
    hooks = pa.call("GET", "/v1/webhooks", expect=200)[1]["webhooks"]
    soft.check(hooks == [], f"webhooks to private places were registered: {hooks}")
    soft.done()


def test_webhook_urls_must_be_http_with_a_host(korpds, fresh_db):
    k = korpds(fresh_db, KORP_WEBHOOK_ALLOW_PRIVATE=None)
    pa, _ = player(Api(k.base), "urls", email=False)
    for url in ("ftp://example.org/hook", "file:///etc/passwd", "http:///nohost",
                "not a url", "gopher://93.184.215.14/"):
        _, problem = pa.call("POST", "/v1/webhooks", json={"url": url}, expect=422)
        assert problem.get("detail"), (url, problem)
    # A public address is accepted (nothing is sent to it: no event happens).
    _, hook = pa.call("POST", "/v1/webhooks", json={"url": "https://93.184.215.14/hook",
                                                    "events": ["move"]}, expect=201)
    assert hook["events"] == ["move"]


# ================================================================ 7. preferences, reminders

def test_notification_preferences_round_trip(korpds, fresh_db, soft):
    k = korpds(fresh_db)
    api = Api(k.base)
    pa, p = player(api, "pref")
    qa, _ = player(api, "nomail", email=False)
    start = prefs(pa)
    assert start["email_address"] == p["email"] and start["email_enabled"] is True, start
    assert set(start["email_events"]) == DEFAULT_EMAIL_EVENTS, start
    assert set(start["webhook_events"]) <= ALL_EVENTS, start
    assert start["digest"]["enabled"] is False and 0 <= start["digest"]["hour_utc"] <= 23
    assert start["reminder_hours"] == 24, start
    assert prefs(qa)["email_address"] is None

    expected = dict(start)
    for change in ({"reminder_hours": 6},
                   {"email_events": ["move", "game_end"]},
                   {"digest": {"enabled": True, "hour_utc": 7}},
                   {"webhook_events": ["move", "deadline_near"]},
                   {"email_address": "someone.else@example.org", "email_enabled": False}):
        expected.update(change)
        got = put_prefs(pa, change)
        assert {**got, "email_events": sorted(got["email_events"]),
                "webhook_events": sorted(got["webhook_events"])} == \
            {**expected, "email_events": sorted(expected["email_events"]),
             "webhook_events": sorted(expected["webhook_events"])}, (change, got)
        assert prefs(pa) == got
    settled = prefs(pa)

    # Out of a field's bounds is 400 (as everywhere in the API); a value of the right
    # type that names nothing (a kind, an address) is 422.
    for bad, status in (({"email_events": ["move", "bogus"]}, 422),
                        ({"webhook_events": ["nope"]}, 422),
                        ({"digest": {"enabled": True, "hour_utc": 24}}, 400),
                        ({"digest": {"enabled": True, "hour_utc": -1}}, 400),
                        ({"reminder_hours": -1}, 400),
                        ({"email_address": "not an address"}, 422)):
        code, problem = pa.call("PUT", "/v1/players/me/notifications", json=bad)
        soft.status(code, status, f"PUT /v1/players/me/notifications {bad} "
                               f"({problem.get('detail') if isinstance(problem, dict) else problem})")
        assert 400 <= code < 500 and problem.get("detail"), (bad, code, problem)
        assert prefs(pa) == settled, bad
    api.call("GET", "/v1/players/me/notifications", expect=401)
    api.call("PUT", "/v1/players/me/notifications", json={"reminder_hours": 5}, expect=401)
    soft.done()


def test_deadline_reminders_by_webhook_and_email(korpds, korpd_binary, fresh_db, receiver,
                                                  sink, soft):
    k = korpds(fresh_db, sink=sink, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=1)
    api = Api(k.base)
    arbiter = create_arbiter(korpd_binary, fresh_db, k.base)
    wa, w = player(api, "dla")
    ba, b = player(api, "dlb")
    put_prefs(ba, {"email_events": ["deadline_near"], "reminder_hours": 48})
    hook = register(ba, receiver, "/hook/b", events=["deadline_near"])
    # A rotated secret: for 24 h deliveries are signed with both secrets, then the new only.
    rotated = ba.call("POST", "/v1/webhooks/{id}/rotate-secret", [hook["id"]], expect=200)[1]
    receiver.configure("/hook/b", secrets=[rotated["secret"], hook["secret"]])

    def reminders(gid):
        return [r for r in receiver.received("/hook/b")
                if r["json"] and r["json"]["type"] == "deadline_near"
                and r["json"]["data"].get("game_id") == gid]

    def wait_reminder(gid, seconds):
        try:
            return eventually(lambda: reminders(gid), seconds, f"a reminder for {gid}")
        except AssertionError:
            return []

    def move_clock(offset):
        receiver.configure("/hook/b", clock_offset_seconds=offset)
        arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": offset}, expect=200)

    # Bolek wants reminders 48 h before a deadline.  A move's time longer than
    # that (three days) is reminded 48 h before its end; a shorter one (one day)
    # halfway, at 12 h left, rather than the moment the turn begins (the rule
    # in openapi.yaml, reminder_hours).
    _, day = new_game(wa, ba, b, days_per_move=1)
    _, three = new_game(wa, ba, b, days_per_move=3)
    wa.move(day["id"], "K@c3", ply=0)
    wa.move(three["id"], "K@c3", ply=0)
    sweep_runs(api, fresh_db, "after the first moves")
    settle(fresh_db, "after the first moves")
    assert reminders(day["id"]) == [], "a reminder with 24 h of a 1-day move left"
    assert reminders(three["id"]) == [], "a reminder with 72 h left and reminder_hours 48"

    # 13 h on: the 1-day game has 11 h left (below half its time), the 3-day game 59 h.
    move_clock(13 * 3600)
    first = eventually(lambda: reminders(day["id"]), WAIT, "the 1-day game's reminder")
    data = check_envelope(first[0], clock_offset=13 * 3600)
    assert (data["game_id"], data["ply"], data["to_move"]) == (day["id"], 1, "black"), data
    assert first[0]["verified_by"] == [True, True], first[0]
    mail = wait_count(lambda: sink.messages(to=b["email"]), 1, "the reminder email")
    assert f"{k.base}/games/{day['id']}" in mail[0].msg.get_content()
    assert email.utils.parseaddr(str(mail[0].msg["To"]))[1] == b["email"]
    sweep_runs(api, fresh_db, "after the first reminder")
    settle(fresh_db, "after the first reminder")
    assert len(reminders(day["id"])) == 1, "more than one reminder for one move"
    assert reminders(three["id"]) == [], "a reminder with 59 h left and reminder_hours 48"

    # 25 h on: the 3-day game has 47 h left, below 48 h (the 1-day game is over).
    move_clock(25 * 3600)
    later = eventually(lambda: reminders(three["id"]), WAIT, "the reminder with 47 h left")
    # 61 h on: 11 h left, but this move was reminded already.
    move_clock(61 * 3600)
    sweep_runs(api, fresh_db, "61 h on")
    settle(fresh_db, "61 h on")
    assert len(reminders(three["id"])) == 1, "more than one reminder for one move"
    data = check_envelope(later[0], clock_offset=25 * 3600)
    assert (data["game_id"], data["ply"], data["to_move"]) == (three["id"], 1, "black"), data
    # 25 h after the rotation the old secret signs no more.
    assert later[0]["verified_by"] == [True, False], later[0]
    assert len(later[0]["headers"]["webhook-signature"].split(" ")) == 1, later[0]["headers"]
    assert_verified(receiver.received())
    # Bolek's email carries reminders only (email_events), one per webhook reminder.
    count = len(receiver.received("/hook/b"))
    mails = wait_count(lambda: sink.messages(to=b["email"]), count, "the reminder emails")
    settle(fresh_db, "the reminder emails")
    assert len(sink.messages(to=b["email"])) == count, [m.subject for m in mails]
    assert f"{k.base}/games/{three['id']}" in mails[-1].msg.get_content()
    soft.done()


def test_digest_replaces_turn_emails_with_one_a_day(korpds, korpd_binary, fresh_db, sink):
    k = korpds(fresh_db, sink=sink, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=1)
    api = Api(k.base)
    arbiter = create_arbiter(korpd_binary, fresh_db, k.base)
    wa, w = player(api, "dga")
    ba, b = player(api, "dgb")
    # korpd's clock to 10:00 UTC (the next one), the digest at 12: real time of day
    # does not matter.
    now = datetime.datetime.now(datetime.timezone.utc)
    ten = now.replace(hour=10, minute=0, second=0, microsecond=0)
    if ten <= now:
        ten += datetime.timedelta(days=1)
    start = int((ten - now).total_seconds())
    arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": start}, expect=200)
    put_prefs(ba, {"digest": {"enabled": True, "hour_utc": 12}})

    _, g1 = new_game(wa, ba, b)
    _, g2 = new_game(wa, ba, b)
    _, g3 = new_game(wa, ba, b, color="black")       # Bolek is White here
    wa.move(g1["id"], "K@c3", ply=0)
    wa.move(g2["id"], "K@c3", ply=0)
    ba.move(g3["id"], "K@c3", ply=0)                 # Anna's turn there: mailed to her
    wait_count(lambda: sink.messages(to=b["email"]), 3, "the three challenge emails")
    wait_count(lambda: your_move(sink, w["email"]), 1, "Anna's turn email")
    sweep_runs(api, fresh_db, "at 10:00")
    settle(fresh_db, "at 10:00")
    assert your_move(sink, b["email"]) == []
    # At 10:00 and a few seconds Bolek has had the challenges only: no digest yet.
    before = len(sink.messages(to=b["email"]))
    assert before == 3, [m.subject for m in sink.messages(to=b["email"])]
    arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": start + 2 * 3600 + 30},
                 expect=200)
    digest = wait_count(lambda: sink.messages(to=b["email"]), before + 1, "the digest")[-1]
    body = digest.msg.get_content()
    assert g1["id"] in body and g2["id"] in body, body
    assert g3["id"] not in body, body
    assert f"{k.base}/games/{g1['id']}" in body, body
    assert digest.msg.get_content_type() == "text/plain"
    sweep_runs(api, fresh_db, "after the digest")
    settle(fresh_db, "after the digest")
    assert len(sink.messages(to=b["email"])) == before + 1
    assert your_move(sink, b["email"]) == []
