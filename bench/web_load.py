"""Load on ``alem-serve``: K rooms of M people each, plus one page per room that never reads and
one that floods, for T minutes; what the people get.

    python -m bench.web_load [--rooms 10] [--clients 3] [--minutes 10] [--json F]

The server runs as users run it, ``alem-serve`` in its own process (turn mode, the small 16 x 16
world unless ``--full``, random AI for any seat left over). In every room M scripted people take
the seats and, on each new view, wait a human-like 0.1-0.4 s and press a key; episodes end at
``--max-steps`` and the people start the next one. Beside them: a page that takes no seat and
never reads its socket (a frozen tab), and one that sends chat and junk 50 times a second.

Reported: the key-to-view latency of the people (from the key that completed a step to each
page's updated view, for steps a key made, not those taken while nobody could act; median,
p95, p99), steps per room, the server's RSS sampled every 10 s and its growth after the first
minute (last minute's median against the second's, and the fitted trend), the pages the server
gave up and the views it dropped for them, rooms that stalled (no step for 30 s), and whether
every record replays bit for bit.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import os
import random
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

import numpy as np

from bench.common import load_average

STALL_S = 30.0


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        fields = {line.split(":")[0]: line.split()[1] for line in f if "kB" in line}
    return int(fields["VmRSS"]) / 1024


def start_server(args: argparse.Namespace, port: int, records: str) -> subprocess.Popen:
    command = [
        sys.executable, "-m", "alem_pz.play.web", "--rooms", str(args.rooms), "--players",
        str(args.clients), "--humans", "all", "--ai", "random", "--seed", "0", "--port",
        str(port), "--record-dir", records, "--max-steps", str(args.max_steps), "--tile", "24",
    ]  # fmt: skip
    if not args.full:
        command.append("--small")
    server = subprocess.Popen(command, stdout=subprocess.DEVNULL)
    deadline = time.monotonic() + 600
    while time.monotonic() < deadline:
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{port}/api/rooms", timeout=2)
            return server
        except OSError:
            if server.poll() is not None:
                raise RuntimeError("alem-serve exited before listening") from None
            time.sleep(0.5)
    raise TimeoutError("alem-serve did not listen within 10 minutes")


class RoomStats:
    """What the people of one room saw."""

    def __init__(self) -> None:
        self.last_key_at = 0.0
        self.latencies: list[float] = []
        self.steps = 0
        self.last_step_at = time.monotonic()
        self.longest_gap = 0.0
        self.stalls = 0


async def person(url: str, seat: int, stats: RoomStats, until: float) -> None:
    from websockets.asyncio.client import connect

    async with connect(url, max_size=None, open_timeout=60) as ws:
        await ws.send(json.dumps({"type": "take", "seat": seat}))
        token, seen, acted, last = None, 0, -1, {}
        while time.monotonic() < until:
            try:  # the run's end is no stall: wait at most until then
                text = await asyncio.wait_for(ws.recv(), min(STALL_S, until - time.monotonic()))
            except TimeoutError:
                if time.monotonic() < until:
                    stats.stalls += 1
                    if os.environ.get("WEB_LOAD_DEBUG"):
                        print(f"stall seat {seat} seen {seen} acted {acted} last {last}",
                              file=sys.stderr)  # fmt: skip
                    raise
                return
            message = json.loads(text)
            last = {k: message.get(k) for k in ("type", "step", "waiting", "over", "message")}
            if message["type"] == "joined":
                token = message["token"]
            if message["type"] not in ("frame", "status") or token is None:
                continue
            if message["type"] == "frame" and message["step"] > seen:
                now = time.monotonic()
                if "human" in message["last"].get("who", ()):  # a key made this step (not a
                    stats.latencies.append(now - stats.last_key_at)  # step while all sleep)
                if seat == 0:
                    stats.steps += 1
                    stats.longest_gap = max(stats.longest_gap, now - stats.last_step_at)
                    stats.last_step_at = now
            seen = message["step"]
            if message["over"]:
                if seat == 0:
                    await ws.send(json.dumps({"type": "next"}))
                seen, acted = 0, -1
            elif seat in message["waiting"] and acted != seen:
                acted = seen
                await asyncio.sleep(random.uniform(0.1, 0.4))  # a person's reaction
                stats.last_key_at = time.monotonic()
                action = random.randrange(1, 17)
                await ws.send(json.dumps({"type": "act", "token": token, "action": action}))


def frozen_page(port: int, path: str) -> socket.socket:
    """Opens a game socket and never reads it (a small receive buffer: backs up fast)."""
    import base64

    page = socket.socket()
    page.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, 4096)
    page.connect(("127.0.0.1", port))
    key = base64.b64encode(os.urandom(16)).decode()
    page.sendall(
        f"GET {path} HTTP/1.1\r\nHost: 127.0.0.1:{port}\r\nUpgrade: websocket\r\n"
        f"Connection: Upgrade\r\nSec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n\r\n"
        .encode()
    )  # fmt: skip
    return page


async def flooder(url: str, until: float) -> int:
    from websockets.asyncio.client import connect

    sent = 0
    async with connect(url, max_size=None, open_timeout=60) as ws:
        drain = asyncio.create_task(_drain(ws))
        while time.monotonic() < until:
            junk = random.choice(['{"type": "chat", "text": "spam"}', "[[[[", '{"type": "x"}'])
            await ws.send(junk)
            sent += 1
            await asyncio.sleep(0.02)
        drain.cancel()
    return sent


async def _drain(ws) -> None:
    async for _ in ws:
        pass


async def drive(args: argparse.Namespace, port: int, server_pid: int) -> dict:
    until = time.monotonic() + 60 * args.minutes
    rooms = {str(n): RoomStats() for n in range(1, args.rooms + 1)}
    frozen = [frozen_page(port, f"/room/{name}/ws") for name in rooms if args.frozen]
    tasks = [
        asyncio.create_task(person(f"ws://127.0.0.1:{port}/room/{name}/ws", seat, stats, until))
        for name, stats in rooms.items()
        for seat in range(args.clients)
    ]
    floods = [
        asyncio.create_task(flooder(f"ws://127.0.0.1:{port}/room/{n}/ws", until)) for n in rooms
    ]
    rss, start = [], time.monotonic()
    while time.monotonic() < until:
        rss.append((round(time.monotonic() - start), round(rss_mb(server_pid), 1)))
        await asyncio.sleep(10)
    results = await asyncio.gather(*tasks, *floods, return_exceptions=True)
    for (name, seat), result in zip(
        [(n, s) for n in rooms for s in range(args.clients)], results, strict=False
    ):
        if isinstance(result, BaseException):
            print(f"room {name} seat {seat}: {result!r}", file=sys.stderr)
    for page in frozen:
        page.close()
    errors = [repr(r) for r in results if isinstance(r, BaseException)]
    return {
        "rooms": rooms,
        "rss": rss,
        "errors": errors,
        "flooded": sum(r for r in results[len(tasks) :] if isinstance(r, int)),
    }


def rss_growth(rss: list[tuple[int, float]]) -> dict:
    """RSS growth after the first minute (compiles and caches fill it): the median of the last
    minute's samples against the second minute's (single samples swing by 3 %), and the fitted
    trend in MB per minute."""
    samples = np.array(rss, float)
    later = samples[samples[:, 0] >= 60] if (samples[:, 0] >= 120).any() else samples
    second = later[later[:, 0] < later[0, 0] + 60, 1]
    last = later[later[:, 0] >= later[-1, 0] - 60, 1]
    trend = np.polyfit(later[:, 0], later[:, 1], 1)[0] * 60 if len(later) > 1 else 0.0
    return {
        "rss_growth_after_first_minute_pct": float(100 * (np.median(last) / np.median(second) - 1)),
        "rss_trend_mb_per_minute": float(trend),
    }


def summarise(args, driven: dict, summaries: dict, replays: dict) -> dict:
    latencies = np.array([x for s in driven["rooms"].values() for x in s.latencies]) * 1e3
    rss = driven["rss"]
    return {
        "command": "python -m bench.web_load " + " ".join(sys.argv[1:]),
        "rooms": args.rooms, "clients": args.clients, "minutes": args.minutes,
        "key_to_view_ms": {
            "n": int(latencies.size),
            "median": float(np.median(latencies)), "p95": float(np.percentile(latencies, 95)),
            "p99": float(np.percentile(latencies, 99)),
        } if latencies.size else None,
        "steps_per_room": [s.steps for s in driven["rooms"].values()],
        "stalled_rooms": sum(s.stalls > 0 or s.longest_gap > STALL_S or s.steps == 0
                             for s in driven["rooms"].values()),
        "server_rss_mb": rss,
        **rss_growth(rss),
        "pages_given_up": sum(s.get("pages_given_up", 0) for s in summaries.values()),
        "frames_dropped": sum(s.get("frames_dropped", 0) for s in summaries.values()),
        "flood_messages_sent": driven["flooded"],
        "client_errors": driven["errors"][:5],
        "records": len(replays), "records_replayed": sum(replays.values()),
        "load_average": load_average(),
    }  # fmt: skip


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rooms", type=int, default=10)
    parser.add_argument("--clients", type=int, default=3)
    parser.add_argument("--minutes", type=float, default=10.0)
    parser.add_argument("--max-steps", type=int, default=200)
    parser.add_argument("--full", action="store_true", help="the full 48 x 48 world")
    parser.add_argument("--no-flood", dest="flood", action="store_false", help="no flooders")
    parser.add_argument(
        "--no-frozen", dest="frozen", action="store_false", help="no pages that never read"
    )
    parser.add_argument("--json", default=None)
    args = parser.parse_args(argv)
    from alem_pz.play.web.record import replay

    port, records = free_port(), tempfile.mkdtemp(prefix="alem-web-load-")
    print(f"starting alem-serve ({args.rooms} rooms); load {load_average()}", flush=True)
    server = start_server(args, port, records)
    try:
        driven = asyncio.run(drive(args, port, server.pid))
        summaries = {
            name: json.load(urllib.request.urlopen(f"http://127.0.0.1:{port}/api/room/{name}"))
            for name in driven["rooms"]
        }
    finally:
        server.send_signal(signal.SIGINT)  # closes the records
        server.wait(60)
    replays = {}
    for path in sorted(Path(records).rglob("game_*.jsonl")):
        try:
            replay(path)
            replays[str(path)] = True
        except Exception:
            replays[str(path)] = False
    result = summarise(args, driven, summaries, replays)
    print(json.dumps({k: v for k, v in result.items() if k != "server_rss_mb"}, indent=1))
    if args.json:
        Path(args.json).write_text(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
