"""IPPO in JaxMARL's style on alem: the env through JaxMARL's interface (``LogWrapper``,
``vmap(env.step)``, dict observations, ``get_avail_actions``), the whole training one jitted
function of a key.

    pip install -e ".[jaxmarl,train]"
    python examples/jaxmarl_ippo.py --updates 20

The learning step is ``alem_train.ppo.learn`` (GAE, PPO clip, clipped value loss, entropy),
the one our batched trainer uses; only the rollout here is JaxMARL's way of stepping.
One network is shared by the agents, each reading its own observation and a one-hot agent id.
Actions are sampled from the masked policy, so an illegal action has probability exactly 0;
the rollout counts the env's ``illegal_action`` flags anyway, so a test can hold them at zero.
"""

from __future__ import annotations

import argparse
import time

import jax
import jax.numpy as jnp
from jaxmarl.wrappers.baselines import LogWrapper

import alem_core
from alem_pz.envs.jaxmarl import AlemJaxMARL
from alem_pz.evaluation.protocol import PROTOCOL_PARAMS
from alem_train import networks, ppo
from alem_train.objectives.actor_critic import log_prob


def stack(per_agent: dict, agents: list[str]) -> jax.Array:
    """{agent: (N, ...)} -> (N, P, ...)."""
    return jnp.stack([per_agent[a] for a in agents], axis=1)


def make_env(config: ppo.PPOConfig) -> LogWrapper:
    return LogWrapper(
        AlemJaxMARL(
            static=config.static(),
            difficulty=config.difficulty,
            max_steps=config.max_steps,
            params=PROTOCOL_PARAMS,
        )
    )


def make_train(config: ppo.PPOConfig, updates: int):
    """``train(key) -> (params, metrics)``: ``updates`` IPPO updates, one jitted call."""
    env = make_env(config)
    agents, n = env.agents, config.num_worlds

    def policy(params, obs, mask, key):
        logits = networks.masked_logits(params["actor"], obs, mask)
        action = jax.random.categorical(key, logits).astype(jnp.int32)
        value = networks.values(params["critic"], obs, central=False)
        return action, log_prob(logits, action), value

    def env_step(carry, key):
        params, env_state, obs = carry
        k_act, k_env = jax.random.split(key)
        mask = stack(jax.vmap(env.get_avail_actions)(env_state.env_state), agents)
        world = env_state.env_state.world
        valid, alive = jax.vmap(alem_core.acting)(world), world.players.alive
        action, logp, value = policy(params, obs, mask, k_act)
        actions = {a: action[:, i] for i, a in enumerate(agents)}
        next_obs, env_state, reward, dones, info = jax.vmap(env.step)(
            jax.random.split(k_env, n), env_state, actions
        )
        end = stack(dones, agents) | (alive & ~info["alive"])  # an agent's death ends its chain
        step = ppo.Transition(obs, mask, action, logp, value, stack(reward, agents), end, valid)
        ended = info["returned_episode"][:, 0]
        returns = jnp.where(ended, info["returned_episode_returns"].mean(axis=1), 0.0)
        stats = {
            "illegal": info["illegal_action"].sum(),
            "episodes": ended.sum(),
            "return_sum": returns.sum(),
        }
        return (params, env_state, stack(next_obs, agents)), (step, stats)

    def one_update(carry, key):
        params, opt_state, env_state, obs = carry
        k_roll, k_learn = jax.random.split(key)
        (params, env_state, obs), (traj, stats) = jax.lax.scan(
            env_step, (params, env_state, obs), jax.random.split(k_roll, config.num_steps)
        )
        last_value = networks.values(params["critic"], obs, central=False)
        params, opt_state, losses = ppo.learn(params, opt_state, k_learn, traj, last_value, config)
        return (params, opt_state, env_state, obs), {**jax.tree.map(jnp.sum, stats), **losses}

    def train(key):
        k_net, k_env, k_run = jax.random.split(key, 3)
        static = config.static()
        params = networks.init_actor_critic(
            k_net, alem_core.obs_size(static), config.players, static.num_actions,
            config.hidden, central=False,
        )  # fmt: skip
        opt_state = ppo.make_optimizer(config).init(params)
        obs, env_state = jax.vmap(env.reset)(jax.random.split(k_env, n))
        carry = (params, opt_state, env_state, stack(obs, agents))
        (params, *_), metrics = jax.lax.scan(one_update, carry, jax.random.split(k_run, updates))
        return params, metrics

    return jax.jit(train)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--updates", type=int, default=20)
    parser.add_argument("--envs", type=int, default=8)
    parser.add_argument("--steps", type=int, default=64, help="rollout length per update")
    parser.add_argument("--max-steps", type=int, default=500, help="episode horizon")
    parser.add_argument("--map-size", type=int, default=16)
    parser.add_argument("--levels", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = ppo.PPOConfig(
        num_worlds=args.envs, num_steps=args.steps, max_steps=args.max_steps,
        map_size=args.map_size, num_levels=args.levels, update_epochs=2, num_minibatches=2,
        hidden=64, total_env_steps=args.updates * args.envs * args.steps,
    )  # fmt: skip
    start = time.perf_counter()
    _, metrics = jax.block_until_ready(make_train(config, args.updates)(jax.random.key(args.seed)))
    seconds = time.perf_counter() - start
    metrics = jax.tree.map(lambda x: x.tolist(), metrics)
    for u in range(args.updates):
        done = metrics["episodes"][u]
        mean = metrics["return_sum"][u] / done if done else float("nan")
        print(f"update {u + 1:3d}: episodes {done:3d}, mean return {mean:7.3f}, "
              f"illegal {metrics['illegal'][u]}, loss {metrics['actor_loss'][u]:+.4f}")  # fmt: skip
    print(f"{args.updates} updates, {args.updates * args.envs * args.steps} env steps in "
          f"{seconds:.1f} s (compile included)")  # fmt: skip
    return metrics


if __name__ == "__main__":
    main()
