"""End-of-step bookkeeping (GAME.md §3.6): the floor at death, kept while dead, cleared on a
revive."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.params import Params, StaticParams
from alem_core.systems.lifecycle import COMBAT, end_step
from alem_core.testing import hand_built_state

STATIC = StaticParams(map_size=(16, 16), num_levels=9, player_count=3)
PARAMS = Params()
_end_step = jax.jit(end_step, static_argnums=5)


def _end(state, health_after):
    """``end_step`` after the step left ``health_after``; the health fell to mobs (combat)."""
    before = state.players.health
    state = state.replace(players=state.players.replace(health=jnp.asarray(health_after)))
    return _end_step(state, before, before, state.players.health, PARAMS, STATIC)


def _on_floor(state, floor: int):
    return state.replace(world=state.world.replace(floor=jnp.int32(floor)))


def test_floor_at_death_is_stored_once_and_cleared_on_revive():
    state = _on_floor(hand_built_state([], STATIC), 5)
    np.testing.assert_array_equal(state.players.death_floor, [-1, -1, -1])
    state = _end(state, [9.0, 0.0, 9.0])
    np.testing.assert_array_equal(state.players.death_floor, [-1, 5, -1])
    assert int(state.players.death_cause[1]) == COMBAT
    # The team moves on: the dead player keeps the floor it died on; a new death gets its own.
    state = _end(_on_floor(state, 6), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(state.players.death_floor, [6, 5, -1])
    # A revive clears it; dying again records the new floor.
    state = _end(state, [0.0, 1.0, 9.0])
    np.testing.assert_array_equal(state.players.death_floor, [6, -1, -1])
    state = _end(_on_floor(state, 8), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(state.players.death_floor, [6, 8, -1])
