"""Whole games through korpd's API: the inventor's sample game in
three notations, claims, draw offers, concurrency and retries, crashes, Glinski mate and
stalemate, time control, and the game-management routes around them.

Every answer goes through korp_client.Api, which checks it against openapi.yaml. Every
expected value comes from the rules files (/work/shared/rules/, docs/rules/), the game
records in tests/data/ (see its README), or hand analysis written next to it; none is
copied from korpd's answers.
"""

import datetime
import math
import os
import re
import signal
import subprocess
import threading
import time
import uuid

import pytest
import requests

from korp_client import Api
from korp_fixtures import korp_replay, wait_until
from openapi_check import check

HERE = os.path.dirname(os.path.abspath(__file__))
DATA = os.environ.get("KORP_TEST_DATA") or os.path.join(HERE, "..", "data")

MOVES = "/v1/games/{id}/moves"
GAME = "/v1/games/{id}"


# ---------------------------------------------------------------- helpers


def post(api, template, gid, json=None, expect=200, **kw):
    return api.call("POST", template, [gid], json=json, expect=expect, **kw)[1]


def get(api, template, gid, expect=200):
    return api.call("GET", template, [gid], expect=expect)[1]


def analysis(api, gid):
    return get(api, "/v1/games/{id}/analysis", gid)


def stored_moves(api, gid):
    return get(api, MOVES, gid)["moves"]


def claim(api, gid, kind, move=None, expect=200):
    body = {"kind": kind}
    if move is not None:
        body["move"] = move
    return post(api, "/v1/games/{id}/claims", gid, json=body, expect=expect)


def draw(api, gid, action, expect=200):
    return post(api, "/v1/games/{id}/draw", gid, json={"action": action}, expect=expect)


def play(white, black, gid, moves, first_ply):
    """Plays `moves` from ply first_ply (plies already played), each with its "ply",
    by the side whose turn it is by parity; returns the last game."""
    game = None
    for i, mv in enumerate(moves):
        ply = first_ply + i
        side = white if ply % 2 == 0 else black
        game = side.move(gid, mv, ply=ply)
        assert game["ply"] == ply + 1, (mv, game)
    return game


def assert_contiguous(moves, n):
    assert [m["ply"] for m in moves] == list(range(1, n + 1)), [m["ply"] for m in moves]


def same_game(before, after):
    """The game did not change (a rejected claim, a refused request)."""
    for key in ("status", "result", "termination", "fen", "ply", "to_move", "moves",
                "draw_offer"):
        assert after[key] == before[key], (key, before[key], after[key])


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc)


def player_record(api, pid):
    return api.call("GET", "/v1/players/{id}", [pid], expect=200)[1]


def pgn_tags(text):
    return dict(re.findall(r'^\[(\w+) "([^"]*)"\]\s*$', text, re.M))


def replay(text):
    """`korp replay` of a PGN text: ([(ply, san, fen)], last line)."""
    korp = os.environ.get("KORP")
    if not korp:
        pytest.skip("KORP (the CLI) is not set")
    return korp_replay(korp, text)


def pgn(api, gid):
    r = requests.get(f"{api.base}/v1/games/{gid}/pgn", timeout=30)
    return check(r, "GET", "/v1/games/{id}/pgn")


def knight_shuffle(count, white_home=True, black_home=True, white_first=True):
    """`count` plies of knight moves: White's knight b1<->c3, Black's g8<->f6.
    None of them captures, moves a pawn or drops, and none gives check with the kings on
    a1 and h8 (a knight on b1/c3 reaches a3 c3 d2 / a2 a4 b1 b5 d1 d5 e2 e4; one on g8/f6
    reaches e7 f6 h6 / d5 d7 e4 e8 g4 g8 h5 h7)."""
    out = []
    white_turn = white_first
    for _ in range(count):
        if white_turn:
            out.append("Nc3" if white_home else "Nb1")
            white_home = not white_home
        else:
            out.append("Nf6" if black_home else "Ng8")
            black_home = not black_home
        white_turn = not white_turn
    return out


# Kings in opposite corners and a knight each: 1. K@a1 K@h8 2. N@b1 N@g8. Nothing
# gives check (a knight on b1 covers a3 c3 d2; on g8 e7 f6 h6).
CORNERS_AND_KNIGHTS = ["K@a1", "K@h8", "N@b1", "N@g8"]
# The position after it (hand-written from the rules' FEN: reserves White first, K Q R B
# N P; each side has dropped its king and one knight).
CORNERS_BOARD = "6nk/8/8/8/8/8/8/KN6[QRRBBNPPPPPPPPqrrbbnpppppppp] w - -"


# ------------------------------------------- the inventor's sample game


def load_sample():
    with open(os.path.join(DATA, "inventor-sample.fens.tsv"), encoding="utf-8") as f:
        rows = [line.rstrip("\n").split("\t") for line in f][1:]
    plies = [{"ply": int(p), "san": s, "uci": u, "fen": fen} for p, s, u, fen in rows]
    with open(os.path.join(DATA, "inventor-sample-polish.txt"), encoding="utf-8") as f:
        text = " ".join(line for line in f if not line.startswith("#"))
    polish = [re.sub(r"^\d+\.", "", tok) for tok in text.split()]
    polish = [tok for tok in polish if tok]
    assert len(plies) == 56 and len(polish) == 56, (len(plies), len(polish))
    for row, pl in zip(plies, polish):
        row["polish"] = pl
    return plies


@pytest.mark.parametrize("rotation", [0, 1, 2])
def test_inventor_sample_game_in_three_notations(api, two_players, rotation):
    # Three games: every ply is sent once in each notation across them.
    wa, w, ba, b = two_players
    sample = load_sample()
    game = wa.new_game(ba, b["id"], color="white")
    gid = game["id"]
    assert game["white"]["id"] == w["id"] and game["black"]["id"] == b["id"]
    start = "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1"  # rules §5
    assert game["fen"] == start and game["ply"] == 0 and game["moves"] == []
    used = {"san": 0, "uci": 0, "polish": 0}
    for row in sample:
        ply = row["ply"]
        # rotation 0: ply 1 SAN, 2 Polish, 3 UCI, 4 SAN, ..., the mate in Polish "H:b2X".
        notation = ("uci", "san", "polish")[(ply + rotation) % 3]
        used[notation] += 1
        side = wa if ply % 2 == 1 else ba
        if ply in (5, 24, 47):
            legal = {m["uci"] for m in get(api, "/v1/games/{id}/legal-moves", gid)["moves"]}
            assert row["uci"] in legal, (ply, row["uci"])
        game = side.move(gid, row[notation], ply=ply - 1)
        assert game["ply"] == ply, row
        assert game["fen"] == row["fen"], (ply, row[notation], game["fen"], row["fen"])
        assert game["moves"][-1] == row["san"], (ply, game["moves"][-1], row["san"])
        assert game["to_move"] == ("black" if ply % 2 == 1 else "white")
        if ply < 56:
            assert game["status"] == "active" and game["result"] == "*", (ply, game)
    assert used["san"] > 10 and used["uci"] > 10 and used["polish"] > 10
    assert sample[-1]["polish"] == "H:b2X"

    game = wa.game(gid)
    assert game["status"] == "finished"
    assert game["result"] == "0-1"
    assert game["termination"] == "checkmate"
    assert game["moves"] == [r["san"] for r in sample]
    assert game["deadline"] is None and game["draw_offer"] is None

    moves = stored_moves(api, gid)
    assert_contiguous(moves, 56)
    times = [m["at"] for m in moves]
    assert times == sorted(times) and times[-1] <= game["updated_at"]
    assert [(m["san"], m["uci"], m["fen"]) for m in moves] == \
        [(r["san"], r["uci"], r["fen"]) for r in sample]

    # The game is over: no more moves, no legal moves, the analysis says mate.
    err = wa.move(gid, "Ka1", expect=409, ply=56)
    assert err["type"] == "/problems/game-over"
    assert get(api, "/v1/games/{id}/legal-moves", gid)["moves"] == []
    a = analysis(api, gid)
    assert a["status"] == "checkmate" and a["game_status"] == "finished" and a["ply"] == 56

    # The PGN export replays with `korp replay` to the same moves and result.
    text = pgn(api, gid)
    tags = pgn_tags(text)
    for tag in ("Event", "Site", "Date", "White", "Black", "Result", "Variant",
                "Termination", "TimeControl"):
        assert tag in tags, (tag, text)
    assert tags["White"] == w["name"] and tags["Black"] == b["name"]
    assert tags["Result"] == "0-1" and tags["Variant"] == "Korpalski"
    assert text.rstrip().endswith("0-1"), text
    plies, last = replay(text)
    assert last == "result 0-1 checkmate"
    assert plies == [(r["ply"], r["san"], r["fen"]) for r in sample]

    # The records: one game each, lost by White, won by Black (openapi: Player).
    wr, br = player_record(api, w["id"]), player_record(api, b["id"])
    assert (wr["played"], wr["won"], wr["drawn"], wr["lost"], wr["points"]) == (1, 0, 0, 1, 0)
    assert (br["played"], br["won"], br["drawn"], br["lost"], br["points"]) == (1, 1, 0, 0, 1)


# ------------------------------------------------------------- threefold


