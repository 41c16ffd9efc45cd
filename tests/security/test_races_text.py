"""Caps counted under a lock, free text fit to show, and engine analysis of one's own game:
each test checks one defect a security probe found and fails if it comes back.

  5   at most three confirmation mails per player in 24 hours, however many
      POST /v1/players/me/email/confirmation arrive at once
  6   at most KORP_SIGNUP_LIMIT sign-ups per address in an hour, however many arrive at once
  8   names, tournament names and messages hold no control character, no bidirectional
      override or isolate, and something visible (400 bad-request, as a message with a
      control character has always been answered)
  9   no engine for a position of a game the asker is playing, even with a man more or
      fewer in a reserve

Every korpd here is one of the test's own (tests/server/korp_fixtures.py), on loopback;
requests sent "at once" start together behind a barrier; every wait has a deadline."""

import os
import sys
import threading
import uuid
from contextlib import closing

import pytest

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "server"))

from korp_client import Api  # noqa: E402
from korp_fixtures import Korpd, Postgres  # noqa: E402

# Requests sent at once in the race tests, and how many rounds each runs (a round is one
# player or one address): the probe overran both caps with fewer.
AT_ONCE = 12
ROUNDS = 3


@pytest.fixture(scope="module")
def cluster():
    with closing(Postgres()) as pg:
        yield pg


