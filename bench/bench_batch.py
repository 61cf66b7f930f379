"""Batched throughput on a fixed short horizon: ``alem_core.BatchRunner`` and ``make_vec``.

The headline figure is ``bench/training_regime.py`` (the default horizon, episodes ending by
deaths, whole windows from a fresh reset); this script isolates the step and the reserve
machinery on a fixed ``--horizon``, with the best of ``--repeats`` windows beside the median.

    python -m bench.bench_batch [--worlds 64 256 1024] [--steps 100] [--horizon 50] [--json f]
    python -m bench.bench_batch --drill t1_sync [--players 3] --worlds 64 --horizon 64

For each N (default world: 48 x 48, 9-floor state, 3 agents, "medium"), after a warm-up that
compiles everything (reset, step with the score, reserve refresh):
* ``core``: ``BatchRunner.step`` called from Python with masked random actions drawn on the
  device; nothing comes back to the host.
* ``scan`` (``--scan``): the same batch stepped inside one jitted ``lax.scan`` with the
  actions drawn on the device, as JAX trainers (``alem_train.ppo``) run it.
* ``make_vec``: the Gymnasium vector env, numpy out (observations, masks, infos), masked
  random actions drawn with numpy on the host: the throughput a PyTorch loop sees, minus the
  network.
Episodes are truncated every ``horizon`` steps, so every world resets ``steps / horizon``
times inside the timed window and the reserve refreshes (world generation) are included.
Env-steps/s counts world-steps (each with P agents): N x steps / seconds.
The load average is printed: on a shared machine the figures scale with the free cores. Each
figure is the best of ``--repeats`` timed windows of ``--steps`` steps, with the median beside
it: this VM's noise only ever slows a window down.
``--drill`` times a coordination drill (``alem_core.drills.drill_setup``, its own 12 x 12 world
and params, default knobs) instead of the full game; ``make_vec`` is skipped for drills.
"""

from __future__ import annotations

import argparse
import json
import os
import time

import jax
import jax.numpy as jnp
import numpy as np


def _load() -> str:
    return " ".join(f"{v:.2f}" for v in os.getloadavg())


def _rates(n: int, steps: int, windows: list[float]) -> dict:
    """Best and median env-steps/s over the timed windows (the VM's noise is one-sided)."""
    rates = sorted(n * steps / seconds for seconds in windows)
    return {"env_steps_per_s": rates[-1], "median": float(np.median(rates)), "windows": rates}


def bench_core(n: int, steps: int, params, static, repeats: int = 1) -> dict:
    from alem_core.batch.runner import BatchRunner
    from alem_core.testing.rollout import random_legal_actions

    @jax.jit
    def draw(key, mask):  # one jitted call: eager key splitting cost ~1 ms a step here
        key, sub = jax.random.split(key)
        return key, jax.vmap(random_legal_actions)(jax.random.split(sub, n), mask)

    runner = BatchRunner(n, params, static)
    start = time.perf_counter()
    out = runner.reset(seed=0)
    key = jax.random.key(0)
    for _ in range(2):
        key, actions = draw(key, out.info["action_mask"])
        out = runner.step(actions)
    jax.block_until_ready(out.obs)
    warm = time.perf_counter() - start
    ended, windows = 0, []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            key, actions = draw(key, out.info["action_mask"])
            out = runner.step(actions)
            ended += out.info["done"]  # device-side count, read once at the end
        jax.block_until_ready(out.obs)
        windows.append(time.perf_counter() - start)
    return {
        "worlds": n,
        **_rates(n, steps, windows),
        "warmup_seconds": warm,
        "episodes_ended": int(np.asarray(ended).sum()),
        "chunk": runner.chunk,
    }


def bench_scan(n: int, steps: int, params, static, repeats: int = 1) -> dict:
    """``alem_core.batch.auto_reset.step`` inside one jitted ``lax.scan``
    (how a JAX trainer such as ``alem_train.ppo`` steps the worlds): masked random actions,
    auto-reset and reserve refreshes on the device, the observations reduced to one number."""
    from alem_core.batch import auto_reset as core_batch
    from alem_core.batch.runner import default_chunk
    from alem_core.testing.rollout import random_legal_actions

    chunk = default_chunk(n)
    arrays = params.as_arrays()

    def run(batch, out, key):
        def one(carry, k):
            batch, out = carry
            actions = jax.vmap(random_legal_actions)(
                jax.random.split(k, n), out.info["action_mask"]
            )
            batch, nxt = core_batch.step(batch, actions, arrays, static, chunk)
            return (batch, nxt), (nxt.obs.sum(), nxt.info["done"].sum())

        (batch, out), (obs_sum, ended) = jax.lax.scan(
            one, (batch, out), jax.random.split(key, steps)
        )
        return batch, out, obs_sum.sum(), ended.sum()

    start = time.perf_counter()
    batch, out = core_batch.init(jax.random.key(0), n, arrays, static)
    rollout = jax.jit(run, donate_argnums=(0, 1))
    batch, out, _, _ = jax.block_until_ready(rollout(batch, out, jax.random.key(1)))
    warm = time.perf_counter() - start
    ended, windows = 0, []
    for window in range(repeats):
        start = time.perf_counter()
        batch, out, _, count = jax.block_until_ready(
            rollout(batch, out, jax.random.key(2 + window))
        )
        windows.append(time.perf_counter() - start)
        ended += int(count)
    return {
        "worlds": n,
        **_rates(n, steps, windows),
        "warmup_seconds": warm,
        "episodes_ended": ended,
    }


