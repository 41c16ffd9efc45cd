"""A stateful property test of korpd: hypothesis drives random sequences of
legal and illegal requests from 3-4 players (and an arbiter) over a handful of
Korpalski and Glinski games, and checks after every step that

- no answer is a 5xx, and every answer matches openapi.yaml (the client checks);
- each game's moves are plies 1..ply, contiguous, and its SAN list matches them;
- the stored position is the replay of the stored moves by the CLI (`$KORP replay`,
  an independent program): every ply's FEN and SAN, the current FEN, and the end
  the rules decide (checkmate, stalemate, insufficient material end the game at once);
- /analysis agrees with the replay (halfmove clock, earlier occurrences, threefold);
- the side to move matches the ply's parity; finished games have no legal moves and
  accept no move (409 game-over);
- a refused request changes nothing (ply, FEN, moves, status, draw offer, updated_at);
- nothing changes between steps that no step asked for;
- each player's record matches the games the model saw finish;
- conditional moves: lines set by the player waiting for a move are answered
  in the move's own answer (ply + 2, the reply's move row marked conditional) exactly when
  a line began with the move, and are gone after any move; a refused PUT keeps the lines;
  messages are accepted from players only, checked as the issue says, never change a game.
- clocks: games are made with no clock, days per move or a Fischer clock
  (long enough that none runs out while the test runs), with or without leave; players
  give time and book and cancel leave; every clock reads as its game was made, no
  side's time is ever below zero or above what its clock and the time given allow,
  an active game with a clock has a deadline, and a game is paused exactly while a
  player of it (when leave counts) is on leave, until that leave ends.

Runs derandomized (a fixed sequence for CI), without an example database."""

import datetime
import os
import re
import subprocess
import unicodedata
import uuid

import pytest
import requests
from hypothesis import HealthCheck, settings
from hypothesis import strategies as st
from hypothesis.stateful import (RuleBasedStateMachine, initialize, invariant, precondition,
                                 rule, run_state_machine_as_test)

from korp_client import Api

START = {
    "korpalski": "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1",
    "glinski": "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1",
}
RULE_ENDINGS = {"checkmate", "stalemate", "insufficient-material"}
KEYS = ("ply", "fen", "status", "result", "termination", "draw_offer", "updated_at", "moves",
        "deadline")
SANITIZER_MARKS = ("AddressSanitizer", "LeakSanitizer", "UndefinedBehaviorSanitizer",
                   "runtime error:")
GARBAGE = ["e2e4", "K@e4", "K@a8", "Z@z9", "e9e10", "@", "O-O", "0-0", "e4", "Nf3", "h3h5",
           "a1a1", "P@a1", "P@h8", "e7e8q", "--", "resign", "null", "K@", "@e4", "Kxx",
           "Q@d4+", "S/e5", "Hf5+", "pe1=H", "Vxe7", "b1b2", "f10f9", "l1l1", "j5", "a12",
           "K/c2", "Wb5:c5", "1-0", "\u017c\u00f3\u0142w", "e2-e4", "E2E4", " e2e4", "e2e4 ",
           "K@e4#", "Ke5", "Kd5", "Ka7", "Kb8", "h5", "Nf4", "Qxf9#"]

# move texts: any character but NUL (test_bad_input.py covers NUL) and lone surrogates
TEXT = st.characters(blacklist_categories=("Cs",), blacklist_characters="\x00")

KORP = os.environ.get("KORP")


# ---------------------------------------------------------------------------
# the independent referee: the CLI


def parse_time(text):
    return datetime.datetime.strptime(text, "%Y-%m-%dT%H:%M:%SZ").replace(
        tzinfo=datetime.timezone.utc)


def position_key(fen):
    """What makes two positions the same: everything but the two move counters."""
    return " ".join(fen.split(" ")[:-2])


def replay(variant, ucis):
    """[(ply, san, fen)], (result, end) from `korp replay` of these UCI moves."""
    p = subprocess.run([KORP, "replay", "--variant", variant], input=" ".join(ucis) + "\n",
                       capture_output=True, text=True, timeout=60)
    assert p.returncode == 0, \
        f"korp replay refused the stored moves {ucis}: {p.stdout[-500:]} {p.stderr[-500:]}"
    plies, end = [], None
    for line in p.stdout.splitlines():
        if line.startswith("result "):
            _, result, termination = line.split(" ", 2)
            end = (result, termination)
        elif line.strip():
            n, san, fen = line.split(" ", 2)
            plies.append((int(n), san, fen))
    assert end is not None, p.stdout
    return plies, end


def bare(san):
    return san.rstrip("+#")


def squares(uci):
    """The two cells of a coordinate move (Korpalski or Glinski), or None."""
    m = re.fullmatch(r"([a-l])(1[01]|[1-9])([a-l])(1[01]|[1-9])", uci)
    return (m.group(1) + m.group(2), m.group(3) + m.group(4)) if m else None


def is_quiet_piece_move(mv):
    """A move that another move can undo: a piece (not a pawn) moves, nothing is taken."""
    san = mv["san"]
    return (squares(mv["uci"]) is not None and san[:1] in "KQRBN" and "x" not in san
            and "@" not in san and "=" not in san)


# ---------------------------------------------------------------------------
# the machine


