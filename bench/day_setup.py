#!/usr/bin/env python3
"""bench/day_setup.py — the population of bench/day.sh, made through korpd's API.

usage: day_setup.py BASE SINK_URL PLAYERS GAMES SEED OUT_DIR

Everything seeded (random.Random(SEED)); 8 threads, one keep-alive connection
each (bench/moves_setup.py's).  Makes, in this order:
  - PLAYERS players (POST /v1/players);
  - GAMES games (a challenge and its acceptance each) between two players
    drawn at random, 60% Korpalski and 40% Glinski, 3 days a move (1 day for
    one game in ten); one game in ten is a "bot game" (bench/dayload.c plays
    those far more often);
  - templates: one game per ply of TEMPLATE_PLIES in each variant, played
    through the API with the endless games of dayload.c (Korpalski: kings,
    knights, then the knights shuffle; Glinski: the knights c3 and c6 go out
    and back), so that day.sh can give every other game the stored state of
    the template at its drawn ply (SQL, much faster than playing them);
  - the notification channels, after the games (so that their challenges owe
    nothing): one player in ten gets a webhook to SINK_URL, the others an
    email address (korpd sends to smtp-sink).
Writes to OUT_DIR:
  games.txt   "game_id variant ply white_token black_token bot white_id black_id",
              ply as it will be once day.sh has cloned the templates;
  clone.csv   "game_id,template_id" for day.sh's SQL;
  streams.txt the tokens of the players whose event streams dayload holds
              (every fifth player).
"""
import json
import os
import random
import sys
import threading
import time
import urllib.parse

import moves_setup

TEMPLATE_PLIES = [0, 2, 4, 7, 12, 20, 33, 50, 80, 120, 180]
KORPALSKI = ["K@e1", "K@e8", "N@g1", "N@g8"]


def korpalski_move(p):
    if p < 4:
        return KORPALSKI[p]
    if p % 2 == 0:
        return "g1f3" if ((p - 4) // 2) % 2 == 0 else "f3g1"
    return "g8f6" if ((p - 5) // 2) % 2 == 0 else "f6g8"


def glinski_move(p):
    return ["d1c3", "d9c6", "c3d1", "c6d9"][p % 4]


MOVE = {"korpalski": korpalski_move, "glinski": glinski_move}


class Api:
    def __init__(self, base):
        u = urllib.parse.urlsplit(base)
        self.host, self.port = u.hostname, u.port

    def call(self, conn, method, path, token=None, body=None, ok=(200, 201)):
        headers = {"Content-Type": "application/json"} if body is not None else {}
        if token:
            headers["Authorization"] = "Bearer " + token
        conn.request(method, path, body=None if body is None else json.dumps(body),
                     headers=headers)
        resp = conn.getresponse()
        text = resp.read()
        if resp.status not in ok:
            raise SystemExit(f"day_setup: {method} {path}: {resp.status} {text[:300]!r}")
        return json.loads(text) if text else None

    def parallel(self, items, fn):
        """fn(conn, item) over items on moves_setup's 8 connections; results in order."""
        return moves_setup.parallel(self.host, self.port, items, fn)


def main():
    base, sink, n_players, n_games, seed, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), \
        int(sys.argv[4]), int(sys.argv[5]), sys.argv[6]
    rnd = random.Random(seed)
    api = Api(base)

    players = api.parallel([f"day{i}" for i in range(n_players)],
                           lambda c, n: api.call(c, "POST", "/v1/players", body={"name": n}))
    print(f"players: {len(players)}", flush=True)

    plan = []
    for i in range(n_games):
        w, b = rnd.sample(range(n_players), 2)
        variant = "korpalski" if rnd.random() < 0.6 else "glinski"
        plan.append((w, b, variant, 1 if rnd.random() < 0.1 else 3, rnd.random() < 0.1))
    templates = [(v, p) for v in ("korpalski", "glinski") for p in TEMPLATE_PLIES]
    # Template k is a game between players 2k and 2k + 1 (in others too).
    plan += [(2 * k, 2 * k + 1, v, 3, False) for k, (v, _) in enumerate(templates)]

    def make_game(conn, item):
        w, b, variant, days, _ = item
        for attempt in range(100):
            # 409: another thread's challenge between the same two players
            # is open until its acceptance, a moment later.
            ch = api.call(conn, "POST", "/v1/challenges", players[w]["token"],
                          {"variant": variant, "opponent": players[b]["id"], "color": "white",
                           "days_per_move": days}, ok=(201, 409))
            if "id" in ch and "type" not in ch:
                break
            time.sleep(0.01 * (attempt + 1))
        else:
            raise SystemExit(f"day_setup: players {w} and {b}: challenge still refused")
        return api.call(conn, "POST", f"/v1/challenges/{ch['id']}/accept",
                        players[b]["token"])["game_id"]

    done = [0]
    lock = threading.Lock()

    def make_game_counted(conn, item):
        gid = make_game(conn, item)
        with lock:
            done[0] += 1
            if done[0] % 5000 == 0:
                print(f"games: {done[0]}/{len(plan)}", flush=True)
        return gid

    ids = api.parallel(plan, make_game_counted)
    template_ids = {}
    for (v, p), gid in zip(templates, ids[n_games:]):
        template_ids[(v, p)] = gid

    def play_template(conn, key):
        variant, plies = key
        gid = template_ids[key]
        k = templates.index(key)
        for ply in range(plies):
            token = players[2 * k + ply % 2]["token"]
            api.call(conn, "POST", f"/v1/games/{gid}/moves", token,
                     {"move": MOVE[variant](ply), "ply": ply})
        return gid

    api.parallel(templates, play_template)
    print(f"templates: {len(templates)} played", flush=True)

    with open(os.path.join(out, "games.txt"), "w") as g, \
            open(os.path.join(out, "clone.csv"), "w") as c:
        for gid, (w, b, variant, _, bot) in zip(ids[:n_games], plan[:n_games]):
            ply = rnd.choice(TEMPLATE_PLIES)
            if ply:
                c.write(f"{gid},{template_ids[(variant, ply)]}\n")
            g.write(f"{gid} {variant} {ply} {players[w]['token']} {players[b]['token']} "
                    f"{int(bot)} {players[w]['id']} {players[b]['id']}\n")

    def channel(conn, i):
        tok = players[i]["token"]
        if i % 10 == 0:
            api.call(conn, "POST", "/v1/webhooks", tok, {"url": sink})
        else:
            api.call(conn, "PUT", "/v1/players/me/notifications", tok,
                     {"email_address": f"day{i}@example.org"})

    api.parallel(list(range(n_players)), channel)
    print("channels: set", flush=True)
    with open(os.path.join(out, "streams.txt"), "w") as s:
        for i in range(0, n_players, 5):
            s.write(players[i]["token"] + "\n")


if __name__ == "__main__":
    main()
