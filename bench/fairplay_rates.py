#!/usr/bin/env python3
"""How often the fair-play review flags honest play, and how often it finds engine play
(docs/fairplay.md, "Rates measured").

Bots play rated games with engines forbidden against each other on a korpd of their own
(a throwaway PostgreSQL, tests/server/korp_fixtures.py), and korpd's own fair-play worker
analyses every game as it ends, at the budget the run sets.  The bots, each one account:

  engine   the engine's first choice at the analysis's budget, searched as the analysis
           searches (`korp uci`: ucinewgame, Hash 4, go nodes N): what the method is
           built to see
  deeper   the engine at 5 times that budget: an engine user whose settings differ
  half     the engine at half the budget: the same, with a weaker setting
  weak     the engine at 1/10 of the budget: a player who sees the obvious, honest
  mixed    the engine at 3/20 of the budget, and one move in five a legal move at random:
           a player who mostly plays sensibly and sometimes blunders, honest
  random   a legal move at random

Each game is capped at CAP plies (the side to move then resigns), so that a few hundred
games stay cheap.  Then, per bot, the per-game figures of its side
(GET /v1/games/{id}/fairplay) are put together as the review puts them together (its
last G games, shares and losses weighted by moves counted) for G = 10 and 25: in
consecutive windows of its games in the order played, and in RESAMPLES random draws of G
of its games (seeded); a window is flagged when top1 >= TOP1 and acpl <= ACPL, the review's
rule with korpd's default thresholds.  Printed as a table (and written as JSON to OUT).

usage: bench/fairplay_rates.py KORPD KORP [OUT]   (bench/fairplay_rates.sh builds both)
settings from the environment: NODES (2000), CAP (60), SEED (3412), TOP1 (0.9), ACPL (15),
RESAMPLES (2000), SCALE (1: every game of SCHEDULE; 0.05 for a quick trial).
"""

import json
import os
import random
import subprocess
import sys
import time

import requests

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "server"))
from korp_fixtures import Korpd, Postgres, wait_until  # noqa: E402
from test_fairplay import EngineBot  # noqa: E402

NODES = int(os.environ.get("NODES", "2000"))
CAP = int(os.environ.get("CAP", "60"))
SEED = int(os.environ.get("SEED", "3412"))
TOP1 = float(os.environ.get("TOP1", "0.9"))
ACPL = float(os.environ.get("ACPL", "15"))
RESAMPLES = int(os.environ.get("RESAMPLES", "2000"))
SCALE = float(os.environ.get("SCALE", "1"))     # a share of SCHEDULE's games, for a trial

# The games: (white or black by turns) pairs of bots and how many games each pair plays,
# half of them Korpalski, half Glinski.
SCHEDULE = [
    ("engine", "weak", 40), ("engine", "mixed", 40), ("deeper", "weak", 30),
    ("deeper", "mixed", 30), ("half", "weak", 30), ("half", "mixed", 30), ("weak", "mixed", 60),
    ("engine", "random", 10), ("weak", "random", 10), ("engine", "deeper", 10),
    ("half", "engine", 10),
]


