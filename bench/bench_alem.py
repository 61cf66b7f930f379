"""Speed of alem on this machine: import, compile, PettingZoo step, jitted and batched rollouts.

Run from the repository root (CPU by default; the persistent compilation cache is OFF so
compile times are cold)::

    python -m bench.bench_alem [--worlds 64] [--steps 100] [--json out.json] [--peer peer.json]

Measured (3 agents, "medium", 48 x 48 map, 9-floor state, random masked actions):
  * import time of ``alem_core`` + ``alem_pz`` (in a fresh subprocess),
  * compile time of jitted ``reset`` and of one "masked random policy + step" (AOT: trace,
    lower and XLA compile), cold,
  * mean latency of ``AlemParallelEnv.step`` from Python (ms),
  * env-steps/s of one world stepped inside a jitted ``lax.scan``,
  * env-steps/s of N worlds vmapped inside a jitted ``lax.scan`` (no auto-reset).
With ``--peer`` (the JSON written by ``python -m bench.parity speed`` for the published package) it
prints the ratios ours / peer for the like-with-like rows.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import subprocess
import sys
import time

from bench.common import world


def _import_seconds() -> float:
    code = (
        "import time; t = time.perf_counter(); import alem_core, alem_pz; "
        "print(time.perf_counter() - t)"
    )
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, check=True)
    return float(out.stdout.strip().splitlines()[-1])


def _aot(fn, *args):
    import jax

    start = time.perf_counter()
    compiled = jax.jit(fn).lower(*args).compile()
    return compiled, time.perf_counter() - start


def _policy_step(static):
    """One step with masked uniform random actions drawn inside the jitted function."""
    import jax
    import jax.numpy as jnp

    import alem_core

    def run(key, state, mask, params):
        k_act, k_step = jax.random.split(key)
        actions = jax.random.categorical(k_act, jnp.where(mask, 0.0, -1e9))
        obs, state, reward, _, _, info = alem_core.step(k_step, state, actions, params, static)
        return state, info["action_mask"], obs.sum() + reward.sum()

    return run


def _scan_rollout(static, steps: int):
    import jax

    policy_step = _policy_step(static)

    def rollout(key, state, mask, params):
        def body(carry, key):
            state, mask, acc = carry
            state, mask, checksum = policy_step(key, state, mask, params)
            return (state, mask, acc + checksum), None

        keys = jax.random.split(key, steps)
        (state, mask, acc), _ = jax.lax.scan(body, (state, mask, 0.0), keys)
        return state, mask, acc

    return rollout


def _rate(fn, args, env_steps: int, repeats: int = 3) -> float:
    import jax

    jax.block_until_ready(fn(*args))
    best = float("inf")
    for _ in range(repeats):
        start = time.perf_counter()
        jax.block_until_ready(fn(*args))
        best = min(best, time.perf_counter() - start)
    return env_steps / best


def _pettingzoo_ms(steps: int) -> float:
    import numpy as np

    import alem_pz

    env = alem_pz.make(players=3, difficulty="medium")
    rng = np.random.default_rng(0)
    _, infos = env.reset(seed=0)
    env.step({a: 0 for a in env.agents})
    total = 0.0
    for _ in range(steps):
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        start = time.perf_counter()
        _, _, _, _, infos = env.step(actions)
        total += time.perf_counter() - start
        if not env.agents:
            _, infos = env.reset()
    return 1e3 * total / steps


def _batched(static, params, worlds: int, steps: int, baked: bool) -> tuple[float, float]:
    """(compile s, env-steps/s) for ``worlds`` worlds vmapped in a scan.

    ``baked`` closes over ``params`` (constants XLA can fold, as the published package does);
    otherwise they are traced arguments (one compiled step for every difficulty).
    """
    import jax

    import alem_core

    key = jax.random.key(0)
    states = jax.jit(jax.vmap(lambda k: alem_core.reset(k, params, static)[1]))(
        jax.random.split(key, worlds)
    )
    masks = jax.vmap(lambda s: alem_core.action_mask(s, params, static))(states)
    rollout = jax.vmap(_scan_rollout(static, steps), in_axes=(0, 0, 0, None))
    keys = jax.random.split(key, worlds)
    if baked:
        compiled, seconds = _aot(lambda k, s, m: rollout(k, s, m, params), keys, states, masks)
        return seconds, _rate(compiled, (keys, states, masks), worlds * steps)
    compiled, seconds = _aot(rollout, keys, states, masks, params)
    return seconds, _rate(compiled, (keys, states, masks, params), worlds * steps)


def measure(worlds: list[int], steps: int, pettingzoo: bool) -> dict[str, float | str]:
    """Run every measurement and return the figures."""
    import jax

    import alem_core

    figures: dict[str, float | str] = {
        "machine": f"{platform.machine()} {os.cpu_count()} cpus",
        "device": str(jax.devices()[0]),
        "jax": jax.__version__,
    }
    if pettingzoo:
        figures["import_s"] = _import_seconds()
    params, static = world()
    key = jax.random.key(0)
    reset, reset_s = _aot(lambda k, p: alem_core.reset(k, p, static), key, params)
    _, state = reset(key, params)
    mask = alem_core.action_mask(state, params, static)
    _, step_s = _aot(_policy_step(static), key, state, mask, params)
    figures.update(
        reset_compile_s=reset_s, step_compile_s=step_s, reset_plus_step_compile_s=reset_s + step_s
    )
    if pettingzoo:
        figures["pettingzoo_step_ms"] = _pettingzoo_ms(200)
    one = jax.jit(_scan_rollout(static, steps))
    figures["single_scan_steps_per_s"] = _rate(one, (key, state, mask, params), steps)
    for n in worlds:
        for baked in (False, True):
            tag = f"batched_{n}_{'baked' if baked else 'traced'}"
            figures[f"{tag}_compile_s"], figures[f"{tag}_steps_per_s"] = _batched(
                static, params, n, steps, baked
            )
    figures["steps"] = steps
    return figures


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[64])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument(
        "--peer", default=None, help="peer figures from python -m bench.parity speed --json"
    )
    parser.add_argument(
        "--no-pettingzoo",
        action="store_true",
        help="core only (no alem_pz import, e.g. on a GPU box)",
    )
    args = parser.parse_args()
    figures = measure(args.worlds, args.steps, pettingzoo=not args.no_pettingzoo)
    for name, value in figures.items():
        print(f"{name:32s} {value:.4g}" if isinstance(value, float) else f"{name:32s} {value}")
    if args.peer:
        _compare(figures, args.peer, args.worlds[0])
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


def _compare(ours: dict, peer_path: str, worlds: int) -> None:
    """Print ours / peer for the rows measured the same way on both sides."""
    with open(peer_path) as f:
        peer_file = json.load(f)
    peer = next(r for r in peer_file["results"] if r["env"].endswith("Debug"))
    peer_compile = peer["compile_reset_s"] + peer["compile_step_env_s"]
    rows = (
        ("reset + step compile (s)", ours["reset_plus_step_compile_s"], peer_compile, False),
        ("step from Python (ms)", ours["pettingzoo_step_ms"], peer["step_latency_ms"], False),
        (
            f"{worlds} worlds, params baked (env-steps/s)",
            ours[f"batched_{worlds}_baked_steps_per_s"],
            peer["scan_step_env_sps"],
            True,
        ),
        (
            f"{worlds} worlds, params traced (env-steps/s)",
            ours[f"batched_{worlds}_traced_steps_per_s"],
            peer["scan_step_env_sps"],
            True,
        ),
    )
    print(f"\nvs {peer_file['package']} ({peer['env']}, jax {peer_file['jax']}):")
    for name, mine, theirs, higher_is_better in rows:
        factor = mine / theirs if higher_is_better else theirs / mine
        print(f"  {name:34s} ours {mine:9.4g}  peer {theirs:9.4g}  ours better by {factor:.2f}x")


if __name__ == "__main__":
    main()
