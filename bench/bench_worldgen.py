"""Compile and run time of jitted ``generate_world`` (reset's world generation), CPU.

    python -m bench.bench_worldgen [--levels 9] [--players 3] [--batch 64]

Reports, for a fresh compile (the JAX persistent cache is not used) repeated ``--repeats``
times: trace + lower + XLA compile in wall and process-CPU seconds, then the time per world of
one jitted world (``--calls`` calls) and of a vmapped batch of ``--batch`` worlds. Process CPU
time is given beside wall time because on a shared 2-core machine wall times mostly measure
the other jobs' load.
"""

from __future__ import annotations

import argparse
import time

import jax

from alem_core.worldgen import generate_world
from bench.common import load_average, world


def _time_calls(fn, args: tuple, calls: int) -> tuple[float, float]:
    """(wall, CPU) seconds per call of ``fn(*args)`` after one warm-up call."""
    jax.block_until_ready(fn(*args))
    wall, cpu = time.perf_counter(), time.process_time()
    for _ in range(calls):
        out = fn(*args)
    jax.block_until_ready(out)
    return (time.perf_counter() - wall) / calls, (time.process_time() - cpu) / calls


def _compile(fn, *args):
    """(compiled, wall s, CPU s) of trace + lower + compile."""
    wall, cpu = time.perf_counter(), time.process_time()
    compiled = jax.jit(fn).lower(*args).compile()
    return compiled, time.perf_counter() - wall, time.process_time() - cpu


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--levels", type=int, default=9)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--difficulty", default="medium")
    parser.add_argument("--batch", type=int, default=64)
    parser.add_argument("--calls", type=int, default=200)
    parser.add_argument("--repeats", type=int, default=2)
    args = parser.parse_args()
    jax.config.update("jax_enable_compilation_cache", False)
    params, static = world(players=args.players, difficulty=args.difficulty, num_levels=args.levels)
    params = params.as_arrays()
    key = jax.random.key(0)
    keys = jax.random.split(key, args.batch)
    single = lambda k, p: generate_world(k, p, static)  # noqa: E731
    batched = jax.vmap(single, in_axes=(0, None))
    print(f"generate_world: {static.map_size}, {args.levels} floors, P = {args.players}")
    for _ in range(args.repeats):
        one, c_wall, c_cpu = _compile(single, key, params)
        run_wall, run_cpu = _time_calls(one, (key, params), args.calls)
        many, b_wall, b_cpu = _compile(batched, keys, params)
        batch_wall, batch_cpu = _time_calls(many, (keys, params), max(args.calls // 20, 3))
        print(
            f"compile {c_wall:.2f} s wall / {c_cpu:.2f} s CPU; one world {run_wall * 1e3:.2f} ms"
            f" wall / {run_cpu * 1e3:.2f} ms CPU | batch {args.batch}: compile {b_wall:.2f} s"
            f" wall / {b_cpu:.2f} s CPU, {batch_wall / args.batch * 1e3:.2f} ms wall /"
            f" {batch_cpu / args.batch * 1e3:.2f} ms CPU per world"
            f" (load {load_average()[0]:.1f})"
        )
        jax.clear_caches()


if __name__ == "__main__":
    main()
