"""The Do phase on blocks and mobs (docs/rules/interactions.md#the-do-action,
docs/rules/step.md#shared-targets, docs/rules/roles.md) on hand-built maps.

Map (agent 0 warrior at (2,2) facing up at a tree; agent 1 forager at (2,4) facing up at water;
agent 2 miner at (4,2) facing right at stone):

    . . . . . .
    . . T . ~ .
    . . 0 . 1 .
    . . . . . .
    . . 2 # . .
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Achievement, Action, Block, Facing, Inv
from alem_core.state import Entities
from alem_core.systems.attack import attack_mobs
from alem_core.systems.interaction import interact_blocks
from alem_core.testing import hand_built_state, with_inventory

MAP = ["......", "..T.~.", "......", "......", "...#.."]
POSITIONS = [(2, 2), (2, 4), (4, 2)]
FACING = [Facing.UP, Facing.UP, Facing.RIGHT]
DO_ALL = jnp.array([Action.DO] * 3)
KEY = jax.random.key(0)
SAPLING = jax.random.uniform(KEY, (3,))
"""The three agents' sapling rolls (the Do phase's ``sapling`` draws)."""
PASS = jnp.zeros(3)  # gate draws that pass every soft gate


def _state(small, params, **kw):
    return hand_built_state(MAP, small, params, kw.get("positions", POSITIONS), FACING)


def test_tree_gives_wood_and_becomes_grass(small, params):
    state = interact_blocks(_state(small, params), DO_ALL, PASS, SAPLING, params, small)
    assert state.players.inventory[0, Inv.WOOD] == 1
    assert state.world.block[1, 2] == Block.GRASS


def test_stone_needs_pickaxe(small, params):
    state = interact_blocks(_state(small, params), DO_ALL, PASS, SAPLING, params, small)
    assert state.players.inventory[2, Inv.STONE] == 0
    assert state.world.block[4, 3] == Block.STONE
    armed = with_inventory(_state(small, params), 2, pickaxe=1)
    state = interact_blocks(armed, DO_ALL, PASS, SAPLING, params, small)
    assert state.players.inventory[2, Inv.STONE] == 1
    assert state.world.block[4, 3] == Block.PATH


def test_drinking_is_forager_gated_under_hard_gates(small, params):
    start = _state(small, params)
    start = dataclasses.replace(
        start, players=dataclasses.replace(start.players, drink=jnp.array([3, 3, 3]))
    )
    state = interact_blocks(start, DO_ALL, PASS, SAPLING, params, small)
    assert state.players.drink[1] == 7
    assert bool(state.players.achievements[1, Achievement.COLLECT_DRINK])
    # The warrior facing the same water cannot drink under hard gates.
    warrior = dataclasses.replace(
        start,
        players=dataclasses.replace(
            start.players,
            pos=jnp.array([[2, 3], [2, 5], [4, 2]]),
            facing=jnp.array([Facing.RIGHT, Facing.DOWN, Facing.RIGHT]),
        ),
    )
    warrior = dataclasses.replace(
        warrior,
        players=dataclasses.replace(warrior.players, pos=jnp.array([[1, 3], [3, 5], [4, 2]])),
    )
    state = interact_blocks(warrior, DO_ALL, PASS, SAPLING, params, small)
    assert state.players.drink[0] == 3


def test_soft_gate_lets_non_specialists_drink_by_draw(small, params):
    soft = params.replace(soft_specialization=True, non_specialist_efficiency=0.4)
    start = hand_built_state(
        MAP, small, soft, [(1, 3), (3, 5), (4, 2)], [Facing.RIGHT, Facing.DOWN, Facing.RIGHT]
    )
    start = dataclasses.replace(
        start, players=dataclasses.replace(start.players, drink=jnp.array([3, 3, 3]))
    )
    passes = interact_blocks(start, DO_ALL, jnp.array([0.39, 0.9, 0.9]), SAPLING, soft, small)
    fails = interact_blocks(start, DO_ALL, jnp.array([0.41, 0.9, 0.9]), SAPLING, soft, small)
    assert passes.players.drink[0] == 7 and fails.players.drink[0] == 3


def test_two_players_mining_one_block_both_gain(small, params):
    start = hand_built_state(
        ["..T.."], small, params, [(1, 2), (0, 1), (5, 5)], [Facing.UP, Facing.RIGHT, Facing.UP]
    )
    state = interact_blocks(start, DO_ALL, PASS, SAPLING, params, small)
    np.testing.assert_array_equal(state.players.inventory[:, Inv.WOOD], [1, 1, 0])
    assert state.world.block[0, 2] == Block.GRASS


def test_ripe_plant_feeds_and_regrows(small, params):
    start = hand_built_state(
        ["R"], small, params, [(1, 0), (5, 5), (6, 6)], [Facing.UP, Facing.UP, Facing.UP]
    )
    start = dataclasses.replace(
        start, players=dataclasses.replace(start.players, food=jnp.array([2, 9, 9]))
    )
    state = interact_blocks(start, DO_ALL, PASS, SAPLING, params, small)
    assert state.players.food[0] == 6 and state.world.block[0, 0] == Block.PLANT
    assert bool(state.players.achievements[0, Achievement.EAT_PLANT])


def _with_mob(state, cls: str, pos, kind=0, health=5.0, **slot):
    ents: Entities = getattr(state.mobs, cls)
    fields = dict(
        pos=ents.pos.at[0].set(jnp.array(pos)),
        alive=ents.alive.at[0].set(True),
        health=ents.health.at[0].set(health),
        kind=ents.kind.at[0].set(kind),
    )
    for name, value in slot.items():
        fields[name] = getattr(ents, name).at[0].set(value)
    mobs = dataclasses.replace(state.mobs, **{cls: dataclasses.replace(ents, **fields)})
    return dataclasses.replace(state, mobs=mobs)


def test_do_on_mob_attacks_instead_of_mining(small, params):
    start = _with_mob(_state(small, params), "melee", (1, 2), health=5.0)
    after = attack_mobs(start, DO_ALL, PASS, params, small)
    after = interact_blocks(after, DO_ALL, PASS, SAPLING, params, small)
    # Warrior unarmed: 1 x 2 damage; the tree under the zombie's cell is untouched.
    assert float(after.mobs.melee.health[0]) == 3.0
    assert after.players.inventory[0, Inv.WOOD] == 0


def test_do_on_a_mob_on_grass_rolls_for_a_sapling_like_free_grass(small, params):
    # Measured on the published package (docs/decisions.md): the attack also rolls the grass.
    start = hand_built_state(
        ["......"], small, params, [(1, 1), (1, 3), (5, 5)], [Facing.UP, Facing.UP, Facing.UP]
    )
    under_cow = _with_mob(start, "passive", (0, 3), health=9.0)

    def saplings(state, key):
        after = interact_blocks(state, DO_ALL, PASS, jax.random.uniform(key, (3,)), params, small)
        return after.players.inventory[:, Inv.SAPLING]

    roll = jax.jit(jax.vmap(saplings, in_axes=(None, 0)))
    keys = jax.random.split(KEY, 64)
    free, under = np.asarray(roll(start, keys)), np.asarray(roll(under_cow, keys))
    np.testing.assert_array_equal(under, free)
    assert under[:, 1].sum() > 0  # the forager facing the cow got saplings on some keys


def test_do_on_a_teammate_on_grass_rolls_for_a_sapling_like_free_grass(small, params):
    # Measured on the published package (docs/decisions.md): the grass under a teammate rolls.
    up = [Facing.UP, Facing.UP, Facing.UP]
    free = hand_built_state(["......"], small, params, [(1, 1), (1, 3), (5, 5)], up)
    under = hand_built_state(["......"], small, params, [(1, 1), (1, 3), (0, 3)], up)

    def saplings(state, key):
        after = interact_blocks(state, DO_ALL, PASS, jax.random.uniform(key, (3,)), params, small)
        return after.players.inventory[:, Inv.SAPLING]

    roll = jax.jit(jax.vmap(saplings, in_axes=(None, 0)))
    keys = jax.random.split(KEY, 64)
    got_free, got_under = np.asarray(roll(free, keys)), np.asarray(roll(under, keys))
    np.testing.assert_array_equal(got_under[:, :2], got_free[:, :2])
    assert got_under[:, 1].sum() > 0  # the forager facing its teammate got saplings


def test_do_on_water_holding_a_mob_still_drinks(small, params):
    # Measured on the published package (docs/decisions.md): the cow in the water is attacked
    # and the forager drinks as from free water.
    start = _state(small, params)
    start = dataclasses.replace(
        start, players=dataclasses.replace(start.players, drink=jnp.array([5, 5, 5]))
    )
    under = _with_mob(start, "passive", (1, 4), health=9.0)
    free = interact_blocks(start, DO_ALL, PASS, SAPLING, params, small)
    after = interact_blocks(under, DO_ALL, PASS, SAPLING, params, small)
    assert int(after.players.drink[1]) == int(free.players.drink[1]) == 9


def test_killing_zombie_credits_attackers_and_floor(small, params):
    start = _with_mob(_state(small, params), "melee", (1, 2), health=2.0)
    after = attack_mobs(start, DO_ALL, PASS, params, small)
    assert not bool(after.mobs.melee.alive[0])
    assert bool(after.players.achievements[0, Achievement.DEFEAT_ZOMBIE])
    assert not bool(after.players.achievements[1, Achievement.DEFEAT_ZOMBIE])
    assert int(after.world.kills[0]) == 11


def test_cow_feeds_only_the_forager(small, params):
    start = hand_built_state(
        ["......"], small, params, [(1, 1), (1, 3), (5, 5)], [Facing.UP, Facing.UP, Facing.UP]
    )
    start = _with_mob(start, "passive", (0, 3), health=1.0)
    start = dataclasses.replace(
        start, players=dataclasses.replace(start.players, food=jnp.array([2, 2, 2]))
    )
    after = attack_mobs(start, DO_ALL, PASS, params, small)
    assert after.players.food[1] == 8
    assert bool(after.players.achievements[1, Achievement.EAT_COW])
    assert bool(after.players.achievements[1, Achievement.COLLECT_FOOD])


def test_hard_elite_needs_enough_attackers(small, params):
    # Two attackers on a hard elite needing 3: no damage at all.
    start = hand_built_state(
        ["......"], small, params, [(1, 1), (0, 0), (5, 5)], [Facing.RIGHT, Facing.RIGHT, Facing.UP]
    )
    start = _with_mob(start, "melee", (1, 2), health=5.0, elite=True, hard=True, required=3)
    start = dataclasses.replace(
        start,
        players=dataclasses.replace(
            start.players,
            pos=jnp.array([[1, 1], [0, 2], [5, 5]]),
            facing=jnp.array([Facing.RIGHT, Facing.DOWN, Facing.UP]),
        ),
    )
    after = attack_mobs(start, DO_ALL, PASS, params, small)
    assert float(after.mobs.melee.health[0]) == 5.0
    # With the required count met each attacker deals x3.
    met = _with_mob(start, "melee", (1, 2), health=20.0, elite=True, hard=True, required=2)
    after = attack_mobs(met, DO_ALL, PASS, params, small)
    assert float(after.mobs.melee.health[0]) == 20.0 - 3 * (2.0 + 1.0)
