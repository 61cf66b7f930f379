"""PPO on alem with RLlib (new API stack): one shared, action-masked policy for every agent.

Install in a venv of its own (ray 2.60 pins gymnasium 1.2.2), from the repository root::

    python3 -m venv ~/venvs/alem-rllib && source ~/venvs/alem-rllib/bin/activate
    pip install -e ".[rllib]"

Run on this machine (a local Ray with ``--num-cpus`` CPUs)::

    python examples/rllib_ppo.py --iterations 5 --num-env-runners 1

Run on a Ray cluster: the same script, only the address and the number of env runners change::

    python examples/rllib_ppo.py --address auto --num-env-runners 16

The env is ``alem_pz.envs.rllib.rllib_env``: RLlib's ``ParallelPettingZooEnv`` over alem with the
legal-action mask in every observation (``{"observations", "action_mask"}``), which
``alem_pz.envs.rllib_module.MaskedPPOTorchModule`` (PPO's default module on RLlib's current API)
turns into the lowest logits for illegal actions. The defaults are a small
world (16 x 16, one floor, 3 players, 100-step episodes) and small batches, so a few iterations
take minutes on 2 cores; pass ``--map-size 48 --floors 9`` for the full world.
"""

from __future__ import annotations

import argparse
import os
import time
from typing import Any

import ray
from ray.rllib.algorithms.ppo import PPOConfig
from ray.rllib.core.rl_module.multi_rl_module import MultiRLModuleSpec
from ray.rllib.core.rl_module.rl_module import RLModuleSpec
from ray.rllib.utils.metrics import (
    ENV_RUNNER_RESULTS,
    ENV_RUNNER_SAMPLING_TIMER,
    EPISODE_RETURN_MEAN,
    NUM_ENV_STEPS_SAMPLED,
    NUM_EPISODES,
    TIMERS,
)
from ray.tune.registry import register_env

import alem_core
from alem_pz.envs.rllib import rllib_env
from alem_pz.envs.rllib_module import MaskedPPOTorchModule

ENV_NAME = "alem_rllib"
SHARED_POLICY = "shared"
# Passed on to every Ray worker, so env runners compile for the CPU and use the same on-disk
# compilation cache as this process (alem's default cache, or the one chosen here): compiling
# alem's step costs tens of seconds per process without it.
_JAX_ENV_VARS = ("JAX_PLATFORMS", "JAX_COMPILATION_CACHE_DIR", "ALEM_COMPILATION_CACHE")
REPORT = (
    "iteration {iteration}: {env_steps_sampled} env steps, {episodes} episodes, "
    "return mean {episode_return_mean:.3f}, {seconds:.1f} s, {env_steps_per_s:.1f} env steps/s "
    "({sampling_env_steps_per_s:.1f} while sampling)"
)


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    p.add_argument(
        "--address",
        default=None,
        help="Ray cluster address ('auto' or host:port); default: start a local Ray",
    )
    p.add_argument("--num-cpus", type=int, default=2, help="CPUs of the local Ray (no --address)")
    p.add_argument("--num-env-runners", type=int, default=1, help="remote sampling workers")
    p.add_argument("--iterations", type=int, default=3, help="training iterations")
    p.add_argument("--map-size", type=int, default=16, help="world is map-size x map-size")
    p.add_argument("--floors", type=int, default=1, help="dungeon floors (full world: 9)")
    p.add_argument("--players", type=int, default=3)
    p.add_argument("--difficulty", default="medium")
    p.add_argument("--max-steps", type=int, default=100, help="episode length (truncation)")
    p.add_argument("--train-batch", type=int, default=400, help="env steps per iteration")
    p.add_argument("--minibatch", type=int, default=200)
    p.add_argument("--epochs", type=int, default=1)
    p.add_argument("--hidden", type=int, default=64, help="width of the two hidden layers")
    p.add_argument("--seed", type=int, default=0)
    return p.parse_args(argv)


