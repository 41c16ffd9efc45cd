#!/usr/bin/env python3
"""A UCI conversation with `korp uci` over pipes (standard library only).

usage: test_uci.py PATH_TO_KORP

Handshake, variant switch, position with moves (drops `N@e5`), `go depth`,
`isready` and `stop` during `go infinite`, bad input answered with
`info string`, and every bestmove checked legal with `korp moves`.
"""
import queue
import subprocess
import sys
import threading
import time

KORP = sys.argv[1]
TIMEOUT = 60.0


class Engine:
    def __init__(self):
        self.p = subprocess.Popen([KORP, "uci"], stdin=subprocess.PIPE,
                                  stdout=subprocess.PIPE, text=True, bufsize=1)
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.p.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, text):
        self.p.stdin.write(text + "\n")
        self.p.stdin.flush()

    def expect(self, pred, what, timeout=TIMEOUT):
        """Reads lines until one satisfies pred; returns (line, lines before)."""
        seen = []
        deadline = time.monotonic() + timeout
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                raise AssertionError(f"timed out waiting for {what}; got {seen[-10:]}")
            try:
                line = self.lines.get(timeout=left)
            except queue.Empty:
                continue
            if line is None:
                raise AssertionError(f"korp uci exited waiting for {what}; got {seen[-10:]}")
            if pred(line):
                return line, seen
            seen.append(line)

    def bestmove(self, timeout=TIMEOUT):
        line, infos = self.expect(lambda l: l.startswith("bestmove "), "bestmove", timeout)
        return line.split()[1], infos

    def quit(self):
        self.send("quit")
        assert self.p.wait(timeout=20) == 0, "korp uci did not exit cleanly"


def legal_moves(variant, fen):
    out = subprocess.run([KORP, "moves", "--variant", variant, fen], check=True,
                         capture_output=True, text=True).stdout
    return {line.split()[0] for line in out.splitlines() if line.strip()}


def fen_after(variant, fen, moves):
    """The FEN after moves, through `korp replay` (one line per ply)."""
    pgn = f'[Variant "{variant.capitalize()}"]\n[SetUp "1"]\n[FEN "{fen}"]\n\n' + " ".join(moves)
    out = subprocess.run([KORP, "replay", "--variant", variant], input=pgn, check=True,
                         capture_output=True, text=True).stdout.splitlines()
    plies = [l for l in out if l and l[0].isdigit()]
    return plies[-1].split(" ", 2)[2] if plies else fen


KORPALSKI_START = "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1"
GLINSKI_START = "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1"


