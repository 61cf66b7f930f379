"""Speed of alem on this machine: import, compile, PettingZoo step, jitted and batched rollouts.

Run from the repository root (CPU by default; the persistent compilation cache is OFF so
compile times are cold)::

    python bench/bench_alem.py [--worlds 64] [--steps 100] [--json out.json] [--peer peer.json]

Measured (3 agents, "medium", 48 x 48 map, 9-floor state, random masked actions):
  * import time of ``alem_core`` + ``alem_pz`` (in a fresh subprocess),
  * compile time of jitted ``reset`` and of one "masked random policy + step" (AOT: trace,
    lower and XLA compile), cold,
  * mean latency of ``AlemParallelEnv.step`` from Python (ms),
  * env-steps/s of one world stepped inside a jitted ``lax.scan``,
  * env-steps/s of N worlds vmapped inside a jitted ``lax.scan`` (no auto-reset).
With ``--peer`` (the JSON written by ``bench/peer_alem_env.py`` for the published package) it
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


def measure(worlds: int, steps: int) -> dict[str, float | str]:
    """Run every measurement and return the figures."""
    import_s = _import_seconds()
    import jax
    import jax.numpy as jnp

    import alem_core

    static = alem_core.StaticParams(player_count=3)
    params = alem_core.make_params("medium")
    key = jax.random.key(0)
    reset, reset_s = _aot(lambda k, p: alem_core.reset(k, p, static), key, params)
    _, state = reset(key, params)
    mask = alem_core.action_mask(state, params, static)
    _, step_s = _aot(_policy_step(static), key, state, mask, params)
    one = jax.jit(_scan_rollout(static, steps))
    single_rate = _rate(one, (key, state, mask, params), steps)
    batched_reset = jax.jit(jax.vmap(lambda k: alem_core.reset(k, params, static)[1]))
    states = batched_reset(jax.random.split(key, worlds))
    masks = jax.vmap(lambda s: alem_core.action_mask(s, params, static))(states)
    many = jax.vmap(_scan_rollout(static, steps), in_axes=(0, 0, 0, None))
    many, batch_compile_s = _aot(many, jax.random.split(key, worlds), states, masks, params)
    batch_rate = _rate(many, (jax.random.split(key, worlds), states, masks, params), worlds * steps)
    return {
        "machine": f"{platform.machine()} {os.cpu_count()} cpus, {jax.devices()[0].platform}",
        "jax": jax.__version__,
        "import_s": import_s,
        "reset_compile_s": reset_s,
        "step_compile_s": step_s,
        "reset_plus_step_compile_s": reset_s + step_s,
        "batched_scan_compile_s": batch_compile_s,
        "pettingzoo_step_ms": _pettingzoo_ms(200),
        "single_scan_steps_per_s": single_rate,
        f"batched_{worlds}_steps_per_s": batch_rate,
        "worlds": worlds,
        "steps": steps,
        "_jnp": str(jnp.float32),
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, default=64)
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--json", default=None, help="write the figures here")
    parser.add_argument("--peer", default=None, help="peer figures from bench/peer_alem_env.py")
    args = parser.parse_args()
    figures = measure(args.worlds, args.steps)
    figures.pop("_jnp")
    for name, value in figures.items():
        print(f"{name:32s} {value:.4g}" if isinstance(value, float) else f"{name:32s} {value}")
    if args.peer:
        _compare(figures, args.peer, args.worlds)
    if args.json:
        with open(args.json, "w") as f:
            json.dump(figures, f, indent=2)


def _compare(ours: dict, peer_path: str, worlds: int) -> None:
    with open(peer_path) as f:
        peer = json.load(f)
    print("\nratio ours / peer (overworld-only peer variant, like with like):")
    for ours_key, peer_key, higher_is_better in (
        ("reset_plus_step_compile_s", "reset_plus_step_compile_s", False),
        ("pettingzoo_step_ms", "single_step_ms", False),
        (f"batched_{worlds}_steps_per_s", f"batched_{worlds}_steps_per_s", True),
    ):
        if ours_key in ours and peer_key in peer:
            ratio = ours[ours_key] / peer[peer_key]
            better = ratio if higher_is_better else 1 / ratio
            print(f"  {ours_key:32s} {ours[ours_key]:.4g} vs {peer[peer_key]:.4g}: {better:.2f}x")


if __name__ == "__main__":
    main()
