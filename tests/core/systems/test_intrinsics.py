"""Survival dynamics (docs/rules/survival.md) on a plain map."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from alem_core.constants import Achievement, Action, Block
from alem_core.systems.intrinsics import (
    capacities,
    clamp_intrinsics,
    start_sleep_and_rest,
    update_intrinsics,
)
from alem_core.testing import hand_built_state


def _players(state, **fields):
    return dataclasses.replace(state, players=dataclasses.replace(state.players, **fields))


def test_forager_capacity_is_tripled(small, params):
    caps = capacities(hand_built_state([], small, params).players, small)
    np.testing.assert_array_equal(caps["food"], [9, 27, 9])
    np.testing.assert_array_equal(caps["energy"], [9, 9, 9])


def test_food_drops_every_26_steps_drink_every_21(small, params):
    state = hand_built_state([], small, params)
    for _ in range(21):
        state = update_intrinsics(state, None, None, params, small)
    np.testing.assert_array_equal(state.players.drink, [8, 8, 8])
    np.testing.assert_array_equal(state.players.food, [9, 9, 9])
    for _ in range(5):
        state = update_intrinsics(state, None, None, params, small)
    np.testing.assert_array_equal(state.players.food, [8, 8, 8])


def test_unmet_needs_cost_health_and_dead_players_are_frozen(small, params):
    state = hand_built_state([], small, params)
    state = _players(state, food=jnp.array([0, 0, 9]), alive=jnp.array([True, False, True]))
    for _ in range(16):
        state = update_intrinsics(state, None, None, params, small)
    np.testing.assert_array_equal(state.players.health, [8.0, 9.0, 9.0])


def test_sleep_starts_below_max_energy_and_wakes_with_achievement(small, params):
    state = _players(hand_built_state([], small, params), energy=jnp.array([8, 9, 9]))
    state = start_sleep_and_rest(
        state, jnp.array([Action.SLEEP, Action.SLEEP, 0]), None, None, small
    )
    np.testing.assert_array_equal(state.players.sleeping, [True, False, False])
    for _ in range(11):
        state = update_intrinsics(state, None, None, params, small)
    # Energy is full after 11 steps; the sleeper wakes at the start of the next update, as in
    # the published package (docs/decisions.md, "Order within the survival update").
    assert int(state.players.energy[0]) == 9 and bool(state.players.sleeping[0])
    state = update_intrinsics(state, None, None, params, small)
    assert not bool(state.players.sleeping[0])
    assert bool(state.players.achievements[0, Achievement.WAKE_UP])


def test_health_reads_the_needs_after_this_steps_decay(small, params):
    # Drink runs out on this very step: the recovery counter already falls (measured order).
    state = hand_built_state([], small, params)
    state = _players(
        state, drink=jnp.array([1, 1, 9]), thirst=jnp.array([20.0, 0.0, 0.0]),
        recover=jnp.array([5.0, 5.0, 5.0]),
    )  # fmt: skip
    state = update_intrinsics(state, None, None, params, small)
    np.testing.assert_array_equal(state.players.drink, [0, 1, 9])
    np.testing.assert_array_equal(state.players.recover, [4.0, 6.0, 6.0])


def test_shelter_speeds_sleep_recovery(small, params):
    state = _players(hand_built_state([], small, params), energy=jnp.array([8, 8, 9]))
    state = start_sleep_and_rest(
        state, jnp.array([Action.SLEEP, Action.SLEEP, 0]), None, None, small
    )
    r, c = (int(v) for v in state.players.pos[0])
    state = state.replace(
        world=state.world.replace(block=state.world.block.at[r - 1, c].set(Block.EPIC_SHELTER))
    )
    for _ in range(8):
        state = update_intrinsics(state, None, None, params, small)
    # Agent 0 (next to the shelter) recovers energy after 8 steps; agent 1 (also adjacent:
    # spawn cells are side by side) too; the shelter is within one cell of both.
    assert int(state.players.energy[0]) == 9


def test_rest_requires_missing_health_and_clamp(small, params):
    state = _players(hand_built_state([], small, params), health=jnp.array([5.0, 9.0, 12.0]))
    state = start_sleep_and_rest(state, jnp.array([Action.REST, Action.REST, 0]), None, None, small)
    np.testing.assert_array_equal(state.players.resting, [True, False, False])
    clamped = clamp_intrinsics(state, None, None, params, small)
    np.testing.assert_array_equal(clamped.players.health, [5.0, 9.0, 9.0])
