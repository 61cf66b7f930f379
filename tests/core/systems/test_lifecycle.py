"""Death bookkeeping (docs/rules/survival.md#death-and-revival): the cause filed for each kind of
death, in the published benchmark's code numbering (docs/decisions.md, "Death-cause codes"), and the
floor at death."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.params import Params
from alem_core.scoring.score import score
from alem_core.systems.lifecycle import (
    DEHYDRATION,
    EXHAUSTION,
    FRIENDLY_FIRE,
    MOB_COMBAT,
    STARVATION,
    end_step,
)
from alem_core.testing import hand_built_state, small


def _dying_team(small, params, food, drink):
    """Three players at health 0 after this step (alive before it), with the given needs."""
    state = hand_built_state(["....."], small, params, [(1, 1), (1, 3), (3, 1)])
    players = state.players.replace(
        health=jnp.zeros(3, jnp.float32),
        food=jnp.asarray(food, state.players.food.dtype),
        drink=jnp.asarray(drink, state.players.drink.dtype),
    )
    return state.replace(players=players)


def test_need_deaths_use_the_published_codes(small, params):
    state = _dying_team(small, params, food=[0, 5, 5], drink=[5, 0, 5])
    before = jnp.ones(3, jnp.float32)  # health fell only in the intrinsics
    out = end_step(state, before, before, before, params, small)
    assert out.players.death_cause.tolist() == [STARVATION, DEHYDRATION, EXHAUSTION]
    assert (STARVATION, DEHYDRATION, EXHAUSTION, MOB_COMBAT, FRIENDLY_FIRE) == (1, 2, 3, 4, 5)


def test_hit_in_the_do_phase_or_the_mob_window_is_filed_before_needs(small, params):
    state = _dying_team(small, params, food=[5, 0, 5], drink=[0, 0, 5])
    before = jnp.full(3, 2.0, jnp.float32)
    after_do = jnp.array([1.0, 2.0, 2.0], jnp.float32)  # agent 0 hit by a teammate
    after_mobs = jnp.array([1.0, 1.0, 2.0], jnp.float32)  # agent 1 hit by a mob
    out = end_step(state, before, after_do, after_mobs, params, small)
    assert out.players.death_cause.tolist() == [FRIENDLY_FIRE, MOB_COMBAT, EXHAUSTION]
    keys = score(out, small)
    assert float(keys["Agent1/died_from_mob_combat"][0]) == 1.0
    assert float(keys["Agent0/died_from_friendly_fire"][0]) == 1.0
    assert float(keys["Deaths/mob_combat_count"][0]) == 1.0


STATIC = small(num_levels=9)
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
    assert int(state.players.death_cause[1]) == MOB_COMBAT
    # The team moves on: the dead player keeps the floor it died on; a new death gets its own.
    state = _end(_on_floor(state, 6), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(state.players.death_floor, [6, 5, -1])
    # A revive clears it; dying again records the new floor.
    state = _end(state, [0.0, 1.0, 9.0])
    np.testing.assert_array_equal(state.players.death_floor, [6, -1, -1])
    state = _end(_on_floor(state, 8), [0.0, 0.0, 9.0])
    np.testing.assert_array_equal(state.players.death_floor, [6, 8, -1])
