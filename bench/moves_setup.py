#!/usr/bin/env python3
"""bench/moves_setup.py — the games of bench/moves.sh, made through korpd's API.

usage: moves_setup.py HOST PORT PAIRS GAMES OUT

Makes PAIRS pairs of players (POST /v1/players), then GAMES Korpalski games,
game i between the players of pair i % PAIRS: the first player challenges
the second as White with 3 days per move (POST /v1/challenges) and the
second accepts (POST /v1/challenges/{id}/accept).  8 threads, one keep-alive
connection each.  Writes "game_id 0 white_token black_token" lines to OUT,
the input of bench/moveload.c.
"""
import http.client
import json
import sys
import threading

THREADS = 8


def call(conn, method, path, token=None, body=None):
    headers = {}
    if token:
        headers["Authorization"] = "Bearer " + token
    data = None
    if body is not None:
        data = json.dumps(body)
        headers["Content-Type"] = "application/json"
    conn.request(method, path, body=data, headers=headers)
    resp = conn.getresponse()
    text = resp.read()
    if resp.status not in (200, 201):
        raise SystemExit(f"moves_setup: {method} {path}: {resp.status} {text[:300]!r}")
    return json.loads(text)


def parallel(host, port, items, fn):
    """Runs fn(conn, item) over items on THREADS connections; results in order."""
    results = [None] * len(items)
    errors = []

    def run(start):
        conn = http.client.HTTPConnection(host, port, timeout=30)
        try:
            for i in range(start, len(items), THREADS):
                results[i] = fn(conn, items[i])
        except BaseException as e:  # reported by the main thread
            errors.append(e)
        finally:
            conn.close()

    threads = [threading.Thread(target=run, args=(t,)) for t in range(THREADS)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    if errors:
        raise SystemExit(str(errors[0]))
    return results


def main():
    host, port, pairs, games, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        int(sys.argv[4]), sys.argv[5]
    names = [f"bench{side}{i}" for i in range(pairs) for side in ("w", "b")]
    players = parallel(host, port, names,
                       lambda c, n: call(c, "POST", "/v1/players", body={"name": n}))

    def make_game(conn, i):
        white, black = players[2 * (i % pairs)], players[2 * (i % pairs) + 1]
        ch = call(conn, "POST", "/v1/challenges", white["token"],
                  {"variant": "korpalski", "opponent": black["id"], "color": "white",
                   "days_per_move": 3})
        acc = call(conn, "POST", f"/v1/challenges/{ch['id']}/accept", black["token"])
        return f"{acc['game_id']} 0 {white['token']} {black['token']}"

    lines = parallel(host, port, list(range(games)), make_game)
    with open(out, "w") as f:
        f.write("\n".join(lines) + "\n")


if __name__ == "__main__":
    main()
