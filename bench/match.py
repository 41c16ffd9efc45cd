#!/usr/bin/env python3
"""bench/match.py — matches between engines, every move checked by korp's rules.

Run through bench/match.sh (which builds korp and says what the figures mean).

    match.py openings VARIANT COUNT SEED OUT     build a set of balanced openings
    match.py fsf      OPENINGS GAMES MS          korp against fairy-stockfish (Korpalski)
    match.py depth    OPENINGS GAMES D           korp depth D against depth D+1 (any variant)
    match.py random   OPENINGS GAMES MS          korp against a random mover (any variant)
    match.py builds   OPENINGS GAMES MS          korp ($KORP) against another build ($KORP_B)

Environment: KORP (the korp binary), FAIRY_STOCKFISH, FSF_INI, MATCH_LOG (a file that
receives every game as a PGN-like record; default: none), MATCH_MAX_PLIES (400).

Every move either side makes is looked up in `korp moves` for the current position
before it is played; the position after it comes from `korp replay` (the rules
library, not either engine).  A move korp's rules refuse loses the game for the side
that made it (it is logged and counted apart, so the score can also be read without
those games).  Games end by the rules (mate, stalemate, the material rule), by a third
occurrence of a position or the fifty-move rule (both draws: engines would claim
them), or at MATCH_MAX_PLIES plies (a draw by adjudication).
"""
import math
import os
import random
import re
import subprocess
import sys
import time

KORP = os.environ.get("KORP", "build-engine2/cli/korp")
FSF = os.environ.get("FAIRY_STOCKFISH", "/usr/games/fairy-stockfish")
FSF_INI = os.path.abspath(os.environ.get("FSF_INI", "bench/fairy-stockfish-korpalski.ini"))
MAX_PLIES = int(os.environ.get("MATCH_MAX_PLIES", "400"))
LOG = os.environ.get("MATCH_LOG")


# ---- the rules, through the korp tool

def korp(*args, stdin=None):
    out = subprocess.run([KORP, *args], input=stdin, capture_output=True, text=True,
                         timeout=60)
    return out.returncode, out.stdout, out.stderr


def legal_moves(variant, fen):
    """The legal moves as {uci: san}."""
    rc, out, err = korp("moves", "--variant", variant, fen)
    if rc != 0:
        raise RuntimeError(f"korp moves {fen}: {err}")
    moves = {}
    for line in out.splitlines():
        uci, san = line.split(" ", 1)
        moves[uci] = san
    return moves


def apply(variant, fen, uci):
    """(fen after the move, termination or None) by `korp replay`."""
    record = f'[Variant "{variant.capitalize()}"]\n[FEN "{fen}"]\n\n{uci} *\n'
    rc, out, err = korp("replay", "--variant", variant, stdin=record)
    if rc != 0:
        raise RuntimeError(f"korp replay {fen} {uci}: {err}")
    lines = out.splitlines()
    after = lines[0].split(" ", 2)[2]
    _, result, termination = lines[-1].split(" ", 2)
    return after, (None if termination == "ongoing" else (result, termination))


def normalise(move):
    """UCI text as korp reads it: drops with an upper-case letter (N@e5)."""
    if len(move) > 1 and move[1] == "@":
        return move[0].upper() + move[1:]
    return move


def repetition_key(fen):
    """The position without the move counters (board, reserves, side, castling, e.p.)."""
    return " ".join(fen.split()[:-2])


def halfmove_clock(fen):
    return int(fen.split()[-2])


# ---- players

