"""Placing blocks, torches and saplings (docs/rules/interactions.md#placing) on hand-built maps.

Agents at (1,1), (1,3), (3,1), all facing up unless a test says otherwise:

    . ~ . . .
    . 0 . 1 .
    . . . . .
    . 2 . . .
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from alem_core.constants import Achievement, Action, Block, Facing, Inv, Item
from alem_core.state import light_level
from alem_core.systems.placement import place_blocks, place_torches_and_plants
from alem_core.testing import hand_built_state, with_inventory

MAP = [".~...", ".....", ".....", "....."]
POSITIONS = [(1, 1), (1, 3), (3, 1)]
PASS = jnp.zeros(3)


def _state(small, params, positions=POSITIONS, facing=None):
    return hand_built_state(MAP, small, params, positions, facing)


def test_table_costs_two_wood_and_never_goes_on_water(small, params):
    state = with_inventory(_state(small, params), 0, wood=2)
    state = with_inventory(state, 1, wood=2)
    actions = jnp.array([Action.PLACE_TABLE, Action.PLACE_TABLE, 0])
    after = place_blocks(state, actions, PASS, params, small)
    assert after.world.block[0, 1] == Block.WATER  # agent 0 faces water
    assert after.world.block[0, 3] == Block.CRAFTING_TABLE
    np.testing.assert_array_equal(after.players.inventory[:2, Inv.WOOD], [2, 0])
    assert bool(after.players.achievements[1, Achievement.PLACE_TABLE])


def test_miner_fills_water_with_stone(small, params):
    state = _state(small, params, [(2, 2), (2, 4), (1, 1)], [Facing.UP, Facing.UP, Facing.UP])
    state = with_inventory(state, 2, stone=1)
    after = place_blocks(state, jnp.array([0, 0, Action.PLACE_STONE]), PASS, params, small)
    assert after.world.block[0, 1] == Block.STONE
    assert after.players.inventory[2, Inv.STONE] == 0


def test_stone_placing_is_miner_gated(small, params):
    state = with_inventory(_state(small, params), 1, stone=1)
    after = place_blocks(state, jnp.array([0, Action.PLACE_STONE, 0]), PASS, params, small)
    assert after.world.block[0, 3] == Block.GRASS
    assert after.players.inventory[1, Inv.STONE] == 1


def test_table_then_furnace_on_one_cell_only_table_lands(small, params):
    # Agents 0 and 1 both face (1,2) from the west and east.
    state = _state(small, params, [(1, 1), (1, 3), (3, 1)], [Facing.RIGHT, Facing.LEFT, Facing.UP])
    state = with_inventory(with_inventory(state, 0, wood=2), 1, stone=1)
    actions = jnp.array([Action.PLACE_TABLE, Action.PLACE_FURNACE, 0])
    after = place_blocks(state, actions, PASS, params, small)
    assert after.world.block[1, 2] == Block.CRAFTING_TABLE
    assert after.players.inventory[1, Inv.STONE] == 1


def test_cannot_place_on_a_player(small, params):
    state = _state(small, params, [(2, 1), (1, 3), (3, 1)], [Facing.DOWN, Facing.UP, Facing.UP])
    state = with_inventory(state, 0, wood=2)
    after = place_blocks(state, jnp.array([Action.PLACE_TABLE, 0, 0]), PASS, params, small)
    assert after.players.inventory[0, Inv.WOOD] == 2


def test_torch_first_claimer_wins_and_lights(small, params):
    state = _state(small, params, [(1, 1), (1, 3), (3, 1)], [Facing.RIGHT, Facing.LEFT, Facing.UP])
    state = with_inventory(with_inventory(state, 0, torch=1), 1, torch=1)
    state = state.replace(world=state.world.replace(light=state.world.light * 0))
    actions = jnp.array([Action.PLACE_TORCH, Action.PLACE_TORCH, 0])
    after = place_torches_and_plants(state, actions, small)
    assert after.world.item[1, 2] == Item.TORCH
    np.testing.assert_array_equal(after.players.inventory[:2, Inv.TORCH], [0, 1])
    light = light_level(after.world.light)
    assert float(light[1, 2]) == 1.0
    assert abs(float(light[1, 4]) - 0.6) < 1e-6
    assert float(light[1, 7]) == 0.0


def test_sapling_planted_on_grass_takes_a_slot(small, params):
    state = with_inventory(_state(small, params, [(2, 2), (1, 3), (3, 1)]), 0, sapling=1)
    after = place_torches_and_plants(state, jnp.array([Action.PLACE_PLANT, 0, 0]), small)
    assert after.world.block[1, 2] == Block.PLANT
    assert int(after.plants.alive.sum()) == 1
    np.testing.assert_array_equal(after.plants.pos[0], [1, 2])
    assert bool(after.players.achievements[0, Achievement.PLACE_PLANT])
