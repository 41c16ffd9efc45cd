#!/usr/bin/env python3
"""Cross-checks the Korpalski mate suite with Debian's fairy-stockfish.

usage: fsf_crosscheck.py SUITE.epd INI [FAIRY_STOCKFISH]

fairy-stockfish is exact for Korpalski only where both kings stand and
either no side holds a queen, rook, bishop or knight in reserve (section
[korpalski]: its promotion limit counts the board only) or no pawn is left
anywhere, so no promotion can happen ([korpalski-nopromo]); see
bench/fairy-stockfish-korpalski.ini.  For each such line "FEN ; mate N ;
..." it must report "score mate N" (the shortest mate) when asked for a
mate in N ("go mate N").  Other lines are skipped and counted.  Exit 77 when the program is
missing.
"""
import os
import re
import subprocess
import sys
import threading


def section(fen):
    board, _, rest = fen.partition("[")
    reserve = rest.split("]")[0]
    if not any(c in "QRBNqrbn" for c in reserve):
        return "korpalski"
    if not any(c in "Pp" for c in board.split()[0] + reserve):
        return "korpalski-nopromo"
    return None


def main():
    suite, ini = sys.argv[1], os.path.abspath(sys.argv[2])
    fsf = sys.argv[3] if len(sys.argv) > 3 else "/usr/games/fairy-stockfish"
    if not os.access(fsf, os.X_OK):
        print(f"skip: {fsf} not installed")
        return 77
    checked = skipped = failed = 0
    for line in open(suite):
        if line.startswith("#") or ";" not in line:
            continue
        fen = line.split(";")[0].strip()
        n = int(re.search(r"mate (\d+)", line).group(1))
        sec = section(fen)
        if sec is None:
            skipped += 1
            continue
        script = (f"setoption name VariantPath value {ini}\n"
                  f"setoption name UCI_Variant value {sec}\n"
                  f"position fen {fen}\ngo mate {n}\n")
        proc = subprocess.Popen([fsf], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)
        proc.stdin.write(script)
        proc.stdin.flush()
        # "go mate N" stops once it finds a mate in N or less; when it finds
        # none it would search for ever: stop it after a while.
        timer = threading.Timer(20.0, lambda: (proc.stdin.write("stop\n"), proc.stdin.flush()))
        timer.start()
        last = None
        for out in proc.stdout:
            m = re.search(r" score (cp|mate) (-?\d+)", out)
            if m:
                last = m.groups()
            if out.startswith("bestmove"):
                break
        timer.cancel()
        proc.stdin.write("quit\n")
        proc.stdin.close()
        proc.wait(timeout=30)
        checked += 1
        if last != ("mate", str(n)):
            failed += 1
            print(f"FAIL [{sec}] {fen}: fairy-stockfish says {last}, suite says mate {n}")
        else:
            print(f"ok   [{sec}] mate {n} {fen}")
    print(f"{checked} cross-checked, {skipped} skipped (fairy-stockfish not exact), {failed} failed")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