def test_threefold_claim_now_after_a_knight_shuffle(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    game = play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)
    # After ply 4 the position P occurs for the first time; the shuffle
    # 3. Nc3 Nf6 4. Nb1 Ng8 brings it back after ply 8 and again after ply 12.
    assert game["fen"] == CORNERS_BOARD + " 0 3"
    a = analysis(api, gid)
    assert (a["halfmove_clock"], a["earlier_occurrences"], a["threefold_claimable"]) == \
        (0, [], False)

    # A claim now is premature: the position has not even occurred before.
    c = claim(wa, gid, "threefold")
    assert c["accepted"] is False and c["reason"]
    same_game(game, c["game"])

    game = play(wa, ba, gid, knight_shuffle(4), 4)
    assert game["fen"] == CORNERS_BOARD + " 4 5"
    a = analysis(api, gid)
    assert a["halfmove_clock"] == 4
    assert a["earlier_occurrences"] == [4]
    assert a["threefold_claimable"] is False
    assert a["fifty_move_claimable"] is False

    # Second occurrence: rejected, nothing changes.
    c = claim(wa, gid, "threefold")
    assert c["accepted"] is False and c["reason"]
    same_game(game, c["game"])
    # With a move that does not complete a repetition (after 5. Nc3 the position after
    # ply 5 would occur for the second time only): rejected, and the move is not played.
    c = claim(wa, gid, "threefold", move="Nc3")
    assert c["accepted"] is False
    same_game(game, c["game"])
    same_game(game, wa.game(gid))
    assert len(stored_moves(api, gid)) == 8
    # Only the side to move may claim, only a player at all; an illegal move with a
    # claim is 422.
    err = claim(ba, gid, "threefold", expect=409)
    assert err["type"] == "/problems/not-your-turn"
    outsider, _ = api.new_player("x")
    assert claim(outsider, gid, "threefold", expect=403)["type"] == "/problems/forbidden"
    err = claim(wa, gid, "threefold", move="Nb5", expect=422)
    assert err["type"] == "/problems/illegal-move"
    same_game(game, wa.game(gid))

    game = play(wa, ba, gid, knight_shuffle(4), 8)
    assert game["fen"] == CORNERS_BOARD + " 8 7"
    a = analysis(api, gid)
    assert a["earlier_occurrences"] == [4, 8]
    assert a["threefold_claimable"] is True
    assert a["halfmove_clock"] == 8

    c = claim(wa, gid, "threefold")
    assert c["accepted"] is True and c["reason"]
    g = c["game"]
    assert (g["status"], g["result"], g["termination"]) == ("finished", "1/2-1/2", "threefold")
    assert g["ply"] == 12 and g["fen"] == game["fen"]
    assert wa.game(gid)["termination"] == "threefold"
    err = wa.move(gid, "Nc3", expect=409)
    assert err["type"] == "/problems/game-over"
    err = claim(wa, gid, "threefold", expect=409)
    assert err["type"] == "/problems/game-over"


def test_threefold_claim_with_the_move_that_completes_it(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)
    # Plies 5-11: Nc3 Nf6 Nb1 Ng8 Nc3 Nf6 Nb1; Black to move. ...Ng8 would make the
    # position after ply 4 (and 8) occur for the third time.
    game = play(wa, ba, gid, knight_shuffle(7), 4)
    assert game["ply"] == 11 and game["to_move"] == "black"
    a = analysis(api, gid)
    assert a["threefold_claimable"] is False
    assert a["earlier_occurrences"] == [7], a      # the same after 4. Nb1
    # Only Black may claim now.
    assert claim(wa, gid, "threefold", move="Nc3", expect=409)["type"] == \
        "/problems/not-your-turn"
    c = claim(ba, gid, "threefold", move="Ng8")
    assert c["accepted"] is True, c
    g = c["game"]
    assert (g["status"], g["result"], g["termination"]) == ("finished", "1/2-1/2", "threefold")
    # The move that made the claim hold is not played.
    assert g["ply"] == 11 and g["fen"] == game["fen"] and len(g["moves"]) == 11
    assert len(stored_moves(api, gid)) == 11


# ------------------------------------------------------------ fifty moves


def test_fifty_move_claim_counts_quiet_plies_since_drops_and_pawn_moves(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)
    game = play(wa, ba, gid, knight_shuffle(20), 4)   # knights home again, White to move
    assert game["ply"] == 24 and analysis(api, gid)["halfmove_clock"] == 20
    assert game["fen"] == CORNERS_BOARD + " 20 13"

    # A drop resets the clock (rules §4.2): 13. P@h2 (a pawn on h2 covers g3: no check).
    game = wa.move(gid, "P@h2", ply=24)
    assert game["fen"].endswith(" 0 13")
    assert analysis(api, gid)["halfmove_clock"] == 0
    game = ba.move(gid, "Nf6", ply=25)
    assert analysis(api, gid)["halfmove_clock"] == 1
    # So does a pawn move: 14. h3 (UCI-style).
    game = wa.move(gid, "h2h3", ply=26)
    assert game["fen"].endswith(" 0 14") and analysis(api, gid)["halfmove_clock"] == 0

    # 99 quiet plies (28..126): White's knight from b1, Black's from f6.
    game = play(wa, ba, gid, knight_shuffle(99, white_home=True, black_home=False,
                                            white_first=False), 27)
    assert game["ply"] == 126 and game["to_move"] == "white"
    a = analysis(api, gid)
    assert a["halfmove_clock"] == 99 and a["fifty_move_claimable"] is False
    assert game["fen"].split()[-2] == "99"

    c = claim(wa, gid, "fifty-move")
    assert c["accepted"] is False and c["reason"]
    same_game(game, c["game"])
    # A claim with a pawn move (h3-h4 resets the clock) is rejected, the move not played.
    c = claim(wa, gid, "fifty-move", move="h4")
    assert c["accepted"] is False
    same_game(game, wa.game(gid))

    # The 100th quiet ply: now Black may claim.
    last = knight_shuffle(100, white_home=True, black_home=False, white_first=False)[-1]
    game = wa.move(gid, last, ply=126)
    a = analysis(api, gid)
    assert a["halfmove_clock"] == 100 and a["fifty_move_claimable"] is True
    assert claim(wa, gid, "fifty-move", expect=409)["type"] == "/problems/not-your-turn"
    c = claim(ba, gid, "fifty-move")
    assert c["accepted"] is True, c
    g = c["game"]
    assert (g["status"], g["result"], g["termination"]) == ("finished", "1/2-1/2", "fifty-move")
    assert g["ply"] == 127


def test_fifty_move_claim_refused_when_the_rule_is_off(api, two_players):
    wa, _, ba, b = two_players
    game = wa.new_game(ba, b["id"], fifty_move_rule=False)
    gid = game["id"]
    assert game["fifty_move_rule"] is False
    play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)
    game = play(wa, ba, gid, knight_shuffle(100), 4)
    assert game["ply"] == 104 and game["fifty_move_rule"] is False
    a = analysis(api, gid)
    assert a["halfmove_clock"] == 100
    assert a["fifty_move_rule"] is False and a["fifty_move_claimable"] is False
    c = claim(wa, gid, "fifty-move")
    assert c["accepted"] is False and c["reason"]
    same_game(game, c["game"])
    # The repetition rule still holds (this position stood after plies 4, 8, ..., 100).
    assert analysis(api, gid)["threefold_claimable"] is True
    c = claim(wa, gid, "threefold")
    assert c["accepted"] is True and c["game"]["termination"] == "threefold"


def test_analysis_lists_every_earlier_occurrence(api, two_players):
    # An arbiter reads the list to rule on a claim: it must hold every earlier ply, not
    # the first few. After 1. K@a1 K@h8 2. N@b1 N@g8 and 25 rounds of Nc3 Nf6 Nb1 Ng8
    # (with the fifty-move rule off, so the game may run this long), the position after
    # ply 104 stood after plies 4, 8, ..., 100.
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"], fifty_move_rule=False)["id"]
    play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)
    play(wa, ba, gid, knight_shuffle(100), 4)
    a = analysis(api, gid)
    assert a["ply"] == 104 and a["threefold_claimable"] is True
    assert a["earlier_occurrences"] == list(range(4, 104, 4))


# ----------------------------------------------------------- draw offers

# All 32 men dropped onto the squares of the standard chess array (kings e1/e8 first).
# No drop gives check: on an empty board a1/h1 rooks, d1 queen, c1/f1 bishops and b1/g1
# knights reach none of e8's squares (lines a-file/rank 1, h-file, d-file and d1-h5/d1-a4,
# c1-h6/c1-a3, f1-a6/f1-h3), and the black men mirror them; pawns on ranks 2/7 cover
# ranks 3/6 only.
FULL_ARRAY = ["K@e1", "K@e8"]
for _w, _b in zip(["Q@d1", "R@a1", "R@h1", "B@c1", "B@f1", "N@b1", "N@g1"]
                  + [f"P@{f}2" for f in "abcdefgh"],
                  ["Q@d8", "R@a8", "R@h8", "B@c8", "B@f8", "N@b8", "N@g8"]
                  + [f"P@{f}7" for f in "abcdefgh"]):
    FULL_ARRAY += [_w, _b]


