"""Team floor change (docs/rules/world.md#ladders-and-floor-changes): ladders, ENTER_* and xp, map
swap, handovers, decision 5."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement, Action, Block, Inv, Item
from alem_core.observation.masking import action_mask
from alem_core.params import Params
from alem_core.rules.tables import MONSTERS_TO_CLEAR_FLOOR
from alem_core.systems.floors import can_ascend, can_descend, change_floor
from alem_core.systems.handovers import add_entries
from alem_core.testing import hand_built_state, small

STATIC = small(num_levels=3)
PARAMS = Params()
DOWN_CELLS = [(2, 2), (2, 4), (2, 6)]
UP_CELLS = [(9, 3), (9, 5), (9, 7)]
NOOP, DESCEND, ASCEND = Action.NOOP, Action.DESCEND, Action.ASCEND


def two_floor_state(positions=((2, 2), (5, 5), (6, 6)), kills0: int = 10):
    """Overworld with down ladders at ``DOWN_CELLS``; floor 1 all PATH with up ladders at
    ``UP_CELLS`` and down ladders at ``DOWN_CELLS``; floor 2 PATH with up ladders."""
    state = hand_built_state([], STATIC, PARAMS, positions=positions)
    world = state.world
    floors = world.floors
    block = floors.block.at[1:].set(Block.PATH)
    item = floors.item
    for r, c in DOWN_CELLS:
        item = item.at[0, r, c].set(Item.LADDER_DOWN).at[1, r, c].set(Item.LADDER_DOWN)
    for r, c in UP_CELLS:
        item = item.at[1, r, c].set(Item.LADDER_UP).at[2, r, c].set(Item.LADDER_UP)
    cells = jnp.asarray([DOWN_CELLS, UP_CELLS], jnp.int32)
    world = world.replace(
        floors=floors.replace(block=block, item=item),
        item=item[0],
        ladders=jnp.broadcast_to(cells, (STATIC.num_levels, *cells.shape)),
        kills=world.kills.at[0].set(kills0),
    )
    return state.replace(world=world)


def step(state, *actions):
    return change_floor(state, jnp.asarray(actions, jnp.int32), None, PARAMS, STATIC)


def enter_dungeon(state) -> np.ndarray:
    return np.asarray(state.players.achievements[:, Achievement.ENTER_DUNGEON])


def test_descend_moves_the_whole_team_onto_the_up_ladders():
    state = two_floor_state()
    state = state.replace(players=state.players.replace(alive=jnp.array([True, True, False])))
    out = step(state, DESCEND, NOOP, NOOP)
    assert int(out.world.floor) == 1 and int(out.world.deepest) == 1
    np.testing.assert_array_equal(out.players.pos, UP_CELLS)
    assert enter_dungeon(out).all()  # the dead player too
    np.testing.assert_array_equal(out.players.xp, [1, 1, 1])
    assert (np.asarray(out.world.block) == Block.PATH).all()  # floor 1's map is now hot
    assert int(out.world.item[9, 3]) == Item.LADDER_UP


def test_xp_only_on_the_first_visit_and_ascend_returns_to_the_down_ladders():
    state = two_floor_state()
    down = step(state, DESCEND, NOOP, NOOP)
    up = step(down, ASCEND, NOOP, NOOP)
    assert int(up.world.floor) == 0 and int(up.world.deepest) == 1
    np.testing.assert_array_equal(up.players.pos, DOWN_CELLS)
    again = step(up, DESCEND, NOOP, NOOP)
    np.testing.assert_array_equal(again.players.xp, [1, 1, 1])  # no second +1


def test_edits_to_a_floor_survive_leaving_and_coming_back():
    state = two_floor_state()
    state = state.replace(
        world=state.world.replace(block=state.world.block.at[0, 0].set(Block.STONE))
    )
    down = step(state, DESCEND, NOOP, NOOP)
    down = down.replace(world=down.world.replace(block=down.world.block.at[1, 1].set(Block.WATER)))
    up = step(down, ASCEND, NOOP, NOOP)
    assert int(up.world.block[0, 0]) == Block.STONE
    again = step(up, DESCEND, NOOP, NOOP)
    assert int(again.world.block[1, 1]) == Block.WATER


def _with_mob(state, cell, health):
    """A live zombie in slot 0 of the team's floor (the hot copy)."""
    melee = state.mobs.melee
    melee = melee.replace(
        alive=melee.alive.at[0].set(True),
        pos=melee.pos.at[0].set(jnp.asarray(cell, jnp.int32)),
        health=melee.health.at[0].set(health),
    )
    return state.replace(mobs=state.mobs.replace(melee=melee))


