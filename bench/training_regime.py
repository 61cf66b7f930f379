"""Throughput in the regime training lives in: episodes end and reset inside the timed window.

    python -m bench.training_regime [--worlds 64 256] [--steps 2000] [--paths ...] [--json F]

For each N (``bench.common.world``: 48 x 48, 9-floor state, 3 agents, "medium", the default
``max_steps``, or ``--horizon`` steps: a short cap makes every world end and reset inside the
window), from a fresh ``reset`` with a masked-random team (uniform over each agent's legal
actions), ``--steps`` steps are timed whole (no best window is picked), the paths interleaved:
each advances ``CHUNK`` steps in turn, round after round, and its figure is its steps over the
sum of its own chunks' seconds, so a change of the machine's load during the run weighs on all
of them alike:
* ``make_vec``: ``gymnasium.make_vec("alem/Coop-v0")``, numpy out, the actions drawn with numpy
  on the host: what a PyTorch loop sees, minus its network. Per-step times split the steps on
  which no world ended from those on which some did.
* ``scan``: ``alem_core.batch.auto_reset.step`` inside a jitted ``lax.scan`` of 128-step
  rollouts (a PPO rollout's length), actions drawn on the device, as ``alem_train.ppo`` runs it.
* ``jaxmarl``: ``alem_pz.envs.jaxmarl.AlemJaxMARL`` under JaxMARL's ``LogWrapper``, stepped as
  JaxMARL's trainers step it (``vmap(env.step)`` in the same jitted scans, actions from
  ``get_avail_actions``): held to ``scan`` (not in the default ``--paths``; needs JaxMARL).
* ``runner``: ``alem_core.BatchRunner.step`` from Python with the same numpy actions, reading
  back only the action mask: ``make_vec`` less its host side, so the two split the cost of a
  call from Python from the cost of what crosses to numpy.
* ``bare``: the reference the others are held to, ``alem_core.step`` (transition and observation)
  vmapped over the N worlds in a ``lax.scan`` with no resets, in ``ROLLOUT``-step windows from
  fresh worlds (teams alive), each step's observation kept in memory (the scan's carry), as
  any consumer of it needs and as the other paths do.
* ``bare_summed``: the same with each step's observation only summed, which lets XLA fuse the
  observation into the sum and never write it out: a floor no consumer of the observation can
  reach, and the form in which ``python -m bench.parity speed`` times the published package (it
  folds observations into a checksum), so the two compare (not in the default ``--paths``).
Compilation happens before each timed window and is reported apart. Env-steps/s counts
world-steps: N x steps / seconds. The load average is printed beside the figures: on a shared
machine every figure scales with the free cores.
"""

from __future__ import annotations

import argparse
import functools
import json
import sys
import time

import jax
import jax.numpy as jnp
import numpy as np

from bench.common import DIFFICULTY, HORIZON, load_average, peak_device_bytes, world

ROLLOUT = 128
"""Steps per scan call on the ``scan`` path (a PPO rollout's length)."""
CHUNK = 2 * ROLLOUT
"""Steps each path advances per turn (two calls of the scan and bare paths)."""


class PathUnderTest:
    """One path, compiled and ready: ``advance(steps)`` runs at least ``steps`` more steps (whole
    calls) and returns how many it ran; ``stats`` holds its counters. Timing is the caller's."""

    def __init__(self, compile_s: float, advance, stats: dict) -> None:
        self.compile_s, self.advance, self.stats = compile_s, advance, stats


def make_vec(n: int, small: bool = False, horizon: int = HORIZON) -> PathUnderTest:
    """``gymnasium.make_vec`` from a fresh reset, one host step per step."""
    import gymnasium

    import alem_pz  # noqa: F401  (registers alem/Coop-v0)
    from alem_pz.evaluation.baselines import MaskedRandom

    _, static = world(small)
    envs = gymnasium.make_vec(
        "alem/Coop-v0", num_envs=n, vectorization_mode="vector_entry_point", static=static,
        max_steps=horizon,
    )  # fmt: skip
    team = MaskedRandom(0)
    players = envs.num_envs // n
    start = time.perf_counter()
    _, infos = envs.reset(seed=0)
    stats: dict = {"per_step": [], "ends": [], "infos": infos}

    def advance(steps: int) -> int:
        infos = stats["infos"]
        for _ in range(steps):
            tick = time.perf_counter()
            _, _, term, trunc, infos = envs.step(team.actions(infos["action_mask"]))
            stats["per_step"].append(time.perf_counter() - tick)
            stats["ends"].append(int((term | trunc).reshape(n, players).any(axis=1).sum()))
        stats["infos"] = infos
        return steps

    return PathUnderTest(time.perf_counter() - start, advance, stats)


