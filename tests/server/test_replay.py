"""POST /v1/replay (the study board's reader): a record replayed by the rules,
ply by ply.  Expected values come from tests/data (the inventor's game with its FEN
after every ply, from shared/games; Glinski's fool's mate from his 1974 book; the
Hungarian tournament record whose game 356 is corrupt at ply 109), never from korpd."""

import csv
import os
import re

import requests

from openapi_check import check

DATA = os.environ.get("KORP_TEST_DATA") or os.path.join(
    os.path.dirname(os.path.abspath(__file__)), "..", "data")


def replay(korpd, body, expect):
    r = requests.post(korpd.base + "/v1/replay", json=body, timeout=30)
    check(r, "POST", "/v1/replay")
    assert r.status_code == expect, (r.status_code, r.text)
    return r.json()


def read(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        return f.read()


def inventor_plies():
    with open(os.path.join(DATA, "inventor-sample.fens.tsv"), encoding="utf-8") as f:
        return list(csv.DictReader(f, delimiter="\t"))


def test_the_inventors_game_ply_by_ply(korpd):
    want = inventor_plies()
    got = replay(korpd, {"variant": "korpalski", "pgn": read("inventor-sample.pgn")}, 200)
    assert [p["ply"] for p in got["plies"]] == [int(w["ply"]) for w in want]
    for p, w in zip(got["plies"], want):
        assert (p["san"], p["uci"], p["fen"]) == (w["san"], w["uci"], w["fen_after"]), (p, w)
        assert p["polish"]                  # Korpalski plies carry the inventor's notation
    assert got["plies"][-1]["status"] == "checkmate" and got["plies"][-1]["check"] is True
    assert all(p["status"] == "ongoing" for p in got["plies"][:-1])
    assert (got["result"], got["termination"]) == ("0-1", "checkmate")
    # The empty board with both full reserves (the rules' start).
    assert got["start"] == "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1"


def test_the_inventors_own_notation_as_a_list_of_moves(korpd):
    # The printed Polish movetext, split into moves: the same positions as the SAN record.
    text = "\n".join(line for line in read("inventor-sample-polish.txt").splitlines()
                     if not line.startswith("#"))
    moves = [t for t in re.sub(r"\d+\.", " ", text).split()
             if t not in ("0-1", "1-0", "1/2-1/2", "*")]
    want = inventor_plies()
    got = replay(korpd, {"variant": "korpalski", "moves": moves}, 200)
    assert [p["fen"] for p in got["plies"]] == [w["fen_after"] for w in want]
    assert [p["polish"].rstrip("+#") for p in got["plies"]] == \
        [m.rstrip("+#") for m in moves]


def test_glinskis_fools_mate(korpd):
    got = replay(korpd, {"variant": "glinski", "pgn": read("glinski/FoolsMate.pgn")}, 200)
    assert len(got["plies"]) == 7
    assert "polish" not in got["plies"][0]
    assert (got["result"], got["termination"]) == ("1-0", "checkmate")
    # Played again from the list of its UCI moves: the same positions.
    again = replay(korpd, {"variant": "glinski",
                           "moves": [p["uci"] for p in got["plies"]]}, 200)
    assert [p["fen"] for p in again["plies"]] == [p["fen"] for p in got["plies"]]


def test_the_first_bad_move_is_named(korpd):
    # The Hungarian record's game 356, Szőke-Kövér, is corrupt at 55.Kf7 (ply 109).
    games = re.split(r"\n(?=\[Variant )", read("glinski/HexagonalChessTournaments_hu.pgn"))
    game = [g for g in games if "Szőke" in g and "Kövér" in g and "55.Kf7" in g]
    assert len(game) == 1
    bad = replay(korpd, {"variant": "glinski", "pgn": game[0]}, 422)
    assert bad["type"] == "/problems/illegal-move"
    assert (bad["ply"], bad["move"]) == (109, "Kf7"), bad
    # A Korpalski drop giving check (rules: "drops may never give check").
    bad = replay(korpd, {"variant": "korpalski", "moves": ["K@e1", "K@e8", "Q@e7"]}, 422)
    assert (bad["ply"], bad["move"], bad["reason"]) == (3, "Q@e7", "drop-gives-check"), bad
    # A move after the mate.
    moves = [w["san"] for w in inventor_plies()] + ["K@a1"]
    bad = replay(korpd, {"variant": "korpalski", "moves": moves}, 422)
    assert bad["ply"] == len(moves) and "ended" in bad["detail"], bad


def test_a_start_position_and_bad_bodies(korpd):
    # From a FEN: after the two kings' drops, White drops a queen.
    fen = "4k3/8/8/8/8/8/8/4K3[QRRBBNNPPPPPPPPqrrbbnnpppppppp] w - - 0 2"
    got = replay(korpd, {"variant": "korpalski", "fen": fen, "moves": ["Q@d1"]}, 200)
    assert got["plies"][0]["ply"] == 1 and got["plies"][0]["san"] == "Q@d1"
    assert got["plies"][0]["fen"].startswith("4k3/8/8/8/8/8/8/3QK3[")
    empty = replay(korpd, {"variant": "korpalski", "moves": []}, 200)
    assert empty["plies"] == [] and empty["termination"] is None
    replay(korpd, {"variant": "korpalski", "fen": "not a position", "moves": []}, 422)
    replay(korpd, {"variant": "chess", "moves": []}, 400)
    replay(korpd, {"variant": "korpalski"}, 400)
    replay(korpd, {"variant": "korpalski", "pgn": "1. K@e1", "moves": ["K@e1"]}, 400)
    replay(korpd, {"variant": "korpalski", "moves": ["K@e1 K@e8"]}, 400)


def perft_positions(name):
    with open(os.path.join(DATA, name), encoding="utf-8") as f:
        for line in f:
            if line.strip() and not line.startswith("#"):
                fen, *counts = [p.strip() for p in line.split(";")]
                yield fen, int(counts[0].split()[1])


def test_legal_moves_of_the_end_position_match_independent_perft_counts(korpd):
    # With legal: true the study board gets the end position's moves: as many as the
    # independent implementations count at depth 1 (tests/data/*-perft.epd).
    for variant, name in (("korpalski", "korpalski-perft.epd"), ("glinski", "glinski-perft.epd")):
        for fen, d1 in list(perft_positions(name))[:4]:
            got = replay(korpd, {"variant": variant, "fen": fen, "moves": [], "legal": True}, 200)
            assert len(got["legal"]) == d1, (variant, fen, len(got["legal"]), d1)
            assert len({m["uci"] for m in got["legal"]}) == d1
            assert got["fen"]
    # Once mated, nothing is legal.
    mate = replay(korpd, {"variant": "glinski", "pgn": read("glinski/FoolsMate.pgn"),
                          "legal": True}, 200)
    assert mate["legal"] == [] and mate["fen"] == mate["plies"][-1]["fen"]
