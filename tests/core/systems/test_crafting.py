"""Crafting from the recipe table (docs/rules/interactions.md#crafting) on hand-built maps.

Map: a crafting table at (0,2) and a furnace at (0,3); agents at (1,1) warrior, (1,2) forager,
(1,3) miner: all three stand next to the table, and the forager and miner next to the furnace.

    . . t f .
    . 0 1 2 .
"""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np

from alem_core.constants import Achievement, Action, Inv
from alem_core.rules.tables import RECIPE_ACTION
from alem_core.systems.crafting import craft_mask, craft_with_draws
from alem_core.testing import hand_built_state, with_inventory

MAP = ["..tf.", "....."]
POSITIONS = [(1, 1), (1, 2), (1, 3)]
PASS = jnp.zeros(3)


def _state(small, params):
    return hand_built_state(MAP, small, params, POSITIONS)


def _column(action):
    return int(np.nonzero(action == RECIPE_ACTION)[0][0])


def test_miner_crafts_wood_pickaxe_others_are_gated(small, params):
    state = _state(small, params)
    for agent in range(3):
        state = with_inventory(state, agent, wood=1)
    actions = jnp.array([Action.MAKE_WOOD_PICKAXE] * 3)
    after = craft_with_draws(state, actions, PASS, params, small)
    np.testing.assert_array_equal(after.players.inventory[:, Inv.PICKAXE], [0, 0, 1])
    np.testing.assert_array_equal(after.players.inventory[:, Inv.WOOD], [1, 1, 0])


def test_wood_sword_is_ungated_and_needs_a_table(small, params):
    state = with_inventory(_state(small, params), 0, wood=1)
    after = craft_with_draws(state, jnp.array([Action.MAKE_WOOD_SWORD, 0, 0]), PASS, params, small)
    assert after.players.inventory[0, Inv.SWORD] == 1
    far = with_inventory(hand_built_state(MAP, small, params, [(5, 5), (1, 2), (1, 3)]), 0, wood=1)
    after = craft_with_draws(far, jnp.array([Action.MAKE_WOOD_SWORD, 0, 0]), PASS, params, small)
    assert after.players.inventory[0, Inv.SWORD] == 0


def test_iron_pickaxe_needs_furnace_and_all_materials(small, params):
    state = with_inventory(_state(small, params), 2, wood=1, stone=1, iron=1, coal=1, pickaxe=2)
    after = craft_with_draws(
        state, jnp.array([0, 0, Action.MAKE_IRON_PICKAXE]), PASS, params, small
    )
    assert after.players.inventory[2, Inv.PICKAXE] == 3
    assert int(after.players.inventory[2, : Inv.SAPPHIRE].sum()) == 0
    poor = with_inventory(_state(small, params), 2, wood=1, stone=1, iron=1, pickaxe=2)
    after = craft_with_draws(poor, jnp.array([0, 0, Action.MAKE_IRON_PICKAXE]), PASS, params, small)
    assert after.players.inventory[2, Inv.PICKAXE] == 2


def test_tier_condition_blocks_recrafting(small, params):
    state = with_inventory(_state(small, params), 2, wood=3, pickaxe=1)
    after = craft_with_draws(
        state, jnp.array([0, 0, Action.MAKE_WOOD_PICKAXE]), PASS, params, small
    )
    assert after.players.inventory[2, Inv.WOOD] == 3


def test_arrows_torches_and_armour(small, params):
    state = with_inventory(_state(small, params), 0, wood=1, stone=1)
    state = with_inventory(state, 2, wood=1, coal=1)
    state = with_inventory(state, 1, iron=3, coal=3)
    actions = jnp.array([Action.MAKE_ARROW, Action.MAKE_IRON_ARMOUR, Action.MAKE_TORCH])
    after = craft_with_draws(state, actions, PASS, params, small)
    assert after.players.inventory[0, Inv.ARROW] == 2
    assert after.players.inventory[2, Inv.TORCH] == 4
    np.testing.assert_array_equal(after.players.armour[1], [1, 0, 0, 0])
    assert bool(after.players.achievements[1, Achievement.MAKE_IRON_ARMOUR])


def test_soft_gate_draw_decides_non_specialist(small, params):
    soft = params.replace(soft_specialization=True, non_specialist_efficiency=0.4)
    state = with_inventory(_state(small, soft), 0, wood=1)
    actions = jnp.array([Action.MAKE_WOOD_PICKAXE, 0, 0])
    assert (
        craft_with_draws(state, actions, jnp.array([0.3, 0, 0]), soft, small).players.inventory[
            0, Inv.PICKAXE
        ]
        == 1
    )
    assert (
        craft_with_draws(state, actions, jnp.array([0.5, 0, 0]), soft, small).players.inventory[
            0, Inv.PICKAXE
        ]
        == 0
    )


def test_mask_matches_role_and_materials(small, params):
    state = with_inventory(_state(small, params), 0, wood=1)
    state = with_inventory(state, 2, wood=1)
    mask = craft_mask(state, params, small)
    col = _column(Action.MAKE_WOOD_PICKAXE)
    np.testing.assert_array_equal(mask[:, col], [False, False, True])
    soft_mask = craft_mask(state, params.replace(soft_specialization=True), small)
    np.testing.assert_array_equal(soft_mask[:, col], [True, False, True])


def test_diamond_crafting_needs_two_at_a_forge_when_coordinated(small, params):
    coord = params.replace(crafting_coordination_enabled=True)
    # An Epic Forge (block 39) at (0,1), next to the warrior and the forager only.
    state = hand_built_state(["......", "......"], small, coord, POSITIONS)
    state = state.replace(world=state.world.replace(block=state.world.block.at[0, 1].set(39)))
    for agent in range(3):
        state = with_inventory(state, agent, diamond=3)
    solo = craft_with_draws(
        state, jnp.array([Action.MAKE_DIAMOND_ARMOUR, 0, 0]), PASS, coord, small
    )
    assert int(solo.players.armour[0].max()) == 0
    pair = craft_with_draws(
        state,
        jnp.array([Action.MAKE_DIAMOND_ARMOUR, Action.MAKE_DIAMOND_ARMOUR, 0]),
        PASS,
        coord,
        small,
    )
    np.testing.assert_array_equal(pair.players.armour[:, 0], [2, 2, 0])
    assert bool(pair.players.achievements[0, Achievement.COORD_DIAMOND_ARMOUR])
