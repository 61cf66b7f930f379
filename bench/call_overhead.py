"""What a call from Python costs the batched step: the same auto-reset step, K steps per call.

    python -m bench.call_overhead [--worlds 64] [--per-call 1 4 32] [--rounds 6] [--json F]

``make_vec`` and ``BatchRunner`` make one call of the compiled ``alem_core.batch.auto_reset.step``
per step; the scan path makes one call per rollout. Here the same step (masked-random actions
drawn on the device, episodes ending and resetting) runs in jitted ``lax.scan``s of K steps,
each K compiled once, and the K's are timed in alternating rounds of 128 steps in one process,
so load changes weigh on all alike. Per step, ``t(K) = s + c / K``: ``s`` is the step's own
cost and ``c`` what each call adds (XLA's per-execution work: arguments and results, buffer
allocation, thunk bookkeeping; and the caches it starts cold). The fit uses the smallest and
the largest K. Minor page faults per step come from ``getrusage``.
"""

from __future__ import annotations

import argparse
import json
import resource
import sys
import time

import jax

from bench.common import load_average, world
from bench.training_regime import auto_reset_rollout, fresh_batch

STEPS_PER_ROUND = 128


def compiled_rollouts(n: int, per_call: list[int], small: bool = False):
    """(batch, out, {K: jitted K-step rollout}) from a fresh batch (``training_regime``'s scan
    path at K steps per call)."""
    from alem_core.batch.runner import default_chunk

    params, static = world(small)
    arrays = params.as_arrays()
    batch, out = fresh_batch(jax.random.key(0), n, arrays, static)
    runs = {k: auto_reset_rollout(n, k, arrays, static, default_chunk(n)) for k in per_call}
    return batch, out, runs


def measure(n: int, per_call: list[int], rounds: int, small: bool = False) -> dict:
    batch, out, runs = compiled_rollouts(n, per_call, small)
    keys = iter(jax.random.split(jax.random.key(1), 100_000))
    compile_s = {}
    for k, run in runs.items():
        start = time.perf_counter()
        batch, out, _ = jax.block_until_ready(run(batch, out, next(keys)))
        compile_s[k] = time.perf_counter() - start
    seconds = dict.fromkeys(runs, 0.0)
    faults = dict.fromkeys(runs, 0)
    loads = []
    for _ in range(rounds):
        for k, run in runs.items():
            calls = -(-STEPS_PER_ROUND // k)
            before = resource.getrusage(resource.RUSAGE_SELF).ru_minflt
            start = time.perf_counter()
            for _ in range(calls):
                batch, out, _ = run(batch, out, next(keys))
                jax.block_until_ready(out.obs)
            seconds[k] += time.perf_counter() - start
            faults[k] += resource.getrusage(resource.RUSAGE_SELF).ru_minflt - before
        loads.append(load_average()[0])
    steps = {k: rounds * -(-STEPS_PER_ROUND // k) * k for k in runs}
    per_step = {k: 1e3 * seconds[k] / steps[k] for k in runs}
    low, high = min(runs), max(runs)
    per_call_ms = (per_step[low] - per_step[high]) / (1 / low - 1 / high)
    return {
        "worlds": n,
        "ms_per_step": per_step,
        "faults_per_step": {k: faults[k] / steps[k] for k in runs},
        "compile_s": compile_s,
        "fit_step_ms": per_step[high] - per_call_ms / high,
        "fit_call_ms": per_call_ms,
        "load_min_max": [min(loads), max(loads)],
    }


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[64])
    parser.add_argument("--per-call", type=int, nargs="+", default=[1, 4, 32])
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--small", action="store_true", help="16 x 16, one floor (a smoke test)")
    parser.add_argument("--json", default=None)
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    print(f"jax {jax.__version__} on {jax.local_devices()[0].device_kind}; load {load_average()}")
    rows = []
    for n in args.worlds:
        row = measure(n, sorted(set(args.per_call)), args.rounds, args.small)
        steps = ", ".join(f"K={k}: {v:.2f} ms" for k, v in row["ms_per_step"].items())
        print(
            f"N={n} | per step {steps} | fit: step {row['fit_step_ms']:.2f} ms + "
            f"{row['fit_call_ms']:.2f} ms a call | faults/step "
            + ", ".join(f"{v:.0f}" for v in row["faults_per_step"].values())
            + f" | 1-min load {row['load_min_max'][0]}-{row['load_min_max'][1]}",
            flush=True,
        )
        rows.append(row)
    if args.json:
        record = {"command": " ".join(["python -m bench.call_overhead", *argv]), "rows": rows,
                  "jax": jax.__version__}  # fmt: skip
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