def test_korpalski_draw_by_agreement_needs_both_reserves_empty(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, FULL_ARRAY[:2], 0)
    err = draw(wa, gid, "offer", expect=422)
    assert err["type"] == "/problems/draw-not-allowed" and err["detail"]
    assert analysis(api, gid)["draw_by_agreement_allowed"] is False

    # After ply 31 White's reserve is empty, Black still holds a pawn: still refused.
    game = play(wa, ba, gid, FULL_ARRAY[2:31], 2)
    a = analysis(api, gid)
    assert a["can_drop"] == {"white": False, "black": True}
    assert a["draw_by_agreement_allowed"] is False
    assert draw(wa, gid, "offer", expect=422)["type"] == "/problems/draw-not-allowed"
    assert draw(ba, gid, "offer", expect=422)["type"] == "/problems/draw-not-allowed"
    same_game(game, wa.game(gid))
    assert wa.game(gid)["draw_offer"] is None

    game = ba.move(gid, FULL_ARRAY[31], ply=31)
    assert game["fen"].startswith("rnbqkbnr/pppppppp/8/8/8/8/PPPPPPPP/RNBQKBNR")
    assert re.search(r"\[-?\] w - - 0 17$", game["fen"]), game["fen"]
    a = analysis(api, gid)
    assert a["can_drop"] == {"white": False, "black": False}
    assert a["draw_by_agreement_allowed"] is True

    outsider, _ = api.new_player("x")
    assert draw(outsider, gid, "offer", expect=403)["type"] == "/problems/forbidden"
    # No offer stands: accept and decline are 409.
    assert draw(ba, gid, "accept", expect=409)["type"] == "/problems/conflict"
    assert draw(ba, gid, "decline", expect=409)["type"] == "/problems/conflict"
    # White offers; offering again changes nothing; White cannot accept its own offer.
    assert draw(wa, gid, "offer")["draw_offer"] == "white"
    assert draw(wa, gid, "offer")["draw_offer"] == "white"
    assert draw(wa, gid, "accept", expect=409)["type"] == "/problems/conflict"
    # White's own move does not lapse the offer; Black's move does.
    assert wa.move(gid, "e4", ply=32)["draw_offer"] == "white"
    game = ba.move(gid, "e7e5", ply=33)
    assert game["draw_offer"] is None
    assert draw(ba, gid, "accept", expect=409)["type"] == "/problems/conflict"
    # Black offers, White declines.
    assert draw(ba, gid, "offer")["draw_offer"] == "black"
    g = draw(wa, gid, "decline")
    assert g["draw_offer"] is None and g["status"] == "active"
    assert draw(wa, gid, "accept", expect=409)["type"] == "/problems/conflict"
    # Black offers again, White accepts.
    assert draw(ba, gid, "offer")["draw_offer"] == "black"
    g = draw(wa, gid, "accept")
    assert (g["status"], g["result"], g["termination"], g["draw_offer"]) == \
        ("finished", "1/2-1/2", "agreement", None)
    assert g["ply"] == 34
    assert draw(ba, gid, "offer", expect=409)["type"] == "/problems/game-over"


def test_glinski_draw_by_agreement_any_time(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"], variant="glinski")["id"]
    assert analysis(api, gid)["draw_by_agreement_allowed"] is True
    assert draw(ba, gid, "offer")["draw_offer"] == "black"
    g = draw(wa, gid, "accept")
    assert (g["result"], g["termination"], g["ply"]) == ("1/2-1/2", "agreement", 0)


# ---------------------------------------------- concurrency and retries


def _fire(base, token, gid, bodies, headers=None):
    """POSTs every body at once from its own thread; returns the responses in order."""
    barrier = threading.Barrier(len(bodies))
    results = [None] * len(bodies)

    def one(i):
        s = requests.Session()
        h = {"Authorization": f"Bearer {token}"}
        h.update(headers or {})
        barrier.wait(timeout=30)
        try:
            results[i] = s.post(f"{base}/v1/games/{gid}/moves", json=bodies[i], headers=h,
                                timeout=60)
        except requests.RequestException as e:  # reported below
            results[i] = e

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
    for t in threads:
        t.join(90)
    assert not any(t.is_alive() for t in threads)
    for r in results:
        assert isinstance(r, requests.Response), r
    return results


def test_twenty_concurrent_submissions_play_exactly_one(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, ["K@e1", "K@e8"], 0)

    # The same move twenty times, without "ply": one plays, the rest find Black to move.
    # (A knight on c3 reaches a2 a4 b1 b5 d1 d5 e2 e4: no check to e8.)
    results = _fire(api.base, wa.token, gid, [{"move": "N@c3"}] * 20)
    bodies = [check(r, "POST", MOVES) for r in results]
    statuses = sorted(r.status_code for r in results)
    assert statuses == [201] + [409] * 19, statuses
    for r, body in zip(results, bodies):
        if r.status_code == 409:
            assert body["type"] == "/problems/not-your-turn", body
    game = wa.game(gid)
    assert game["ply"] == 3 and game["moves"] == ["K@e1", "K@e8", "N@c3"]

    # Twenty different legal drops by Black with "ply": 3. A black knight on ranks 5-8
    # reaches rank 3 at most, the white king stands on e1: every one is legal.
    squares = [f + r for r in "5678" for f in "abcdefgh" if f + r != "e8"][:20]
    sent = [{"move": f"N@{sq}", "ply": 3} for sq in squares]
    results = _fire(api.base, ba.token, gid, sent)
    bodies = [check(r, "POST", MOVES) for r in results]
    winners = [i for i, r in enumerate(results) if r.status_code == 201]
    assert len(winners) == 1, [r.status_code for r in results]
    assert sorted(r.status_code for r in results) == [201] + [409] * 19
    for r, body in zip(results, bodies):
        if r.status_code == 409:
            assert body["type"] in ("/problems/ply-mismatch", "/problems/not-your-turn")
    won = sent[winners[0]]["move"]
    assert bodies[winners[0]]["moves"][-1] == won

    moves = stored_moves(api, gid)
    assert_contiguous(moves, 4)
    assert [m["san"] for m in moves] == ["K@e1", "K@e8", "N@c3", won]
    game = wa.game(gid)
    assert game["ply"] == 4 and game["fen"] == moves[-1]["fen"]


def test_two_korpd_processes_on_one_database_play_exactly_one(api, two_players, korpd,
                                                             start_korpd, shared_db_url):
    # Scale-out: a second korpd on the same database.  Twenty submissions of the same
    # move split between the two processes: row locks, not process state, decide, so
    # exactly one is played; either process then serves the same game.
    wa, _, ba, b = two_players
    second = start_korpd(shared_db_url, KORP_TEST_CLOCK=1)
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, ["K@e1", "K@e8"], 0)
    half = [{"move": "N@c3", "ply": 2}] * 10
    results = []
    threads = [threading.Thread(target=lambda base=base: results.extend(
        _fire(base, wa.token, gid, half))) for base in (korpd.base, second.base)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    assert len(results) == 20
    assert sorted(r.status_code for r in results) == [201] + [409] * 19
    for r in results:
        check(r, "POST", MOVES)
    assert Api(second.base).game(gid) == Api(korpd.base).game(gid)
    assert_contiguous(stored_moves(api, gid), 3)


def test_idempotency_key_returns_the_first_answer(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, ["K@e1", "K@e8"], 0)
    key = f"move-{uuid.uuid4()}"

    s1, first = wa.call("POST", MOVES, [gid], json={"move": "N@c3", "ply": 2},
                        headers={"Idempotency-Key": key})
    assert s1 == 201 and first["ply"] == 3
    # The retry gets the same answer, not a 409 (it is Black's turn now).
    s2, again = wa.call("POST", MOVES, [gid], json={"move": "N@c3", "ply": 2},
                        headers={"Idempotency-Key": key})
    assert (s2, again) == (s1, first)
    ba.move(gid, "N@c6", ply=3)
    s3, late = wa.call("POST", MOVES, [gid], json={"move": "N@c3", "ply": 2},
                       headers={"Idempotency-Key": key})
    assert (s3, late) == (s1, first)
    assert wa.game(gid)["ply"] == 4 and len(stored_moves(api, gid)) == 4

    # A first answer that was an error is returned again too, even though the retry's body
    # would now be legal: the key alone names the request (docs/api.md).
    bad = f"bad-{uuid.uuid4()}"
    s4, err = wa.call("POST", MOVES, [gid], json={"move": "Q@e5", "ply": 4},
                      headers={"Idempotency-Key": bad})
    assert s4 == 422 and err["type"] == "/problems/illegal-move"  # e5 queen checks e8
    s5, err2 = wa.call("POST", MOVES, [gid], json={"move": "Q@a4", "ply": 4},
                       headers={"Idempotency-Key": bad})
    assert (s5, err2) == (s4, err)
    assert wa.game(gid)["ply"] == 4

    # Keys are per token: Black's use of White's key is a request of its own (but it is
    # White's turn, so Black's own first answer is a 409 which a retry repeats).
    s6, mine = ba.call("POST", MOVES, [gid], json={"move": "N@f6"},
                       headers={"Idempotency-Key": key})
    assert s6 == 409 and mine["type"] == "/problems/not-your-turn"

    # A key over 64 characters is 400.
    s8, _ = wa.call("POST", MOVES, [gid], json={"move": "N@b5"},
                    headers={"Idempotency-Key": "k" * 65})
    assert s8 == 400
    assert wa.game(gid)["ply"] == 4


def test_idempotency_key_reused_on_another_game_is_400(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    other = wa.new_game(ba, b["id"])["id"]
    key = f"move-{uuid.uuid4()}"
    s1, first = wa.call("POST", MOVES, [gid], json={"move": "K@e1", "ply": 0},
                        headers={"Idempotency-Key": key})
    assert s1 == 201
    # The same key on another game's path is a client error (400 bad-request, checked
    # against the route's 400 in openapi.yaml; the issue names no status for it), and
    # nothing is played there.
    s2, clash = wa.call("POST", MOVES, [other], json={"move": "K@a1", "ply": 0},
                        headers={"Idempotency-Key": key})
    assert s2 == 400, clash
    assert "Idempotency-Key" in clash["detail"]
    assert wa.game(other)["ply"] == 0
    assert wa.game(gid)["ply"] == 1


def test_idempotency_key_concurrent_retries_remember_the_played_move(api, two_players):
    # A client that times out and retries at once sends the same key while the first
    # request is still running. Exactly one move may be played, and once the dust has
    # settled a retry must get the answer of the request that played it: a 201, not
    # "not your turn" for a move that was in fact played. (Racy by nature, so several
    # rounds; a correct korpd passes every time.)
    wa, _, ba, b = two_players
    for rnd in range(20):
        gid = wa.new_game(ba, b["id"])["id"]
        play(wa, ba, gid, ["K@e1", "K@e8"], 0)
        key = f"race-{rnd}-{uuid.uuid4()}"
        results = _fire(api.base, wa.token, gid, [{"move": "N@c3"}] * 8,
                        headers={"Idempotency-Key": key})
        bodies = [check(r, "POST", MOVES) for r in results]
        played = [body for r, body in zip(results, bodies) if r.status_code == 201]
        assert played, [r.status_code for r in results]
        assert len(stored_moves(api, gid)) == 3
        status, later = wa.call("POST", MOVES, [gid], json={"move": "N@c3"},
                                headers={"Idempotency-Key": key})
        assert (status, later) == (201, played[0]), (rnd, status, later,
                                                      [r.status_code for r in results])


# ------------------------------------------------------- crash and restart


def test_kill_9_loses_no_acknowledged_move(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url)
    api = Api(k.base)
    wa, _ = api.new_player("w")
    ba, b = api.new_player("b")
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)

    acknowledged = []          # (ply, san) of every move answered 201
    stop = threading.Event()

    def player():
        w = requests.Session()
        bl = requests.Session()
        ply = 4
        for mv in knight_shuffle(2000):
            if stop.is_set():
                return
            tok = wa.token if ply % 2 == 0 else ba.token
            s = w if ply % 2 == 0 else bl
            try:
                r = s.post(f"{k.base}/v1/games/{gid}/moves", json={"move": mv, "ply": ply},
                           headers={"Authorization": f"Bearer {tok}"}, timeout=10)
            except requests.RequestException:
                return
            if r.status_code != 201:
                return
            acknowledged.append((ply + 1, r.json()["moves"][-1]))
            ply += 1

    t = threading.Thread(target=player)
    t.start()
    wait_until(lambda: len(acknowledged) >= 30 or not t.is_alive(), 30,
               what="30 moves to be played")
    k.signal(signal.SIGKILL)
    k.wait(10)
    stop.set()
    t.join(30)
    assert not t.is_alive()
    assert len(acknowledged) >= 30

    k2 = start_korpd(own_postgres.url)
    api2 = Api(k2.base)
    moves = stored_moves(api2, gid)
    n = len(moves)
    assert_contiguous(moves, n)
    stored = {m["ply"]: m["san"] for m in moves}
    for ply, san in acknowledged:
        assert stored.get(ply) == san, (ply, san, stored.get(ply))
    # At most the one move in flight may have been committed without its answer.
    assert acknowledged[-1][0] <= n <= acknowledged[-1][0] + 1
    game = api2.game(gid)
    assert game["ply"] == n and game["fen"] == moves[-1]["fen"]
    assert game["status"] == "active"
    # The game goes on.
    side = Api(k2.base, wa.token if n % 2 == 0 else ba.token)
    nxt = side.move(gid, knight_shuffle(n - 4 + 1)[-1], ply=n)
    assert nxt["ply"] == n + 1


def test_postgres_restart_under_running_korpd_moves_still_work(own_postgres, start_korpd):
    k = start_korpd(own_postgres.url, KORP_DB_POOL_SIZE=2)
    api = Api(k.base)
    wa, _ = api.new_player("w")
    ba, b = api.new_player("b")
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)
    play(wa, ba, gid, knight_shuffle(4), 4)     # the pooled connections are warm

    own_postgres.restart()

    # Each move is answered 201, or 503 with Retry-After and then 201 on a retry with the
    # same Idempotency-Key; never a 500, never half-applied.
    plies = knight_shuffle(8)
    for i, mv in enumerate(plies):
        ply = 8 + i
        side = wa if ply % 2 == 0 else ba
        key = f"pg-restart-{ply}-{uuid.uuid4()}"
        for attempt in range(5):
            status, body = side.call("POST", MOVES, [gid], json={"move": mv, "ply": ply},
                                     headers={"Idempotency-Key": key})
            if status != 503:
                break
        assert status == 201, (attempt, status, body)
        assert body["ply"] == ply + 1
    moves = stored_moves(api, gid)
    assert_contiguous(moves, 16)
    assert api.game(gid)["fen"] == moves[-1]["fen"]
    # This korpd runs without KORP_TEST_CLOCK: the clock route does not exist.
    err = wa.call("POST", "/v1/admin/clock", json={"offset_seconds": 60}, expect=404)[1]
    assert err["type"] == "/problems/not-found"