def runner(n: int, small: bool = False, horizon: int = HORIZON) -> PathUnderTest:
    """``BatchRunner.step`` called from Python once per step, the same masked-random numpy
    actions as ``make_vec``, reading back only the action mask: ``make_vec`` without its host
    side (the observation copied out, the infos), so the two split the cost of a call from
    Python from the cost of what crosses to numpy."""
    from alem_core.batch.runner import BatchRunner
    from alem_pz.evaluation.baselines import MaskedRandom

    params, static = world(small, max_steps=horizon)
    team = MaskedRandom(0)
    start = time.perf_counter()
    batch = BatchRunner(n, params, static)
    out = batch.reset(0)
    stats: dict = {"mask": np.asarray(out.info["action_mask"]), "episodes_ended": 0}

    def advance(steps: int) -> int:
        mask = stats["mask"]
        for _ in range(steps):
            out = batch.step(team.actions(mask).astype(np.int32))
            mask = np.asarray(out.info["action_mask"])
            stats["episodes_ended"] += int(out.info["ended"])
        stats["mask"] = mask
        return steps

    return PathUnderTest(time.perf_counter() - start, advance, stats)


def make_vec_result(path: PathUnderTest) -> dict:
    per_step, ends = np.array(path.stats["per_step"]), np.array(path.stats["ends"])
    quiet, busy = per_step[ends == 0], per_step[ends > 0]
    return {
        "episodes_ended": int(ends.sum()),
        "median_ms_no_end": 1e3 * float(np.median(quiet)) if quiet.size else None,
        "median_ms_with_end": 1e3 * float(np.median(busy)) if busy.size else None,
        "steps_with_end": int(busy.size),
    }


def auto_reset_rollout(n: int, length: int, arrays, static, chunk: int):
    """Jitted ``(batch, out, key) -> (batch, out, worlds ended)``: ``length`` calls of
    ``auto_reset.step`` in a ``lax.scan``, masked-random actions drawn on the device; the carry
    keeps each step's observation. Batch and output are donated."""
    from alem_core.batch import auto_reset as core_batch
    from alem_core.testing.rollout import random_legal_actions

    def rollout(batch, out, key):
        def one(carry, k):
            batch, out = carry
            acts = jax.vmap(random_legal_actions)(jax.random.split(k, n), out.info["action_mask"])
            batch, nxt = core_batch.step(batch, acts, arrays, static, chunk, score=False)
            return (batch, nxt), nxt.info["done"].sum()

        (batch, out), ended = jax.lax.scan(one, (batch, out), jax.random.split(key, length))
        return batch, out, ended.sum()

    return jax.jit(rollout, donate_argnums=(0, 1))


@functools.partial(jax.jit, static_argnums=(1, 3))
def fresh_batch(key, n: int, arrays, static):
    """``auto_reset.init`` without the score table (the rollouts' steps carry none)."""
    from alem_core.batch import auto_reset as core_batch

    batch, out = core_batch.init(key, n, arrays, static)
    return batch, out._replace(info={k: v for k, v in out.info.items() if k != "score"})


def scan(n: int, small: bool = False, horizon: int = HORIZON) -> PathUnderTest:
    """``auto_reset.step`` in jitted ``ROLLOUT``-step scans from a fresh batch."""
    from alem_core.batch.runner import default_chunk

    params, static = world(small, max_steps=horizon)
    arrays = params.as_arrays()
    run = auto_reset_rollout(n, ROLLOUT, arrays, static, default_chunk(n))
    return rollout_path(run, lambda: fresh_batch(jax.random.key(0), n, arrays, static))


