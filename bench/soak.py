"""Soak: memory and bookkeeping over long runs, each part in a process of its own.

    python -m bench.soak vec --minutes 30 [--worlds 64]      # make_vec, masked random team
    python -m bench.soak llm --requests 2000                 # the LLM harness, faulty server
    python -m bench.soak envs --count 200                    # make and close many envs
    python -m bench.soak all --json bench/records/soak.json  # the three, one after another

* ``vec``: ``gymnasium.make_vec("alem/Coop-v0")`` with the default ``max_steps`` stepped by a
  masked-random team for ``--minutes``, teams dying and worlds resetting throughout. Every
  minute: RSS now and at peak, steps, episodes ended. Every ended episode must come with its
  score row (``infos["score"]``) and the count must match the runner's per-slot episode
  counters at the end.
* ``llm``: ``alem_pz.text.harness.evaluate_llm`` against ``LocalServer`` injecting 429s,
  500s, slow, truncated and garbled replies, for at least ``--requests`` chat requests in one
  evaluation; RSS every 10 s; every episode must finish and be in the summary. The server runs
  in a child process, so ``rss_mb`` is the harness's own (the server's is ``server_rss_mb``).
* ``envs``: ``--count`` PettingZoo envs of four shapes made, reset, stepped and closed in one
  process; RSS every 20 envs.
The verdict line compares RSS after the first fifth of a part (the first 5 minutes of
``vec``, the first fifth of the requests of ``llm``) with its end: the goal is growth under 2 %.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import numpy as np

from alem_pz.evaluation.baselines import MaskedRandom
from bench.common import SMALL, load_average


def rss_mb(pid: int | None = None) -> tuple[float, float]:
    """(RSS now, peak RSS) in MB of this process, or of process ``pid``."""
    with open(f"/proc/{pid or 'self'}/status") as f:
        fields = {line.split(":")[0]: int(line.split()[1]) for line in f if "kB" in line}
    return fields["VmRSS"] / 1024, fields["VmHWM"] / 1024


def soak_vec(minutes: float, worlds: int) -> dict:
    import gymnasium

    import alem_pz  # noqa: F401  (registers alem/Coop-v0)

    envs = gymnasium.make_vec(
        "alem/Coop-v0", num_envs=worlds, vectorization_mode="vector_entry_point"
    )
    players = envs.num_envs // worlds
    team = MaskedRandom(0)
    _, infos = envs.reset(seed=0)
    start = time.monotonic()
    samples, steps, ended, unscored = [], 0, 0, 0
    next_sample = start
    while time.monotonic() - start < minutes * 60:
        actions = team.actions(infos["action_mask"])
        _, _, terms, truncs, infos = envs.step(actions)
        steps += 1
        done = (terms | truncs).reshape(worlds, players).any(axis=1)
        ended += int(done.sum())
        rows = infos["score"].reshape(worlds, players, -1)[done]
        unscored += int((np.abs(rows).sum(axis=(1, 2)) == 0).sum())
        if time.monotonic() >= next_sample:
            now, peak = rss_mb()
            samples.append({"minute": round((time.monotonic() - start) / 60, 2), "rss_mb": now,
                            "peak_mb": peak, "steps": steps, "episodes_ended": ended})  # fmt: skip
            print(json.dumps(samples[-1]), flush=True)
            next_sample += 60
    runner = envs.unwrapped.runner
    counted = int(np.asarray(runner.batch.episode).sum()) + int(np.asarray(runner.batch.done).sum())
    envs.close()
    return {"samples": samples, "steps": steps, "worlds": worlds, "episodes_ended": ended,
            "episodes_counted_by_runner": counted, "ended_without_score": unscored}  # fmt: skip


@contextlib.contextmanager
def server_process(faults: dict[str, float], slow_seconds: float) -> Iterator[tuple[str, int]]:
    """``LocalServer`` in a child process (``python -m alem_pz.text.local_server``), so the
    soak's RSS is the harness's alone; yields (base URL, pid). Closing its standard input
    stops it."""
    cmd = [sys.executable, "-m", "alem_pz.text.local_server", "--faults", json.dumps(faults),
           "--slow-seconds", str(slow_seconds)]  # fmt: skip
    root = Path(__file__).resolve().parents[1]
    child = subprocess.Popen(
        cmd, stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True, cwd=root
    )
    try:
        url = child.stdout.readline().strip()
        if not url.startswith("http"):
            raise RuntimeError(f"the server process did not start (exit {child.wait()})")
        yield url, child.pid
    finally:
        child.stdin.close()
        try:
            child.wait(timeout=30)
        except subprocess.TimeoutExpired:
            child.kill()
            child.wait()


def soak_llm(requests: int) -> dict:
    import threading

    from alem_pz.text.client import ClientConfig
    from alem_pz.text.harness import HarnessConfig, evaluate_llm
    from alem_pz.text.local_server import fetch_stats

    faults = {"429": 0.03, "500": 0.03, "slow": 0.01, "truncate": 0.02, "garble": 0.02}
    steps, players = 50, 3
    episodes = -(-requests // (steps * players))
    samples, done = [], threading.Event()
    with tempfile.TemporaryDirectory() as out, server_process(faults, 2.0) as (url, pid):

        def sample() -> None:  # RSS every 10 s while the one long evaluation runs
            while not done.wait(10.0):
                now, peak = rss_mb()
                samples.append({"seconds": len(samples) * 10 + 10, "rss_mb": now, "peak_mb": peak,
                                "requests": fetch_stats(url).get("requests", 0),
                                "server_rss_mb": rss_mb(pid)[0],
                                "load_1min": load_average()[0]})  # fmt: skip
                print(json.dumps(samples[-1]), flush=True)

        sampler = threading.Thread(target=sample)
        sampler.start()
        client = ClientConfig(model="rule", base_url=url, timeout=1.0, retry_delay=0.01)
        try:
            summary = evaluate_llm(
                HarnessConfig(clients=[client], workers=2), out, episodes=episodes,
                max_steps=steps, difficulties=["easy"], resamples=50, progress=False,
            )  # fmt: skip
        finally:
            done.set()
            sampler.join()
        finished = len(summary["results"]["easy"]["per_episode"])
        stats, server_rss = fetch_stats(url), rss_mb(pid)[0]
    return {"samples": samples, "episodes": episodes, "episodes_in_summary": finished,
            "server": stats, "server_rss_mb": server_rss}  # fmt: skip


def soak_envs(count: int) -> dict:
    import alem_core
    import alem_pz

    shapes = [
        alem_core.StaticParams(**SMALL, player_count=p, num_comm_channels=c)
        for p, c in ((2, 0), (3, 0), (3, 2), (4, 0))
    ]
    team = MaskedRandom(0)
    samples = []
    for i in range(count):
        static = shapes[i % len(shapes)]
        env = alem_pz.make(players=static.player_count, static=static,
                           comm_channels=static.num_comm_channels, max_steps=5)  # fmt: skip
        _, infos = env.reset(seed=i)
        while env.agents:
            masks = np.stack([infos[a]["action_mask"] for a in env.agents])
            actions = dict(zip(env.agents, team.actions(masks).tolist(), strict=True))
            _, _, _, _, infos = env.step(actions)
        env.close()
        if (i + 1) % 20 == 0:
            now, peak = rss_mb()
            samples.append({"envs": i + 1, "rss_mb": now, "peak_mb": peak})
            print(json.dumps(samples[-1]), flush=True)
    return {"samples": samples, "count": count}


GROWTH_BY = {"llm": "requests"}
"""The count whose first fifth a part's growth starts from (the others: the samples)."""


