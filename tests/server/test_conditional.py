"""Conditional moves: PUT, GET and DELETE
/v1/games/{id}/conditional-moves, and the reply played in the transaction of the
opponent's move.

Positions are Korpalski games opened with 1. K@a1 K@h8 2. N@b1 N@g8 3. Nc3 (plies 1-5),
after which Black is to move and White may set lines.  Legal moves are worked out by hand
from the rules (/work/shared/rules/): Black's knight on g8 goes to e7, f6 or h6; White's on
c3 to a2 a4 b1 b5 d1 d5 e2 e4 (nothing gives check with the kings on a1 and h8; see
test_games_flow.knight_shuffle).  Every answer is checked against openapi.yaml by
korp_client.Api.
"""

import threading

import pytest

from korp_client import Api
from test_events import Stream

OPENING = ["K@a1", "K@h8", "N@b1", "N@g8", "Nc3"]
LINES = "/v1/games/{id}/conditional-moves"


def started(wa, ba, b):
    """A game at ply 5 (Black to move); its id."""
    gid = wa.new_game(ba, b["id"])["id"]
    for i, mv in enumerate(OPENING):
        (wa if i % 2 == 0 else ba).move(gid, mv, ply=i)
    return gid


def put(api, gid, lines, expect=200):
    return api.call("PUT", LINES, [gid], json={"lines": lines}, expect=expect)[1]


def get(api, gid, expect=200):
    return api.call("GET", LINES, [gid], expect=expect)[1]


def stored(api, gid):
    return api.call("GET", "/v1/games/{id}/moves", [gid], expect=200)[1]["moves"]


