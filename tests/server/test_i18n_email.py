"""Emails in the recipient's language, through postfix's smtp-sink.

A player's language is their `language` preference (PUT /v1/players/me/notifications),
first taken from the Accept-Language of their sign-up.  A Polish and a Hungarian
player each get a challenge and a move; the subject and the body are in their language
(the words expected here are written out by hand from the translations in po/, not read
from korpd), the message is 7-bit quoted-printable of valid UTF-8, and an English
player still reads English.  Bad languages are refused with a problem naming the three.
"""

import uuid

import pytest

from korp_client import Api
from korp_fixtures import Korpd, Postgres, SmtpSink, eventually

MAIL_FROM = "korp@example.org"
WAIT = 20


@pytest.fixture(scope="module")
def stage(korpd_binary):
    pg = Postgres()
    sink = SmtpSink()
    k = Korpd(korpd_binary, pg.url,
              KORP_SMTP_URL=sink.url, KORP_MAIL_FROM=MAIL_FROM, KORP_SWEEP_SECONDS="1",
              KORP_NOTIFY_BACKOFF_SCALE="0.001")
    yield Api(k.base), sink
    k.close()
    sink.close()
    pg.close()


def sign_up(api, prefix, accept_language=None):
    name = f"{prefix}_{uuid.uuid4().hex[:8]}"
    headers = {"Accept-Language": accept_language} if accept_language else {}
    body = {"name": name, "email": f"{name}@example.org"}
    _, p = api.call("POST", "/v1/players", json=body, expect=201, headers=headers)
    return api.as_(p["token"]), dict(p, email=body["email"])


def mail_to(sink, address, subject_start):
    def find():
        return [m for m in sink.messages(to=address) if m.subject.startswith(subject_start)]
    return eventually(find, WAIT, f"a mail to {address} starting {subject_start!r}")[0]


def check_encoding(m):
    """7-bit on the wire, quoted-printable, UTF-8 that decodes."""
    raw = m.original()
    head, _, body = raw.partition(b"\n\n")
    assert all(b < 128 for b in raw), "8-bit bytes in the message"
    assert m.msg.get_content_charset().lower() == "utf-8"
    assert str(m.msg["Content-Transfer-Encoding"]).strip().lower() == "quoted-printable"
    # The subject of a non-ASCII language is an RFC 2047 encoded word.
    text = m.msg.get_content()     # decodes quoted-printable, then UTF-8
    text.encode("utf-8")
    # Paragraphs are wrapped at 72 columns: compare words, not lines.
    return head, text.replace("\n", " ")


def test_language_preference_is_stored_and_checked(stage):
    api, _ = stage
    pa, _ = sign_up(api, "lang", accept_language="hu-HU,hu;q=0.9,en;q=0.5")
    assert pa.call("GET", "/v1/players/me/notifications", expect=200)[1]["language"] == "hu"
    _, got = pa.call("PUT", "/v1/players/me/notifications", json={"language": "pl"}, expect=200)
    assert got["language"] == "pl"
    _, problem = pa.call("PUT", "/v1/players/me/notifications", json={"language": "de"},
                         expect=422)
    assert problem["reason"] == "invalid-value" and problem["type"].endswith("/invalid-value")
    assert '"en"' in problem["detail"] and '"pl"' in problem["detail"] and '"hu"' in problem["detail"]
    assert pa.call("GET", "/v1/players/me/notifications", expect=200)[1]["language"] == "pl"
    # No header, or one naming none of korp's languages: English.
    pb, _ = sign_up(api, "lang", accept_language="de-DE,fr;q=0.8")
    assert pb.call("GET", "/v1/players/me/notifications", expect=200)[1]["language"] == "en"
    # The highest weight wins, whatever the order.
    pc, _ = sign_up(api, "lang", accept_language="en;q=0.3, pl;q=0.7, hu;q=0.5")
    assert pc.call("GET", "/v1/players/me/notifications", expect=200)[1]["language"] == "pl"


def test_emails_in_polish_and_hungarian(stage):
    api, sink = stage
    en, en_p = sign_up(api, "anna")
    pl, pl_p = sign_up(api, "jerzy", accept_language="pl")
    hu, hu_p = sign_up(api, "zsofia", accept_language="hu-HU")

    # A challenge to each: the subject and the first sentence in their language.
    en.call("POST", "/v1/challenges", json={"variant": "korpalski", "opponent": pl_p["id"],
                                              "color": "white"}, expect=201)
    m = mail_to(sink, pl_p["email"], f"{en_p['name']} wyzywa cię na partię Korpalski")
    head, text = check_encoding(m)
    assert b"=?UTF-8?" in head, head          # "cię" is not ASCII
    assert text.startswith(f"Cześć, {pl_p['name']},  "), text
    assert "Możesz przyjąć lub odrzucić wyzwanie na jego stronie." in text, text
    assert "ustawień powiadomień" in text, text

    ch = en.call("POST", "/v1/challenges", json={"variant": "glinski", "opponent": hu_p["id"],
                                                   "color": "black"}, expect=201)[1]
    m = mail_to(sink, hu_p["email"], f"{en_p['name']} kihív egy Glinski játszmára")
    head, text = check_encoding(m)
    assert text.startswith(f"Szia, {hu_p['name']}!  "), text
    assert "A kihívást az oldalán fogadhatod el vagy utasíthatod vissza." in text, text

    # The Hungarian player accepts and, playing White, moves: the English player's
    # mail stays English; then the English player moves and the Hungarian's turn mail
    # is Hungarian, with the date's words.
    game = hu.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)[1]["game"]
    gid = game["id"]
    # Glinski's start (docs/rules): White's pawn on f5 faces Black's on f7, so it
    # steps once; Black answers with the pawn on e7.
    hu.move(gid, "f5f6", ply=0)
    m = mail_to(sink, en_p["email"], f"Your move in game {gid}")
    _, text = check_encoding(m)
    assert "You play Black." in text and f"Hello {en_p['name']}," in text, text
    en.move(gid, "e7e6", ply=1)
    m = mail_to(sink, hu_p["email"], f"Te lépsz a(z) {gid} játszmában")
    _, text = check_encoding(m)
    assert "Világossal játszol." in text, text
    assert "A játszma megnyitása:" in text, text
