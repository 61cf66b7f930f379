"""Frames per second of the pixel renderer, on this machine.

    python -m bench.bench_pixels [--worlds 64] [--repeats 5]

Measures (after compiling, which is reported separately):

1. ``env.render()`` with ``render_mode="rgb_array"`` through ``AlemParallelEnv`` (one world,
   3 agents' views side by side at 16 px per tile, uint8 copied to the host), interleaved with
   ``env.step`` as a real loop would be; only the render call is timed.
2. The pixel observation of N worlds at once: ``jit(vmap(pixel_observation))`` at 10 px per tile
   (P = 3 images of 150 x 110 x 3 per world), worlds taken from masked random rollouts.
"""

from __future__ import annotations

import argparse
import time

import jax
import numpy as np

import alem_core
from alem_core.pixels import pixel_observation
from alem_core.testing.rollout import random_rollout
from bench.common import world


def bench_render(steps: int = 100) -> tuple[float, float]:
    """(compile seconds, frames per second) of ``env.render()`` in rgb_array mode."""
    import alem_pz

    env = alem_pz.make(players=3, render_mode="rgb_array")
    _, infos = env.reset(seed=0)
    start = time.perf_counter()
    env.render()
    compile_s = time.perf_counter() - start
    rng = np.random.default_rng(0)
    spent = 0.0
    for _ in range(steps):
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        _, _, _, _, infos = env.step(actions)
        start = time.perf_counter()
        env.render()
        spent += time.perf_counter() - start
    return compile_s, steps / spent


def bench_batched(worlds: int, repeats: int) -> tuple[float, float]:
    """(compile seconds, world-frames per second) of the batched pixel observation."""
    params, static = world()
    keys = jax.random.split(jax.random.key(0), worlds)
    reset = jax.jit(jax.vmap(lambda k: alem_core.reset(k, params, static)[1]))
    walk = jax.jit(jax.vmap(lambda k, s: random_rollout(k, s, params, static, 50)[0]))
    states = walk(keys, reset(keys))
    render = jax.jit(jax.vmap(lambda s: pixel_observation(s, params, static)))
    start = time.perf_counter()
    render(states).block_until_ready()
    compile_s = time.perf_counter() - start
    start = time.perf_counter()
    for _ in range(repeats):
        images = render(states)
    images.block_until_ready()
    return compile_s, worlds * repeats / (time.perf_counter() - start)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--steps", type=int, default=100)
    args = parser.parse_args()
    print(f"jax {jax.__version__} on {jax.devices()[0].platform}")
    compile_s, fps = bench_render(args.steps)
    print(f"rgb_array render (env.render, 3 views at 16 px): {fps:.0f} frames/s "
          f"({1e3 / fps:.1f} ms/frame; first call {compile_s:.1f} s)")  # fmt: skip
    compile_s, fps = bench_batched(args.worlds, args.repeats)
    print(f"pixel observation, {args.worlds} worlds vmapped (3 agents each, 10 px): "
          f"{fps:.0f} world-frames/s = {3 * fps:.0f} agent images/s "
          f"({1e3 * args.worlds / fps:.0f} ms per batch; compile {compile_s:.1f} s)")  # fmt: skip


if __name__ == "__main__":
    main()