def test_hit_plays_the_reply_in_the_same_answer(api, korpd, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    body = put(wa, gid, [["Nf6", "Nb1"]])
    assert body == {"ply": 5, "lines": [["Nf6", "Nb1"]]}

    white_stream = Stream(korpd.base, query=f"?game={gid}&last_event_id=0", token=wa.token)
    try:
        # Black's 201 shows the game as committed: Black's move and White's reply.
        game = ba.move(gid, "Nf6", ply=5)
        assert game["ply"] == 7 and game["to_move"] == "black"
        assert game["moves"] == OPENING + ["Nf6", "Nb1"]
        rows = stored(api, gid)
        assert [(m["ply"], m["san"], m["conditional"]) for m in rows[5:]] == [
            (6, "Nf6", False), (7, "Nb1", True)]
        assert all(m["conditional"] is False for m in rows[:5])
        # The lines are used up.
        assert get(wa, gid) == {"ply": 7, "lines": []}
        # One move event each: plies 1-7, the reply's marked conditional.
        events = white_stream.events(7 + 1)  # game_start and seven moves
        moves = [e for e in events if e["event"] == "move"]
        assert [e["data"]["ply"] for e in moves] == [1, 2, 3, 4, 5, 6, 7]
        assert moves[-1]["data"].get("conditional") is True
        assert moves[-1]["data"]["san"] == "Nb1"
        assert "conditional" not in moves[-2]["data"]
        assert white_stream.quiet(0.3) == []
    finally:
        white_stream.close()


def test_miss_drops_the_lines(api, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    put(wa, gid, [["Nf6", "Nb1"], ["Ne7", "Nd5"]])
    game = ba.move(gid, "Nh6", ply=5)
    assert game["ply"] == 6 and game["to_move"] == "white"
    assert get(wa, gid) == {"ply": 6, "lines": []}
    assert all(not m["conditional"] for m in stored(api, gid))


def test_deeper_lines_over_several_moves(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    put(wa, gid, [["Nf6", "Nb1", "Ng8", "Nc3"]])
    assert ba.move(gid, "Nf6", ply=5)["ply"] == 7
    assert get(wa, gid) == {"ply": 7, "lines": [["Ng8", "Nc3"]]}
    game = ba.move(gid, "Ng8", ply=7)
    assert game["ply"] == 9 and game["moves"][-4:] == ["Nf6", "Nb1", "Ng8", "Nc3"]
    assert get(wa, gid) == {"ply": 9, "lines": []}


def test_a_tree_follows_the_branch_played(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    tree = [["Nf6", "Nb1", "Ng8", "Nc3"], ["Nf6", "Nb1", "Nd5", "Nc3"], ["Nh6", "Nb5"]]
    assert put(wa, gid, tree)["lines"] == tree
    assert ba.move(gid, "Nf6", ply=5)["moves"][-1] == "Nb1"
    assert get(wa, gid) == {"ply": 7, "lines": [["Ng8", "Nc3"], ["Nd5", "Nc3"]]}
    game = ba.move(gid, "Nd5", ply=7)
    assert game["ply"] == 9 and game["moves"][-2:] == ["Nd5", "Nc3"]


def test_other_notations_are_the_same_move(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    # Coordinates in the lines; SAN in the answer (g8f6 is Nf6, c3b1 is Nb1).
    assert put(wa, gid, [["g8f6", "c3b1"]])["lines"] == [["Nf6", "Nb1"]]
    assert ba.move(gid, "Nf6", ply=5)["moves"][-1] == "Nb1"


def test_put_replaces_and_delete_removes(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    put(wa, gid, [["Nf6", "Nb1"]])
    put(wa, gid, [["Nh6", "Nb5"]])
    assert get(wa, gid)["lines"] == [["Nh6", "Nb5"]]
    wa.call("DELETE", LINES, [gid], expect=204)
    assert get(wa, gid)["lines"] == []
    assert ba.move(gid, "Nh6", ply=5)["ply"] == 6


def test_conflicting_lines_are_refused(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    body = put(wa, gid, [["Nf6", "Nb1"], ["Nf6", "Na4"]], expect=422)
    assert body["type"] == "/problems/conditional-conflict"
    assert (body["line"], body["index"]) == (1, 1)
    # A conflict deeper in the tree: after 6... Nf6 7. Nb1, Ng8 is answered two ways.
    body = put(wa, gid, [["Nf6", "Nb1", "Ng8", "Nc3"], ["Nh6", "Nb5"],
                         ["Nf6", "Nb1", "Ng8", "Na3"]], expect=422)
    assert body["type"] == "/problems/conditional-conflict"
    assert (body["line"], body["index"]) == (2, 3)
    # Nothing was stored.
    assert get(wa, gid)["lines"] == []


def test_an_illegal_line_names_line_and_index(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    # Line 1's fourth move: White's king on a1 cannot reach e5.
    body = put(wa, gid, [["Nf6", "Nb1"], ["Nf6", "Nb1", "Ng8", "Ke5"]], expect=422)
    assert body["type"] == "/problems/illegal-move"
    assert (body["line"], body["index"], body["move"]) == (1, 3, "Ke5")
    assert body["reason"]
    # A first move Black cannot make (its knight on g8 does not reach f3).
    body = put(wa, gid, [["Nf3", "Nb1"]], expect=422)
    assert (body["line"], body["index"]) == (0, 0)
    assert get(wa, gid)["lines"] == []


@pytest.mark.parametrize("lines", [
    [["Nf6"]],                              # odd length
    [["Nf6", "Nb1", "Ng8"]],                # odd length
    [["Nf6", "Nb1"] * 21],                  # 42 moves
    [["Nf6", "Nb1"]] * 65,                  # 65 lines
    [[]],                                   # empty line
    ["Nf6"],                                # not a list of lists
])
def test_malformed_lines_are_400(two_players, lines):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    body = put(wa, gid, lines, expect=400)
    assert body["type"] == "/problems/bad-request"


def test_lines_sent_for_another_position_are_refused(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    # Meant for ply 3 (before 3. Nc3): refused, nothing stored.
    body = wa.call("PUT", LINES, [gid], json={"lines": [["Nf6", "Nb1"]], "ply": 3},
                   expect=409)[1]
    assert body["type"] == "/problems/ply-mismatch"
    assert get(wa, gid)["lines"] == []
    assert wa.call("PUT", LINES, [gid], json={"lines": [["Nf6", "Nb1"]], "ply": 5},
                   expect=200)[1]["lines"] == [["Nf6", "Nb1"]]
    wa.call("PUT", LINES, [gid], json={"lines": [["Nf6", "Nb1"]], "ply": -1}, expect=400)


def test_setting_lines_on_ones_own_turn_is_409(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    # Black is to move: Black may not set lines now.
    body = put(ba, gid, [["Nb1", "Nf6"]], expect=409)
    assert body["type"] == "/problems/conflict"


def test_lines_are_private(api, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    put(wa, gid, [["Nf6", "Nb1"]])
    # The opponent reads their own (none), never White's.
    assert get(ba, gid) == {"ply": 5, "lines": []}
    # Anyone else: the game's conditional moves do not exist for them.
    sa, _ = api.new_player("s")
    assert get(sa, gid, expect=404)["type"] == "/problems/not-found"
    assert put(sa, gid, [["Nf6", "Nb1"]], expect=404)["type"] == "/problems/not-found"
    sa.call("DELETE", LINES, [gid], expect=404)
    # Without a token: 401.
    api.call("GET", LINES, [gid], expect=401)
    # White's lines survived all that.
    assert get(wa, gid)["lines"] == [["Nf6", "Nb1"]]


def test_a_move_that_ends_the_game_plays_nothing(two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    put(wa, gid, [["Nf6", "Nb1"]])
    wa_game = ba.call("POST", "/v1/games/{id}/resign", [gid], expect=200)[1]
    assert wa_game["status"] == "finished" and wa_game["ply"] == 5
    assert get(wa, gid) == {"ply": 5, "lines": []}


def test_twenty_concurrent_opponent_moves_give_one_move_and_one_reply(api, two_players):
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    put(wa, gid, [["Nf6", "Nb1"], ["Nh6", "Nb5"], ["Ne7", "Nd5"]])
    moves = ["Nf6", "Nh6", "Ne7"]
    answers = []

    def send(i):
        answers.append(Api(ba.base, ba.token).call(
            "POST", "/v1/games/{id}/moves", [gid], json={"move": moves[i % 3], "ply": 5}))

    threads = [threading.Thread(target=send, args=(i,)) for i in range(20)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout=60)
    assert len(answers) == 20
    won = [body for status, body in answers if status == 201]
    assert len(won) == 1, answers
    assert sorted(s for s, _ in answers) == [201] + [409] * 19
    assert all(body["type"] == "/problems/ply-mismatch" for s, body in answers if s == 409)
    rows = stored(api, gid)
    assert [m["ply"] for m in rows] == list(range(1, 8))
    assert [m["conditional"] for m in rows].count(True) == 1 and rows[-1]["conditional"]
    black_move = rows[5]["san"]
    assert rows[6]["san"] == {"Nf6": "Nb1", "Nh6": "Nb5", "Ne7": "Nd5"}[black_move]
    assert won[0]["moves"] == [m["san"] for m in rows]


def test_kill_9_between_requests_loses_nothing(korpd_binary, shared_db_url, start_korpd):
    first = start_korpd(shared_db_url, KORP_TEST_CLOCK=1)
    api = Api(first.base)
    wa, w = api.new_player("w")
    ba, b = api.new_player("b")
    gid = started(wa, ba, b)
    put(wa, gid, [["Nf6", "Nb1", "Ng8", "Nc3"]])
    first.kill9()

    second = start_korpd(shared_db_url, KORP_TEST_CLOCK=1)
    wa2, ba2 = Api(second.base, wa.token), Api(second.base, ba.token)
    assert get(wa2, gid)["lines"] == [["Nf6", "Nb1", "Ng8", "Nc3"]]
    assert ba2.move(gid, "Nf6", ply=5)["ply"] == 7
    second.kill9()

    third = start_korpd(shared_db_url, KORP_TEST_CLOCK=1)
    wa3, ba3 = Api(third.base, wa.token), Api(third.base, ba.token)
    assert get(wa3, gid) == {"ply": 7, "lines": [["Ng8", "Nc3"]]}
    assert ba3.move(gid, "Ng8", ply=7)["moves"][-2:] == ["Ng8", "Nc3"]


def test_no_sanitizer_report_in_korpds_log(korpd):
    # Last in the module: korpd (built with ASan and UBSan in the second suite) said
    # nothing about memory or undefined behaviour while serving the tests above.
    log = korpd.log_text()
    for mark in ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                 "runtime error:"):
        assert mark not in log, log[-4000:]


def test_legal_moves_after_planned_moves(api, two_players):
    # What the page's plan mode asks: the position after moves not played yet.
    wa, w, ba, b = two_players
    gid = started(wa, ba, b)
    now = api.call("GET", "/v1/games/{id}/legal-moves", [gid], expect=200)[1]
    assert "fen" not in now
    after = api.call("GET", "/v1/games/{id}/legal-moves", [gid], query={"after": "Nf6,c3b1"},
                     expect=200)[1]
    # After 3... Nf6 4. Nb1 Black's knight on f6 reaches d5 d7 e4 e8 g4 g8 h5 h7, all
    # empty and none giving up the king on h8 (by hand from the rules).
    assert after["fen"].split(" ")[0].startswith("7k/8/5n2/8/8/8/8/KN6"), after["fen"]
    knight = sorted(m["san"] for m in after["moves"] if m["uci"].startswith("f6"))
    assert knight == sorted(["Nd5", "Ne4", "Ng4", "Nh5", "Ng8", "Nh7", "Nd7", "Ne8"]), knight
    body = api.call("GET", "/v1/games/{id}/legal-moves", [gid], query={"after": "Nf6,Ke5"},
                    expect=422)[1]
    assert body["type"] == "/problems/illegal-move" and body["index"] == 1, body
    assert body["move"] == "Ke5" and body["reason"]
    for bad in ["", "Nf6,", ",Nf6", ",".join(["Nf6", "Nb1", "Ng8", "Nc3"] * 10 + ["Nf6"])]:
        api.call("GET", "/v1/games/{id}/legal-moves", [gid], query={"after": bad}, expect=400)