def at_once(n, fn):
    """fn(i) for i in 0..n-1 on n threads released together; the answers in order."""
    barrier = threading.Barrier(n)
    out = [None] * n

    def run(i):
        barrier.wait(timeout=30)
        out[i] = fn(i)

    threads = [threading.Thread(target=run, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=120)
    assert not any(t.is_alive() for t in threads), "a request did not end"
    return out


def name(prefix):
    return f"{prefix}_{uuid.uuid4().hex[:10]}"


# ---------------------------------------------------------------- item 5


def test_confirmation_mails_stay_three_a_day_when_asked_at_once(start_korpd, cluster):
    k = start_korpd(cluster.fresh_database("confirm"), KORP_EMAIL_CONFIRMATION="required",
                    KORP_HTTP_THREADS=AT_ONCE)
    for _ in range(ROUNDS):
        who = name("cm")
        _, p = Api(k.base).call("POST", "/v1/players",
                                json={"name": who, "email": f"{who}@example.org"}, expect=201)
        assert p["email_confirmed"] is False
        player = Api(k.base, p["token"])
        answers = at_once(AT_ONCE, lambda _: player.call(
            "POST", "/v1/players/me/email/confirmation")[0])
        # Each 202 owed one mail: the sign-up's own and two more make three.
        assert sorted(answers) == [202] * 2 + [429] * (AT_ONCE - 2), answers


# ---------------------------------------------------------------- item 6


def test_sign_ups_stay_within_the_limit_when_sent_at_once(start_korpd, cluster):
    limit = 5
    for _ in range(ROUNDS):
        # The limit is per address and the suite's address is 127.0.0.1: a database of
        # the round's own starts it from nothing.
        k = start_korpd(cluster.fresh_database("signup"), KORP_SIGNUP_LIMIT=limit,
                        KORP_HTTP_THREADS=AT_ONCE)
        api = Api(k.base)
        answers = at_once(AT_ONCE, lambda _: api.call("POST", "/v1/players",
                                                      json={"name": name("su")})[0])
        assert sorted(answers) == [201] * limit + [429] * (AT_ONCE - limit), answers
        k.close()


# ---------------------------------------------------------------- item 8

# Each refused, wherever a free text goes, with what the problem must say.
UNFIT = [
    ("a\x07bell", "control character"),
    ("next\u0085line", "control character"),
    ("tab\tin", "control character"),
    ("abc\u202edcba", "bidirectional"),
    ("left\u2066isolate\u2069", "bidirectional"),
    ("\u200b\u200b\u200b", "nothing visible"),
    (" \u3000\u00a0\u2800 ", "nothing visible"),
    ("\ufe0f\u2060\u115f", "nothing visible"),
]
# Valid today, valid still.
FIT = ["Puchar Łodzi 2027", "Zürich-Open_2", "Árpád kupa", "Turniej 1"]


@pytest.fixture(scope="module")
def server(korpd_binary, cluster):
    k = Korpd(korpd_binary, cluster.fresh_database("text"))
    yield Api(k.base)
    k.close()


def tournament(director, text, expect):
    return director.call("POST", "/v1/tournaments",
                         json={"name": text, "variant": "korpalski", "max_players": 4},
                         expect=expect)[1]


@pytest.mark.parametrize("text,why", UNFIT)
def test_a_tournament_name_unfit_to_show_is_refused(server, text, why):
    director, _ = server.new_player("dir")
    p = tournament(director, text, 400)
    assert p["type"] == "/problems/bad-request" and why in p["detail"], p


def test_tournament_names_valid_before_stay_valid(server):
    director, _ = server.new_player("dir")
    for text in FIT:
        assert tournament(director, text, 201)["name"] == text


def test_player_names_hold_only_letters_digits_and_two_marks(server):
    for text, _ in UNFIT:
        p = server.call("POST", "/v1/players", json={"name": "ab" + text}, expect=400)[1]
        assert p["type"] == "/problems/bad-request"


@pytest.mark.parametrize("text,why", UNFIT)
def test_a_message_unfit_to_show_is_refused(server, text, why):
    wa, _ = server.new_player("w")
    ba, b = server.new_player("b")
    g = wa.new_game(ba, b["id"])
    p = wa.call("POST", "/v1/games/{id}/messages", [g["id"]], json={"text": text},
                expect=400)[1]
    assert p["type"] == "/problems/bad-request" and why in p["detail"], p
    # ... and with a move: the move is not played either.
    p = wa.move(g["id"], "K@e1", expect=400, message=text)
    assert why in p["detail"], p
    assert wa.game(g["id"])["ply"] == 0
    # A message on two lines, in any script, is what it always was.
    wa.call("POST", "/v1/games/{id}/messages", [g["id"]],
            json={"text": "Dzięki za grę!\nΚαλή συνέχεια"}, expect=201)


# ---------------------------------------------------------------- item 9


def analyse(who, fen, expect):
    return who.call("POST", "/v1/analyse", json={"variant": "korpalski", "fen": fen,
                                                "multipv": 1, "movetime_ms": 100},
                    expect=expect)[1]


def with_reserves(fen, white, black):
    board, rest = fen.split("[", 1)
    return f"{board}[{white}{black}]{rest.split(']', 1)[1]}"


def test_analysis_refuses_ones_game_with_a_reserve_a_man_apart(server):
    wa, w = server.new_player("w")
    ba, b = server.new_player("b")
    g = wa.new_game(ba, b["id"])
    wa.move(g["id"], "K@e1")
    ba.move(g["id"], "K@e8")
    fen = wa.game(g["id"])["fen"]
    assert "[QRRBBNNPPPPPPPPqrrbbnnpppppppp]" in fen, fen
    for who in (wa, ba):
        # A pawn fewer, two pawns fewer, a man fewer on each side: still that game.
        for white, black in (("QRRBBNNPPPPPPP", "qrrbbnnpppppppp"),
                             ("QRRBBNNPPPPPP", "qrrbbnnpppppppp"),
                             ("QRRBBNNPPPPPPP", "qrrbbnpppppppp")):
            p = analyse(who, with_reserves(fen, white, black), 403)
            assert p["type"] == "/problems/analysis-own-game" and g["id"] in p["detail"], p
    # Another board, another side to move, or reserves far apart: another position.
    analyse(wa, fen.replace("4K3", "3K4"), 200)
    analyse(wa, fen.replace(" w ", " b "), 200)
    analyse(wa, with_reserves(fen, "QRRBBNNPPPPP", "qrrbbnnpppppppp"), 200)
    # Someone not playing it may analyse it.
    stranger, _ = server.new_player("s")
    analyse(stranger, fen, 200)