class Bot:
    def __init__(self, kind, korp, rng):
        self.kind, self.rng, self.engines = kind, rng, {}
        self.nodes = {"engine": NODES, "deeper": 5 * NODES, "half": max(1, NODES // 2),
                      "weak": max(1, NODES // 10),
                      "mixed": max(1, 3 * NODES // 20)}.get(kind)
        self.korp = korp

    def choose(self, variant, fen, legal):
        if self.kind == "random" or (self.kind == "mixed" and self.rng.random() < 0.2):
            return self.rng.choice(legal())
        if variant not in self.engines:
            self.engines[variant] = EngineBot(self.korp, variant, self.nodes)
        return self.engines[variant].best(fen)

    def close(self):
        for e in self.engines.values():
            e.close()


class Client:
    def __init__(self, base):
        self.base, self.http = base, requests.Session()

    def call(self, method, path, token=None, body=None, expect=200):
        h = {"Authorization": f"Bearer {token}"} if token else {}
        r = self.http.request(method, self.base + path, json=body, headers=h, timeout=60)
        assert r.status_code == expect, f"{method} {path}: {r.status_code} {r.text}"
        return r.json() if r.text else None


def play(client, players, bots, white, black, variant, rng):
    """One rated game of bots white and black, to its end or CAP plies; its id."""
    ch = client.call("POST", "/v1/challenges", players[white]["token"],
                     {"variant": variant, "opponent": players[black]["id"], "color": "white"},
                     expect=201)
    g = client.call("POST", f"/v1/challenges/{ch['id']}/accept", players[black]["token"],
                    expect=201)["game"]
    gid = g["id"]
    while g["status"] == "active":
        side = white if g["to_move"] == "white" else black
        token = players[side]["token"]
        if g["ply"] >= CAP:
            client.call("POST", f"/v1/games/{gid}/resign", token)
            break
        legal = lambda: [m["uci"] for m in  # noqa: E731
                         client.call("GET", f"/v1/games/{gid}/legal-moves")["moves"]]
        move = bots[side].choose(variant, g["fen"], legal)
        g = client.call("POST", f"/v1/games/{gid}/moves", token,
                        {"move": move, "ply": g["ply"]}, expect=201)
    return gid


def pooled(samples):
    moves = sum(s["moves"] for s in samples)
    if moves == 0:
        return 0.0, 0.0
    return (sum(s["top1"] * s["moves"] for s in samples) / moves,
            sum(s["acpl"] * s["moves"] for s in samples) / moves)


def flagged(samples):
    top1, acpl = pooled(samples)
    return sum(s["moves"] for s in samples) > 0 and top1 >= TOP1 and acpl <= ACPL


def rates(samples, size, rng):
    windows = [samples[i:i + size] for i in range(0, len(samples) - size + 1, size)]
    draws = [rng.sample(samples, size) for _ in range(RESAMPLES)] if len(samples) >= size else []
    return {"windows": len(windows), "windows_flagged": sum(map(flagged, windows)),
            "resampled": len(draws),
            "resampled_flagged": sum(map(flagged, draws)) / len(draws) if draws else None}


def main(korpd, korp, out):
    rng = random.Random(SEED)
    pg = Postgres()
    k = None
    bots = {}
    started = time.monotonic()
    try:
        k = Korpd(korpd, pg.url, KORP_FAIRPLAY_WORKERS=1, KORP_FAIRPLAY_NODES=NODES)
        client = Client(k.base)
        players = {}
        for kind in ("engine", "deeper", "half", "weak", "mixed", "random"):
            p = client.call("POST", "/v1/players", body={"name": f"bot_{kind}"}, expect=201)
            players[kind] = p
            bots[kind] = Bot(kind, korp, random.Random(rng.random()))
        arbiter = subprocess.run([korpd, "admin", "create-arbiter", "rates_arbiter"],
                                 env=dict(os.environ, KORP_DATABASE_URL=pg.url),
                                 capture_output=True, text=True, timeout=60,
                                 check=True).stdout.strip()
        games = []
        for a, b, count in SCHEDULE:
            count = max(2, round(count * SCALE))
            for i in range(count):
                white, black = (a, b) if i % 2 == 0 else (b, a)
                variant = ("korpalski", "glinski")[i // 2 % 2]
                games.append((play(client, players, bots, white, black, variant, rng),
                              white, black, variant))
            print(f"played {a} - {b}: {count} games ({time.monotonic() - started:.0f} s)",
                  file=sys.stderr)
        figures = {}

        def analysed():
            for gid, *_ in games:
                if gid not in figures:
                    f = client.call("GET", f"/v1/games/{gid}/fairplay", arbiter)
                    if f["status"] == "pending":
                        return False
                    figures[gid] = f
            return True
        wait_until(analysed, 3600, step=1, what="every game's analysis")
        elapsed = time.monotonic() - started
        queue = client.call("GET", "/v1/arbiter/queue", arbiter)["items"]
    finally:
        for bot in bots.values():
            bot.close()
        if k is not None:
            k.close()
        pg.close()

    ids = {p["id"]: kind for kind, p in players.items()}
    samples = {kind: [] for kind in players}
    for gid, white, black, variant in games:
        f = figures[gid]
        if f["status"] != "done":
            continue
        for side, kind in (("white", white), ("black", black)):
            samples[kind].append(dict(f[side], game=gid, variant=variant))
    report = {"nodes": NODES, "cap": CAP, "seed": SEED, "top1": TOP1, "acpl": ACPL,
              "games": len(games), "seconds": round(elapsed), "bots": {},
              "reviews": sorted((ids.get(i["details"].get("player_id"), "?"),
                                 i["details"].get("variant")) for i in queue
                                if i["kind"] == "fairplay-review")}
    print(f"\n{len(games)} games, fair-play budget {NODES} nodes, capped at {CAP} plies, "
          f"{elapsed:.0f} s; flagged: top1 >= {TOP1} and acpl <= {ACPL}\n")
    print("| bot | games | moves | top1 | top3 | acpl | flagged, 10 games | flagged, 25 games |")
    print("|---|---|---|---|---|---|---|---|")
    for kind, s in samples.items():
        top1, acpl = pooled(s)
        moves = sum(x["moves"] for x in s)
        top3 = sum(x["top3"] * x["moves"] for x in s) / moves if moves else 0
        r = {size: rates(s, size, random.Random(SEED + size)) for size in (10, 25)}
        report["bots"][kind] = {"games": len(s), "moves": moves, "top1": top1, "top3": top3,
                                "acpl": acpl, "per_game": s, "rates": r}
        cells = [f"{x['windows_flagged']}/{x['windows']} windows, "
                 + (f"{100 * x['resampled_flagged']:.1f}% of draws"
                    if x["resampled_flagged"] is not None else "-") for x in r.values()]
        print(f"| {kind} | {len(s)} | {moves} | {top1:.3f} | {top3:.3f} | {acpl:.1f} | "
              f"{cells[0]} | {cells[1]} |")
    print(f"\nkorpd's own review items (player, variant): {report['reviews']}")
    if out:
        with open(out, "w") as f:
            json.dump(report, f, indent=1)


if __name__ == "__main__":
    if len(sys.argv) < 3:
        sys.exit(__doc__)
    main(sys.argv[1], sys.argv[2], sys.argv[3] if len(sys.argv) > 3 else None)