class KorpMachine(RuleBasedStateMachine):
    korpd = None          # set by the test function
    arbiter_token = None

    def __init__(self):
        super().__init__()
        self.anon = Api(self.korpd.base)
        self.arbiter = Api(self.korpd.base, self.arbiter_token)
        self.players = []            # {"api", "id", "name"}
        self.games = {}              # id -> {"variant", "white", "black", "fifty", "snap"}
        self.challenges = {}         # id -> {"from", "to", "variant", "color", "open"}
        self.touched = set()
        self.records_dirty = False
        self.leaves = {}             # player index -> [{"id", "day", "days", "start", "end"}]

    # ---- plumbing

    def call(self, api, method, template, params=(), **kw):
        status, body = api.call(method, template, params, **kw)
        assert status < 500, f"{method} {template} {params}: {status} {body}"
        return status, body

    def new_player(self):
        api, body = self.anon.new_player("sm")
        self.players.append({"api": api, "id": body["id"], "name": body["name"]})

    def game_now(self, gid):
        return self.call(self.anon, "GET", "/v1/games/{id}", [gid], expect=200)[1]

    def legal(self, gid):
        return self.call(self.anon, "GET", "/v1/games/{id}/legal-moves", [gid],
                         expect=200)[1]["moves"]

    def side_player(self, g, side):
        return self.players[g["white"] if side == "white" else g["black"]]

    def outsiders(self, g):
        return [p for i, p in enumerate(self.players) if i not in (g["white"], g["black"])]

    def remember(self, gid, game):
        self.games[gid]["snap"] = {k: game[k] for k in KEYS}
        self.touched.add(gid)

    def assert_unchanged(self, gid, why):
        now = self.game_now(gid)
        snap = self.games[gid]["snap"]
        # (no time control here runs out while the test runs: not even the sweeper may
        # change a game)
        changed = {k: (snap[k], now[k]) for k in KEYS if snap[k] != now[k]}
        assert not changed, f"{why} changed game {gid}: {changed}"
        return now

    def assert_move_problem(self, body, gid, text, slug):
        assert body["type"] == f"/problems/{slug}", body
        assert body["move"] == text, body
        assert body["ply"] == self.games[gid]["snap"]["ply"], body

    def pick_game(self, data, active=None):
        # in the order the games were made: ids are random, and draws must not depend
        # on them (hypothesis replays a sequence and expects the same choices)
        ids = [gid for gid, g in self.games.items()
               if active is None or (g["snap"]["status"] == "active") == active]
        return data.draw(st.sampled_from(ids), label="game") if ids else None

    def active_games(self):
        return [gid for gid, g in self.games.items() if g["snap"]["status"] == "active"]

    def ended_games(self):
        return [gid for gid, g in self.games.items() if g["snap"]["status"] != "active"]

    def start_game(self, challenger, opponent, variant, color="random", fifty=True,
                   clock=None):
        c, o = self.players[challenger], self.players[opponent]
        _, ch = self.call(c["api"], "POST", "/v1/challenges",
                          json={"variant": variant, "opponent": o["id"], "color": color,
                                "clock": clock, "fifty_move_rule": fifty}, expect=201)
        _, acc = self.call(o["api"], "POST", "/v1/challenges/{id}/accept", [ch["id"]],
                           expect=201)
        self.adopt_game(acc["game"], challenger, opponent, color, variant, fifty, clock)

    def adopt_game(self, game, challenger, opponent, color, variant, fifty, clock=None,
                   leave_allowed=True):
        white = challenger if game["white"]["id"] == self.players[challenger]["id"] else opponent
        black = opponent if white == challenger else challenger
        assert {game["white"]["id"], game["black"]["id"]} == \
            {self.players[challenger]["id"], self.players[opponent]["id"]}, game
        if color == "white":
            assert white == challenger, game
        elif color == "black":
            assert black == challenger, game
        assert game["variant"] == variant and game["ply"] == 0 and game["moves"] == []
        assert game["status"] == "active" and game["fen"] == START[variant], game
        assert game["fifty_move_rule"] == fifty
        self.games[game["id"]] = {"variant": variant, "white": white, "black": black,
                                  "fifty": fifty, "snap": None, "lines": None,
                                  "messages": {}, "clock": clock,
                                  "leave_allowed": leave_allowed,
                                  "given": {"white": 0, "black": 0}}
        assert game["leave_allowed"] == leave_allowed, game
        assert (game["clock"] is None) == (clock is None), game
        self.remember(game["id"], game)

    # ---- set-up

    @initialize()
    def setup(self):
        for _ in range(3):
            self.new_player()
        self.start_game(0, 1, "korpalski", "white",
                        clock={"type": "fischer", "initial_days": 30, "increment_days": 3,
                               "max_days": 40})
        self.start_game(1, 2, "glinski", "black", clock={"type": "per_move", "days": 40})

    # ---- players and challenges

    @precondition(lambda self: len(self.players) < 4)
    @rule()
    def add_player(self):
        self.new_player()

    @precondition(lambda self: len(self.active_games())
                  + sum(c["open"] for c in self.challenges.values()) < 4
                  and len(self.games) < 8)
    @rule(data=st.data())
    def challenge(self, data):
        n = len(self.players)
        a = data.draw(st.integers(0, n - 1), label="challenger")
        b = data.draw(st.integers(0, n - 1).filter(lambda x: x != a), label="opponent")
        variant = data.draw(st.sampled_from(["korpalski", "glinski"]), label="variant")
        color = data.draw(st.sampled_from(["white", "black", "random"]), label="color")
        # The suite's database has one clock, which other tests move (by days at most):
        # a time control here is a month or more, so nothing runs out during the test.
        clock = data.draw(st.one_of(
            st.none(),
            st.builds(lambda d: {"type": "per_move", "days": d}, st.integers(30, 60)),
            st.builds(lambda i, n, extra: {"type": "fischer", "initial_days": i,
                                           "increment_days": n, "max_days": min(365, i + extra)},
                      st.integers(30, 180), st.integers(0, 30), st.integers(0, 200))),
            label="clock")
        leave_allowed = data.draw(st.booleans(), label="leave_allowed")
        fifty = data.draw(st.booleans(), label="fifty")
        body = {"variant": variant, "opponent": self.players[b]["id"], "color": color,
                "fifty_move_rule": fifty, "leave_allowed": leave_allowed}
        if clock is not None and clock["type"] == "per_move" and data.draw(st.booleans()):
            body["days_per_move"] = clock["days"]     # the older form of the same clock
        else:
            body["clock"] = clock
        # One open challenge from a player to each opponent: a second is 409.
        waiting = [k for k, c in self.challenges.items()
                   if c["open"] and c["from"] == a and c["to"] == b]
        status, ch = self.call(self.players[a]["api"], "POST", "/v1/challenges", json=body,
                               expect=409 if waiting else 201)
        if waiting:
            assert waiting[0] in ch["detail"], ch
            return
        assert ch["clock"] == clock and ch["leave_allowed"] == leave_allowed, ch
        assert ch["status"] == "open" and ch["game_id"] is None
        assert ch["challenger"]["id"] == self.players[a]["id"]
        assert ch["opponent"]["id"] == self.players[b]["id"]
        self.challenges[ch["id"]] = {"from": a, "to": b, "variant": variant, "color": color,
                                     "fifty": fifty, "open": True, "clock": clock,
                                     "leave_allowed": leave_allowed}
        _, mine = self.call(self.players[b]["api"], "GET", "/v1/challenges", expect=200)
        assert ch["id"] in [c["id"] for c in mine["incoming"]]

    @precondition(lambda self: any(c["open"] for c in self.challenges.values()))
    @rule(data=st.data())
    def answer_challenge(self, data):
        cid = data.draw(st.sampled_from([k for k, c in self.challenges.items() if c["open"]]),
                        label="challenge")
        c = self.challenges[cid]
        who = data.draw(st.integers(0, len(self.players) - 1), label="who")
        action = data.draw(st.sampled_from(["accept", "accept", "decline", "cancel"]),
                           label="action")
        allowed = who == (c["from"] if action == "cancel" else c["to"])
        status, body = self.call(self.players[who]["api"], "POST",
                                 f"/v1/challenges/{{id}}/{action}", [cid])
        if not allowed:
            assert status == 403, (action, status, body)
            return
        if action == "accept":
            assert status == 201, body
            assert body["game_id"] == body["game"]["id"]
            self.adopt_game(body["game"], c["from"], c["to"], c["color"], c["variant"],
                            c["fifty"], c["clock"], c["leave_allowed"])
        else:
            assert status == 200, body
            assert body["status"] == ("declined" if action == "decline" else "cancelled")
        c["open"] = False
        c["closed_by"] = action

    @precondition(lambda self: any(not c["open"] for c in self.challenges.values()))
    @rule(data=st.data())
    def answer_closed_challenge(self, data):
        cid = data.draw(st.sampled_from([k for k, c in self.challenges.items()
                                         if not c["open"]]), label="challenge")
        c = self.challenges[cid]
        action = data.draw(st.sampled_from(["accept", "decline", "cancel"]), label="action")
        who = c["from"] if action == "cancel" else c["to"]
        games = len(self.games)
        status, body = self.call(self.players[who]["api"], "POST",
                                 f"/v1/challenges/{{id}}/{action}", [cid])
        assert status == 409 and body["type"] == "/problems/conflict", (status, body)
        assert len(self.games) == games

    # ---- moves

    def play(self, gid, mv, text, ply=None, key=None):
        """The side to move plays a legal move; checks the answer."""
        g = self.games[gid]
        snap = g["snap"]
        mover = self.side_player(g, "white" if snap["ply"] % 2 == 0 else "black")
        body = {"move": text}
        if ply is not None:
            body["ply"] = ply
        headers = {"Idempotency-Key": key} if key else None
        status, game = self.call(mover["api"], "POST", "/v1/games/{id}/moves", [gid],
                                 json=body, headers=headers)
        assert status == 201, f"legal move {text} ({mv}) at ply {snap['ply']}: {status} {game}"
        replied = self.conditional_reply(gid, snap, game)
        assert game["moves"][:snap["ply"]] == snap["moves"], game
        assert bare(game["moves"][snap["ply"]]) == bare(mv["san"]), (mv, game["moves"])
        mover_side = "white" if snap["ply"] % 2 == 0 else "black"
        if game["status"] == "active":
            if replied:
                # both sides moved: any offer lapsed
                assert game["draw_offer"] is None, game
            elif snap["draw_offer"] is not None and snap["draw_offer"] != mover_side:
                assert game["draw_offer"] is None, "the offer did not lapse when its " \
                                                   f"opponent moved: {game}"
            else:
                assert game["draw_offer"] == snap["draw_offer"], game
        else:
            assert game["termination"] in RULE_ENDINGS, game
            self.records_dirty = True
        if key:
            again = self.call(mover["api"], "POST", "/v1/games/{id}/moves", [gid], json=body,
                              headers=headers)
            assert again == (status, game), f"the retry with the same key: {again}"
        self.remember(gid, game)
        return game

    @precondition(lambda self: self.active_games())
    @rule(data=st.data(), notation=st.sampled_from(["uci", "san"]), with_ply=st.booleans())
    def play_legal(self, data, notation, with_ply):
        gid = self.pick_game(data, active=True)
        moves = self.legal(gid)
        assert moves, f"an active game without a legal move: {gid}"
        # where the waiting player set conditional moves, often one they answer
        planned = [m for m in moves if bare(m["san"]) in (self.games[gid]["lines"] or {})]
        if planned and data.draw(st.booleans(), label="a planned move"):
            moves = planned
        mv = data.draw(st.sampled_from(moves), label="move")
        self.play(gid, mv, mv[notation], self.games[gid]["snap"]["ply"] if with_ply else None)

    @precondition(lambda self: self.active_games())
    @rule(data=st.data())
    def play_legal_with_idempotency_key(self, data):
        gid = self.pick_game(data, active=True)
        mv = data.draw(st.sampled_from(self.legal(gid)), label="move")
        self.play(gid, mv, mv["uci"], key=f"sm-{uuid.uuid4().hex}")

    @precondition(lambda self: self.games)
    @rule(data=st.data(),
          text=st.one_of(st.sampled_from(GARBAGE), st.text(TEXT, max_size=12),
                         st.text(TEXT, min_size=33, max_size=40)))
    def play_garbage(self, data, text):
        gid = self.pick_game(data)
        g = self.games[gid]
        snap = g["snap"]
        legal = self.legal(gid) if snap["status"] == "active" else []
        mover = self.side_player(g, "white" if snap["ply"] % 2 == 0 else "black")
        size = len(text.encode())
        status, body = self.call(mover["api"], "POST", "/v1/games/{id}/moves", [gid],
                                 json={"move": text})
        if status == 201:
            # some texts are moves after all: then it must be one of the legal moves
            assert snap["status"] == "active" and 1 <= size <= 32, (text, body)
            sans = {bare(m["san"]) for m in legal}
            self.conditional_reply(gid, snap, body)
            assert bare(body["moves"][snap["ply"]]) in sans, (text, body["moves"], sans)
            assert body["moves"][:snap["ply"]] == snap["moves"], body
            self.remember(gid, body)
            if body["status"] != "active":
                self.records_dirty = True
            return
        if size == 0 or size > 32:
            assert status in (400, 409), (text, status, body)
            if status == 400:
                assert body["type"] == "/problems/bad-request", body
            else:
                assert snap["status"] != "active", body
        elif snap["status"] != "active":
            assert status == 409, (text, status, body)
            self.assert_move_problem(body, gid, text, "game-over")
        else:
            assert status == 422, (text, status, body)
            self.assert_move_problem(body, gid, text, "illegal-move")
            assert body["reason"] and body["detail"], body
        self.assert_unchanged(gid, f"the refused move {text!r}")

    @precondition(lambda self: self.games)
    @rule(data=st.data(), outsider=st.booleans())
    def play_as_the_wrong_player(self, data, outsider):
        gid = self.pick_game(data)
        g = self.games[gid]
        snap = g["snap"]
        legal = self.legal(gid)
        text = data.draw(st.sampled_from([m["uci"] for m in legal]), label="move") \
            if legal else "K@e4"
        others = self.outsiders(g)
        if outsider:
            who = data.draw(st.sampled_from(others), label="outsider")["api"] if others \
                else self.arbiter
        else:
            who = self.side_player(g, "black" if snap["ply"] % 2 == 0 else "white")["api"]
        status, body = self.call(who, "POST", "/v1/games/{id}/moves", [gid],
                                 json={"move": text, "ply": snap["ply"]})
        if outsider:
            # the contract does not order "not a player" and "game over"
            assert status == 403 or (status == 409 and snap["status"] != "active"), body
        elif snap["status"] != "active":
            assert status == 409
            self.assert_move_problem(body, gid, text, "game-over")
        else:
            assert status == 409, (status, body)
            self.assert_move_problem(body, gid, text, "not-your-turn")
        self.assert_unchanged(gid, "a move by the wrong player")

    @precondition(lambda self: self.active_games())
    @rule(data=st.data(), delta=st.sampled_from([-3, -2, -1, 1, 2, 1000]))
    def play_with_a_stale_ply(self, data, delta):
        gid = self.pick_game(data, active=True)
        snap = self.games[gid]["snap"]
        ply = snap["ply"] + delta
        if ply < 0:
            ply = snap["ply"] + 1
        mv = data.draw(st.sampled_from(self.legal(gid)), label="move")
        mover = self.side_player(self.games[gid], "white" if snap["ply"] % 2 == 0 else "black")
        status, body = self.call(mover["api"], "POST", "/v1/games/{id}/moves", [gid],
                                 json={"move": mv["uci"], "ply": ply})
        assert status == 409, (status, body)
        self.assert_move_problem(body, gid, mv["uci"], "ply-mismatch")
        self.assert_unchanged(gid, f"a move sent for ply {ply}")

    # ---- conditional moves and messages

    def conditional_reply(self, gid, snap, game):
        """After a move from snap: checks that the waiting player's lines answered it
        exactly when one began with it (ply + 2), and forgets them (any move ends them).
        Returns whether a reply was played."""
        g = self.games[gid]
        lines, g["lines"] = g["lines"] or {}, None
        if game["ply"] == snap["ply"] + 2:
            m, r = bare(game["moves"][snap["ply"]]), bare(game["moves"][snap["ply"] + 1])
            assert lines.get(m) == r, f"reply {r} to {m} without such a line: {lines}"
            _, listed = self.call(self.anon, "GET", "/v1/games/{id}/moves", [gid], expect=200)
            assert [x["conditional"] for x in listed["moves"][snap["ply"]:]] == [False, True]
            return True
        assert game["ply"] == snap["ply"] + 1, (snap["ply"], game)
        m = bare(game["moves"][-1])
        assert m not in lines or game["status"] != "active", \
            f"a line began with {m} but nothing was played: {lines}"
        return False

    def clear_lines(self, gid):
        g = self.games[gid]
        if g["lines"]:
            owner = self.side_player(g, "black" if g["snap"]["ply"] % 2 == 0 else "white")
            self.call(owner["api"], "DELETE", "/v1/games/{id}/conditional-moves", [gid],
                      expect=204)
            g["lines"] = None

    def cli_moves(self, variant, fen):
        p = subprocess.run([KORP, "moves", "--variant", variant, fen], capture_output=True,
                           text=True, timeout=60)
        assert p.returncode == 0, p.stderr
        return [dict(zip(("uci", "san"), line.split(" ", 1))) for line in p.stdout.splitlines()
                if line]

    @precondition(lambda self: self.active_games())
    @rule(data=st.data(), who=st.sampled_from(["owner", "owner", "owner", "mover", "outsider"]),
          count=st.integers(1, 3))
    def set_conditional_moves(self, data, who, count):
        gid = self.pick_game(data, active=True)
        g = self.games[gid]
        snap = g["snap"]
        mover_side = "white" if snap["ply"] % 2 == 0 else "black"
        owner = self.side_player(g, "black" if mover_side == "white" else "white")
        _, listed = self.call(self.anon, "GET", "/v1/games/{id}/moves", [gid], expect=200)
        ucis = [m["uci"] for m in listed["moves"]]
        lines, chosen, all_legal = [], [], True
        for i in range(count):
            # a tree: sometimes the same move of theirs as the line before
            if chosen and data.draw(st.integers(0, 2), label="same move") == 0:
                m = chosen[-1][0]
            else:
                m = data.draw(st.sampled_from(self.legal(gid)), label=f"their move {i}")
            plies, _ = replay(g["variant"], ucis + [m["uci"]])
            replies = self.cli_moves(g["variant"], plies[-1][2])
            if replies and data.draw(st.integers(0, 7), label="legal reply") > 0:
                r = data.draw(st.sampled_from(replies), label=f"reply {i}")
                text = r[data.draw(st.sampled_from(["uci", "san"]), label="notation")]
            else:
                r, text = None, data.draw(st.sampled_from(GARBAGE), label=f"bad reply {i}")
                all_legal = all_legal and text in {x["uci"] for x in replies} | \
                    {x["san"] for x in replies}
            lines.append([m["san"], text])
            chosen.append((m, r))
        if who == "mover":
            api = self.side_player(g, mover_side)["api"]
        elif who == "outsider":
            others = self.outsiders(g)
            api = data.draw(st.sampled_from(others), label="outsider")["api"] if others \
                else self.arbiter
        else:
            api = owner["api"]
        before = g["lines"]
        status, body = self.call(api, "PUT", "/v1/games/{id}/conditional-moves", [gid],
                                 json={"lines": lines})
        if who == "mover":
            assert status == 409 and body["type"] == "/problems/conflict", (status, body)
        elif who == "outsider":
            assert status == 404, (status, body)
        elif status == 200:
            assert all(r is not None for _, r in chosen) or all_legal, (lines, body)
            answer = {}
            for m, r in chosen:
                assert answer.get(bare(m["san"]), bare(r["san"])) == bare(r["san"]), body
                answer[bare(m["san"])] = bare(r["san"])
            assert body["ply"] == snap["ply"], body
            assert [[bare(x) for x in line] for line in body["lines"]] == \
                [[bare(m["san"]), bare(r["san"])] for m, r in chosen], body
            g["lines"] = answer
        else:
            assert status == 422, (status, body)
            if body["type"] == "/problems/illegal-move":
                assert body["index"] == 1 and chosen[body["line"]][1] is None, (lines, body)
            else:
                assert body["type"] == "/problems/conditional-conflict", body
                replies = {}
                for m, r in chosen:
                    replies.setdefault(bare(m["san"]), set()).add(bare(r["san"]))
                assert any(len(v) > 1 for v in replies.values()), (lines, body)
        if who == "owner":
            # what the owner reads back is what the model holds (a refusal kept the old)
            _, mine = self.call(owner["api"], "GET", "/v1/games/{id}/conditional-moves",
                                [gid], expect=200)
            held = {bare(line[0]): bare(line[1]) for line in mine["lines"]}
            assert held == (g["lines"] or {}), (held, g["lines"], before)
        self.assert_unchanged(gid, "setting conditional moves")

    @precondition(lambda self: self.games)
    @rule(data=st.data(), who=st.sampled_from(["white", "black", "outsider"]),
          text=st.one_of(st.sampled_from(["gg", "Good luck!\nHave fun", "\t", "", "x" * 501]),
                         st.text(TEXT, max_size=8)))
    def send_message(self, data, who, text):
        gid = self.pick_game(data)
        g = self.games[gid]
        if who == "outsider":
            others = self.outsiders(g)
            sender = data.draw(st.sampled_from(others), label="outsider") if others else None
            api = sender["api"] if sender else self.arbiter
        else:
            sender = self.side_player(g, who)
            api = sender["api"]
        valid = 1 <= len(text) <= 500 and all(
            c == "\n" or unicodedata.category(c) != "Cc" for c in text)
        status, body = self.call(api, "POST", "/v1/games/{id}/messages", [gid],
                                 json={"text": text})
        sent = g["messages"].get(who, 0)
        if not valid:
            assert status == 400, (text, status, body)
        elif who == "outsider":
            assert status == 403, (status, body)
        elif sent >= 20:
            assert status == 429, (status, body)
        else:
            assert status == 201, (text, status, body)
            assert body["text"] == text and body["from"] == who, body
            assert body["ply"] == g["snap"]["ply"], body
            g["messages"][who] = sent + 1
        # players read them always; anyone else once the game is over
        status, listed = self.call(self.anon, "GET", "/v1/games/{id}/messages", [gid])
        if g["snap"]["status"] == "active":
            assert status == 403, (status, listed)
            status, listed = self.call(self.side_player(g, "white")["api"], "GET",
                                       "/v1/games/{id}/messages", [gid], expect=200)
        assert status == 200
        assert len(listed["messages"]) == sum(g["messages"].values()), listed
        self.assert_unchanged(gid, "a message")

    # ---- claims, draws, the end

    def referee(self, gid):
        """The CLI's view of the game: [(ply, san, fen)] with ply 0, and its end."""
        g = self.games[gid]
        _, moves = self.call(self.anon, "GET", "/v1/games/{id}/moves", [gid], expect=200)
        plies, end = replay(g["variant"], [m["uci"] for m in moves["moves"]])
        return [(0, None, START[g["variant"]])] + plies, end

    def claimable(self, gid):
        plies, _ = self.referee(gid)
        fen = plies[-1][2]
        earlier = [n for n, _, f in plies[:-1] if position_key(f) == position_key(fen)]
        halfmove = int(fen.split(" ")[-2])
        return {"threefold": len(earlier) >= 2,
                "fifty-move": self.games[gid]["fifty"] and halfmove >= 100}

    @precondition(lambda self: self.games)
    @rule(data=st.data(), kind=st.sampled_from(["threefold", "fifty-move"]),
          by_mover=st.booleans(), with_move=st.booleans())
    def claim(self, data, kind, by_mover, with_move):
        gid = self.pick_game(data)
        g = self.games[gid]
        snap = g["snap"]
        legal = self.legal(gid)
        body = {"kind": kind}
        if with_move and legal:
            body["move"] = data.draw(st.sampled_from(legal), label="move")["uci"]
        side = ("white" if snap["ply"] % 2 == 0 else "black")
        if not by_mover:
            side = "black" if side == "white" else "white"
        status, answer = self.call(self.side_player(g, side)["api"], "POST",
                                   "/v1/games/{id}/claims", [gid], json=body)
        if snap["status"] != "active":
            assert status == 409 and answer["type"] == "/problems/game-over", answer
        elif not by_mover:
            assert status == 409 and answer["type"] == "/problems/not-your-turn", answer
        else:
            assert status == 200, answer
            if "move" not in body:
                expected = self.claimable(gid)[kind]
                assert answer["accepted"] == expected, \
                    f"{kind} claim at ply {snap['ply']}: the replay says {expected}: {answer}"
            if answer["accepted"]:
                self.check_claim_accepted(gid, kind, answer)
                return
        self.assert_unchanged(gid, f"a refused {kind} claim {body}")

    def check_claim_accepted(self, gid, kind, answer):
        snap = self.games[gid]["snap"]
        game = self.game_now(gid)
        assert answer["game"] == game, (answer["game"], game)
        assert (game["status"], game["result"], game["termination"]) == \
            ("finished", "1/2-1/2", kind), game
        # the contract: "Accepted: the game ends 1/2-1/2 ... and the move is not played"
        assert game["ply"] == snap["ply"] and game["moves"] == snap["moves"], \
            f"the move sent with an accepted claim was played: ply {snap['ply']} -> " \
            f"{game['ply']}, moves {snap['moves']} -> {game['moves']}"
        self.records_dirty = True
        self.remember(gid, game)

    @precondition(lambda self: self.games)
    @rule(data=st.data(), action=st.sampled_from(["offer", "offer", "accept", "decline"]),
          who=st.sampled_from(["white", "black", "outsider"]))
    def draw(self, data, action, who):
        gid = self.pick_game(data)
        g = self.games[gid]
        snap = g["snap"]
        _, analysis = self.call(self.anon, "GET", "/v1/games/{id}/analysis", [gid],
                                expect=200)
        if who == "outsider":
            others = self.outsiders(g)
            api = data.draw(st.sampled_from(others), label="outsider")["api"] if others \
                else self.arbiter
        else:
            api = self.side_player(g, who)["api"]
        status, body = self.call(api, "POST", "/v1/games/{id}/draw", [gid],
                                 json={"action": action})
        theirs = {"white": "black", "black": "white"}.get(who)
        if who == "outsider":
            assert status == 403 or (status == 409 and snap["status"] != "active"), body
        elif snap["status"] != "active":
            assert status == 409 and body["type"] == "/problems/game-over", body
        elif action != "decline" and not analysis["draw_by_agreement_allowed"]:
            assert g["variant"] == "korpalski", "Glinski always allows a draw by agreement"
            if action == "accept" and snap["draw_offer"] != theirs and status == 409:
                # no offer to accept: the contract does not order the two refusals
                assert body["type"] == "/problems/conflict", body
            else:
                assert status == 422 and body["type"] == "/problems/draw-not-allowed", body
        elif action == "offer" or (action == "accept" and snap["draw_offer"] == theirs):
            assert status == 200, body
            if snap["draw_offer"] == theirs:
                # accepting, or offering back against a standing offer: agreed
                if action == "accept" or body["status"] == "finished":
                    assert (body["status"], body["result"], body["termination"]) == \
                        ("finished", "1/2-1/2", "agreement"), body
                    self.records_dirty = True
                else:
                    assert body["draw_offer"] == who, body
            else:
                assert body["draw_offer"] == who and body["status"] == "active", body
                assert body["ply"] == snap["ply"] and body["fen"] == snap["fen"]
                if snap["draw_offer"] == who:     # offered already: nothing changes
                    assert body == self.game_now(gid)
            self.remember(gid, self.game_now(gid))
            assert self.games[gid]["snap"]["status"] == body["status"]
            return
        elif action == "decline" and snap["draw_offer"] == theirs:
            assert status == 200 and body["draw_offer"] is None, body
            assert body["status"] == "active" and body["ply"] == snap["ply"]
            self.remember(gid, self.game_now(gid))
            return
        else:
            # accepting or declining when the opponent has no offer standing
            assert status == 409 and body["type"] == "/problems/conflict", body
        self.assert_unchanged(gid, f"a refused draw {action}")

    @precondition(lambda self: self.active_games())
    @rule(data=st.data(), how=st.sampled_from(["resign", "abort", "adjudication"]),
          who=st.sampled_from(["white", "black"]))
    def end_game(self, data, how, who):
        gid = self.pick_game(data, active=True)
        g = self.games[gid]
        snap = g["snap"]
        if how == "adjudication":
            result = data.draw(st.sampled_from(["1-0", "0-1", "1/2-1/2", "3/4-1/4", "1/4-3/4"]),
                               label="result")
            reason = f"ruling {uuid.uuid4().hex[:6]}"
            # a player may not rule
            status, body = self.call(self.side_player(g, who)["api"], "POST",
                                     "/v1/games/{id}/adjudication", [gid],
                                     json={"result": result, "reason": reason})
            assert status == 403, body
            self.assert_unchanged(gid, "a player's adjudication")
            status, body = self.call(self.arbiter, "POST", "/v1/games/{id}/adjudication",
                                     [gid], json={"result": result, "reason": reason})
            assert status == 200, body
            assert (body["status"], body["result"], body["termination"],
                    body["adjudication_reason"]) == ("finished", result, "adjudication",
                                                     reason), body
        else:
            status, body = self.call(self.side_player(g, who)["api"], "POST",
                                     f"/v1/games/{{id}}/{how}", [gid])
            if how == "resign":
                assert status == 200, body
                assert (body["status"], body["result"], body["termination"]) == \
                    ("finished", "0-1" if who == "white" else "1-0", "resignation"), body
            elif snap["ply"] < 2:
                assert status == 200, body
                assert (body["status"], body["result"], body["termination"]) == \
                    ("aborted", "*", None), body
            else:
                assert status == 409 and body["type"] == "/problems/conflict", body
                self.assert_unchanged(gid, "a late abort")
                return
        assert body["ply"] == snap["ply"] and body["moves"] == snap["moves"], body
        assert body["draw_offer"] is None and body["deadline"] is None, body
        self.records_dirty = True
        self.remember(gid, self.game_now(gid))

    @precondition(lambda self: self.ended_games())
    @rule(data=st.data(), what=st.sampled_from(["move", "claim", "draw", "resign", "abort",
                                                "adjudication"]))
    def act_on_an_ended_game(self, data, what):
        gid = self.pick_game(data, active=False)
        g = self.games[gid]
        api = self.side_player(g, data.draw(st.sampled_from(["white", "black"]),
                                            label="who"))["api"]
        if what == "move":
            status, body = self.call(api, "POST", "/v1/games/{id}/moves", [gid],
                                     json={"move": "K@e4"})
            assert status == 409
            self.assert_move_problem(body, gid, "K@e4", "game-over")
        else:
            if what == "adjudication":
                api = self.arbiter
            payload = {"claim": {"kind": "threefold"}, "draw": {"action": "offer"},
                       "adjudication": {"result": "1-0", "reason": "late"}}.get(what)
            path = {"claim": "claims"}.get(what, what)
            status, body = self.call(api, "POST", f"/v1/games/{{id}}/{path}", [gid],
                                     json=payload)
            assert status == 409 and body["type"] == "/problems/game-over", (what, body)
        assert self.legal(gid) == []
        self.assert_unchanged(gid, f"{what} on an ended game")

    # ---- a repetition, claimed early (refused) and then on time (accepted)

    @precondition(lambda self: any(self.games[gid]["snap"]["ply"] >= 2
                                   or self.games[gid]["variant"] == "glinski"
                                   for gid in self.active_games()))
    @rule(data=st.data())
    def repeat_a_position(self, data):
        gid = data.draw(st.sampled_from([
            gid for gid in self.active_games()
            if self.games[gid]["snap"]["ply"] >= 2 or self.games[gid]["variant"] == "glinski"]),
            label="game")
        g = self.games[gid]
        # the cycle is planned move by move: no conditional reply may come between
        self.clear_lines(gid)

        def quiet(label):
            moves = [m for m in self.legal(gid) if is_quiet_piece_move(m)]
            return data.draw(st.sampled_from(moves), label=label) if moves else None

        def undo(mv):
            a, b = squares(mv["uci"])
            moves = [m for m in self.legal(gid) if m["uci"] == b + a]
            return moves[0] if moves else None

        # one cycle: a, b, a back, b back
        a = quiet("a")
        if a is None:
            return
        self.play(gid, a, a["uci"])
        if g["snap"]["status"] != "active":
            return
        b = quiet("b")
        if b is None:
            return
        self.play(gid, b, b["uci"])
        for cycle in (1, 2):
            if g["snap"]["status"] != "active":
                return
            a_back = undo(a)
            if a_back is None:
                return
            self.play(gid, a_back, a_back["uci"])
            if g["snap"]["status"] != "active":
                return
            b_back = undo(b)
            if b_back is None:
                return
            # b back makes the position before `a` occur for the (cycle + 1)th time
            mover = self.side_player(g, "white" if g["snap"]["ply"] % 2 == 0 else "black")
            status, answer = self.call(mover["api"], "POST", "/v1/games/{id}/claims", [gid],
                                       json={"kind": "threefold", "move": b_back["uci"]})
            assert status == 200, answer
            if cycle == 1:
                expected = self.claimable_after(gid, b_back)
                assert answer["accepted"] is expected, (answer, expected)
                if expected:     # the position had occurred before this cycle began
                    self.check_claim_accepted(gid, "threefold", answer)
                    return
                self.assert_unchanged(gid, "a premature threefold claim with a move")
                self.play(gid, b_back, b_back["uci"])
                if g["snap"]["status"] != "active":
                    return
                self.play(gid, a, a["uci"])
                if g["snap"]["status"] != "active":
                    return
                self.play(gid, b, b["uci"])
            else:
                assert answer["accepted"] is True, \
                    f"the third occurrence was not accepted: {answer}"
                self.check_claim_accepted(gid, "threefold", answer)

    def claimable_after(self, gid, mv):
        """Whether playing mv would make a threefold claim hold (from the CLI's replay)."""
        g = self.games[gid]
        _, moves = self.call(self.anon, "GET", "/v1/games/{id}/moves", [gid], expect=200)
        plies, _ = replay(g["variant"], [m["uci"] for m in moves["moves"]] + [mv["uci"]])
        plies = [(0, None, START[g["variant"]])] + plies
        fen = plies[-1][2]
        return sum(position_key(f) == position_key(fen) for _, _, f in plies[:-1]) >= 2

    # ---- clocks, give-time and leave

    def server_now(self):
        """korpd's time now (a new account's created_at, whole seconds): the suite's
        test clock is not ours to read or set."""
        api, _ = self.anon.new_player("now")
        return parse_time(api.call("GET", "/v1/players/me", expect=200)[1]["created_at"])

    def games_of(self, player):
        return [gid for gid, g in self.games.items() if player in (g["white"], g["black"])]

    def refresh_games_of(self, player):
        """A booking moves the deadlines of the player's games: read them again."""
        for gid in self.games_of(player):
            self.remember(gid, self.game_now(gid))

    @precondition(lambda self: self.games)
    @rule(data=st.data(), who=st.sampled_from(["waiting", "waiting", "to move", "outsider"]),
          days=st.integers(1, 7))
    def give_time(self, data, who, days):
        gid = self.pick_game(data)
        g = self.games[gid]
        snap = g["snap"]
        to_move = "white" if snap["ply"] % 2 == 0 else "black"
        if who != "outsider":
            who = to_move if who == "to move" else ("black" if to_move == "white" else "white")
        if who == "outsider":
            others = self.outsiders(g)
            if not others:
                return
            status, body = self.call(others[0]["api"], "POST", "/v1/games/{id}/give-time",
                                     [gid], json={"days": days})
            assert status == 403, body
            self.assert_unchanged(gid, "an outsider's give-time")
            return
        status, body = self.call(self.side_player(g, who)["api"], "POST",
                                 "/v1/games/{id}/give-time", [gid], json={"days": days})
        if snap["status"] != "active":
            assert status == 409 and body["type"] == "/problems/game-over", body
        elif who == to_move or g["clock"] is None:
            assert status == 409 and body["type"] == "/problems/conflict", body
        else:
            assert status == 200, body
            before, after = parse_time(snap["deadline"]), parse_time(body["deadline"])
            # Later by the days given, or more where the added time reaches leave.
            assert after - before >= datetime.timedelta(days=days), (snap, body)
            if not g["leave_allowed"] or not (self.leaves.get(g["white"]) or
                                              self.leaves.get(g["black"])):
                assert after - before == datetime.timedelta(days=days), (snap, body)
            g["given"][to_move] += days * 86400
            self.remember(gid, body)
            return
        self.assert_unchanged(gid, "a refused give-time")

    def booked_days(self, player, year):
        n = 0
        for b in self.leaves.get(player, []):
            for i in range(b["days"]):
                n += (b["day"] + datetime.timedelta(days=i)).year == year
        return n

    @precondition(lambda self: self.players)
    @rule(data=st.data(), ahead=st.sampled_from([0, 0, 1, 3, 10, 40, 200]),
          days=st.integers(1, 40))
    def book_leave(self, data, ahead, days):
        who = data.draw(st.integers(0, len(self.players) - 1), label="who")
        today = self.server_now().date()
        day = today + datetime.timedelta(days=ahead)
        status, body = self.call(self.players[who]["api"], "POST", "/v1/players/me/leave",
                                 json={"start": day.isoformat(), "days": days})
        if status == 400 and self.server_now().date() != today:
            return                                   # midnight came between: no longer ahead
        new = [day + datetime.timedelta(days=i) for i in range(days)]
        mine = self.leaves.setdefault(who, [])
        overlap = any(b["day"] <= d < b["day"] + datetime.timedelta(days=b["days"])
                      for b in mine for d in new)
        over = [y for y in sorted({d.year for d in new})
                if self.booked_days(who, y) + sum(d.year == y for d in new) > 45]
        if overlap:
            assert status == 409 and body["type"] == "/problems/conflict", body
            return
        if over:
            assert status == 422 and body["type"] == "/problems/leave-exceeded", body
            assert body["year"] == over[0], body
            assert body["remaining"] == max(0, 45 - self.booked_days(who, over[0])), body
            return
        assert status == 201, body
        assert body["days"] == days and body["end"] == \
            (day + datetime.timedelta(days=days)).strftime("%Y-%m-%dT00:00:00Z"), body
        assert body["start"] >= day.strftime("%Y-%m-%dT00:00:00Z"), body
        mine.append({"id": body["id"], "day": day, "days": days, "start": body["start"],
                     "end": body["end"]})
        self.refresh_games_of(who)

    @precondition(lambda self: any(self.leaves.values()))
    @rule(data=st.data(), by_owner=st.booleans())
    def cancel_leave(self, data, by_owner):
        who = data.draw(st.sampled_from(sorted(p for p, b in self.leaves.items() if b)),
                        label="owner")
        booking = data.draw(st.sampled_from(self.leaves[who]), label="booking")
        if not by_owner:
            other = (who + 1) % len(self.players)
            status, body = self.call(self.players[other]["api"], "DELETE",
                                     "/v1/players/me/leave/{id}", [booking["id"]])
            assert status == 404, body
            return
        now = self.server_now()
        status, body = self.call(self.players[who]["api"], "DELETE",
                                 "/v1/players/me/leave/{id}", [booking["id"]])
        if now < parse_time(booking["start"]) and status == 204:
            self.leaves[who].remove(booking)
        elif status == 204:
            # ended at the end of today: the later days come back
            end = now.date() + datetime.timedelta(days=1)
            if end < booking["day"] + datetime.timedelta(days=booking["days"]):
                booking["days"] = (end - booking["day"]).days
                booking["end"] = end.strftime("%Y-%m-%dT00:00:00Z")
        else:
            assert status == 409 and body["type"] == "/problems/conflict", body
            assert parse_time(booking["end"]) <= self.server_now(), (booking, body)
            return
        self.refresh_games_of(who)

    def paused_until(self, g, now):
        """The end of the leave that stops game g at `now`, joined over both players'
        bookings (None when none does)."""
        if not g["leave_allowed"] or g["clock"] is None:
            return None
        bookings = sorted((parse_time(b["start"]), parse_time(b["end"]))
                          for p in (g["white"], g["black"]) for b in self.leaves.get(p, []))
        until = now
        for start, end in bookings:
            if start <= until and end > until:
                until = end
        return until if until > now else None

    @invariant()
    def clocks_never_go_below_zero(self):
        before = self.server_now()
        games = {gid: self.game_now(gid) for gid in sorted(self.games)}
        after = self.server_now()
        for gid, game in games.items():
            g = self.games[gid]
            clock = game["clock"]
            if g["clock"] is None:
                assert clock is None and game["deadline"] is None, game
                continue
            settings = {k: v for k, v in clock.items() if k not in ("remaining", "paused_until")}
            assert settings == g["clock"], (g["clock"], clock)
            left = clock["remaining"]
            for side in ("white", "black"):
                assert left[side] >= 0, f"a clock below zero: {game}"
                most = (g["clock"]["max_days"] if g["clock"]["type"] == "fischer"
                        else g["clock"]["days"]) * 86400 + g["given"][side]
                assert left[side] <= most, (side, most, game)
            if game["status"] != "active":
                assert game["deadline"] is None and clock["paused_until"] is None, game
                continue
            assert game["deadline"] is not None, game
            if g["clock"]["type"] == "per_move":
                waiting = "black" if game["to_move"] == "white" else "white"
                assert left[waiting] == g["clock"]["days"] * 86400, game
            # Paused exactly while leave stops it (unless a booking starts or ends while
            # the games are read).
            expected = {self.paused_until(g, t) for t in (before, after)}
            if len(expected) == 1:
                until = expected.pop()
                assert clock["paused_until"] == (until.strftime("%Y-%m-%dT%H:%M:%SZ")
                                                 if until else None), (until, game)

    # ---- invariants

    @invariant()
    def korpd_is_alive(self):
        assert self.korpd.proc.poll() is None, \
            f"korpd exited: {self.korpd.log_text()[-4000:]}"

    @invariant()
    def nothing_changes_unasked(self):
        for gid in sorted(self.games):
            if gid not in self.touched:
                self.assert_unchanged(gid, "nothing (between steps)")

    @invariant()
    def touched_games_are_consistent(self):
        for gid in sorted(self.touched):
            self.check_game(gid)
        self.touched = set()

    @invariant()
    def records_match_the_games(self):
        if not self.records_dirty:
            return
        self.records_dirty = False
        for i, p in enumerate(self.players):
            played = won = drawn = lost = 0
            quarters = 0
            for g in self.games.values():
                snap = g["snap"]
                if snap["status"] != "finished" or i not in (g["white"], g["black"]):
                    continue
                w, b = {"1-0": (4, 0), "0-1": (0, 4), "1/2-1/2": (2, 2), "3/4-1/4": (3, 1),
                        "1/4-3/4": (1, 3)}[snap["result"]]
                mine = w if i == g["white"] else b
                played += 1
                quarters += mine
                won += mine > 2
                drawn += mine == 2
                lost += mine < 2
            _, rec = self.call(self.anon, "GET", "/v1/players/{id}", [p["id"]], expect=200)
            assert (rec["played"], rec["won"], rec["drawn"], rec["lost"], rec["points"]) == \
                (played, won, drawn, lost, quarters / 4), (p["name"], rec)

    def check_game(self, gid):
        g = self.games[gid]
        game = self.assert_unchanged(gid, "nothing (after the step)")
        ply = game["ply"]
        assert game["to_move"] == ("white" if ply % 2 == 0 else "black"), game
        assert game["fen"].split(" ")[1] == game["to_move"][0], game
        assert len(game["moves"]) == ply, game
        _, listed = self.call(self.anon, "GET", "/v1/games/{id}/moves", [gid], expect=200)
        moves = listed["moves"]
        assert [m["ply"] for m in moves] == list(range(1, ply + 1)), \
            f"plies not contiguous: {[m['ply'] for m in moves]} for ply {ply}"
        assert [m["san"] for m in moves] == game["moves"]
        # the referee: the stored moves replayed by the CLI give the stored positions
        plies, (result, end) = replay(g["variant"], [m["uci"] for m in moves])
        assert len(plies) == ply
        for m, (n, san, fen) in zip(moves, plies):
            assert (m["ply"], m["san"], m["fen"]) == (n, san, fen), \
                f"ply {n}: stored {m['san']} {m['fen']}, the replay gives {san} {fen}"
        assert game["fen"] == (plies[-1][2] if plies else START[g["variant"]]), game
        if end in RULE_ENDINGS:
            assert (game["status"], game["result"], game["termination"]) == \
                ("finished", result, end), f"the position ended the game by {end}: {game}"
        else:
            assert game["termination"] not in RULE_ENDINGS, (end, game)
        legal = self.legal(gid)
        if game["status"] == "active":
            assert legal, game
            # the legal moves are the CLI's for the stored position
            p = subprocess.run([KORP, "moves", "--variant", g["variant"], game["fen"]],
                               capture_output=True, text=True, timeout=60)
            assert p.returncode == 0, p.stderr
            cli = sorted(tuple(line.split(" ", 1)) for line in p.stdout.splitlines() if line)
            assert sorted((m["uci"], m["san"]) for m in legal) == cli, \
                f"/legal-moves differs from `korp moves` at {game['fen']}"
        else:
            assert legal == [] and game["draw_offer"] is None and game["deadline"] is None
            if game["status"] == "aborted":
                assert game["result"] == "*" and game["termination"] is None
                assert ply < 2, "a game was aborted after both sides moved"
            else:
                assert game["result"] != "*" and game["termination"] is not None
        # the PGN export replays to the same positions
        _, pgn = self.call(self.anon, "GET", "/v1/games/{id}/pgn", [gid], expect=200)
        p = subprocess.run([KORP, "replay"], input=pgn, capture_output=True, text=True,
                           timeout=60)
        assert p.returncode == 0, f"the PGN does not replay: {p.stderr}\n{pgn}"
        pgn_fens = [line.split(" ", 2)[2] for line in p.stdout.splitlines()
                    if line and not line.startswith("result ")]
        assert pgn_fens == [f for _, _, f in plies], f"the PGN replays differently:\n{pgn}"
        # the analysis agrees with the replay
        _, an = self.call(self.anon, "GET", "/v1/games/{id}/analysis", [gid], expect=200)
        fens = [START[g["variant"]]] + [f for _, _, f in plies]
        key = position_key(fens[-1])
        earlier = [n for n, f in enumerate(fens[:-1]) if position_key(f) == key]
        assert an["ply"] == ply and an["to_move"] == game["to_move"], an
        assert an["game_status"] == game["status"], an
        assert an["halfmove_clock"] == int(fens[-1].split(" ")[-2]), (an, fens[-1])
        assert an["earlier_occurrences"] == earlier, (an, earlier)
        assert an["threefold_claimable"] == (len(earlier) >= 2), an
        assert an["fifty_move_rule"] == g["fifty"]
        assert an["fifty_move_claimable"] == (g["fifty"] and an["halfmove_clock"] >= 100), an

    def teardown(self):
        log = self.korpd.log_text()
        for mark in SANITIZER_MARKS:
            assert mark not in log, f"sanitizer report in korpd's log:\n{log[-6000:]}"


SETTINGS = settings(max_examples=int(os.environ.get("KORP_STATEFUL_EXAMPLES", "30")),
                    stateful_step_count=int(os.environ.get("KORP_STATEFUL_STEPS", "25")),
                    deadline=None, derandomize=True, database=None, print_blob=True,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much,
                                           HealthCheck.data_too_large])


def test_random_sequences_keep_every_game_consistent(korpd, arbiter):
    if not KORP:
        pytest.skip("KORP (the korp CLI) is not set: run through ctest")
    KorpMachine.korpd = korpd
    KorpMachine.arbiter_token = arbiter.token
    run_state_machine_as_test(KorpMachine, settings=SETTINGS)
    assert korpd.proc.poll() is None
    assert requests.get(korpd.base + "/healthz", timeout=30).status_code == 200
