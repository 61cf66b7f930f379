"""The one functional interface every experiment task is trained through
(docs/training.md#objectives 5.1).

A ``TaskEnv`` is a bundle of pure, jittable functions over one world of N agents. The trainers
in ``alem_train.experiment`` only see this bundle, so the T0 matrix games and the alem drills
(small alem worlds stepped by the unchanged core ``step``) are trained by the same code.

Conventions:

- ``reset(key) -> (obs [N, D] float32, state)``; the same key gives the same world, which is
  what makes a GRPO group (G rollouts sharing a reset key) well defined.
- ``step(key, state, actions [N] int32) -> (obs, state, team_reward () float32, done () bool)``;
  the team reward is the scalar every agent shares (the drills are shared-reward worlds).
- ``action_mask(state) -> [N, A] bool`` and ``acting(state) -> [N] bool``: the agents whose
  action the world consumes this step (the active set of docs/training.md#objectives 4.1).
- ``success_return``: a rollout whose team return reaches it counts as a coordinated success.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
from jax import Array

from alem_train.matrix_games import games as matrix_games


class TaskEnv(NamedTuple):
    name: str
    num_agents: int
    num_actions: int
    obs_size: int
    horizon: int
    success_return: float
    reset: Callable[[Array], tuple[Array, Any]]
    step: Callable[[Array, Any, Array], tuple[Array, Any, Array, Array]]
    action_mask: Callable[[Any], Array]
    acting: Callable[[Any], Array]


def matrix_task(game: matrix_games.MatrixGame) -> TaskEnv:
    """T0: one step of a matrix game; success = the coordinated optimum was played."""
    n, a = game.num_agents, game.num_actions

    def step(key, state, actions):
        del key
        obs, state, rewards, done = matrix_games.step(game, state, actions)
        return obs, state, rewards[0], done

    return TaskEnv(
        name=f"t0_{game.name}_n{n}",
        num_agents=n,
        num_actions=a,
        obs_size=game.obs_size,
        horizon=1,
        success_return=matrix_games.optimal_joint_value(game),
        reset=lambda key: matrix_games.reset(game, key),
        step=step,
        action_mask=lambda state: jnp.ones((n, a), bool),
        acting=lambda state: jnp.ones((n,), bool),
    )


def alem_task(name: str, static, params, success_return: float) -> TaskEnv:
    """A drill on the alem core: reset and step are ``alem_core``'s own, under a drill static.

    The team reward is agent 0's reward, which under ``shared_reward`` is the team sum every
    agent receives. The episode ends when the core says so or at ``params.max_timesteps``.
    """
    import alem_core

    def reset(key):
        return alem_core.reset(key, params, static)

    def step(key, state, actions):
        obs, state, reward, terminated, truncated, _ = alem_core.step(
            key, state, actions, params, static
        )
        return obs, state, reward[0], terminated[0] | truncated[0]

    def mask(state):
        return alem_core.action_mask(state, params, static)

    obs, state = jax.eval_shape(reset, jax.random.PRNGKey(0))
    return TaskEnv(
        name=name,
        num_agents=static.player_count,
        num_actions=int(jax.eval_shape(mask, state).shape[-1]),
        obs_size=int(obs.shape[-1]),
        horizon=int(params.max_timesteps),
        success_return=success_return,
        reset=reset,
        step=step,
        action_mask=mask,
        acting=alem_core.acting,
    )


__all__ = ["TaskEnv", "alem_task", "matrix_task"]