def growth(samples: list[dict], by: str | None = None) -> float:
    """RSS growth from the end of the first fifth of the samples to the last, in percent. With
    ``by`` the fifth is of that count (``llm``: requests), from the first sample reaching a fifth
    of its last value: start-up (JAX compiling) takes a varying share of the time."""
    first = samples[max(0, len(samples) // 5 - 1)]["rss_mb"]
    if by is not None:
        first = next(s for s in samples if s[by] >= samples[-1][by] / 5)["rss_mb"]
    return 100.0 * (samples[-1]["rss_mb"] - first) / first


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("part", choices=("vec", "llm", "envs", "all"))
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--requests", type=int, default=2000)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--json", default=None)
    args = parser.parse_args()
    if args.part == "all":  # each part in a fresh process, so RSS is its own
        results = {}
        for part in ("envs", "llm", "vec"):
            with tempfile.NamedTemporaryFile(suffix=".json") as tmp:
                flags = [f"--minutes={args.minutes}", f"--worlds={args.worlds}",
                         f"--requests={args.requests}", f"--count={args.count}"]  # fmt: skip
                cmd = [sys.executable, "-m", "bench.soak", part, *flags, "--json", tmp.name]
                subprocess.run(cmd, check=True, cwd=Path(__file__).resolve().parents[1])
                results[part] = json.loads(Path(tmp.name).read_text())
    else:
        run = {
            "vec": lambda: soak_vec(args.minutes, args.worlds),
            "llm": lambda: soak_llm(args.requests),
            "envs": lambda: soak_envs(args.count),
        }
        started = time.monotonic()
        results = run[args.part]()
        results["seconds"] = time.monotonic() - started
        results["load_after"] = load_average()
        results["rss_growth_pct"] = growth(results["samples"], GROWTH_BY.get(args.part))
        print(f"{args.part}: RSS growth after the first fifth {results['rss_growth_pct']:+.2f} %")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=1))


if __name__ == "__main__":
    main()