# -------------------------------------------------------------- Glinski

# Glinski's four-move mate (tests/data/glinski/FoolsMate.pgn), sent in the notations it
# uses and the others the rules list: long form, Hungarian letters, coordinates, SAN.
FOOLS_MATE_SENT = ["Qe1c3", "Vc6", "b1b2", "b6", "Bf3b1", "e7e6", "Qc3xBf9#"]
# By hand: the only queen moves are unambiguous; the pawns go b1-b2, b7-b6, e7-e6; the
# bishop on f3 is the only one of b1's colour; f9 holds a black bishop.
FOOLS_MATE_SAN = ["Qc3", "Qc6", "b2", "b6", "Bb1", "e6", "Qxf9#"]
FOOLS_MATE_UCI = ["e1c3", "e10c6", "b1b2", "b7b6", "f3b1", "e7e6", "c3f9"]
# The start HFEN (rules §5) with those changes, rank 11 down to rank 1:
# f11 b | e10 -, f10 b, g10 k | d9 n, f9 Q, h9 n | c8 r, i8 r | b7 -, e7 - |
# b6 p, c6 q, e6 p | f5 P | e4 P, g4 P | d3 P, f3 -, h3 P | b2 P, c2 P, f2 B, i2 P |
# b1 B, c1 R, d1 N, e1 -, f1 B, g1 K, h1 N, i1 R, k1 P; Black to move, no en passant,
# clock 0 (a capture), move 4.
FOOLS_MATE_FEN = ("b/1bk/n1Q1n/r5r/1pp1ppppp/1pq1p6/5P5/4P1P4/3P3P3/1PP2B2P2/1BRN1BKNRP1"
                  " b - 0 4")


def test_glinski_fools_mate(api, two_players):
    wa, w, ba, b = two_players
    game = wa.new_game(ba, b["id"], variant="glinski")
    gid = game["id"]
    assert game["variant"] == "glinski"
    assert game["fen"] == \
        "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1"
    # Perft depth 1 from the start (rules §6 and tests/data/glinski-perft.epd): 51.
    assert len(get(api, "/v1/games/{id}/legal-moves", gid)["moves"]) == 51
    game = play(wa, ba, gid, FOOLS_MATE_SENT, 0)
    assert game["moves"] == FOOLS_MATE_SAN
    assert (game["status"], game["result"], game["termination"]) == \
        ("finished", "1-0", "checkmate")
    assert game["fen"] == FOOLS_MATE_FEN
    moves = stored_moves(api, gid)
    assert_contiguous(moves, 7)
    assert [m["uci"] for m in moves] == FOOLS_MATE_UCI
    assert [m["san"] for m in moves] == FOOLS_MATE_SAN
    a = analysis(api, gid)
    assert a["status"] == "checkmate" and a["can_drop"] == {"white": False, "black": False}
    text = pgn(api, gid)
    assert pgn_tags(text)["Variant"] == "Glinski" and pgn_tags(text)["Result"] == "1-0"
    plies, last = replay(text)
    assert last == "result 1-0 checkmate"
    assert [san for _, san, _ in plies] == FOOLS_MATE_SAN
    assert plies[-1][2] == FOOLS_MATE_FEN


