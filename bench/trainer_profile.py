"""Where the PPO trainer's time goes, and how close its network runs to the machine's limit.

    python -m bench.trainer_profile [--algo ippo] [--worlds 32] [--steps 64] [--repeats 5]
                                    [--preset paper-ippo] [--network mlp] [--json F] [--small]

One process, one ``PPOConfig`` (the defaults but for the flags: the full world, hidden 128,
4 epochs x 4 minibatches; or a preset of ``alem_train.presets`` at ``--worlds`` and ``--steps``,
its algorithm taking the place of ``--algo``; ``--network`` over either, as the reference MAPPO
runs its preset with ``mlp``). Each part is its own jitted program, compiled
first (its compile seconds reported) and then timed over ``--repeats`` calls, mean reported:
* ``world``: the batched auto-reset step (``alem_core.batch.auto_reset.step``) in a ``lax.scan``
  of ``--steps`` steps with NOOP actions, as the rollout steps it;
* ``rollout``: ``alem_train.ppo.rollout`` (the world, the policy's forward pass, sampling);
  ``policy_forward`` is ``rollout`` less ``world``;
* ``learn``: ``alem_train.ppo.update`` (GAE, then the epochs: forward, backward, optimiser);
* ``optimiser``: the optimiser alone, as many updates as ``learn`` makes, on gradients shaped
  like the parameters;
* ``train_call``: ``make_train_call`` with one update per call, called from Python as
  ``run_ppo`` calls it; ``host`` is ``train_call`` less ``rollout`` and ``learn``.
Beside them, in the same run, a dense GEMM of the first layer's shape (a minibatch's agent rows x
the actor's input width x hidden), 30 calls: the machine's rate for the work that dominates,
from its fastest call (a limit, which one short matmul reaches only now and then on a shared
machine; the mean is kept beside it). ``learn``'s rate is XLA's FLOP count of its work
(``learn_flops``) over its time, and the record gives it as a fraction of the GEMM's rate.
``host`` can come out slightly negative: the parts are timed in separate calls, and the whole
call's noise is that large.
"""

from __future__ import annotations

import argparse
import dataclasses
import json
import time
from collections.abc import Callable
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

import alem_core
from alem_core.batch import auto_reset as core_batch
from alem_train import ppo
from alem_train.presets import PRESETS, preset_config
from bench.common import load_average


def timed(fn: Callable, args: tuple, repeats: int) -> dict[str, float]:
    """Compile seconds (the first call) and the mean seconds of ``repeats`` further calls."""
    started = time.perf_counter()
    jax.block_until_ready(fn(*args))
    compile_s = time.perf_counter() - started
    seconds = []
    for _ in range(repeats):
        started = time.perf_counter()
        jax.block_until_ready(fn(*args))
        seconds.append(time.perf_counter() - started)
    return {"compile_s": compile_s, "mean_s": float(np.mean(seconds)), "min_s": min(seconds)}


def world_program(config: ppo.PPOConfig) -> Callable:
    """The rollout's world alone: ``num_steps`` batched steps with NOOP actions."""
    static, params, chunk = config.static(), config.env_params(), config.chunk
    noop = jnp.zeros((config.num_worlds, config.players), jnp.int32)

    def run(batch):
        def one(b, _):
            b, out = core_batch.step(b, noop, params, static, chunk)
            return b, out.reward.sum()

        return jax.lax.scan(one, batch, None, config.num_steps)

    return jax.jit(run)


def optimiser_program(config: ppo.PPOConfig, params: dict) -> Callable:
    """The optimiser's updates of one ``learn`` (epochs x minibatches) on unit gradients."""
    optimizer = ppo.make_optimizer(config)
    grads = jax.tree.map(jnp.ones_like, params)
    count = config.update_epochs * config.num_minibatches

    def run(params, opt_state):
        def one(carry, _):
            p, s = carry
            updates, s = optimizer.update(grads, s, p)
            return (jax.tree.map(jnp.add, p, updates), s), None

        return jax.lax.scan(one, (params, opt_state), None, count)[0]

    return jax.jit(run)


def gemm(config: ppo.PPOConfig, repeats: int) -> dict[str, float]:
    """A dense (rows x width) @ (width x hidden) of the actor's first layer on one minibatch."""
    rows = config.steps_per_update // config.num_minibatches * config.players
    width = alem_core.obs_size(config.static()) + config.players
    k_x, k_w = jax.random.split(jax.random.key(0))
    x = jax.random.normal(k_x, (rows, width), jnp.float32)
    w = jax.random.normal(k_w, (width, config.hidden), jnp.float32)
    out = timed(jax.jit(jnp.matmul), (x, w), max(repeats, 30))
    flops = 2.0 * rows * width * config.hidden
    best, mean = flops / out["min_s"] / 1e9, flops / out["mean_s"] / 1e9
    shape = [rows, width, config.hidden]
    return {**out, "shape": shape, "gflop_per_s": best, "mean_gflop_per_s": mean}


