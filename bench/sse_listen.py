#!/usr/bin/env python3
"""bench/sse_listen.py — event streams held during bench/moves.sh's korpd runs.

usage: sse_listen.py HOST PORT OUT READY TOKEN [TOKEN ...]

Opens one GET /v1/events stream per token on korpd (loopback), writes READY
once every stream has its 200 response head, then writes to OUT one line per
move event, "game_id ply arrived_at" (CLOCK_MONOTONIC seconds, the clock
bench/moveload.c's MOVELOG uses), until SIGTERM or SIGINT.  moves.sh matches
the lines with moveload's: an event's latency is its arrival minus the
time the move's answer came back."""

import re
import signal
import socket
import sys
import threading
import time

GAME = re.compile(rb'"game_id": ?"([^"]+)"')
PLY = re.compile(rb'"ply": ?(\d+)')


def follow(host, port, token, out, lock, opened):
    sock = socket.create_connection((host, port), timeout=None)
    sock.sendall((f"GET /v1/events HTTP/1.1\r\nHost: {host}\r\n"
                  f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n").encode())
    buf, head = b"", False
    event = b""
    while True:
        chunk = sock.recv(65536)
        if not chunk:
            return
        now = time.monotonic()
        buf += chunk
        if not head:
            if b"\r\n\r\n" not in buf:
                continue
            status, buf = buf.split(b"\r\n\r\n", 1)
            if b" 200 " not in status.split(b"\r\n", 1)[0]:
                sys.exit(f"sse_listen: stream refused: {status[:200]!r}")
            head = True
            opened.release()
        # The body is chunked; SSE lines never hold "\r\n", so chunk sizes are lines
        # of their own and are skipped by the "event:"/"data:" test below.
        *lines, buf = buf.split(b"\n")
        for line in lines:
            line = line.rstrip(b"\r")
            if line.startswith(b"event: "):
                event = line[7:]
            elif line.startswith(b"data: ") and event == b"move":
                g, p = GAME.search(line), PLY.search(line)
                if g and p:
                    with lock:
                        out.write(f"{g.group(1).decode()} {int(p.group(1))} {now:.6f}\n")


def main():
    if len(sys.argv) < 6:
        sys.exit(__doc__)
    host, port, out_path, ready_path = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    tokens = sys.argv[5:]
    out, lock = open(out_path, "w", buffering=1), threading.Lock()   # a line at a time
    opened = threading.Semaphore(0)
    for t in tokens:
        threading.Thread(target=follow, args=(host, port, t, out, lock, opened),
                         daemon=True).start()
    deadline = time.monotonic() + 30
    for _ in tokens:
        if not opened.acquire(timeout=max(0.0, deadline - time.monotonic())):
            sys.exit("sse_listen: streams did not open within 30 s")
    with open(ready_path, "w") as f:
        f.write("ready\n")
    stop = threading.Event()
    signal.signal(signal.SIGTERM, lambda *_: stop.set())
    signal.signal(signal.SIGINT, lambda *_: stop.set())
    stop.wait()
    with lock:
        out.flush()


if __name__ == "__main__":
    main()
