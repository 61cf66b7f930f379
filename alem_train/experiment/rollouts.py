"""Team policies and group rollouts in the docs/training.md#objectives 4.1 layout ([B, G, T, N]).

A group is G rollouts that start from the same reset key (the same world) and differ only in
the actions sampled, so a group-normalised advantage compares joint behaviours on one world.
Every step of every rollout is stepped inside one jitted ``lax.scan``; steps after an
episode's end are still computed (shapes stay fixed) but are marked invalid and pay nothing.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
from jax import Array

from alem_train.experiment.envs import TaskEnv
from alem_train.networks import init_mlp, mlp, with_agent_id
from alem_train.objectives.actor_critic import log_prob


class Batch(NamedTuple):
    obs: Array  # [B,G,T,N,D]
    mask: Array  # [B,G,T,N,A] bool, legal actions
    actions: Array  # [B,G,T,N] int32
    logp: Array  # [B,G,T,N] behaviour log-probs
    act: Array  # [B,G,T,N] bool, the world consumed the action (active set)
    valid: Array  # [B,G,T] bool, the step exists (before the episode's end)
    rewards: Array  # [B,G,T] team reward (0 on invalid steps)
    done: Array  # [B,G,T] bool, the episode ended at this step
    returns: Array  # [B,G] team episode return


def init_actors(key: Array, env: TaskEnv, hidden: int, shared: bool) -> list:
    """2 x ``hidden`` tanh MLP actors over (obs, agent id): one (shared) or one per agent,
    stacked on a leading agent axis."""
    sizes = [env.obs_size + env.num_agents, hidden, hidden, env.num_actions]
    if shared:
        return init_mlp(key, sizes, 0.01)
    keys = jax.random.split(key, env.num_agents)
    return jax.vmap(lambda k: init_mlp(k, sizes, 0.01))(keys)


def team_logits(actors: list, obs: Array, mask: Array, shared: bool) -> Array:
    """[..., N, A] logits of every agent, illegal actions at -inf."""
    x = with_agent_id(obs, obs.shape[-2])
    per_agent = jax.vmap(mlp, in_axes=(0, -2), out_axes=-2)
    logits = mlp(actors, x) if shared else per_agent(actors, x)
    return jnp.where(mask, logits, -jnp.inf)


def _episode(env: TaskEnv, actors, shared: bool, reset_key: Array, key: Array):
    """One rollout of ``env.horizon`` steps from ``reset_key``'s world, actions from ``key``."""
    obs, state = env.reset(reset_key)

    def one_step(carry, step_key):
        obs, state, running = carry
        k_act, k_env = jax.random.split(step_key)
        mask = env.action_mask(state)
        logits = team_logits(actors, obs, mask, shared)
        actions = jax.random.categorical(k_act, logits).astype(jnp.int32)
        act = env.acting(state) & running
        next_obs, next_state, reward, done = env.step(k_env, state, actions)
        row = (obs, mask, actions, log_prob(logits, actions), act, running)
        row += (jnp.where(running, reward, 0.0), done & running)
        return (next_obs, next_state, running & ~done), row

    keys = jax.random.split(key, env.horizon)
    _, rows = jax.lax.scan(one_step, (obs, state, jnp.array(True)), keys)
    return rows


def collect(env: TaskEnv, actors, shared: bool, key: Array, groups: int, group_size: int) -> Batch:
    """B = ``groups`` worlds, each rolled out G = ``group_size`` times (jit this with env,
    shared, groups and group_size static)."""
    k_worlds, k_actions = jax.random.split(key)
    reset_keys = jax.random.split(k_worlds, groups)
    reset_keys = jnp.repeat(reset_keys[:, None], group_size, axis=1)
    action_keys = jax.random.split(k_actions, groups * group_size).reshape(groups, group_size, -1)
    run = jax.vmap(jax.vmap(lambda rk, ak: _episode(env, actors, shared, rk, ak)))
    obs, mask, actions, logp, act, valid, rewards, done = run(reset_keys, action_keys)
    return Batch(obs, mask, actions, logp, act, valid, rewards, done, rewards.sum(axis=-1))


def env_steps(batch: Batch) -> Array:
    """World steps the batch really played (invalid padding excluded)."""
    return batch.valid.sum()


__all__ = ["Batch", "collect", "env_steps", "init_actors", "team_logits"]