def learn_flops(config: ppo.PPOConfig, state: ppo.TrainState, traj: ppo.Transition) -> float:
    """FLOPs of one ``learn``: XLA's cost analysis counts a loop's body once, not once per trip,
    so it counts a ``learn`` of one epoch of one minibatch (the rollout's first steps, as many
    rows as a minibatch holds), and that is scaled by epochs x minibatches (GAE, a small part,
    is counted that many times too). Not counted for a recurrent network (NaN): its time loop
    would be counted once."""
    if config.recurrent:  # the GRU's time loop would be counted once, not once per step
        return float("nan")
    if config.num_steps % config.num_minibatches:
        raise ValueError("--steps must divide into the config's minibatches for the FLOP count")
    one = dataclasses.replace(
        config, num_steps=config.num_steps // config.num_minibatches, num_minibatches=1,
        update_epochs=1,
    )  # fmt: skip
    part = jax.tree.map(lambda x: x[: one.num_steps], traj)
    args = (state.params, state.opt_state, state.key, part, ppo.last_values(state, config))
    learn = jax.jit(lambda *a: ppo.learn(*a, one))
    cost = learn.lower(*args).compile().cost_analysis()
    cost = cost[0] if isinstance(cost, list) else cost
    return float(cost.get("flops", 0.0)) * config.update_epochs * config.num_minibatches


def profile(config: ppo.PPOConfig, repeats: int) -> dict[str, Any]:
    """Every part's seconds (module docstring) for one config."""
    state = ppo.init_train_state(jax.random.key(0), config)
    parts: dict[str, Any] = {"world": timed(world_program(config), (state.batch,), repeats)}
    roll = jax.jit(lambda s: ppo.rollout(s, config))
    parts["rollout"] = timed(roll, (state,), repeats)
    _, traj, _ = roll(state)
    learn = jax.jit(lambda s, t: ppo.update(s, t, s.memory, config))
    parts["learn"] = timed(learn, (state, traj), repeats)
    parts["learn"]["gflop"] = learn_flops(config, state, traj) / 1e9
    optimiser = optimiser_program(config, state.params)
    parts["optimiser"] = timed(optimiser, (state.params, state.opt_state), repeats)
    call, held = ppo.make_train_call(config), [ppo.init_train_state(jax.random.key(1), config)]

    def train_call():  # the call donates its state: each call feeds on the last one's output
        held[0], metrics = call(held[0])
        return metrics

    parts["train_call"] = timed(train_call, (), repeats)
    parts["policy_forward_s"] = parts["rollout"]["mean_s"] - parts["world"]["mean_s"]
    inside = parts["rollout"]["mean_s"] + parts["learn"]["mean_s"]
    parts["host_s"] = parts["train_call"]["mean_s"] - inside
    return parts


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--algo", default="ippo", choices=["ippo", "mappo"])
    parser.add_argument("--worlds", type=int, default=32)
    parser.add_argument("--steps", type=int, default=64)
    parser.add_argument("--repeats", type=int, default=5)
    parser.add_argument("--preset", default=None, choices=sorted(PRESETS))
    parser.add_argument(
        "--network", default=None, choices=["mlp", "gru"], help="over the preset or the defaults"
    )
    parser.add_argument("--json", default=None)
    parser.add_argument("--small", action="store_true", help="16 x 16, one floor (tests)")
    args = parser.parse_args()
    world = {"map_size": 16, "num_levels": 1} if args.small else {}
    sizes = dict(num_worlds=args.worlds, num_steps=args.steps, updates_per_call=1, **world)
    sizes |= {"network": args.network} if args.network else {}
    if args.preset:
        config = preset_config(args.preset, **sizes)
    else:
        config = ppo.PPOConfig(algo=args.algo, **sizes)
    load_before = load_average()
    parts = profile(config, args.repeats)
    machine = gemm(config, args.repeats)
    network = parts["learn"]["gflop"] / parts["learn"]["mean_s"]
    env_steps = config.steps_per_update
    report = {
        "command": "python -m bench.trainer_profile " + " ".join(
            f"--{k} {v}" for k, v in vars(args).items() if v not in (None, False)
        ),
        "jax": jax.__version__, "device": jax.devices()[0].platform, "config": vars(config),
        "parts": parts, "gemm": machine, "learn_gflop_per_s": network,
        "learn_fraction_of_gemm": network / machine["gflop_per_s"],
        "trainer_env_steps_per_s": env_steps / parts["train_call"]["mean_s"],
        "world_env_steps_per_s": env_steps / parts["world"]["mean_s"],
        "load": [load_before, load_average()],
    }  # fmt: skip
    for name in ("world", "rollout", "learn", "optimiser", "train_call"):
        p = parts[name]
        print(f"{name:11s} {p['mean_s'] * 1e3:8.1f} ms   (compile {p['compile_s']:.1f} s)")
    forward, host = parts["policy_forward_s"] * 1e3, parts["host_s"] * 1e3
    print(f"policy forward {forward:.1f} ms, host {host:.1f} ms")
    print(
        f"trainer {report['trainer_env_steps_per_s']:,.0f} env-steps/s, world alone "
        f"{report['world_env_steps_per_s']:,.0f}; learn {network:.1f} GFLOP/s = "
        f"{report['learn_fraction_of_gemm']:.2f} of the first layer's GEMM "
        f"({machine['gflop_per_s']:.1f} GFLOP/s, {machine['shape']}); load {report['load']}"
    )
    if args.json:
        with open(args.json, "w") as f:
            json.dump(report, f, indent=1, default=str)


if __name__ == "__main__":
    main()
