"""The functional API (re-exported by ``alem_core``), as pure functions:

* ``reset(key, params, static) -> (obs, state)``: the world ``StaticParams.layout`` names
  (``RESETS``): the full game, or one of the coordination drills (``alem_core/drills/``);
* ``transition(key, state, actions, params, static) -> (state, reward, terminated, truncated,
  info)``: the rules (``pipeline.py``), the same for every layout;
* ``observe(state, params, static) -> (obs, action_mask)``: what each agent sees and may do;
* ``step`` = ``transition`` then ``observe``, with the mask in ``info["action_mask"]``.

The transition and the observation are apart, as in Gymnasium's ``FuncEnv``, so a batch can
step its worlds, swap in the ones that reset and observe all of them once.
"""

from __future__ import annotations

from collections.abc import Callable

import jax
import numpy as np

from alem_core.drills.worlds import DRILLS, drill_state
from alem_core.observation.masking import action_mask
from alem_core.observation.vector import observation
from alem_core.params import Params, StaticParams
from alem_core.pipeline import transition
from alem_core.rules.difficulty import episode_params, sample_alpha
from alem_core.state import State
from alem_core.worldgen import generate_world, split_reset_key
from alem_core.worldgen.initial import initial_state, rolled_mobs


def game_reset(key: jax.Array, params: Params, static: StaticParams) -> tuple[jax.Array, State]:
    """The full game: generate every floor and place the team on floor 0
    (docs/rules/world.md#initial-state)."""
    k_world, k_mobs = jax.random.split(key)
    alpha = sample_alpha(split_reset_key(k_world)["alpha"], params)
    params = episode_params(params, alpha)
    world = generate_world(k_world, params, static)
    state = initial_state(world, rolled_mobs(k_mobs, params, static), params, static, alpha)
    return observation(state, params, static), state


def drill_reset(key: jax.Array, params: Params, static: StaticParams) -> tuple[jax.Array, State]:
    """A coordination drill's hand-built world and team (``alem_core/drills/worlds.py``)."""
    state = drill_state(key, params, static)
    return observation(state, params, static), state


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


def seed_key(seed: int) -> np.ndarray:
    """The raw (2,) uint32 PRNG key of a seed: every face turns a user's seed into a key
    here, so the same seed gives the same episode everywhere (``SeedSequence`` hashes big seeds)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint32)


def observe(state: State, params: Params, static: StaticParams) -> tuple[jax.Array, jax.Array]:
    """What every agent sees and may do in ``state``.

    Args:
        state: any state (after ``reset`` or ``transition``).
        params: gameplay parameters (the episode's α is applied here, as in the step).
        static: shapes (static under ``jit``).

    Returns:
        ``(obs (P, D) float32, action_mask (P, A) bool)``.
    """
    params = episode_params(params, state.alpha)
    with jax.named_scope("observation"):  # names the observation's ops in profiles
        obs = observation(state, params, static)
    return obs, action_mask(state, params, static)


def step(
    key: jax.Array, state: State, actions: jax.Array, params: Params, static: StaticParams
) -> tuple[jax.Array, State, jax.Array, jax.Array, jax.Array, dict[str, jax.Array]]:
    """Advance the world one step for all agents at once (``transition``, then ``observe``).

    Args:
        key: PRNG key for this step.
        state: the current state.
        actions: (P,) int action ids; ids outside the action space act as NOOP (the adapters
            reject them with a clear error before they get here).
        params: gameplay parameters.
        static: shapes (static under ``jit``).

    Returns:
        ``(obs (P, D) float32, state, reward (P,) float32, terminated (P,) bool,
        truncated (P,) bool, info)``: ``transition``'s info plus ``info["action_mask"]``
        (P, A) bool.
    """
    state, reward, terminated, truncated, info = transition(key, state, actions, params, static)
    obs, mask = observe(state, params, static)
    return obs, state, reward, terminated, truncated, {"action_mask": mask, **info}


__all__ = ["RESETS", "observe", "reset", "seed_key", "step", "transition"]
