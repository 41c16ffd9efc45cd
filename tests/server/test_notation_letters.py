"""Moves in the notations a variant reads (docs/rules: Glinski's SAN with English letters
K Q R B N, its long form, coordinates, and Hungarian letters K V B F H): an illegal move
written in Hungarian letters is refused for what it does, as the same move in English
letters is, never as unreadable; and a record may mix the notations move by move.  The
expected positions are those of the published Hungarian record (tests/data), replayed as
printed; the letters are swapped by the rules' table."""

import os
import re

import requests

from openapi_check import check

DATA = os.environ.get("KORP_TEST_DATA") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "data")
HUNGARIAN_TO_ENGLISH = str.maketrans({"V": "Q", "B": "R", "F": "B", "H": "N"})


def replay(korpd, body, expect=200):
    r = requests.post(korpd.base + "/v1/replay", json=body, timeout=30)
    check(r, "POST", "/v1/replay")
    assert r.status_code == expect, (r.status_code, r.text)
    return r.json()


def refused_move(player, gid, move):
    err = player.move(gid, move, expect=422)
    assert err["type"] == "/problems/illegal-move", err
    return err["reason"]


def test_an_illegal_move_in_hungarian_letters_says_why(api, two_players):
    wa, w, ba, b = two_players
    gid = wa.new_game(ba, b["id"], variant="glinski")["id"]
    # At the start White's queen on e1 cannot reach f9 (own men stand in the way).
    english = refused_move(wa, gid, "Qxf9")
    assert english != "syntax"
    assert refused_move(wa, gid, "Vxf9") == english
    # The knight letters: English N, Hungarian H; the queen's V without the capture too.
    assert refused_move(wa, gid, "Vf9") == refused_move(wa, gid, "Qf9")
    # A letter of no notation is unreadable.
    assert refused_move(wa, gid, "Zxf9") == "syntax"
    # A legal move in Hungarian letters is played: the knight from d1 to f4, as the
    # published game 2 of the Hungarian record opens (1.g5 g6 2.Hdf4).
    wa.move(gid, "g5", ply=0)
    ba.move(gid, "g6", ply=1)
    wa.move(gid, "Hdf4", ply=2)
    assert wa.game(gid)["ply"] == 3


def first_game_moves():
    with open(os.path.join(DATA, "glinski", "HexagonalChessTournaments_hu.pgn"),
              encoding="utf-8") as f:
        games = re.split(r"\n(?=\[Variant )", f.read())
    movetext = "\n".join(l for l in games[0].splitlines() if not l.startswith("["))
    return [t for t in re.sub(r"\d+\.", " ", movetext).split()
            if t not in ("1-0", "0-1", "1/2-1/2", "*", "remi")]


def test_a_record_mixing_notations_move_by_move(korpd):
    moves = first_game_moves()
    assert moves[:4] == ["e5", "Hdf8", "d5", "g5"] and len(moves) == 73
    want = replay(korpd, {"variant": "glinski", "moves": moves})
    assert len(want["plies"]) == 73
    # Every other move in English letters (bishops left in Hungarian: an English B
    # would be a Hungarian rook's letter), every fifth in coordinates.
    mixed = []
    for i, (m, ply) in enumerate(zip(moves, want["plies"])):
        if i % 5 == 4:
            mixed.append(ply["uci"])
        elif i % 2 == 1 and "F" not in m:
            mixed.append(m.translate(HUNGARIAN_TO_ENGLISH))
        else:
            mixed.append(m)
    assert any(re.match(r"^[QRN]", m) for m in mixed) and any(re.match(r"^[VBH]", m) for m in mixed)
    got = replay(korpd, {"variant": "glinski", "moves": mixed})
    assert [p["fen"] for p in got["plies"]] == [p["fen"] for p in want["plies"]]
    # The same as PGN movetext.
    text = " ".join(f"{i // 2 + 1}. {m}" if i % 2 == 0 else m for i, m in enumerate(mixed))
    got = replay(korpd, {"variant": "glinski", "pgn": text + " 1-0"})
    assert [p["fen"] for p in got["plies"]] == [p["fen"] for p in want["plies"]]


def test_a_record_with_an_illegal_hungarian_move_names_it(korpd):
    # 1. Vxf9 at the start: read, and refused for what it does.
    bad = replay(korpd, {"variant": "glinski", "moves": ["Vxf9"]}, 422)
    assert (bad["ply"], bad["move"]) == (1, "Vxf9") and bad["reason"] != "syntax", bad
    same = replay(korpd, {"variant": "glinski", "moves": ["Qxf9"]}, 422)
    assert bad["reason"] == same["reason"], (bad, same)
