#!/usr/bin/env python3
"""bench/day_streams.py — the open event streams of bench/day.sh.

usage: day_streams.py HOST PORT TOKENS OUT

Opens GET /v1/events for every token of the file TOKENS (one a line; at
most 64 connecting at a time) and prints "connected N" once all have their
response headers.  Then notes every `move` event: "game_id ply receipt_us"
lines in OUT (CLOCK_REALTIME microseconds), until SIGTERM, when it writes
OUT and prints "streams: N open, M lost, E events".
"""
import asyncio
import json
import signal
import sys
import time


async def stream(host, port, token, gate, opened, rows, counts):
    async with gate:
        reader, writer = await asyncio.open_connection(host, port)
        writer.write(f"GET /v1/events HTTP/1.1\r\nHost: {host}:{port}\r\n"
                     f"Authorization: Bearer {token}\r\nAccept: text/event-stream\r\n\r\n"
                     .encode())
        await writer.drain()
        status = await reader.readline()
        if b" 200 " not in status:
            raise SystemExit(f"day_streams: /v1/events answered {status!r}")
        chunked = False
        while True:
            line = await reader.readline()
            if line in (b"\r\n", b""):
                break
            if line.lower().startswith(b"transfer-encoding:") and b"chunked" in line.lower():
                chunked = True
    opened()
    event, pending = None, b""
    try:
        while True:
            if chunked:
                size = int((await reader.readline()).split(b";")[0].strip() or b"0", 16)
                if size == 0:
                    break
                data = await reader.readexactly(size)
                await reader.readexactly(2)
            else:
                data = await reader.read(65536)
                if not data:
                    break
            pending += data
            *lines, pending = pending.split(b"\n")
            for line in lines:
                if line.startswith(b"event: "):
                    event = line[7:].strip()
                elif line.startswith(b"data: ") and event == b"move":
                    d = json.loads(line[6:])
                    rows.append(f"{d['game_id']} {d['ply']} {time.time() * 1e6:.0f}\n")
                    counts["events"] += 1
                elif not line.strip():
                    event = None
    except (asyncio.IncompleteReadError, ConnectionError):
        pass
    counts["lost"] += 1


async def main():
    host, port, tokens_path, out = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
    tokens = [t.strip() for t in open(tokens_path) if t.strip()]
    gate = asyncio.Semaphore(64)
    rows, counts = [], {"open": 0, "lost": 0, "events": 0}
    stop = asyncio.Event()
    loop = asyncio.get_running_loop()
    loop.add_signal_handler(signal.SIGTERM, stop.set)

    def opened():
        counts["open"] += 1
        if counts["open"] == len(tokens):
            print(f"connected {len(tokens)}", flush=True)

    tasks = [asyncio.create_task(stream(host, port, t, gate, opened, rows, counts))
             for t in tokens]
    await stop.wait()
    for t in tasks:
        t.cancel()
    with open(out, "w") as f:
        f.writelines(rows)
    print(f"streams: {counts['open']} open, {counts['lost']} lost, {counts['events']} events",
          flush=True)


if __name__ == "__main__":
    asyncio.run(main())