def main():
    e = Engine()
    # Handshake.
    e.send("uci")
    _, head = e.expect(lambda l: l == "uciok", "uciok")
    assert "id name korp" in head, head
    assert any(l.startswith("id author") for l in head), head
    assert ("option name UCI_Variant type combo default korpalski var korpalski var glinski"
            in head), head
    assert any(l.startswith("option name Hash type spin") for l in head), head
    e.send("isready")
    e.expect(lambda l: l == "readyok", "readyok")
    e.send("setoption name Hash value 8")
    e.send("ucinewgame")

    # Korpalski: kings, then drops, in UCI notation.
    moves = ["K@e1", "K@e8", "N@e5"]
    e.send("position startpos moves " + " ".join(moves))
    e.send("go depth 3")
    best, infos = e.bestmove()
    assert any(l.startswith("info depth 3 ") and " score " in l and " pv " in l
               and " nodes " in l and " nps " in l for l in infos), infos
    fen = fen_after("korpalski", KORPALSKI_START, moves)
    assert best in legal_moves("korpalski", fen), (best, fen)

    # Bad input: unknown command, unknown option, illegal move.
    e.send("frobnicate")
    e.expect(lambda l: l.startswith("info string unknown command"), "unknown command")
    e.send("setoption name Contempt value 3")
    e.expect(lambda l: l.startswith("info string unknown option"), "unknown option")
    e.send("position startpos moves K@e1 K@e2 K@a8")
    e.expect(lambda l: l.startswith("info string move 2 'K@e2' refused"), "refused move")
    e.send("go depth 2")
    best, _ = e.bestmove()
    # The position stays after K@e1: Black places its king.
    assert best.startswith("K@"), best
    assert best in legal_moves("korpalski", fen_after("korpalski", KORPALSKI_START, ["K@e1"]))

    # Glinski: variant switch, a position with moves, go depth.
    e.send("setoption name UCI_Variant value glinski")
    e.expect(lambda l: l == "info string variant glinski", "variant switch")
    e.send("isready")
    e.expect(lambda l: l == "readyok", "readyok")
    moves = ["f5f6", "e7e6"]
    e.send("position startpos moves " + " ".join(moves))
    e.send("go depth 3")
    best, _ = e.bestmove()
    assert best in legal_moves("glinski", fen_after("glinski", GLINSKI_START, moves)), best

    # go infinite: isready is answered while searching, stop ends it.
    e.send("position startpos")
    e.send("go infinite")
    time.sleep(0.5)
    e.send("isready")
    _, before = e.expect(lambda l: l == "readyok", "readyok during search", timeout=5)
    assert not any(l.startswith("bestmove") for l in before), before
    time.sleep(0.3)
    t0 = time.monotonic()
    e.send("stop")
    best, _ = e.bestmove(timeout=5)
    assert time.monotonic() - t0 < 3, "stop took too long"
    assert best in legal_moves("glinski", GLINSKI_START), best

    # A clock: bestmove well within it.
    e.send("position startpos moves f5f6")
    t0 = time.monotonic()
    e.send("go wtime 2000 btime 2000 winc 0 binc 0")
    best, _ = e.bestmove(timeout=5)
    assert time.monotonic() - t0 < 2, "clock search overran"
    e.send("go movetime 200")
    best, _ = e.bestmove(timeout=5)

    # Back to Korpalski by FEN; a mate in one is seen as one.
    e.send("setoption name UCI_Variant value korpalski")
    e.send("position fen k7/8/1K6/8/8/8/8/6Q1[] w - - 0 40")
    e.send("go depth 3")
    best, infos = e.bestmove()
    assert any("score mate 1" in l for l in infos), infos
    assert best == "g1g8", best

    # MultiPV: the option is offered; three lines per iteration, each a
    # different legal first move, scores best first.  By hand: Qg8 is the
    # only mate in one here (Qa1+ lets the king out to b8, every other
    # queen move gives no check), so line 1 says mate 1 and no other line
    # does (they may mate later).
    assert any(l.startswith("option name MultiPV type spin default 1") for l in head), head
    fen = "k7/8/1K6/8/8/8/8/6Q1[] w - - 0 40"
    e.send("setoption name MultiPV value 3")
    e.send("position fen " + fen)
    e.send("go depth 4")
    best, infos = e.bestmove()
    assert best == "g1g8", best
    legal = legal_moves("korpalski", fen)
    for depth in range(1, 5):
        lines = [l.split() for l in infos if l.startswith(f"info depth {depth} ")]
        assert [l[l.index("multipv") + 1] for l in lines] == ["1", "2", "3"], (depth, lines)
        firsts = [l[l.index("pv") + 1] for l in lines]
        assert len(set(firsts)) == 3 and all(m in legal for m in firsts), (depth, firsts)
        scores = [(l[l.index("score") + 1], int(l[l.index("score") + 2])) for l in lines]
        assert scores[0] == ("mate", 1), (depth, scores)
        assert all(score != ("mate", 1) for score in scores[1:]), (depth, scores)
        value = [100000 - n if kind == "mate" and n > 0 else n for kind, n in scores]
        assert value[0] >= value[1] >= value[2], (depth, scores)
    e.send("setoption name MultiPV value 0")
    _, seen = e.expect(lambda l: l.startswith("info string MultiPV must be"), "MultiPV refusal")
    e.send("setoption name MultiPV value 1")
    e.send("go depth 2")
    best, infos = e.bestmove()
    assert all(" multipv 1 " in l for l in infos if l.startswith("info depth")), infos
    e.quit()
    print("ok: UCI conversation")


if __name__ == "__main__":
    main()
