"""bench/notify_bench.py — the driver of bench/notify.sh (see there).

Phase "setup": players in pairs, each with a webhook (events: move) to the
sink, one Korpalski game per pair with the kings and a knight each placed.
Phase "fill": N moves with no korpd delivering (KORP_NOTIFY_WORKERS=0):
the outbox fills.  Phase "latency": moves at a steady rate with workers
running; each move's answer time is noted, and its webhook's receipt.

usage: notify_bench.py setup BASE SINK PAIRS STATE
       notify_bench.py fill BASE STATE N THREADS
       notify_bench.py latency BASE STATE N RATE OUT
"""

import json
import sys
import threading
import time

import requests

# The knights shuffle for ever once both kings and knights are placed.
OPENING = ["K@e1", "K@e8", "N@g1", "N@g8"]
SHUFFLE = ["Nf3", "Nf6", "Ng1", "Ng8"]


def post(session, url, token, body):
    for attempt in range(20):
        r = session.post(url, json=body, headers={"Authorization": f"Bearer {token}"},
                         timeout=30)
        if r.status_code not in (429, 503):
            return r
        time.sleep(0.05 * (attempt + 1))
    return r


def setup(base, sink, pairs, state_path):
    s = requests.Session()
    games = []
    stamp = int(time.time() * 1000) % 10**8
    for i in range(pairs):
        players = []
        for side in ("w", "b"):
            r = s.post(f"{base}/v1/players", json={"name": f"nb{stamp}{side}{i}"}, timeout=30)
            r.raise_for_status()
            p = r.json()
            r = post(s, f"{base}/v1/webhooks", p["token"], {"url": sink, "events": ["move"]})
            assert r.status_code == 201, r.text
            players.append(p)
        r = post(s, f"{base}/v1/challenges", players[0]["token"],
                 {"variant": "korpalski", "opponent": players[1]["id"], "color": "white",
                  "days_per_move": 3})
        assert r.status_code == 201, r.text
        r = post(s, f"{base}/v1/challenges/{r.json()['id']}/accept", players[1]["token"], None)
        assert r.status_code == 201, r.text
        game = {"id": r.json()["game_id"], "tokens": [players[0]["token"], players[1]["token"]],
                "ply": 0}
        for move in OPENING:
            make_move(s, base, game, move)
        games.append(game)
    with open(state_path, "w") as f:
        json.dump(games, f)


def make_move(session, base, game, text=None):
    if text is None:
        text = SHUFFLE[(game["ply"] - len(OPENING)) % len(SHUFFLE)]
    token = game["tokens"][game["ply"] % 2]
    sent = time.time()
    r = post(session, f"{base}/v1/games/{game['id']}/moves", token, {"move": text})
    answered = time.time()
    assert r.status_code == 201, r.text
    game["ply"] += 1
    return sent, answered


def load(state_path):
    with open(state_path) as f:
        return json.load(f)


def save(state_path, games):
    with open(state_path, "w") as f:
        json.dump(games, f)


def fill(base, state_path, n, threads):
    games = load(state_path)
    per = [games[i::threads] for i in range(threads)]
    counts = [n // threads + (1 if i < n % threads else 0) for i in range(threads)]

    def run(mine, count):
        s = requests.Session()
        for k in range(count):
            make_move(s, base, mine[k % len(mine)])

    started = time.time()
    workers = [threading.Thread(target=run, args=(per[i], counts[i])) for i in range(threads)]
    for w in workers:
        w.start()
    for w in workers:
        w.join()
    save(state_path, games)
    print(f"fill: {n} moves in {time.time() - started:.1f} s")


def latency(base, state_path, n, rate, out_path):
    games = load(state_path)
    s = requests.Session()
    lines = []
    period = 1.0 / rate
    next_at = time.time()
    for k in range(n):
        now = time.time()
        if now < next_at:
            time.sleep(next_at - now)
        next_at += period
        game = games[k % len(games)]
        sent, answered = make_move(s, base, game)
        lines.append(f"{game['id']} {game['ply']} {int(sent * 1e6)} {int(answered * 1e6)}")
    save(state_path, games)
    with open(out_path, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    what = sys.argv[1]
    if what == "setup":
        setup(sys.argv[2], sys.argv[3], int(sys.argv[4]), sys.argv[5])
    elif what == "fill":
        fill(sys.argv[2], sys.argv[3], int(sys.argv[4]), int(sys.argv[5]))
    elif what == "latency":
        latency(sys.argv[2], sys.argv[3], int(sys.argv[4]), float(sys.argv[5]), sys.argv[6])
    else:
        sys.exit(__doc__)