def test_glinski_b_is_a_bishop_in_korpds_own_san(api, two_players):
    # The opening of game 391 of tests/data/glinski/HexagonalChessTournaments_hu.pgn, in
    # its Hungarian letters (H knight, F bishop).  Then "Be3": with English letters the
    # bishop f2-e3, with Hungarian ones the rook (bastya) c1-e3, which the record means;
    # both are legal here.  "Be3" is also the SAN korpd itself writes for the bishop move
    # (what /legal-moves lists), so it must mean the bishop: a bot sending back korpd's
    # own SAN must get what it asked for.  The rook move is written "Bc1e3" or "c1e3".
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"], variant="glinski")["id"]
    play(wa, ba, gid, ["h5", "e5", "Hdf4", "Hc6", "Fh3", "Fd9"], 0)
    legal = get(api, "/v1/games/{id}/legal-moves", gid)["moves"]
    assert {"uci": "f2e3", "san": "Be3"} in legal
    game = wa.move(gid, "Be3")
    assert game["ply"] == 7
    assert stored_moves(api, gid)[-1]["uci"] == "f2e3"

    other = wa.new_game(ba, b["id"], variant="glinski")["id"]
    play(wa, ba, other, ["h5", "e5", "Hdf4", "Hc6", "Fh3", "Fd9"], 0)
    wa.move(other, "Bc1e3")
    assert stored_moves(api, other)[-1]["uci"] == "c1e3"


# A Glinski game that White ends by stalemating Black's lone king (none of the
# Hungarian records ends in stalemate). Constructed with a small Glinski
# move generator written from the rules file alone (it reproduces the start HFEN and
# the perft counts 51, 2586, 137858), then checked by hand as below. Black cooperates,
# putting its men where White takes them (English SAN):
#   1. Qc3 e5 2. Qxe5 Bg9 3. Qxc7 g5 4. fxg5 Rd8 5. Qxd7 Qe7 6. Qxh7 Qg7 7. Qxi8 Rf8
#   8. Qxi7 Qi3+ 9. Nxi3 Bl1 10. Qxf7 Re8 11. Qxb7 Nk6 12. kxl1 Nc6 13. Bxk6 Re6
#   14. Qxc6 Kf11 15. Qxf9 Rb6 16. Bxb6 k5 17. Qxk5 Bb2 18. Nxb2 Ke10 19. Rcf4 Kg10
#   20. Qi7, stalemate.
# Sent mostly as coordinates, some in SAN, and 7. 9. 13. 19. with Hungarian letters
# (V queen, H knight, F bishop, B rook): Vxi8, Hxi3, Fxk6, Bcf4. "Bcf4" is the c1 rook
# in Hungarian and nothing in English (no bishop stands on the c-file); "Rf4" alone
# would be ambiguous, the i1 rook reaches f4 too (i1-h2-g3-f4).
# Final position: White K g1, Q i7, R f4 i1, B b6 f1 f3, N b2 i3, P b1 c2 d3 e4 g4 g5
# h3 i2 l1; Black K g10 alone, to move. In the rules' coordinates (file a=-5 .. l=+5,
# y = |file| + 2(rank-1)) g10 = (1,19). Its neighbours on the board are g9 (1,17),
# f10 (0,18), f11 (0,20), h9 (2,18) (orthogonal) and e10 (-1,19), f9 (0,16), h8 (2,16)
# (diagonal); the other five steps leave the board.
#   - h8, g9, f10, e10: the queen's orthogonal line i7 (3,15) -> (-1,+1) steps, all empty;
#   - h9: the queen's diagonal step (-1,+3);
#   - f9, f10, f11: the rook's f-file from f4, f5-f8 empty.
# g10 itself is not attacked: i7->g10 is (-2,+4), a knight's jump; f4->g10 is (1,13),
# b6->g10 (5,5) is a rook line (the b6 man is a bishop), f1/f3 are no bishop line away.
# Black has no legal move and is not in check: stalemate, 3/4-1/4 (rules §4).
GLINSKI_STALEMATE = [
    "Qc3", "e7e5", "Qxe5", "f11g9", "e5c7", "g7g5", "fxg5", "c8d8", "c7d7", "e10e7",
    "d7h7", "e7g7", "Vxi8", "d8f8", "i8i7", "g7i3", "Hxi3", "g9l1", "i7f7", "f8e8",
    "f7b7", "h9k6", "k1l1", "d9c6", "Fxk6", "e8e6", "b7c6", "g10f11", "c6f9", "e6b6",
    "k6b6", "k7k5", "f9k5", "f10b2", "d1b2", "f11e10", "Bcf4", "e10g10", "Qi7"]
GLINSKI_STALEMATE_FEN = "1/2k/5/7/7Q1/1B9/6P4/4PRP4/3P1B1PN2/1NP5P2/1P3BK1R1P b - 4 20"


def test_glinski_stalemate_scores_three_quarters(api, two_players):
    wa, w, ba, b = two_players
    gid = wa.new_game(ba, b["id"], variant="glinski")["id"]
    game = play(wa, ba, gid, GLINSKI_STALEMATE[:-1], 0)
    assert game["status"] == "active"
    game = wa.move(gid, GLINSKI_STALEMATE[-1], ply=38)
    assert (game["status"], game["result"], game["termination"]) == \
        ("finished", "3/4-1/4", "stalemate")
    assert game["fen"] == GLINSKI_STALEMATE_FEN
    assert game["ply"] == 39
    a = analysis(api, gid)
    assert a["status"] == "stalemate"
    # The records: 3/4 is more than half (won), 1/4 less (lost) — openapi.yaml, Player.
    wr, br = player_record(api, w["id"]), player_record(api, b["id"])
    assert (wr["played"], wr["won"], wr["drawn"], wr["lost"], wr["points"]) == \
        (1, 1, 0, 0, 0.75)
    assert (br["played"], br["won"], br["drawn"], br["lost"], br["points"]) == \
        (1, 0, 0, 1, 0.25)
    me = wa.call("GET", "/v1/players/me", expect=200)[1]
    assert me["points"] == 0.75
    plies, last = replay(pgn(api, gid))
    assert last.split()[:3] == ["result", "3/4-1/4", "stalemate"], last
    assert plies[-1][2] == GLINSKI_STALEMATE_FEN


# ---------------------------------------------------------------- time

# Black drops all fifteen men it has left, one at a time, on b4 and b3, and White's
# queen takes each: 1. K@a1 K@h8 2. Q@b3, then ...X@b4 Qxb4 ...Y@b3 Qxb3 and so on.
# No drop checks a1 (a black knight would from b3, so both knights go to b4; a black
# pawn on b3/b4 covers a2 c2 / a3 c3), and the queen on b3/b4 never checks h8 (b-file,
# ranks 3/4, diagonals a2-g8, a4-d1, a3-f8, a5-e1). Captured pieces go to Black's prison
# and can only come back by a black promotion; Black has no pawn left to promote. After
# 17... Kg7 Black has its king alone, board and reserve: it cannot mate (rules §4.1), and
# White (queen, full reserve) is to move.
LONE_KING = ["K@a1", "K@h8", "Q@b3"]
for _i, _man in enumerate(["N", "R", "N", "B", "Q", "R", "B", "P", "P", "P", "P", "P",
                           "P", "P", "P"]):
    _sq = "b4" if _i % 2 == 0 else "b3"
    LONE_KING += [f"{_man}@{_sq}", f"Qx{_sq}"]
LONE_KING.append("Kg7")


def server_offset(api):
    """The test clock's offset now, read from korpd's own time (a new account's
    created_at, whole seconds): at most a second or so below the real offset."""
    pa, _ = api.new_player("clk")
    created = parse_time(pa.call("GET", "/v1/players/me", expect=200)[1]["created_at"])
    return created.timestamp() - time.time()


def test_timeout_loses_or_draws_by_material(api, arbiter, two_players):
    wa, w, ba, b = two_players
    drawn = wa.new_game(ba, b["id"], days_per_move=1)["id"]
    game = play(wa, ba, drawn, LONE_KING, 0)
    assert game["ply"] == 34 and game["to_move"] == "white" and game["status"] == "active"
    assert game["fen"].startswith("8/6k1/8/8/1Q6/8/8/K7[RRBBNNPPPPPPPP]"), game["fen"]
    a = analysis(api, drawn)
    assert a["insufficient_material"] == {"white": False, "black": True}
    assert a["can_mate"] == {"white": True, "black": False}
    assert a["can_drop"] == {"white": True, "black": False}

    white_late = wa.new_game(ba, b["id"], days_per_move=1)["id"]
    play(wa, ba, white_late, ["K@e1", "K@e8"], 0)               # White to move
    black_late = wa.new_game(ba, b["id"], days_per_move=2)["id"]
    game = play(wa, ba, black_late, ["K@e1", "K@e8", "N@c3"], 0)  # Black to move
    # The deadline is the last move's time plus the days allowed.
    assert game["days_per_move"] == 2
    delta = parse_time(game["deadline"]) - parse_time(game["updated_at"])
    assert abs(delta.total_seconds() - 2 * 86400) <= 2, (game["deadline"], game["updated_at"])
    untimed = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, untimed, ["K@e1", "K@e8"], 0)
    assert wa.game(untimed)["deadline"] is None

    # Forward by three days and a minute from wherever the shared clock stands now
    # (never backwards: other tests may have moved it).
    offset = max(0, math.ceil(server_offset(api))) + 3 * 86400 + 60
    # A player may not move the clock.
    err = wa.call("POST", "/v1/admin/clock", json={"offset_seconds": offset}, expect=403)[1]
    assert err["type"] == "/problems/forbidden"
    _, clock = arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": offset},
                            expect=200)
    assert clock["offset_seconds"] == offset

    def finished(gid):
        return wa.game(gid)["status"] == "finished"

    for gid in (drawn, white_late, black_late):
        wait_until(lambda: finished(gid), 15, step=0.25, what=f"game {gid} to time out")

    g = wa.game(drawn)
    assert (g["result"], g["termination"], g["deadline"]) == ("1/2-1/2", "timeout", None)
    g = wa.game(white_late)
    assert (g["result"], g["termination"]) == ("0-1", "timeout")
    g = wa.game(black_late)
    assert (g["result"], g["termination"]) == ("1-0", "timeout")
    g = wa.game(untimed)
    assert (g["status"], g["deadline"]) == ("active", None)
    err = wa.move(white_late, "N@c3", expect=409, ply=2)
    assert err["type"] == "/problems/game-over"
    # The untimed game still plays.
    assert wa.move(untimed, "N@c3", ply=2)["ply"] == 3
    # Records: White drew one, lost one, won one.
    wr = player_record(api, w["id"])
    assert (wr["played"], wr["won"], wr["drawn"], wr["lost"], wr["points"]) == \
        (3, 1, 1, 1, 1.5)


