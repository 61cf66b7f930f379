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
from alem_core.pipeline import transition as pipeline_transition
from alem_core.rules.difficulty import episode_params, sample_alpha
from alem_core.state import State
from alem_core.worldgen import generate_world, reset_draws
from alem_core.worldgen.initial import initial_state, rolled_mobs

WORLD_VERSION = 2
"""Which episode a key plays. Raised whenever a change of the random streams or of the state's
layout makes a seed play a different episode or a saved state stop fitting (CHANGELOG); what
stores states or seeds for replay (game records, trainer checkpoints) writes it and refuses a
file of another version with a clear error. 2: the reset draws α, potions, coordination tasks,
sites and slot rolls in one draw (a seed's terrain is unchanged)."""


STATE_LAYOUT = 2
"""How a ``State``'s leaves are laid out. Raised whenever the state tree changes while every
seed still plays the same episode; what stores states (trainer checkpoints) writes it and
refuses a file of another layout with a clear error. Game records store seeds, actions and
digests of ``State.unpacked()``, the same form in every layout, so they check
``WORLD_VERSION`` only. 2: the team's floor's entities are a hot copy
(``State.mobs``, (S, ...)) beside every floor's packed into rows (``State.mob_floors``); 1:
every floor's entities in ``State.mobs``, (L, S, ...)."""


def state_layout_mismatch(saved: int | None) -> str | None:
    """Why a file holding states of layout ``saved`` (None: saved before the layout was stored,
    which is layout 1) cannot be loaded here; None when it can."""
    saved = 1 if saved is None else saved
    if saved == STATE_LAYOUT:
        return None
    return (
        f"its states are laid out as state layout {saved}, and this alem's as {STATE_LAYOUT} "
        "(CHANGELOG)"
    )


def world_version_mismatch(saved: int | None) -> str | None:
    """Why a file saved under ``WORLD_VERSION`` ``saved`` (None: saved before the version was
    stored, which is version 1) cannot be replayed or resumed here; None when it can."""
    saved = 1 if saved is None else saved
    if saved == WORLD_VERSION:
        return None
    return (
        f"saved with world version {saved}, and this alem plays world version {WORLD_VERSION}: "
        "the same seed now plays another episode (CHANGELOG)"
    )


def check_key(key: jax.Array, name: str = "key") -> None:
    """Raise a clear error for a key of the wrong kind: a typed key array of shape () or a raw
    uint32 key (``jax.random.key_data`` of one). Shapes are known at trace time, so under
    ``jit`` this costs nothing per call."""
    shape, dtype = np.shape(key), jax.numpy.result_type(key)
    if jax.dtypes.issubdtype(dtype, jax.dtypes.prng_key):
        if shape != ():
            raise ValueError(f"{name}: expected one PRNG key of shape (), got shape {shape}")
        return
    raw = jax.eval_shape(lambda: jax.random.key_data(jax.random.key(0)))
    if shape != raw.shape or dtype != raw.dtype:
        raise ValueError(
            f"{name}: expected a PRNG key (jax.random.key, shape ()) or raw key data of shape "
            f"{raw.shape} {raw.dtype}, got shape {shape} {dtype}"
        )


def check_actions(actions: jax.Array, static: StaticParams) -> None:
    """Raise a clear error for actions that are not (P,) integers (checked at trace time)."""
    shape, dtype = np.shape(actions), jax.numpy.result_type(actions)
    expected = (static.player_count,)
    if shape != expected:
        raise ValueError(
            f"actions: expected shape {expected} (one action id per agent), got shape {shape}"
        )
    if not jax.numpy.issubdtype(dtype, jax.numpy.integer):
        raise TypeError(f"actions: expected integer action ids, got dtype {dtype}")


def game_reset(key: jax.Array, params: Params, static: StaticParams) -> tuple[jax.Array, State]:
    """The full game: generate every floor and place the team on floor 0
    (docs/rules/world.md#initial-state)."""
    k_world, k_draws = jax.random.split(key)
    draws = reset_draws(k_draws, static)
    alpha = sample_alpha(draws["alpha"], params)
    params = episode_params(params, alpha)
    world = generate_world(k_world, params, static, draws)
    state = initial_state(world, rolled_mobs(draws, params, static), params, static, alpha)
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
    check_key(key)
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


def transition(
    key: jax.Array, state: State, actions: jax.Array, params: Params, static: StaticParams
) -> tuple[State, jax.Array, jax.Array, jax.Array, dict[str, jax.Array]]:
    """The rules of one step (``pipeline.transition``, which documents what it returns), after
    checking that ``key`` is one key and ``actions`` are (P,) integers: a wrong shape names the
    argument here instead of failing deep inside a system."""
    check_key(key)
    check_actions(actions, static)
    return pipeline_transition(key, state, actions, params, static)


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


__all__ = [
    "RESETS",
    "check_actions",
    "check_key",
    "observe",
    "reset",
    "seed_key",
    "step",
    "transition",
]