def rollout_path(run, fresh) -> PathUnderTest:
    """A path of jitted ``ROLLOUT``-step calls ``run(*carry, key) -> (*carry, worlds ended)``,
    compiled on ``fresh()``'s carry and timed from another ``fresh()`` one (the scan and
    JaxMARL paths)."""
    start = time.perf_counter()
    jax.block_until_ready(run(*fresh(), jax.random.key(1)))  # compiles
    compile_s = time.perf_counter() - start
    carry = jax.block_until_ready(fresh())
    stats: dict = {"episodes_ended": 0, "calls": 0}

    def advance(steps: int) -> int:
        nonlocal carry
        calls, ended = -(-steps // ROLLOUT), 0
        for _ in range(calls):
            *carry, count = run(*carry, jax.random.key(2 + stats["calls"]))
            ended, stats["calls"] = ended + count, stats["calls"] + 1
        stats["episodes_ended"] += int(jax.block_until_ready(ended))
        return calls * ROLLOUT

    return PathUnderTest(compile_s, advance, stats)


def jaxmarl(n: int, small: bool = False, horizon: int = HORIZON) -> PathUnderTest:
    """``AlemJaxMARL`` under JaxMARL's ``LogWrapper``: ``vmap(env.step)`` in jitted
    ``ROLLOUT``-step scans, masked-random actions from ``get_avail_actions``, each step's
    observation kept in the carry: what a JaxMARL trainer's rollout runs."""
    from jaxmarl.wrappers.baselines import LogWrapper

    from alem_core.testing.rollout import random_legal_actions
    from alem_pz.envs.jaxmarl import AlemJaxMARL

    _, static = world(small, max_steps=horizon)
    env = LogWrapper(AlemJaxMARL(static=static, difficulty=DIFFICULTY, max_steps=horizon))

    def rollout(state, obs, key):
        def one(carry, k):
            state, _ = carry
            k_act, k_env = jax.random.split(k)
            avail = jax.vmap(env.get_avail_actions)(state.env_state)
            masks = jnp.stack([avail[a] for a in env.agents], axis=1)
            acts = jax.vmap(random_legal_actions)(jax.random.split(k_act, n), masks)
            actions = {a: acts[:, i] for i, a in enumerate(env.agents)}
            obs, state, _, dones, _ = jax.vmap(env.step)(jax.random.split(k_env, n), state, actions)
            return (state, obs), dones["__all__"].sum()

        (state, obs), ended = jax.lax.scan(one, (state, obs), jax.random.split(key, ROLLOUT))
        return state, obs, ended.sum()

    run = jax.jit(rollout, donate_argnums=(0, 1))
    reset = jax.jit(jax.vmap(env.reset))
    return rollout_path(run, lambda: reset(jax.random.split(jax.random.key(0), n))[::-1])


def bare(
    n: int, small: bool = False, horizon: int = HORIZON, keep_obs: bool = True
) -> PathUnderTest:
    """``alem_core.step`` vmapped in ``ROLLOUT``-step scans from fresh worlds, no resets; with
    ``keep_obs`` each step's observation is written to the scan's carry, else only summed."""
    import alem_core
    from alem_core.testing.rollout import random_legal_actions

    params, static = world(small, max_steps=horizon)
    arrays = params.as_arrays()

    def window(states, masks, key):
        def one(carry, k):
            states, masks, kept = carry
            keys = jax.random.split(k, 2 * n)
            acts = jax.vmap(random_legal_actions)(keys[:n], masks)
            obs, states, _, _, _, info = jax.vmap(
                lambda kk, s, a: alem_core.step(kk, s, a, arrays, static)
            )(keys[n:], states, acts)
            if keep_obs:  # the carry holds it; nothing else reads it
                return (states, info["action_mask"], obs), jnp.float32(0)
            return (states, info["action_mask"], kept), obs.sum()

        kept = jnp.zeros((n, static.player_count, alem_core.obs_size(static)), jnp.float32)
        carry, sums = jax.lax.scan(one, (states, masks, kept), jax.random.split(key, ROLLOUT))
        return sums.sum() + carry[2].reshape(-1)[0]

    reset = jax.jit(jax.vmap(lambda k: alem_core.reset(k, arrays, static)))
    run = jax.jit(window)
    start = time.perf_counter()
    _, states = reset(jax.random.split(jax.random.key(0), n))
    masks = jax.jit(jax.vmap(lambda s: alem_core.observe(s, arrays, static)[1]))(states)
    jax.block_until_ready(run(states, masks, jax.random.key(1)))
    stats: dict = {"calls": 0}

    def advance(steps: int) -> int:
        calls = -(-steps // ROLLOUT)
        for i in range(calls):
            total = run(states, masks, jax.random.key(2 + stats["calls"] + i))
        jax.block_until_ready(total)
        stats["calls"] += calls
        return calls * ROLLOUT

    return PathUnderTest(time.perf_counter() - start, advance, stats)


def bare_summed(n: int, small: bool = False, horizon: int = HORIZON) -> PathUnderTest:
    """``bare`` with each step's observation only summed (see the module docstring)."""
    return bare(n, small, horizon, keep_obs=False)


PATHS = {
    "bare": bare,
    "bare_summed": bare_summed,
    "jaxmarl": jaxmarl,
    "make_vec": make_vec,
    "runner": runner,
    "scan": scan,
}
DEFAULT_PATHS = ["bare", "scan", "runner", "make_vec"]


def interleave(paths: dict[str, PathUnderTest], steps: int) -> dict[str, dict]:
    """Advance every path ``CHUNK`` steps in turn until each ran ``steps``; per path: steps,
    seconds (its own chunks only), env-steps/s counted by the caller, and the load seen."""
    done = {name: 0 for name in paths}
    seconds = {name: 0.0 for name in paths}
    loads = []
    while any(d < steps for d in done.values()):
        for name, path in paths.items():
            if done[name] < steps:
                start = time.perf_counter()
                done[name] += path.advance(min(CHUNK, steps - done[name]))
                seconds[name] += time.perf_counter() - start
        loads.append(load_average())
    return {name: {"steps": done[name], "seconds": seconds[name], "loads": loads} for name in paths}


def measure(
    worlds: list[int], steps: int, paths: list[str], small: bool = False, horizon: int = HORIZON
) -> list[dict]:
    rows = []
    for n in worlds:
        built = {name: PATHS[name](n, small, horizon) for name in paths}
        timed = interleave(built, steps)
        row: dict = {"worlds": n, "steps": steps}
        for name, path in built.items():
            r = timed[name]
            row[name] = {
                "env_steps_per_s": n * r["steps"] / r["seconds"],
                "seconds": r["seconds"],
                "steps": r["steps"],
                "compile_s": path.compile_s,
                "peak_device_bytes": peak_device_bytes(),
                "load": r["loads"][-1],
                "load_min_max": [min(v[0] for v in r["loads"]), max(v[0] for v in r["loads"])],
            }
            if name == "make_vec":
                row[name] |= make_vec_result(path)
            elif "episodes_ended" in path.stats:
                row[name]["episodes_ended"] = path.stats["episodes_ended"]
        if "bare" in row:
            ref = row["bare"]["env_steps_per_s"]
            for name in set(paths) - {"bare"}:
                row[name]["of_bare"] = row[name]["env_steps_per_s"] / ref
        if "scan" in row and "jaxmarl" in row:  # the JaxMARL env is held to the scan path
            row["jaxmarl"]["of_scan"] = (
                row["jaxmarl"]["env_steps_per_s"] / row["scan"]["env_steps_per_s"]
            )
        rows.append(row)
        print(_line(row), flush=True)
    return rows


def _line(row: dict) -> str:
    parts = [f"N={row['worlds']}"]
    for name in ("bare", "bare_summed", "scan", "jaxmarl", "runner", "make_vec"):
        if name in row:
            r = row[name]
            share = f" ({r['of_bare']:.2f} of bare)" if "of_bare" in r else ""
            share += f" ({r['of_scan']:.2f} of scan)" if "of_scan" in r else ""
            ended = f", {r['episodes_ended']} ended" if "episodes_ended" in r else ""
            parts.append(f"{name} {r['env_steps_per_s']:,.0f}{share}{ended}")
    if "make_vec" in row:
        r = row["make_vec"]
        quiet, busy = (r[k] or float("nan") for k in ("median_ms_no_end", "median_ms_with_end"))
        parts.append(
            f"make_vec step median {quiet:.1f} ms without an end, "
            f"{busy:.1f} ms with ({r['steps_with_end']} steps)"
        )
    low, high = next(row[name]["load_min_max"] for name in PATHS if name in row)
    return " | ".join(parts) + f" | 1-min load {low}-{high} during the run"


def main(argv: list[str] | None = None) -> list[dict]:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--worlds", type=int, nargs="+", default=[64, 256])
    parser.add_argument("--steps", type=int, default=2000)
    parser.add_argument("--paths", nargs="+", default=DEFAULT_PATHS, choices=list(PATHS))
    parser.add_argument("--small", action="store_true", help="16 x 16, one floor (a smoke test)")
    parser.add_argument(
        "--horizon", type=int, default=HORIZON,
        help="episode cap in steps: a short one makes every world reset inside the window",
    )  # fmt: skip
    parser.add_argument("--json", default=None)
    argv = sys.argv[1:] if argv is None else argv
    args = parser.parse_args(argv)
    device = jax.local_devices()[0].device_kind
    print(f"jax {jax.__version__} on {device}; load {load_average()}", flush=True)
    rows = measure(args.worlds, args.steps, args.paths, args.small, args.horizon)
    if args.json:
        record = {"command": " ".join(["python -m bench.training_regime", *argv]),
                  "jax": jax.__version__, "device": device, "rows": rows}  # fmt: skip
        with open(args.json, "w") as f:
            json.dump(record, f, indent=1)
    return rows


if __name__ == "__main__":
    main()
