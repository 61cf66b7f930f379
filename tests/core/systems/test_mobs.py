"""Mob update on hand-built maps (docs/rules/mobs.md#behaviour): melee, movement conflicts,
projectiles, despawn."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement, Block, MobClass, Projectile
from alem_core.params import Params, StaticParams
from alem_core.pipeline import step_draws
from alem_core.state import State
from alem_core.systems.mobs import update_mobs
from alem_core.testing import SMALL, hand_built_state

from .mob_states import place

LARGE = StaticParams(map_size=(32, 32), num_levels=2, player_count=3)
NEAR = Params(mob_despawn_distance=100)
"""Keeps test mobs from despawning wherever the players stand."""


@pytest.fixture(scope="module")
def update():
    """``update_mobs`` jitted once per static shape for the whole module."""
    return jax.jit(
        lambda k, s, p, st: update_mobs(s, None, step_draws(k, st), p, st), static_argnums=3
    )


def set_blocks(state: State, cells, block: int) -> State:
    """Set the given (row, col) cells of floor 0 to ``block``."""
    grid = state.world.block
    for r, c in cells:
        grid = grid.at[r, c].set(block)
    return state.replace(world=state.world.replace(block=grid))


def set_players(state: State, **fields) -> State:
    """Replace player fields with the given per-player values."""
    changes = {k: jnp.asarray(v, getattr(state.players, k).dtype) for k, v in fields.items()}
    return state.replace(players=state.players.replace(**changes))


def keys(n: int):
    return jax.random.split(jax.random.key(7), n)


def test_zombie_hits_every_adjacent_player(update):
    # North and east of the zombie: hit; south-east (diagonal) is not Manhattan-adjacent.
    state = hand_built_state([], SMALL, positions=[(4, 5), (5, 6), (6, 6)])
    state = set_players(state, sleeping=[False, True, False], resting=[True, False, False])
    state = place(state, MobClass.MELEE, 0, (5, 5), health=5.0, cooldown=0)
    out = update(keys(1)[0], state, NEAR, SMALL)

    np.testing.assert_allclose(out.players.health, [7.0, 2.0, 9.0])  # 2, 2 x 3.5, none
    np.testing.assert_allclose(out.stats.damage_taken, [2.0, 7.0, 0.0])
    assert not out.players.sleeping.any()
    assert not out.players.resting[0]
    np.testing.assert_array_equal(
        out.players.achievements[:, Achievement.WAKE_UP], [False, True, False]
    )
    assert int(out.mobs.melee.cooldown[0]) == 5
    np.testing.assert_array_equal(out.mobs.melee.pos[0], [5, 5])  # attacking, not moving


def test_only_first_attacker_gets_sleep_bonus(update):
    state = hand_built_state([], SMALL, positions=[(5, 5), (12, 12), (12, 13)])
    state = set_players(state, sleeping=[True, False, False])
    state = place(state, MobClass.MELEE, 0, (4, 5), cooldown=0)
    state = place(state, MobClass.MELEE, 1, (6, 5), cooldown=0)
    out = update(keys(1)[0], state, NEAR, SMALL)
    np.testing.assert_allclose(out.players.health[0], 9.0 - 7.0 - 2.0)


def test_cooldown_delays_attack(update):
    state = hand_built_state([], SMALL, positions=[(4, 5), (12, 12), (12, 13)])
    state = place(state, MobClass.MELEE, 0, (5, 5), health=5.0, cooldown=3)
    out = update(keys(1)[0], state, NEAR, SMALL)
    np.testing.assert_allclose(out.players.health, [9.0, 9.0, 9.0])
    assert int(out.mobs.melee.cooldown[0]) == 2


def test_zombie_blocked_by_water_stone_players_and_mobs(update):
    state = hand_built_state([], SMALL, positions=[(5, 4), (12, 12), (12, 13)])
    state = set_blocks(state, [(4, 5)], Block.WATER)
    state = set_blocks(state, [(6, 5)], Block.STONE)
    state = place(state, MobClass.MELEE, 0, (5, 5), cooldown=50)  # ready to move, not to hit
    state = place(state, MobClass.PASSIVE, 0, (5, 6), health=3.0)  # may walk away this step
    for key in keys(24):
        out = update(key, state, NEAR, SMALL)
        np.testing.assert_array_equal(out.mobs.melee.pos[0], [5, 5])


def test_two_zombies_never_share_a_cell(update):
    # Two zombies whose only free neighbour is the cell between them.
    state = hand_built_state(
        ["#####", "#.#.#", "#####"], SMALL, positions=[(12, 2), (12, 4), (13, 3)]
    )
    state = place(state, MobClass.MELEE, 0, (1, 1), cooldown=50)
    state = place(state, MobClass.MELEE, 1, (1, 3), cooldown=50)
    state = set_blocks(state, [(1, 2)], Block.GRASS)
    moved = 0
    for key in keys(40):
        out = update(key, state, NEAR, SMALL)
        a, b = np.asarray(out.mobs.melee.pos[:2])
        assert not np.array_equal(a, b)
        moved += int((a == (1, 2)).all() or (b == (1, 2)).all())
    assert moved > 0


def test_skeleton_arrow_hits_player_and_breaks_table(update):
    state = hand_built_state([], SMALL, positions=[(5, 6), (10, 6), (15, 15)])
    state = set_players(state, resting=[True, False, False])
    state = set_blocks(state, [(10, 4)], Block.CRAFTING_TABLE)
    state = place(state, MobClass.RANGED, 0, (5, 2), health=3.0, kind=0, cooldown=0)
    state = place(state, MobClass.RANGED, 1, (10, 2), health=3.0, kind=0, cooldown=0)
    step_keys = keys(4)
    state = update(step_keys[0], state, NEAR, SMALL)
    assert int(state.mobs.ranged.cooldown[0]) == 4
    assert int(state.mobs.mob_projectiles.alive.sum()) == 2
    np.testing.assert_array_equal(state.mobs.mob_projectiles.direction[:2], [[0, 1], [0, 1]])
    state = update(step_keys[1], state, NEAR, SMALL)
    assert int(state.world.block[10, 4]) == Block.PATH  # the table is destroyed
    assert int(state.mobs.mob_projectiles.alive.sum()) == 1  # and that arrow stopped
    for key in step_keys[2:]:
        state = update(key, state, NEAR, SMALL)
    np.testing.assert_allclose(state.players.health, [7.0, 9.0, 9.0])  # arrow: 2 physical
    np.testing.assert_allclose(state.stats.damage_taken, [2.0, 0.0, 0.0])
    assert not state.players.resting[0]
    assert not state.mobs.mob_projectiles.alive.any()
    assert not state.players.achievements[:, Achievement.WAKE_UP].any()


def _arrow(state: State, pos, direction, owner: int) -> State:
    return place(
        state,
        MobClass.PLAYER_PROJECTILE,
        0,
        pos,
        direction=direction,
        owner=owner,
        kind=Projectile.ARROW2,
    )


def test_player_arrow_kill_credits_only_the_shooter(update):
    state = hand_built_state([], SMALL, positions=[(12, 5), (12, 7), (13, 6)])
    state = set_blocks(state, [(4, 5), (6, 5), (5, 6)], Block.STONE)
    state = place(state, MobClass.MELEE, 0, (5, 5), health=5.0, kind=0, cooldown=50)
    state = _arrow(state, (5, 4), (0, 1), owner=1)
    out = update(keys(1)[0], state, NEAR, SMALL)
    assert not out.mobs.melee.alive[0]
    np.testing.assert_array_equal(
        out.players.achievements[:, Achievement.DEFEAT_ZOMBIE], [False, True, False]
    )
    assert int(out.world.kills[0]) == int(state.world.kills[0]) + 1
    np.testing.assert_array_equal(out.stats.monsters_killed, [0, 1, 0])
    assert not out.mobs.player_projectiles.alive.any()


def test_player_arrow_kills_passive_without_reward(update):
    state = hand_built_state([], SMALL, positions=[(12, 5), (12, 7), (13, 6)])
    state = set_blocks(state, [(4, 5), (6, 5), (5, 6), (5, 4)], Block.STONE)
    state = place(state, MobClass.PASSIVE, 0, (5, 5), health=3.0, kind=0)
    state = _arrow(state, (5, 5), (0, 1), owner=1)  # mob on the arrow's own cell
    out = update(keys(1)[0], state, NEAR, SMALL)
    assert not out.mobs.passive.alive[0]
    assert int(out.world.kills[0]) == int(state.world.kills[0])
    assert not out.players.achievements.any()
    assert not out.stats.monsters_killed.any()


def test_arrow_flies_until_a_wall(update):
    state = hand_built_state([], SMALL, positions=[(12, 5), (12, 7), (13, 6)])
    state = set_blocks(state, [(2, 4)], Block.WATER)
    state = set_blocks(state, [(2, 6)], Block.STONE)
    state = _arrow(state, (2, 2), (0, 1), owner=0)
    out = update(keys(1)[0], state, NEAR, SMALL)
    np.testing.assert_array_equal(out.mobs.player_projectiles.pos[0], [2, 3])
    out = update(keys(1)[0], out, NEAR, SMALL)
    np.testing.assert_array_equal(out.mobs.player_projectiles.pos[0], [2, 4])  # over water
    out = update(keys(1)[0], update(keys(1)[0], out, NEAR, SMALL), NEAR, SMALL)
    assert not out.mobs.player_projectiles.alive[0]


@pytest.mark.parametrize("friendly_fire", [True, False])
def test_friendly_fire_arrow(update, friendly_fire):
    state = hand_built_state([], SMALL, positions=[(5, 2), (5, 4), (12, 12)])
    state = _arrow(state, (5, 3), (0, 1), owner=0)
    params = NEAR.replace(friendly_fire=friendly_fire)
    out = update(keys(1)[0], state, params, SMALL)
    expected = 5.0 if friendly_fire else 0.0
    np.testing.assert_allclose(out.players.health, [9.0, 9.0 - expected, 9.0])
    np.testing.assert_allclose(out.stats.friendly_fire_damage, [expected, 0.0, 0.0])
    np.testing.assert_allclose(out.stats.damage_taken, [0.0, 0.0, 0.0])
    assert not out.mobs.player_projectiles.alive.any()


@pytest.fixture(scope="module")
def despawned(update):
    """One update on a 32 x 32 map: walled-in mobs at Manhattan 13, 14 and 20 from player 0.

    Floor 1 holds a mob far from everyone: it must stay frozen (only the team's floor updates).
    """
    state = hand_built_state([], LARGE, positions=[(2, 2), (18, 2), (30, 30)])
    state = set_players(state, alive=[True, False, False], health=[9.0, 0.0, 0.0])
    walls = []
    for r, c in [(2, 15), (16, 2), (22, 2)]:
        walls += [(r - 1, c), (r + 1, c), (r, c - 1), (r, c + 1)]
    state = set_blocks(state, walls, Block.STONE)
    state = place(state, MobClass.MELEE, 0, (2, 15), cooldown=50)  # 13: stays
    state = place(state, MobClass.MELEE, 1, (16, 2), cooldown=50)  # 14 (dead player near)
    state = place(state, MobClass.PASSIVE, 0, (22, 2), health=3.0)  # 20
    every = state.all_mobs()  # a mob on floor 1, where the team is not
    melee = every.melee
    frozen = melee.replace(
        alive=melee.alive.at[1, 0].set(True), pos=melee.pos.at[1, 0].set(jnp.array([30, 0]))
    )
    state = state.with_all_mobs(every.replace(melee=frozen))
    return state, update(keys(1)[0], state, Params(), LARGE)


def test_despawn_at_distance_14(despawned):
    _, out = despawned
    np.testing.assert_array_equal(out.mobs.melee.alive[:2], [True, False])
    assert not out.mobs.passive.alive[0]


def test_other_floors_stay_frozen(despawned):
    before, out = despawned
    for a, b in zip(
        jax.tree.leaves(before.mob_floors), jax.tree.leaves(out.mob_floors), strict=True
    ):
        np.testing.assert_array_equal(a, b)
    assert bool(out.all_mobs().melee.alive[1, 0])
    np.testing.assert_array_equal(before.world.floors.block[1], out.world.floors.block[1])


def _busy_state() -> State:
    """A crowded 16 x 16 floor with every class in play."""
    state = hand_built_state(
        ["..~~..#", "..t...#", "......f"], SMALL, positions=[(6, 6), (6, 8), (8, 7)]
    )
    state = set_players(state, sleeping=[True, False, False])
    state = place(state, MobClass.MELEE, 0, (5, 6), cooldown=0)
    state = place(state, MobClass.MELEE, 1, (7, 8), cooldown=2, kind=3)
    state = place(state, MobClass.MELEE, 2, (3, 3), cooldown=0)
    state = place(state, MobClass.PASSIVE, 0, (9, 9), health=3.0)
    state = place(state, MobClass.PASSIVE, 1, (1, 3), health=4.0, kind=1)
    state = place(state, MobClass.RANGED, 0, (6, 2), health=3.0, cooldown=0)
    state = place(state, MobClass.RANGED, 1, (12, 7), health=3.0, cooldown=0)
    state = place(state, MobClass.MOB_PROJECTILE, 0, (1, 0), direction=(0, 1), kind=0)
    state = _arrow(state, (9, 11), (0, -1), owner=2)
    return state


@pytest.mark.slow  # eager op-by-op dispatch compiles each primitive once (~10-30 s)
def test_jit_matches_eager(update):
    state = _busy_state()
    key = jax.random.key(3)
    eager = update_mobs(state, None, step_draws(key, SMALL), Params(), SMALL)
    jitted = update(key, state, Params(), SMALL)
    for a, b in zip(jax.tree.leaves(eager), jax.tree.leaves(jitted), strict=True):
        np.testing.assert_allclose(np.asarray(a), np.asarray(b), rtol=1e-6)
