#!/usr/bin/env python3
"""bench/day_report.py — the lag of events and webhooks in bench/day.sh.

usage: day_report.py EVENTS WEBHOOKS MOVES-1 [MOVES-2 ...]

MOVES-i: a step's moves as bench/dayload.c writes them ("game_id ply due_us
answer_us status"); EVENTS: the streams' receipts (bench/day_streams.py,
"game_id ply receipt_us"); WEBHOOKS: the receiver's dump
(bench/webhook_sink.mjs, "game_id ply type receipt_us webhook-id").  For
each step prints "step=i events=N event_p50_ms=.. event_p99_ms=..
event_max_ms=.. webhooks=N webhook_p50_ms=.. webhook_p99_ms=.." where a lag
is the receipt minus the move's answer (the commit came before the answer;
negative: the event came first), taking for each move the first receipt.
"""
import sys


def pct(v, p):
    if not v:
        return float("nan")
    v = sorted(v)
    return v[int(p * (len(v) - 1) + 0.5)]


def first_receipts(path, time_col):
    first = {}
    for line in open(path):
        f = line.split()
        if len(f) <= time_col or f[0] == "?":
            continue
        key = (f[0], int(f[1]))
        t = float(f[time_col])
        if key not in first or t < first[key]:
            first[key] = t
    return first


def main():
    events = first_receipts(sys.argv[1], 2)
    webhooks = first_receipts(sys.argv[2], 3)
    for i, path in enumerate(sys.argv[3:], 1):
        ev, wh = [], []
        for line in open(path):
            gid, ply, _, answer, status = line.split()
            if status != "201":
                continue
            key = (gid, int(ply))
            if key in events:
                ev.append((events[key] - float(answer)) / 1e3)
            if key in webhooks:
                wh.append((webhooks[key] - float(answer)) / 1e3)
        print(f"step={i} events={len(ev)} event_p50_ms={pct(ev, .5):.1f} "
              f"event_p99_ms={pct(ev, .99):.1f} event_max_ms={pct(ev, 1):.1f} "
              f"webhooks={len(wh)} webhook_p50_ms={pct(wh, .5):.1f} "
              f"webhook_p99_ms={pct(wh, .99):.1f}")


if __name__ == "__main__":
    main()