def bench_make_vec(n: int, steps: int, horizon: int, repeats: int = 1) -> dict:
    import gymnasium

    import alem_pz  # noqa: F401  (registers alem/Coop-v0)

    envs = gymnasium.make_vec(
        "alem/Coop-v0", num_envs=n, vectorization_mode="vector_entry_point", max_steps=horizon
    )
    rng = np.random.default_rng(0)

    def actions(infos):  # uniform among legal: argmax of uniform noise on the legal entries
        return np.argmax(rng.random(infos["action_mask"].shape) * infos["action_mask"], axis=1)

    _, infos = envs.reset(seed=0)
    for _ in range(2):
        _, _, _, _, infos = envs.step(actions(infos))
    ended, windows = 0, []
    for _ in range(repeats):
        start = time.perf_counter()
        for _ in range(steps):
            _, _, term, trunc, infos = envs.step(actions(infos))
            ended += int((term | trunc).sum())
        windows.append(time.perf_counter() - start)
    rates = _rates(n, steps, windows)
    return {
        "worlds": n,
        **rates,
        "agent_steps_per_s": rates["env_steps_per_s"] * envs.num_envs / n,
        "episodes_ended_agent_level": ended,
    }


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[64, 256, 1024])
    parser.add_argument("--steps", type=int, default=100)
    parser.add_argument("--horizon", type=int, default=50)
    parser.add_argument(
        "--repeats", type=int, default=3, help="timed windows of --steps; the best is reported"
    )
    parser.add_argument("--skip-make-vec", action="store_true")
    parser.add_argument("--scan", action="store_true", help="also the on-device scan path")
    parser.add_argument("--json", default=None)
    parser.add_argument("--drill", default=None, help="t1_sync, t2_busy or t3_chain")
    parser.add_argument("--players", type=int, default=None, help="drill team size")
    parser.add_argument("--no-progress", action="store_true", help="no bar over the N values")
    args = parser.parse_args()

    import alem_core
    from alem_core.drills import drill_setup
    from alem_pz.progress import bar as progress_bar

    if args.drill:
        static, params = drill_setup(args.drill, args.players, args.horizon)
        args.skip_make_vec = True  # the registered Gymnasium env is the full game
        print(f"drill {args.drill}: {static}")
    else:
        static = alem_core.StaticParams(player_count=3)
        params = alem_core.make_params("medium", max_timesteps=args.horizon)
    # XLA's big per-call temporaries are fresh mmaps from Python: the page faults on them cost up to
    # half the time at N >= 256 unless glibc asks for transparent huge pages (README).
    tunables = os.environ.get("GLIBC_TUNABLES", "")
    print(f"jax {jax.__version__} on {jax.devices()}, load average {_load()}, ", end="")
    print(f"GLIBC_TUNABLES={tunables!r}")
    results = []
    # One tick per world count, outside the timed loops: the bar never costs a measured step.
    bar = progress_bar(len(args.worlds), "world counts", "N", not args.no_progress)
    for n in args.worlds:
        row = {
            "core": bench_core(n, args.steps, params, static, args.repeats),
            "load_before": _load(),
        }
        c = row["core"]
        print(
            f"N={n:5d} core      {c['env_steps_per_s']:9.0f} env-steps/s best "
            f"(median {c['median']:.0f}) "
            f"({c['episodes_ended']} episodes ended, reserves regenerated {c['chunk']} at a "
            f"time; warm-up {c['warmup_seconds']:.0f} s) load {_load()}",
            flush=True,
        )
        if args.scan:
            row["scan"] = sc = bench_scan(n, args.steps, params, static, args.repeats)
            print(
                f"N={n:5d} scan      {sc['env_steps_per_s']:9.0f} env-steps/s best "
                f"(median {sc['median']:.0f}) "
                f"({sc['episodes_ended']} episodes ended; compile {sc['warmup_seconds']:.0f} s) "
                f"load {_load()}",
                flush=True,
            )
        if not args.skip_make_vec:
            row["make_vec"] = m = bench_make_vec(n, args.steps, args.horizon, args.repeats)
            print(
                f"N={n:5d} make_vec  {m['env_steps_per_s']:9.0f} env-steps/s best "
                f"(median {m['median']:.0f}) "
                f"({m['agent_steps_per_s']:.0f} agent-steps/s, numpy out) load {_load()}",
                flush=True,
            )
        results.append(row)
        bar.update()
    bar.close()
    if args.json:
        with open(args.json, "w") as f:
            record = {"load_end": _load(), "glibc_tunables": tunables, "results": results}
            json.dump(record, f, indent=2)


if __name__ == "__main__":
    jnp.zeros(())  # start the backend before timing anything
    main()
