"""The functional API: ``reset`` and ``step`` (re-exported by ``alem_core``)."""

from __future__ import annotations

import jax

from alem_core.difficulty import episode_params, sample_alpha
from alem_core.initial import initial_state, rolled_mobs
from alem_core.observation import observe
from alem_core.params import Params, StaticParams
from alem_core.pipeline import step
from alem_core.state import State
from alem_core.worldgen import generate_world, split_reset_key


def reset(key: jax.Array, params: Params, static: StaticParams) -> tuple[jax.Array, State]:
    """Generate a world and place the team on it.

    Args:
        key: PRNG key; the same key gives the same world.
        params: gameplay parameters (``make_params``).
        static: shapes (static under ``jit``).

    Returns:
        ``(obs (P, D) float32, state)``.
    """
    k_world, k_mobs = jax.random.split(key)
    alpha = sample_alpha(split_reset_key(k_world)["alpha"], params)
    params = episode_params(params, alpha)
    world = generate_world(k_world, params, static)
    state = initial_state(world, rolled_mobs(k_mobs, params, static), params, static, alpha)
    return observe(state, params, static), state


__all__ = ["reset", "step"]