# ------------------------------------------------ resign, abort, adjudication


def sql(query):
    """One query on the suite's database with psql (an independent client)."""
    url = os.environ["KORP_TEST_DATABASE_URL"]
    out = subprocess.run(["psql", url, "-Atqc", query], capture_output=True, text=True,
                         timeout=30, check=True)
    return out.stdout.strip()


def move_clock_forward(api, arbiter, seconds):
    """Moves the shared test clock `seconds` past where it stands; returns korpd's answer."""
    offset = max(0, math.ceil(server_offset(api))) + seconds
    _, clock = arbiter.call("POST", "/v1/admin/clock", json={"offset_seconds": offset},
                            expect=200)
    # The answer tells the moved time, not the time before the move.
    moved = parse_time(clock["now"]).timestamp() - time.time()
    assert abs(moved - offset) < 5, (clock, offset)
    return clock


def test_a_late_move_loses_on_time_before_the_sweeper_comes(api, arbiter, two_players,
                                                             start_korpd, shared_db_url):
    # A korpd whose sweeper would not come for an hour: the deadline is still the law.
    wa, _, ba, b = two_players
    lazy = start_korpd(shared_db_url, KORP_TEST_CLOCK=1, KORP_SWEEP_SECONDS=3600)
    lw, lb = Api(lazy.base, wa.token), Api(lazy.base, ba.token)
    gid = lw.new_game(lb, b["id"], days_per_move=1)["id"]
    play(lw, lb, gid, ["K@e1", "K@e8"], 0)
    move_clock_forward(api, arbiter, 86400 + 60)
    status, problem = lw.call("POST", MOVES, [gid], json={"move": "N@c3"})
    assert status == 409 and problem["type"] == "/problems/game-over", problem
    game = lw.game(gid)
    # White was to move when the day ran out, and Black can still mate: 0-1.
    assert (game["status"], game["result"], game["termination"]) == \
        ("finished", "0-1", "timeout")
    assert game["ply"] == 2


def test_a_game_the_sweeper_cannot_end_does_not_stop_the_sweep(api, arbiter, two_players):
    wa, _, ba, b = two_players
    broken = wa.new_game(ba, b["id"], days_per_move=1)["id"]
    fine = wa.new_game(ba, b["id"], days_per_move=1)["id"]
    # A row no move could make: its position is unreadable.
    sql(f"UPDATE games SET fen = 'garbage', deadline = korp_now() - interval '1 hour'"
        f" WHERE id = '{broken}'")
    move_clock_forward(api, arbiter, 86400 + 60)
    wait_until(lambda: wa.game(fine)["status"] == "finished", 15,
               what="the sweeper to end the readable game")
    assert wa.game(fine)["termination"] == "timeout"
    # The broken one waits for an arbiter, with no deadline left to trip the sweep.
    assert sql(f"SELECT status, deadline IS NULL FROM games WHERE id = '{broken}'") == "active|t"


def test_old_idempotency_keys_are_pruned(api, arbiter, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    key = f"prune-{uuid.uuid4()}"
    wa.call("POST", MOVES, [gid], json={"move": "K@e1"}, headers={"Idempotency-Key": key},
            expect=201)
    assert sql(f"SELECT count(*) FROM idempotency_keys WHERE key = '{key}'") == "1"
    move_clock_forward(api, arbiter, 25 * 3600)
    wait_until(lambda: sql(f"SELECT count(*) FROM idempotency_keys WHERE key = '{key}'") == "0",
               15, what="the sweeper to drop the key")


def test_keys_of_another_version_are_not_compared(api, two_players):
    # A stored game whose keys were written by an older key version: claims and the
    # analysis count only the position on the board until the next move starts a new list.
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    # After 2...N@f6 (ply 4, irreversible) the knights shuffle: the position after
    # ply 11 (6.Nf3) stood after ply 7; Nf6 would bring ply 4's position a third time.
    shuffle = ["K@e1", "K@e8", "N@f3", "N@f6", "Ng1", "Ng8", "Nf3", "Nf6", "Ng1", "Ng8",
               "Nf3"]
    play(wa, ba, gid, shuffle, 0)
    assert analysis(api, gid)["earlier_occurrences"] == [7]
    sql(f"UPDATE games SET key_version = key_version - 1 WHERE id = '{gid}'")
    assert analysis(api, gid)["earlier_occurrences"] == []
    # Would be accepted with comparable keys (see the threefold tests); not now.
    _, claim = ba.call("POST", "/v1/games/{id}/claims", [gid],
                       json={"kind": "threefold", "move": "Nf6"}, expect=200)
    assert claim["accepted"] is False
    game = ba.move(gid, "Nf6")
    assert game["ply"] == 12
    assert sql(f"SELECT array_length(repetition_keys, 1) FROM games WHERE id = '{gid}'") == "1"


def test_every_state_change_writes_its_events(api, two_players):
    # The events table is the record the event stream will serve: one row per
    # player concerned, named as the stream names them, committed with the change.
    wa, w, ba, b = two_players
    _, ch = wa.call("POST", "/v1/challenges",
                    json={"variant": "glinski", "opponent": b["id"], "color": "white"},
                    expect=201)
    gid = ba.call("POST", "/v1/challenges/{id}/accept", [ch["id"]], expect=201)[1]["game_id"]
    wa.move(gid, "g1g2")
    wa.call("POST", "/v1/games/{id}/draw", [gid], json={"action": "offer"}, expect=200)
    ba.call("POST", "/v1/games/{id}/draw", [gid], json={"action": "decline"}, expect=200)
    # Black and White walk their kings back and forth (Glinski: g10-h8 and g1-g2; the
    # position after ply 1 comes back after plies 5 and 9).
    play(wa, ba, gid, ["g10h8", "g2g1", "h8g10", "g1g2", "g10h8", "g2g1", "h8g10"], 1)
    _, claim = wa.call("POST", "/v1/games/{id}/claims", [gid],
                       json={"kind": "threefold", "move": "g1g2"}, expect=200)
    assert claim["accepted"] is True, claim
    rows = sql(f"SELECT player_id, type, payload->>'ply', payload->>'to_move',"
               f" payload->>'status', coalesce(payload->>'san', '') FROM events"
               f" WHERE game_id = '{gid}' ORDER BY id").splitlines()
    kinds = [r.split("|")[1] for r in rows]
    # Each kind twice in a row: once for White, once for Black.
    per_player = kinds[::2]
    assert kinds[1::2] == per_player
    assert per_player == ["game_start", "move", "draw_offer", "draw_offer"] + \
        ["move"] * 7 + ["claim", "game_end"], per_player
    players = {r.split("|")[0] for r in rows}
    assert players == {w["id"], b["id"]}
    first_move = rows[2].split("|")
    assert first_move[2:] == ["1", "black", "active", "Kg2"], first_move
    assert rows[-1].split("|")[4] == "finished"
    challenge_kinds = sql(f"SELECT type FROM events WHERE payload->>'challenge_id' ="
                          f" '{ch['id']}' ORDER BY id").splitlines()
    assert challenge_kinds == ["challenge", "challenge"]


def test_resign(api, two_players):
    wa, w, ba, b = two_players
    outsider, _ = api.new_player("x")
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, ["K@e1", "K@e8", "N@c3"], 0)
    assert post(outsider, "/v1/games/{id}/resign", gid, expect=403)["type"] == \
        "/problems/forbidden"
    assert post(Api(api.base), "/v1/games/{id}/resign", gid, expect=401)
    # Black resigns though it is Black's turn; either side may at any time.
    g = post(ba, "/v1/games/{id}/resign", gid)
    assert (g["status"], g["result"], g["termination"], g["deadline"]) == \
        ("finished", "1-0", "resignation", None)
    assert post(wa, "/v1/games/{id}/resign", gid, expect=409)["type"] == "/problems/game-over"
    assert ba.move(gid, "N@c6", expect=409)["type"] == "/problems/game-over"
    assert player_record(api, w["id"])["won"] == 1
    assert player_record(api, b["id"])["lost"] == 1
    text = pgn(api, gid)
    assert pgn_tags(text)["Result"] == "1-0"


