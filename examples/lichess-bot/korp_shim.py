"""What a python-chess-based bot needs of python-chess, for variants python-chess does not
know (Korpalski, Glinski): the board is a list of moves that korp sends (never checked
here), and the engine keeps the real board (`position fen ... moves ...` over UCI).

This is how pychess-bot plays its variants with Fairy-Stockfish; with korp's own engine
(`korp uci`, docs/engine.md) or Fairy-Stockfish (`UCI_Variant`), a bot written for
python-chess can play on korp by using these three classes where it used python-chess's
Move, Board and engine.  Standard library only."""

import shlex
import subprocess

START = "startpos"


class Move:
    """A move in korp's UCI-like notation (`e2e4`, `N@f3`, Glinski's `f5f6`, `a7a8q`)."""

    def __init__(self, text):
        self.text = text

    @classmethod
    def from_uci(cls, text):
        if not text or any(c.isspace() for c in text):
            raise ValueError(f"not a move: {text!r}")
        return cls(text)

    def uci(self):
        return self.text

    def __str__(self):
        return self.text

    def __repr__(self):
        return f"Move.from_uci({self.text!r})"

    def __eq__(self, other):
        return isinstance(other, Move) and other.text == self.text

    def __hash__(self):
        return hash(self.text)


class VariantBoard:
    """The part of chess.Board a bot reads during a game: the moves played (move_stack),
    whose turn it is, the starting position, and push/pop.  The rules are the server's
    and the engine's: a move is taken as korp sent it."""

    WHITE, BLACK = True, False

    def __init__(self, initial_fen=START, variant="korpalski"):
        self.initial_fen = initial_fen or START
        self.variant = variant
        self.move_stack = []
        # Every FEN korp writes names the side to move second: "w" or "b".
        fields = self.initial_fen.split()
        self.first = fields[1] != "b" if len(fields) > 1 else True

    @classmethod
    def from_moves(cls, initial_fen, moves, variant="korpalski"):
        """The board after `moves`, the space-separated text of a gameState."""
        board = cls(initial_fen, variant)
        for text in moves.split():
            board.push_uci(text)
        return board

    @property
    def turn(self):
        return self.first if len(self.move_stack) % 2 == 0 else not self.first

    def ply(self):
        return len(self.move_stack)

    def push(self, move):
        self.move_stack.append(move)

    def push_uci(self, text):
        move = Move.from_uci(text)
        self.push(move)
        return move

    def pop(self):
        return self.move_stack.pop()

    def peek(self):
        return self.move_stack[-1]

    def copy(self):
        other = VariantBoard(self.initial_fen, self.variant)
        other.move_stack = list(self.move_stack)
        return other

    def fen(self):
        """The starting position (the engine holds the current one)."""
        return self.initial_fen

    def is_game_over(self):
        """korp ends the game and says so in the stream's status."""
        return False

    def uci_position(self):
        """The UCI `position` command for this board."""
        where = "startpos" if self.initial_fen == START else f"fen {self.initial_fen}"
        moves = " ".join(m.uci() for m in self.move_stack)
        return f"position {where}" + (f" moves {moves}" if moves else "")


class UciEngine:
    """A UCI engine process told the variant: korp's (`korp uci`) or Fairy-Stockfish."""

    def __init__(self, command, variant, options=None):
        self.proc = subprocess.Popen(shlex.split(command), stdin=subprocess.PIPE,
                                     stdout=subprocess.PIPE, text=True, bufsize=1)
        self.name = command
        self._send("uci")
        for line in self._lines():
            if line.startswith("id name "):
                self.name = line[len("id name "):]
            if line == "uciok":
                break
        self.set_variant(variant)
        for key, value in (options or {}).items():
            self._send(f"setoption name {key} value {value}")
        self._ready()

    def _send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def _lines(self):
        while True:
            line = self.proc.stdout.readline()
            if line == "":
                raise EOFError(f"the engine {self.name!r} stopped")
            yield line.strip()

    def _ready(self):
        self._send("isready")
        for line in self._lines():
            if line == "readyok":
                return

    def set_variant(self, variant):
        self._send(f"setoption name UCI_Variant value {variant}")

    def play(self, board, depth=None, movetime_ms=None, nodes=None):
        """The engine's move for board (a Move), or None when it has none."""
        self._send(board.uci_position())
        limit = (f"depth {depth}" if depth else f"nodes {nodes}" if nodes
                 else f"movetime {movetime_ms or 1000}")
        self._send(f"go {limit}")
        for line in self._lines():
            if line.startswith("bestmove"):
                words = line.split()
                best = words[1] if len(words) > 1 else "(none)"
                return None if best in ("(none)", "0000") else Move.from_uci(best)

    def quit(self):
        if self.proc.poll() is None:
            try:
                self._send("quit")
                self.proc.wait(timeout=5)
            except (OSError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