def env_config(args: argparse.Namespace) -> dict[str, Any]:
    """alem keyword arguments for every env runner's env."""
    static = alem_core.StaticParams(
        map_size=(args.map_size, args.map_size),
        num_levels=args.floors,
        player_count=args.players,
    )
    return dict(
        players=args.players, difficulty=args.difficulty, max_steps=args.max_steps, static=static
    )


def module_spec(args: argparse.Namespace) -> RLModuleSpec:
    """PPO's default module with alem's mask applied: illegal actions get the lowest logit."""
    return RLModuleSpec(
        module_class=MaskedPPOTorchModule,
        model_config={"fcnet_hiddens": [args.hidden, args.hidden], "head_fcnet_hiddens": []},
    )


def ppo_config(args: argparse.Namespace) -> PPOConfig:
    """PPO with one action-masking module shared by all agents."""
    module = module_spec(args)
    return (
        PPOConfig()
        .environment(ENV_NAME, env_config=env_config(args))
        .env_runners(num_env_runners=args.num_env_runners, num_cpus_per_env_runner=1)
        .multi_agent(
            policies={SHARED_POLICY},
            policy_mapping_fn=lambda agent_id, episode, **kwargs: SHARED_POLICY,
        )
        .rl_module(rl_module_spec=MultiRLModuleSpec(rl_module_specs={SHARED_POLICY: module}))
        .training(
            train_batch_size_per_learner=args.train_batch,
            minibatch_size=args.minibatch,
            num_epochs=args.epochs,
        )
        .debugging(seed=args.seed)
    )


def start_ray(args: argparse.Namespace) -> None:
    env_vars = {name: os.environ[name] for name in _JAX_ENV_VARS if name in os.environ}
    env_vars.setdefault("JAX_PLATFORMS", "cpu")
    # RLlib's env runners batch the agents of a step in the order of a set of agent ids
    # (MultiAgentEpisode.get_agents_to_act), which follows the string hash: without a fixed
    # hash seed, the same --seed hands the agents different random draws on every run.
    env_vars["PYTHONHASHSEED"] = os.environ.get("PYTHONHASHSEED", "0")
    runtime_env = {"env_vars": env_vars}
    if args.address:  # a running cluster brings its own CPUs
        ray.init(address=args.address, runtime_env=runtime_env)
    else:
        ray.init(num_cpus=args.num_cpus, include_dashboard=False, runtime_env=runtime_env)


def summary(iteration: int, result: dict[str, Any], seconds: float) -> dict[str, Any]:
    """The figures printed for one iteration: env steps per second over the whole iteration
    (sampling and learning) and over sampling alone (RLlib's smoothed sampling timer)."""
    runners = result[ENV_RUNNER_RESULTS]
    steps = int(runners[NUM_ENV_STEPS_SAMPLED])
    sampling_s = float(result[TIMERS][ENV_RUNNER_SAMPLING_TIMER])
    return {
        "iteration": iteration,
        "env_steps_sampled": steps,
        "episodes": int(runners.get(NUM_EPISODES, 0)),
        "episode_return_mean": float(runners.get(EPISODE_RETURN_MEAN, float("nan"))),
        "seconds": seconds,
        "env_steps_per_s": steps / seconds,
        "sampling_env_steps_per_s": steps / sampling_s,
    }


def main(argv: list[str] | None = None) -> list[dict[str, Any]]:
    """Train for ``--iterations``; returns one ``summary`` per iteration."""
    args = parse_args(argv)
    register_env(ENV_NAME, rllib_env)
    start_ray(args)
    algo, results = None, []
    try:
        algo = ppo_config(args).build_algo()
        for i in range(1, args.iterations + 1):
            start = time.perf_counter()
            result = algo.train()
            results.append(summary(i, result, time.perf_counter() - start))
            print(REPORT.format(**results[-1]), flush=True)
    finally:
        if algo is not None:
            algo.stop()
        ray.shutdown()
    return results


if __name__ == "__main__":
    main()