def test_abort_only_before_each_side_has_moved(api, two_players):
    wa, w, ba, b = two_players
    outsider, _ = api.new_player("x")
    g0 = wa.new_game(ba, b["id"])["id"]
    assert post(outsider, "/v1/games/{id}/abort", g0, expect=403)["type"] == \
        "/problems/forbidden"
    g = post(ba, "/v1/games/{id}/abort", g0)
    assert (g["status"], g["result"], g["termination"]) == ("aborted", "*", None)
    assert wa.move(g0, "K@e1", expect=409)["type"] == "/problems/game-over"

    g1 = wa.new_game(ba, b["id"])["id"]
    wa.move(g1, "K@e1", ply=0)
    g = post(wa, "/v1/games/{id}/abort", g1)             # only White has moved
    assert (g["status"], g["result"], g["ply"]) == ("aborted", "*", 1)

    g2 = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, g2, ["K@e1", "K@e8"], 0)
    err = post(wa, "/v1/games/{id}/abort", g2, expect=409)
    assert err["type"] == "/problems/conflict"
    err = post(ba, "/v1/games/{id}/abort", g2, expect=409)
    assert err["type"] == "/problems/conflict"
    assert wa.game(g2)["status"] == "active"
    # Aborted games count for nobody.
    assert player_record(api, w["id"])["played"] == 0
    assert player_record(api, b["id"])["played"] == 0
    listed = api.call("GET", "/v1/games", query={"player": w["id"], "status": "aborted"},
                      expect=200)[1]
    assert {x["id"] for x in listed["games"]} == {g0, g1}


def test_adjudication_by_an_arbiter_only(api, arbiter, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, CORNERS_AND_KNIGHTS, 0)
    body = {"result": "1/2-1/2", "reason": "perpetual check shown by White and upheld"}
    err = post(wa, "/v1/games/{id}/adjudication", gid, json=body, expect=403)
    assert err["type"] == "/problems/forbidden"
    assert wa.game(gid)["status"] == "active"
    g = post(arbiter, "/v1/games/{id}/adjudication", gid, json=body)
    assert (g["status"], g["result"], g["termination"], g["adjudication_reason"]) == \
        ("finished", "1/2-1/2", "adjudication", body["reason"])
    g = api.game(gid)
    assert g["adjudication_reason"] == body["reason"] and g["termination"] == "adjudication"
    err = post(arbiter, "/v1/games/{id}/adjudication", gid,
               json={"result": "1-0", "reason": "again"}, expect=409)
    assert err["type"] == "/problems/game-over"
    assert api.game(gid)["result"] == "1/2-1/2"
    assert post(arbiter, "/v1/games/{id}/adjudication", "NoSuchGam0", json=body,
                expect=404)["type"] == "/problems/not-found"


# ----------------------------------------------------------------- moves


def test_move_errors(api, two_players):
    wa, _, ba, b = two_players
    outsider, _ = api.new_player("x")
    gid = wa.new_game(ba, b["id"])["id"]
    err = ba.move(gid, "K@e8", expect=409)
    assert err["type"] == "/problems/not-your-turn" and err["ply"] == 0 and \
        err["move"] == "K@e8"
    assert outsider.move(gid, "K@e1", expect=403)["type"] == "/problems/forbidden"
    assert Api(api.base).move(gid, "K@e1", expect=401)["type"] == "/problems/unauthorized"
    err = wa.move(gid, "Q@e4", expect=422)          # the king is placed first (§2)
    assert err["type"] == "/problems/illegal-move" and err["ply"] == 0 and err["reason"]
    err = wa.move(gid, "K@e1", expect=409, ply=1)
    assert err["type"] == "/problems/ply-mismatch" and err["ply"] == 0
    wa.move(gid, "K@e1", ply=0)
    err = ba.move(gid, "K@e2", expect=422)          # kings never touch
    assert err["type"] == "/problems/illegal-move"
    ba.move(gid, "K@e8", ply=1)
    err = wa.move(gid, "Q@e4", expect=422)          # a drop may never give check
    assert err["reason"] == "drop-gives-check" and err["move"] == "Q@e4"
    err = wa.move(gid, "P@a8", expect=422)          # pawns only on ranks 2-7
    assert err["type"] == "/problems/illegal-move"
    err = wa.move(gid, "garbage", expect=422)
    assert err["reason"] == "syntax"
    assert wa.move("NoSuchGam0", "K@e1", expect=404)["type"] == "/problems/not-found"
    assert wa.game(gid)["ply"] == 2 and len(stored_moves(api, gid)) == 2


def test_public_routes_need_no_token_and_ignore_a_bad_one(api, two_players):
    wa, w, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    play(wa, ba, gid, ["K@e1", "K@e8"], 0)
    for token in (None, "korp_" + "x" * 32, "nonsense"):
        anon = Api(api.base, token)
        assert anon.game(gid)["ply"] == 2
        assert len(get(anon, MOVES, gid)["moves"]) == 2
        assert get(anon, "/v1/games/{id}/legal-moves", gid)["moves"]
        assert get(anon, "/v1/games/{id}/analysis", gid)["ply"] == 2
        anon.call("GET", "/v1/players/{id}", [w["id"]], expect=200)
        anon.call("GET", "/v1/games", query={"player": w["id"]}, expect=200)
        r = requests.get(f"{api.base}/v1/games/{gid}/pgn", timeout=30,
                         headers={"Authorization": f"Bearer {token}"} if token else {})
        assert r.status_code == 200 and "K@e1" in check(r, "GET", "/v1/games/{id}/pgn")
    for template in (GAME, MOVES, "/v1/games/{id}/legal-moves", "/v1/games/{id}/analysis",
                     "/v1/games/{id}/pgn"):
        r = requests.get(api.base + template.replace("{id}", "NoSuchGam0"), timeout=30)
        assert r.status_code == 404, template
        check(r, "GET", template)
    api.call("GET", "/v1/players/{id}", ["NoSuchPla0"], expect=404)


def test_legal_moves_match_perft_counts(api, two_players):
    wa, _, ba, b = two_players
    gid = wa.new_game(ba, b["id"])["id"]
    # tests/data/korpalski-perft.epd: the start position has D1 64 (a king on any square)
    legal = get(api, "/v1/games/{id}/legal-moves", gid)["moves"]
    assert len(legal) == 64 and len({m["uci"] for m in legal}) == 64
    assert {m["uci"] for m in legal} == {f"K@{f}{r}" for f in "abcdefgh" for r in "12345678"}
    # and "8/8/8/8/8/8/2K5/8[QRRBBNNPPPPPPPPkqrrbbnnpppppppp] b - - 0 1" has D1 55 (64
    # squares less c2 and its 8 neighbours).
    wa.move(gid, "K@c2", ply=0)
    legal = get(api, "/v1/games/{id}/legal-moves", gid)["moves"]
    assert len(legal) == 55
    assert not {"K@b1", "K@c1", "K@d1", "K@b2", "K@c2", "K@d2", "K@b3", "K@c3", "K@d3"} & \
        {m["uci"] for m in legal}
    assert get(api, "/v1/games/{id}/legal-moves", "NoSuchGam0", expect=404)


# ------------------------------------------------------------ challenges


def test_challenge_accept_decline_cancel_permissions(api):
    alice, a = api.new_player("alice")
    bob, b = api.new_player("bob")
    carol, _ = api.new_player("carol")

    def challenge(by, to, **extra):
        body = {"variant": "korpalski", "opponent": to, "color": "black"}
        body.update(extra)
        return by.call("POST", "/v1/challenges", json=body, expect=201)[1]

    def act(who, cid, action, expect):
        return who.call("POST", f"/v1/challenges/{{id}}/{action}", [cid], expect=expect)[1]

    # decline: only the opponent
    c = challenge(alice, b["id"])
    assert c["status"] == "open" and c["game_id"] is None and c["color"] == "black"
    assert act(alice, c["id"], "decline", 403)["type"] == "/problems/forbidden"
    assert act(carol, c["id"], "decline", 403)["type"] == "/problems/forbidden"
    d = act(bob, c["id"], "decline", 200)
    assert d["status"] == "declined" and d["game_id"] is None
    assert act(bob, c["id"], "accept", 409)["type"] == "/problems/conflict"
    assert act(alice, c["id"], "cancel", 409)["type"] == "/problems/conflict"
    assert act(bob, c["id"], "decline", 409)["type"] == "/problems/conflict"

    # cancel: only the challenger
    c = challenge(alice, b["id"])
    assert act(bob, c["id"], "cancel", 403)["type"] == "/problems/forbidden"
    assert act(carol, c["id"], "cancel", 403)["type"] == "/problems/forbidden"
    assert act(alice, c["id"], "cancel", 200)["status"] == "cancelled"
    assert act(bob, c["id"], "accept", 409)["type"] == "/problems/conflict"

    # accept: only the opponent; the challenger's colour is the one asked for
    c = challenge(alice, b["id"], variant="glinski", days_per_move=5, fifty_move_rule=False)
    assert act(alice, c["id"], "accept", 403)["type"] == "/problems/forbidden"
    assert act(carol, c["id"], "accept", 403)["type"] == "/problems/forbidden"
    acc = act(bob, c["id"], "accept", 201)
    g = acc["game"]
    assert acc["game_id"] == g["id"]
    assert g["black"]["id"] == a["id"] and g["white"]["id"] == b["id"]
    assert (g["variant"], g["days_per_move"], g["fifty_move_rule"], g["ply"]) == \
        ("glinski", 5, False, 0)
    assert act(bob, c["id"], "accept", 409)["type"] == "/problems/conflict"
    assert act(alice, c["id"], "cancel", 409)["type"] == "/problems/conflict"

    # The defaults (openapi.yaml, NewChallenge): a random colour, no deadline, the
    # fifty-move rule on; a random colour gives the two players one colour each.
    c = alice.call("POST", "/v1/challenges", json={"variant": "korpalski",
                                                   "opponent": b["id"]}, expect=201)[1]
    assert (c["color"], c["days_per_move"], c["fifty_move_rule"]) == ("random", None, True)
    g = act(bob, c["id"], "accept", 201)["game"]
    assert {g["white"]["id"], g["black"]["id"]} == {a["id"], b["id"]}
    assert (g["days_per_move"], g["deadline"], g["fifty_move_rule"]) == (None, None, True)

    # unknown ids, yourself
    for action in ("accept", "decline", "cancel"):
        assert act(bob, "NoSuchCha0", action, 404)["type"] == "/problems/not-found"
    alice.call("POST", "/v1/challenges", json={"variant": "korpalski", "opponent": a["id"]},
               expect=400)
    alice.call("POST", "/v1/challenges", json={"variant": "korpalski",
                                               "opponent": "NoSuchPla0"}, expect=404)