class Uci:
    """A UCI engine process."""

    def __init__(self, argv, name, options):
        self.name = name
        self.proc = subprocess.Popen(argv, stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)
        self.send("uci")
        self.wait_for("uciok")
        for k, v in options:
            self.send(f"setoption name {k} value {v}")
        self.send("isready")
        self.wait_for("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def wait_for(self, word):
        last = None
        while True:
            line = self.proc.stdout.readline()
            if not line:
                raise RuntimeError(f"{self.name} exited")
            if line.startswith("info") and " score " in line:
                last = line
            if line.split()[:1] == [word]:
                return line, last

    def new_game(self):
        self.send("ucinewgame")
        self.send("isready")
        self.wait_for("readyok")

    def move(self, start_fen, moves, go):
        self.send(f"position fen {start_fen}" + (" moves " + " ".join(moves) if moves else ""))
        self.send(go)
        line, info = self.wait_for("bestmove")
        return line.split()[1]

    def close(self):
        try:
            self.send("quit")
            self.proc.wait(timeout=5)
        except Exception:
            self.proc.kill()


class RandomMover:
    name = "random"

    def __init__(self, seed):
        self.rng = random.Random(seed)

    def new_game(self):
        pass

    def move(self, variant, fen):
        return self.rng.choice(sorted(legal_moves(variant, fen)))

    def close(self):
        pass


def korp_engine(variant, name="korp", binary=None):
    return Uci([binary or KORP, "uci"], name, [("UCI_Variant", variant), ("Hash", "16")])


def fairy_stockfish():
    return Uci([FSF], "fairy-stockfish",
               [("VariantPath", FSF_INI), ("UCI_Variant", "korpalski"), ("Hash", "16"),
                ("Threads", "1")])


# ---- one game

def play(variant, start, players, goes, log_name):
    """Plays from FEN start; players[0] is White.  Returns (result, termination,
    illegal_by, refused) with result '1-0', '0-1' or '1/2-1/2', illegal_by the index
    of a player who played an illegal move even when asked again among the legal
    ones (the game is lost), else None, and refused the (player, FEN, move) of every
    first answer the rules refused."""
    fen, moves, sans = start, [], []
    refused = []
    seen = {repetition_key(fen): 1}
    for p in players:
        p.new_game()
    ply = 0
    result = termination = None
    illegal_by = None
    while True:
        side = ply % 2 if " w " in start else (ply + 1) % 2
        who = players[side]
        legal = legal_moves(variant, fen)
        if isinstance(who, RandomMover):
            move = who.move(variant, fen)
        else:
            move = normalise(who.move(start, moves, goes[side]))
        if move not in legal and not isinstance(who, RandomMover):
            # Logged and counted; the engine is asked again for a move among
            # korp's legal ones (UCI searchmoves), with the same time.
            refused.append((who.name, fen, move))
            print(f"  REFUSED: {who.name} played {move} in {fen}; asked again",
                  file=sys.stderr)
            move = normalise(who.move(start, moves, goes[side] + " searchmoves " +
                                      " ".join(sorted(legal))))
        if move not in legal:
            illegal_by = side
            result = "0-1" if side == 0 else "1-0"
            termination = f"illegal move {move} by {who.name}"
            print(f"  ILLEGAL: {who.name} played {move} in {fen}", file=sys.stderr)
            break
        sans.append(legal[move])
        moves.append(move)
        fen, end = apply(variant, fen, move)
        ply += 1
        if end is not None:
            result, termination = end
            break
        key = repetition_key(fen)
        seen[key] = seen.get(key, 0) + 1
        if seen[key] >= 3:
            result, termination = "1/2-1/2", "threefold"
            break
        if halfmove_clock(fen) >= 100:
            result, termination = "1/2-1/2", "fifty-move"
            break
        if ply >= MAX_PLIES:
            result, termination = "1/2-1/2", f"adjudicated at {MAX_PLIES} plies"
            break
    if LOG:
        with open(LOG, "a") as f:
            f.write(f'[Event "{log_name}"]\n[Variant "{variant.capitalize()}"]\n'
                    f'[White "{players[0].name}"]\n[Black "{players[1].name}"]\n'
                    f'[FEN "{start}"]\n[Result "{result}"]\n[Termination "{termination}"]\n\n'
                    f'{" ".join(sans)} {result}\n\n')
    return result, termination, illegal_by, refused


# ---- figures

def elo(score):
    score = min(max(score, 1e-6), 1 - 1e-6)
    return -400 * math.log10(1 / score - 1)


def summary(label, w, d, l, extra=""):
    n = w + d + l
    if n == 0:
        return f"{label}: no games"
    s = (w + d / 2) / n
    var = (w * (1 - s) ** 2 + d * (0.5 - s) ** 2 + l * s ** 2) / n
    se = math.sqrt(var / n)
    lo, hi = max(s - 1.96 * se, 0.0), min(s + 1.96 * se, 1.0)
    head = f"{label}: {n} games, +{w} ={d} -{l}, score {w + d / 2:g}/{n} = {100 * s:.1f}%"
    if s in (0.0, 1.0):
        return f"{head}, Elo unbounded (no game {'lost' if s == 1 else 'won'}){extra}"
    return f"{head}, Elo {elo(s):+.0f} (95%: {elo(lo):+.0f} .. {elo(hi):+.0f}){extra}"


def read_openings(path):
    fens = []
    for line in open(path):
        line = line.split("#", 1)[0].strip()
        if line:
            fens.append(line.split(";")[0].strip())
    return fens


def run_match(variant, openings, games, make_players, goes_of, label):
    """Games alternate colours; opening i // 2 is played once with each colour.
    Counts from the point of view of player A (korp)."""
    fens = read_openings(openings)
    a, b = make_players()
    w = d = l = 0
    illegal = {0: 0, 1: 0}     # 0: by A, 1: by B
    refusals = {}
    games_with_refusals = 0
    unrefused = [0, 0, 0]      # W, D, L in games where no move was refused
    clean = [0, 0, 0]
    terms = {}
    t0 = time.time()
    try:
        for g in range(games):
            start = fens[(g // 2) % len(fens)]
            a_white = g % 2 == 0
            players = [a, b] if a_white else [b, a]
            goes = goes_of(a_white)
            result, term, by, refused = play(variant, start, players, goes,
                                             f"{label} game {g + 1}")
            a_score = {"1-0": 1.0, "0-1": 0.0}.get(result, 0.5)
            if not a_white:
                a_score = 1.0 - a_score
            for name, _, _ in refused:
                refusals[name] = refusals.get(name, 0) + 1
            if refused:
                games_with_refusals += 1
            else:
                unrefused[0 if a_score == 1 else 2 if a_score == 0 else 1] += 1
            if a_score == 1.0:
                w += 1
            elif a_score == 0.0:
                l += 1
            else:
                d += 1
            if by is not None:
                illegal[0 if players[by] is a else 1] += 1
            else:
                clean[0 if a_score == 1 else 2 if a_score == 0 else 1] += 1
            key = re.sub(r" .*", "", term) if not term.startswith("illegal") else "illegal"
            terms[key] = terms.get(key, 0) + 1
            print(f"game {g + 1}: {a.name} {'white' if a_white else 'black'}: {result} "
                  f"({term}); running {w}-{d}-{l} [{time.time() - t0:.0f} s]", flush=True)
    finally:
        a.close()
        b.close()
    print(summary(f"{label}", w, d, l))
    print(f"  moves the rules refused, then replaced by a legal one: "
          f"{refusals or 'none'} (in {games_with_refusals} games)")
    print(f"  illegal moves kept after asking again: {illegal[1]} by {b.name}, {illegal[0]} "
          f"by {a.name} (each game lost by the side that made it)")
    if games_with_refusals:
        print("  " + summary("games where no move was refused", *unrefused))
    if illegal[0] or illegal[1]:
        print("  " + summary("without those games", *clean))
    print(f"  terminations: {terms}; {time.time() - t0:.0f} s")


# ---- openings

def quiet_drop(move, white):
    """A drop, and no pawn beyond its fifth rank (fairy-stockfish does not know that a
    Korpalski pawn cannot promote while its side's prison is empty)."""
    if "@" not in move:
        return False
    return move[0] != "P" or (int(move[3:]) <= 5 if white else int(move[3:]) >= 4)


def make_openings(variant, count, seed, out):
    """Korpalski: random legal king placements, then 2-5 random drops (no pawn beyond
    its fifth rank);
    Glinski: 2-5 random plies from the start.  Kept when korp's engine at depth 6 says
    |eval| < 50 cp, the position is ongoing and no side is in check.  No duplicates."""
    rng = random.Random(seed)
    eng = korp_engine(variant)
    kept = []
    tries = 0
    try:
        while len(kept) < count and tries < count * 50:
            tries += 1
            fen = START[variant]
            plies = (2 if variant == "korpalski" else 0) + rng.randint(2, 5)
            ok = True
            for i in range(plies):
                moves = sorted(legal_moves(variant, fen))
                if variant == "korpalski" and i >= 2:
                    moves = [m for m in moves if quiet_drop(m, " w " in fen)]
                if not moves:
                    ok = False
                    break
                fen, end = apply(variant, fen, rng.choice(moves))
                if end is not None:
                    ok = False
                    break
            if not ok or fen in kept:
                continue
            status = korp("status", "--variant", variant, fen)[1]
            if '"in_check":true' in status:
                continue
            eng.new_game()
            eng.send(f"position fen {fen}")
            eng.send("go depth 6")
            _, info = eng.wait_for("bestmove")
            m = re.search(r"score cp (-?\d+)", info or "")
            if not m or abs(int(m.group(1))) >= 50:
                continue
            kept.append(fen)
            print(f"{len(kept)}: {fen} ; cp {m.group(1)}", file=sys.stderr)
    finally:
        eng.close()
    with open(out, "w") as f:
        f.write(f"# {variant} openings for bench/match.sh: made by `bench/match.py openings "
                f"{variant} {count} {seed} ...`\n"
                f"# {'random legal king placements, then 2-5 random legal drops (no pawn' if variant == 'korpalski' else 'from the start, 2-5 random legal plies;'}"
                f"{' beyond its fifth rank);' if variant == 'korpalski' else ''} kept when\n"
                f"# the position is ongoing, nobody is in check, and `korp uci` at depth 6 "
                f"scores it within 50 cp.\n")
        for fen in kept:
            f.write(fen + "\n")


START = {
    "korpalski": "8/8/8/8/8/8/8/8[KQRRBBNNPPPPPPPPkqrrbbnnpppppppp] w - - 0 1",
    "glinski": "b/qbk/n1b1n/r5r/ppppppppp/11/5P5/4P1P4/3P1B1P3/2P2B2P2/1PRNQBKNRP1 w - 0 1",
}


def main(argv):
    what = argv[1]
    if what == "openings":
        make_openings(argv[2], int(argv[3]), int(argv[4]), argv[5])
    elif what == "fsf":
        openings, games, ms = argv[2], int(argv[3]), int(argv[4])
        go = f"go movetime {ms}"
        run_match("korpalski", openings, games,
                  lambda: (korp_engine("korpalski"), fairy_stockfish()),
                  lambda a_white: [go, go],
                  f"korp vs fairy-stockfish, Korpalski, {ms} ms per move")
    elif what == "depth":
        openings, games, depth = argv[2], int(argv[3]), int(argv[4])
        variant = os.environ.get("MATCH_VARIANT", "glinski")
        deep, shallow = f"go depth {depth + 1}", f"go depth {depth}"
        run_match(variant, openings, games,
                  lambda: (korp_engine(variant, f"korp-d{depth + 1}"),
                           korp_engine(variant, f"korp-d{depth}")),
                  lambda a_white: [deep, shallow] if a_white else [shallow, deep],
                  f"korp depth {depth + 1} vs depth {depth}, {variant}")
    elif what == "random":
        openings, games, ms = argv[2], int(argv[3]), int(argv[4])
        variant = os.environ.get("MATCH_VARIANT", "glinski")
        go = f"go movetime {ms}"
        run_match(variant, openings, games,
                  lambda: (korp_engine(variant), RandomMover(12345)),
                  lambda a_white: [go, None] if a_white else [None, go],
                  f"korp ({ms} ms) vs random mover, {variant}")
    elif what == "builds":
        openings, games, ms = argv[2], int(argv[3]), int(argv[4])
        variant = os.environ.get("MATCH_VARIANT", "korpalski")
        go = f"go movetime {ms}"
        run_match(variant, openings, games,
                  lambda: (korp_engine(variant, "korp"),
                           korp_engine(variant, "korp-b", os.environ["KORP_B"])),
                  lambda a_white: [go, go],
                  f"korp vs {os.environ['KORP_B']}, {variant}, {ms} ms per move")
    else:
        print(__doc__, file=sys.stderr)
        return 2
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv))
