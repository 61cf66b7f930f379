"""The functional API: ``reset`` and ``step`` (re-exported by ``alem_core``).

``reset`` builds the world that ``StaticParams.layout`` names (``RESETS``): the full game, or one
of the coordination drills (``worldgen/drills.py``). ``step`` is the same for all.
"""

from __future__ import annotations

from collections.abc import Callable

import jax

from alem_core.difficulty import episode_params, sample_alpha
from alem_core.initial import initial_state, rolled_mobs
from alem_core.observation import observe
from alem_core.params import Params, StaticParams
from alem_core.pipeline import step
from alem_core.state import State
from alem_core.worldgen import generate_world, split_reset_key
from alem_core.worldgen.drills import DRILLS, drill_state


def game_reset(key: jax.Array, params: Params, static: StaticParams) -> tuple[jax.Array, State]:
    """The full game: generate every floor and place the team on floor 0 (GAME.md §1.8)."""
    k_world, k_mobs = jax.random.split(key)
    alpha = sample_alpha(split_reset_key(k_world)["alpha"], params)
    params = episode_params(params, alpha)
    world = generate_world(k_world, params, static)
    state = initial_state(world, rolled_mobs(k_mobs, params, static), params, static, alpha)
    return observe(state, params, static), state


def drill_reset(key: jax.Array, params: Params, static: StaticParams) -> tuple[jax.Array, State]:
    """A coordination drill's hand-built world and team (``worldgen/drills.py``)."""
    state = drill_state(key, params, static)
    return observe(state, params, static), state


RESETS: dict[str, Callable[[jax.Array, Params, StaticParams], tuple[jax.Array, State]]] = {
    "game": game_reset,
    **dict.fromkeys(DRILLS, drill_reset),
}
"""The reset of every ``StaticParams.layout``."""


def reset(key: jax.Array, params: Params, static: StaticParams) -> tuple[jax.Array, State]:
    """Generate a world and place the team on it.

    Args:
        key: PRNG key; the same key gives the same world.
        params: gameplay parameters (``make_params``; ``alem_core.drills.drill_setup`` for a
            drill).
        static: shapes (static under ``jit``); ``static.layout`` picks the world (``RESETS``).

    Returns:
        ``(obs (P, D) float32, state)``.
    """
    return RESETS[static.layout](key, params, static)


__all__ = ["RESETS", "reset", "step"]