def test_challenge_lists_incoming_and_outgoing(api):
    alice, a = api.new_player("alice")
    bob, b = api.new_player("bob")
    carol, c = api.new_player("carol")
    ab = alice.call("POST", "/v1/challenges", json={"variant": "korpalski",
                                                    "opponent": b["id"]}, expect=201)[1]
    ca = carol.call("POST", "/v1/challenges", json={"variant": "glinski",
                                                    "opponent": a["id"]}, expect=201)[1]
    ac = alice.call("POST", "/v1/challenges", json={"variant": "glinski",
                                                    "opponent": c["id"]}, expect=201)[1]

    def lists(who):
        body = who.call("GET", "/v1/challenges", expect=200)[1]
        return [x["id"] for x in body["incoming"]], [x["id"] for x in body["outgoing"]]

    inc, out = lists(alice)
    assert inc == [ca["id"]]
    assert sorted(out) == sorted([ab["id"], ac["id"]])
    assert out == [ac["id"], ab["id"]] or ab["created_at"] == ac["created_at"]  # newest first
    assert lists(bob) == ([ab["id"]], [])
    # Only open challenges are listed.
    bob.call("POST", "/v1/challenges/{id}/decline", [ab["id"]], expect=200)
    alice.call("POST", "/v1/challenges/{id}/accept", [ca["id"]], expect=201)
    assert lists(alice) == ([], [ac["id"]])
    assert lists(bob) == ([], [])
    assert lists(carol) == ([ac["id"]], [])
    Api(api.base).call("GET", "/v1/challenges", expect=401)


# ------------------------------------------------------------ games list


def test_games_list_filters_and_keyset_pagination(api):
    me_api, me = api.new_player("lister")
    created = []
    kinds = {}
    for i, variant in enumerate(["korpalski", "glinski"] * 4):   # eight games
        opp_api, opp = api.new_player("opp")
        g = me_api.new_game(opp_api, opp["id"], variant=variant,
                            color="white" if i % 2 else "black")
        created.append(g["id"])
        kinds[g["id"]] = (variant, "active")
        if i == 2:
            post(opp_api, "/v1/games/{id}/resign", g["id"])
            kinds[g["id"]] = (variant, "finished")
        if i == 5:
            post(me_api, "/v1/games/{id}/abort", g["id"])
            kinds[g["id"]] = (variant, "aborted")

    def walk(limit, insert=None, **filters):
        """Every page of the list; returns (games, pages)."""
        seen, pages, cursor = [], 0, None
        while True:
            q = dict(filters, player=me["id"], limit=limit)
            if cursor:
                q["cursor"] = cursor
            body = api.call("GET", "/v1/games", query=q, expect=200)[1]
            pages += 1
            assert pages <= 20
            assert len(body["games"]) <= limit
            seen += body["games"]
            cursor = body["next"]
            if cursor is None:
                return seen, pages
            if pages == 1 and insert:
                insert()

    games, pages = walk(3)
    ids = [g["id"] for g in games]
    assert len(ids) == len(set(ids)) == 8
    assert set(ids) == set(created)
    assert pages == 3
    times = [g["created_at"] for g in games]
    assert times == sorted(times, reverse=True)               # newest first
    for g in games:
        assert me["id"] in (g["white"]["id"], g["black"]["id"])

    # "next" is null on the last page (openapi.yaml, GameList): eight games make
    # exactly eight pages of one, four of two, one of eight.
    for limit, want in ((1, 8), (2, 4), (8, 1), (100, 1)):
        games, pages = walk(limit)
        assert sorted(g["id"] for g in games) == sorted(created), limit
        assert pages == want, (limit, pages)

    def expect(variant=None, status=None):
        return sorted(gid for gid, (v, s) in kinds.items()
                      if (variant is None or v == variant) and (status is None or s == status))

    for variant, status in [("glinski", None), ("korpalski", None), (None, "active"),
                            (None, "finished"), (None, "aborted"), ("glinski", "aborted"),
                            ("korpalski", "active"), ("korpalski", "aborted")]:
        filters = {k: v for k, v in (("variant", variant), ("status", status)) if v}
        games, _ = walk(2, **filters)
        assert sorted(g["id"] for g in games) == expect(variant, status), filters
        for g in games:
            assert variant is None or g["variant"] == variant
            assert status is None or g["status"] == status

    # A game created while paging does not make a page repeat or skip an older game.
    def insert():
        opp_api, opp = api.new_player("late")
        created.append(me_api.new_game(opp_api, opp["id"])["id"])
    games, _ = walk(2, insert=insert)
    ids = [g["id"] for g in games]
    assert len(ids) == len(set(ids))
    assert set(created[:8]) <= set(ids)

    # An unknown player is an empty list; bad parameters are 400.
    body = api.call("GET", "/v1/games", query={"player": "NoSuchPla0"}, expect=200)[1]
    assert body == {"games": [], "next": None}
    for q in ({"limit": 0}, {"limit": 101}, {"limit": "x"}, {"status": "paused"},
              {"variant": "chess"}, {"cursor": "not-a-cursor"}):
        api.call("GET", "/v1/games", query=q, expect=400)


# ----------------------------------------------------------------- tokens


def test_tokens_create_list_revoke(api):
    pa, p = api.new_player("tok")
    first = pa.token
    _, made = pa.call("POST", "/v1/players/me/tokens", expect=201)
    bot = Api(api.base, made["token"])
    assert made["token"] != first
    assert bot.call("GET", "/v1/players/me", expect=200)[1]["id"] == p["id"]

    r = requests.get(f"{api.base}/v1/players/me/tokens",
                     headers={"Authorization": f"Bearer {first}"}, timeout=30)
    listed = check(r, "GET", "/v1/players/me/tokens")["tokens"]
    assert made["token"] not in r.text and first not in r.text
    assert made["id"] in [t["id"] for t in listed] and len(listed) == 2
    assert [t for t in listed if t["id"] == made["id"]][0]["last_used_at"] is not None

    # Another player cannot revoke it (404, as if it did not exist).
    other, _ = api.new_player("tok")
    other.call("DELETE", "/v1/players/me/tokens/{id}", [made["id"]], expect=404)
    assert bot.call("GET", "/v1/players/me", expect=200)

    pa.call("DELETE", "/v1/players/me/tokens/{id}", [made["id"]], expect=204)
    r = requests.get(f"{api.base}/v1/players/me",
                     headers={"Authorization": f"Bearer {made['token']}"}, timeout=30)
    check(r, "GET", "/v1/players/me")
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")
    assert r.json()["type"] == "/problems/unauthorized"
    # A revoked token cannot move either; the first token still works.
    ga, g = api.new_player("tok")
    gid = pa.new_game(ga, g["id"])["id"]
    assert bot.move(gid, "K@e1", expect=401)["type"] == "/problems/unauthorized"
    assert pa.move(gid, "K@e1", ply=0)["ply"] == 1
    listed = pa.call("GET", "/v1/players/me/tokens", expect=200)[1]["tokens"]
    assert [t["id"] for t in listed] != [] and made["id"] not in [t["id"] for t in listed]
    pa.call("DELETE", "/v1/players/me/tokens/{id}", [made["id"]], expect=404)
    # Without a token at all: 401 with the challenge header.
    r = requests.get(f"{api.base}/v1/players/me/tokens", timeout=30)
    check(r, "GET", "/v1/players/me/tokens")
    assert r.status_code == 401 and r.headers["WWW-Authenticate"].startswith("Bearer")
