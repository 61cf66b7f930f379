"""Jitted helpers shared by tests, benchmarks and notebooks: masked random play in ``lax.scan``.

Nothing here is game logic: these drive the public ``reset`` / ``step`` with random legal
actions, as a reference policy and as a conformance harness.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import jax.numpy as jnp

from alem_core.api import reset, step
from alem_core.executables import per_shape
from alem_core.observation.masking import action_mask
from alem_core.params import Params, StaticParams
from alem_core.state import State


def random_legal_actions(key: jax.Array, mask: jax.Array) -> jax.Array:
    """(P,) int32 uniform random actions among each agent's legal ones (mask (P, A) bool)."""
    return jax.random.categorical(key, jnp.where(mask, 0.0, -jnp.inf)).astype(jnp.int32)


def random_rollout(
    key: jax.Array, state: State, params: Params, static: StaticParams, steps: int
) -> tuple[State, dict[str, jax.Array]]:
    """Play ``steps`` steps of masked random actions from ``state`` (no reset on episode end).

    Returns the final state and per-step traces: "reward" (T, P), "terminated" (T, P),
    "alive" (T, P), "actions" (T, P), "obs_sum" (T,) and "mask" (T, P, A).
    """

    def body(carry: tuple[State, jax.Array], key: jax.Array):
        state, mask = carry
        k_act, k_step = jax.random.split(key)
        actions = random_legal_actions(k_act, mask)
        obs, state, reward, terminated, _, info = step(k_step, state, actions, params, static)
        trace = {
            "reward": reward,
            "terminated": terminated,
            "alive": info["alive"],
            "actions": actions,
            "obs_sum": obs.sum(),
            "mask": info["action_mask"],
        }
        return (state, info["action_mask"]), trace

    mask = action_mask(state, params, static)
    (state, _), traces = jax.lax.scan(body, (state, mask), jax.random.split(key, steps))
    return state, traces


@per_shape
def compiled(static: StaticParams) -> tuple[Callable, Callable]:
    """Jitted ``(reset, step)`` for one ``StaticParams``, shared by every caller in a process."""
    return (
        jax.jit(lambda key, params: reset(key, params, static)),
        jax.jit(lambda key, state, actions, params: step(key, state, actions, params, static)),
    )