def test_each_floor_keeps_its_own_mobs():
    """The hot slots go back to their floor on leaving and come out again on return; the floor
    entered brings its own (here an empty floor 1, then the mob left there)."""
    state = _with_mob(two_floor_state(), (7, 7), 3.5)
    down = step(state, DESCEND, NOOP, NOOP)
    assert not np.asarray(down.mobs.melee.alive).any()
    down = _with_mob(down, (4, 4), 2.0)
    stay = step(down, NOOP, NOOP, NOOP)  # no floor change: the hot slots are kept as they are
    assert jax.tree.all(jax.tree.map(np.array_equal, stay.mobs, down.mobs))
    up = step(down, ASCEND, NOOP, NOOP)
    assert jax.tree.all(jax.tree.map(np.array_equal, up.mobs, state.mobs))
    every = up.all_mobs().melee
    assert bool(every.alive[1, 0]) and every.pos[1, 0].tolist() == [4, 4]
    assert float(every.health[1, 0]) == 2.0 and not bool(every.alive[2].any())
    again = step(up, DESCEND, NOOP, NOOP)
    assert jax.tree.all(jax.tree.map(np.array_equal, again.mobs, down.mobs))


def test_descend_needs_a_cleared_floor_and_the_ladder_item():
    state = two_floor_state(kills0=MONSTERS_TO_CLEAR_FLOOR - 1)
    np.testing.assert_array_equal(can_descend(state, STATIC), [False, False, False])
    out = step(state, DESCEND, DESCEND, DESCEND)
    assert int(out.world.floor) == 0
    jax.tree.map(np.testing.assert_array_equal, out, state)  # nothing changes
    cleared = two_floor_state()
    np.testing.assert_array_equal(can_descend(cleared, STATIC), [True, False, False])
    assert not bool(can_ascend(cleared, STATIC).any())  # no up ladder on the overworld
    mask = action_mask(cleared, PARAMS, STATIC)
    np.testing.assert_array_equal(mask[:, DESCEND], [True, False, False])
    assert not bool(mask[:, ASCEND].any())


def test_no_descend_from_the_last_floor():
    state = two_floor_state()
    state = step(state, DESCEND, NOOP, NOOP)
    state = state.replace(world=state.world.replace(kills=state.world.kills.at[1].set(8)))
    state = state.replace(players=state.players.replace(pos=jnp.asarray(DOWN_CELLS)))
    bottom = step(state, DESCEND, NOOP, NOOP)
    assert int(bottom.world.floor) == 2
    bottom = bottom.replace(players=bottom.players.replace(pos=jnp.asarray(UP_CELLS)))
    assert not bool(can_descend(bottom, STATIC).any())
    np.testing.assert_array_equal(can_ascend(bottom, STATIC), [True, True, True])


def test_descend_wins_over_ascend():
    state = step(two_floor_state(), DESCEND, NOOP, NOOP)
    state = state.replace(world=state.world.replace(kills=state.world.kills.at[1].set(8)))
    pos = jnp.asarray([UP_CELLS[0], DOWN_CELLS[1], (5, 5)])
    state = state.replace(players=state.players.replace(pos=pos))
    out = step(state, ASCEND, DESCEND, NOOP)
    assert int(out.world.floor) == 2


def test_leaving_a_floor_reverts_half_built_sites_and_wipes_handovers():
    state = two_floor_state()
    block = state.world.block.at[5, 6].set(Block.CONSTRUCTION_IN_PROGRESS)
    inventory = state.players.inventory.at[1, Inv.WOOD].set(0)
    state = state.replace(
        world=state.world.replace(block=block),
        players=state.players.replace(inventory=inventory),
    )
    table, _ = add_entries(
        state.handovers,
        jnp.array([False, True, True]),
        jnp.asarray([(0, 0), (5, 6), (7, 7)]),
        jnp.int32(50),
        jnp.array([0, 1, 0]),  # player 1 started a shelter, player 2 a mining handover
    )
    state = state.replace(handovers=table)
    out = step(state, DESCEND, NOOP, NOOP)
    assert not bool(out.handovers.open.any())
    back = step(out, ASCEND, NOOP, NOOP)
    assert int(back.world.block[5, 6]) == Block.CONSTRUCTION_SITE  # decision 5
    assert (
        int(out.players.inventory[1, Inv.WOOD]) == 10
        and int(out.players.inventory[1, Inv.STONE]) == 5
    )


@pytest.mark.parametrize("stay", [True, False])
def test_saplings_ripen_while_the_team_is_away(stay):
    state = two_floor_state()
    block = state.world.block.at[12, 12].set(Block.PLANT)
    plants = state.plants.replace(
        pos=state.plants.pos.at[0].set(jnp.array([12, 12])),
        alive=state.plants.alive.at[0].set(True),
        age=state.plants.age.at[0].set(600),
    )
    state = state.replace(world=state.world.replace(block=block), plants=plants)
    if stay:
        assert int(step(state, NOOP, NOOP, NOOP).world.block[12, 12]) == Block.PLANT
        return
    back = step(step(state, DESCEND, NOOP, NOOP), ASCEND, NOOP, NOOP)
    assert int(back.world.block[12, 12]) == Block.RIPE_PLANT
