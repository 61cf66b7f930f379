"""The symbolic observation (docs/rules/observations.md#symbolic-observation): sizes, channels,
dashboard, directions, own state."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Block, Facing, Item, MobClass
from alem_core.observation.map_view import cell_layout, map_view
from alem_core.observation.vector import direction_sectors, obs_layout, obs_size, observation
from alem_core.params import Params, StaticParams
from alem_core.state import to_light
from alem_core.testing import SMALL, hand_built_state, small, with_inventory

STATIC = SMALL
P = STATIC.player_count
C = P + 94
VIEW = 9 * 11 * C
# Channel offsets, written out from the spec table rather than imported.
ITEM0, MOB0, TEAM0 = 42, 47, 87
COORD, SOFT, ELITE, HARD, HANDOVER, LIGHT = 88 + P, 89 + P, 90 + P, 91 + P, 92 + P, 93 + P
DASH = 14
OBSERVE = jax.jit(observation, static_argnums=2)


def _obs(state):
    return np.asarray(OBSERVE(state, Params(), STATIC))


def _cells(obs, agent):
    """(9, 11, C) map view of one agent, undoing the documented row-major flattening."""
    return obs[agent, :VIEW].reshape(9, 11, C)


def _state(rows=(".",), positions=((8, 8), (8, 9), (9, 8)), facing=None):
    return hand_built_state(list(rows), STATIC, positions=positions, facing=facing)


def _set_world(state, **changes):
    return dataclasses.replace(state, world=dataclasses.replace(state.world, **changes))


def _set_players(state, **changes):
    return dataclasses.replace(state, players=dataclasses.replace(state.players, **changes))


@pytest.mark.parametrize(
    ("players", "channels", "size"), [(3, 0, 9718), (3, 4, 9730), (1, 0, 9476)]
)
def test_sizes(players, channels, size):
    static = small(player_count=players, num_comm_channels=channels)
    assert obs_size(static) == size
    obs = OBSERVE(hand_built_state(["."], static), Params(), static)
    assert obs.shape == (players, size)
    assert obs.dtype == jnp.float32


def test_block_under_player_and_faced_block():
    rows = ["." * 16] * 4 + ["." * 5 + "T"] + ["." * 5 + "p"]
    state = _state(rows, positions=((5, 5), (12, 12), (13, 13)), facing=(Facing.UP, 3, 3))
    cells = _cells(_obs(state), 0)
    assert cells[4, 5, Block.PATH] == 1 and cells[4, 5, :42].sum() == 1
    assert cells[3, 5, Block.TREE] == 1 and cells[3, 5, :42].sum() == 1
    assert cells[4, 4, Block.GRASS] == 1
    assert cells[4, 5, ITEM0 + Item.NONE] == 1 and cells[4, 5, LIGHT] == 1


def test_tree_two_cells_north_is_at_view_row_2():
    rows = ["." * 16] * 6 + ["." * 8 + "T"]
    cells = _cells(_obs(_state(rows)), 0)  # agent 0 at (8, 8): the tree is at (6, 8)
    assert cells[2, 5, Block.TREE] == 1
    assert cells[:, :, Block.TREE].sum() == 1


def test_out_of_bounds_at_a_corner_is_out_of_bounds_and_dark():
    state = _state(positions=((0, 0), (15, 15), (15, 14)))
    raw = np.asarray(jax.jit(map_view, static_argnums=(1, 2))(state, STATIC, False))[0]
    outside = np.ones((9, 11), bool)
    outside[4:, 5:] = False
    assert (raw[outside, Block.OUT_OF_BOUNDS] == 1).all()
    assert (raw[outside, ITEM0 + Item.NONE] == 1).all()
    assert (raw[~outside, Block.OUT_OF_BOUNDS] == 0).all()
    cells = _cells(_obs(state), 0)
    assert (cells[outside, LIGHT] == 0).all()
    assert (cells[outside] == 0).all()  # dark: every channel zeroed
    assert (cells[~outside, LIGHT] == 1).all()


def _with_mob(state, field, slot, pos, kind, elite=False, hard=False):
    ents = getattr(state.mobs, field)
    ents = dataclasses.replace(
        ents,
        pos=ents.pos.at[slot].set(jnp.asarray(pos)),
        alive=ents.alive.at[slot].set(True),
        kind=ents.kind.at[slot].set(kind),
        elite=ents.elite.at[slot].set(elite),
        hard=ents.hard.at[slot].set(hard),
    )
    return dataclasses.replace(state, mobs=dataclasses.replace(state.mobs, **{field: ents}))


def test_mobs_and_elite_flags():
    state = _with_mob(_state(), "melee", 0, (9, 10), 0)  # zombie, view (5, 7) of agent 0
    state = _with_mob(state, "passive", 1, (6, 6), 1, elite=True, hard=True)  # view (2, 3)
    state = _with_mob(state, "player_projectiles", 2, (7, 8), 3)  # view (3, 5)
    cells = _cells(_obs(state), 0)
    assert cells[5, 7, MOB0 + 8 * MobClass.MELEE + 0] == 1
    assert cells[2, 3, MOB0 + 8 * MobClass.PASSIVE + 1] == 1
    assert cells[3, 5, MOB0 + 8 * MobClass.PLAYER_PROJECTILE + 3] == 1
    assert cells[:, :, MOB0 : MOB0 + 40].sum() == 3
    assert cells[2, 3, ELITE] == 1 and cells[2, 3, HARD] == 1
    assert cells[5, 7, ELITE] == 0 and cells[:, :, ELITE].sum() == 1


def test_teammate_channels_self_first_then_index_order():
    state = _state()  # agents at (8, 8), (8, 9), (9, 8)
    state = _set_players(state, alive=jnp.array([True, True, False]))
    obs = _obs(state)
    me = _cells(obs, 0)
    assert me[4, 5, TEAM0] == 1 and me[:, :, TEAM0].sum() == 1
    assert me[4, 6, TEAM0 + 1] == 1 and me[5, 5, TEAM0 + 2] == 1
    you = _cells(obs, 1)
    assert you[4, 5, TEAM0] == 1
    assert you[4, 4, TEAM0 + 1] == 1 and you[5, 4, TEAM0 + 2] == 1  # agent 0, then agent 2
    alive = me[:, :, TEAM0 + P]
    assert alive[4, 5] == 1 and alive[4, 6] == 1 and alive[5, 5] == 0 and alive.sum() == 2


def test_dark_cells_show_nothing():
    rows = ["." * 16] * 6 + ["." * 8 + "T"]
    state = _with_mob(_state(rows), "melee", 0, (6, 8), 0)
    light = state.world.light.at[6, 8].set(to_light(0.05)).at[8, 9].set(0)
    cells = _cells(_obs(_set_world(state, light=light)), 0)
    assert (cells[2, 5] == 0).all()  # tree and zombie hidden
    assert (cells[4, 6] == 0).all()  # teammate hidden
    assert cells[4, 5, LIGHT] == 1 and cells[4, 5, TEAM0] == 1


def test_coordination_soft_and_handover_channels():
    state = _state()
    coord = state.world.coord.at[7, 8].set(2).at[7, 9].set(-12)
    soft = state.world.soft.at[7, 8].set(True).at[7, 9].set(True)
    block = state.world.block.at[7, 8].set(Block.STONE).at[7, 9].set(Block.IRON)
    state = _set_world(state, coord=coord, soft=soft, block=block)
    ho = state.handovers
    ho = dataclasses.replace(
        ho,
        pos=ho.pos.at[0].set(jnp.array([7, 9])),
        deadline=ho.deadline.at[0].set(6),
        open=ho.open.at[0].set(True),
    )
    cells = _cells(_obs(dataclasses.replace(state, handovers=ho, timestep=jnp.int32(3))), 0)
    np.testing.assert_allclose(cells[3, 5, COORD], 2 / 3, rtol=1e-6)
    np.testing.assert_allclose(cells[3, 6, COORD], -12 / 20, rtol=1e-6)
    assert cells[3, 5, SOFT] == 1 and cells[3, 6, SOFT] == 0
    np.testing.assert_allclose(cells[3, 6, HANDOVER], 3 / 15, rtol=1e-6)
    assert cells[:, :, HANDOVER].sum() == pytest.approx(3 / 15)


def test_dashboard_roles_requests_and_health():
    state = _set_players(
        _state(),
        request=jnp.array([2, 0, 5]),
        request_timer=jnp.array([4, 0, 1]),
        health=jnp.array([9.0, 5.0, 2.0]),
    )
    obs = _obs(state)
    dash = obs[0, VIEW : VIEW + P * DASH].reshape(P, DASH)
    roles = dash[:, 2:5]
    np.testing.assert_array_equal(roles, [[0, 1, 0], [1, 0, 0], [0, 0, 1]])
    np.testing.assert_allclose(dash[:, 0], [0.9, 0.5, 0.2])
    np.testing.assert_array_equal(dash[:, 1], [1, 1, 1])
    np.testing.assert_array_equal(dash[:, 5:].argmax(1), [2, 0, 5])
    np.testing.assert_array_equal(dash[:, 5:].sum(1), [1, 0, 1])  # timer 0: closed
    other = obs[2, VIEW : VIEW + P * DASH].reshape(P, DASH)  # agent 2: self, then 0, then 1
    np.testing.assert_array_equal(other[:, 2:5], [[0, 0, 1], [0, 1, 0], [1, 0, 0]])


def test_comm_messages_in_dashboard():
    static = small(num_comm_channels=4)
    state = hand_built_state(["."], static)
    message = jnp.zeros((3, 4)).at[1, 2].set(1.0)
    state = _set_players(state, message=message)
    obs = np.asarray(OBSERVE(state, Params(), static))
    dash = obs[0, VIEW : VIEW + P * 18].reshape(P, 18)
    np.testing.assert_array_equal(dash[:, 14:], [[0, 0, 0, 0], [0, 0, 1, 0], [0, 0, 0, 0]])


def test_direction_sectors_for_a_far_teammate():
    state = _state(positions=((10, 10), (0, 0), (11, 11)))
    obs = _obs(state)
    start = VIEW + P * DASH
    dirs0 = obs[0, start : start + P * 8].reshape(P, 8)
    np.testing.assert_array_equal(dirs0[0], 0)  # self
    np.testing.assert_array_equal(dirs0[1], np.eye(8)[3])  # agent 1 is north-west
    np.testing.assert_array_equal(dirs0[2], 0)  # agent 2 is on screen
    dirs1 = obs[1, start : start + P * 8].reshape(P, 8)
    np.testing.assert_array_equal(dirs1[1], np.eye(8)[7])  # agent 0 from agent 1: south-east
    deltas = jnp.array([[-5, 0], [4, -6], [0, 6], [4, 5], [5, -5], [-5, 6], [5, -6]])
    expected = [2, 0, 1, None, 5, 4, 6]  # N, W, E, on screen, S, NE, SW
    got = np.asarray(direction_sectors(deltas))
    for row, sector in zip(got, expected, strict=True):
        np.testing.assert_array_equal(row, 0 if sector is None else np.eye(8)[sector])


def test_own_state_scaling():
    state = with_inventory(_state(), 0, wood=4, stone=9, arrow=16, book=2, pickaxe=2, bow=1)
    state = with_inventory(state, 0, potion_red=25)
    state = _set_players(
        state,
        food=jnp.array([7, 9, 9]),
        facing=jnp.array([Facing.RIGHT, 3, 3]),
        armour=state.players.armour.at[0, 1].set(2),
        sleeping=jnp.array([True, False, False]),
    )
    own = _obs(state)[0, -49:]
    np.testing.assert_allclose(own[[0, 1, 9]], [0.2, 0.3, 0.4], rtol=1e-6)
    np.testing.assert_allclose(own[10:16], [2, 0.5, 0, 0, 0, 1])
    np.testing.assert_allclose(own[16], 0.5, rtol=1e-6)  # red potion
    np.testing.assert_allclose(own[22], 0.7, rtol=1e-6)  # food / 10
    np.testing.assert_array_equal(own[30:34], [0, 1, 0, 0])  # facing east
    np.testing.assert_allclose(own[34:38], [0, 1, 0, 0])
    np.testing.assert_array_equal(own[42:45], [1, 0, 0])
    np.testing.assert_allclose(own[45:49], [1, 0, 1, 0])  # daylight, floor 0, cleared, boss


def test_jit_matches_eager():
    state = _with_mob(_state(["T.c", "~#p"]), "ranged", 0, (10, 7), 2, elite=True)
    eager = np.asarray(observation(state, Params(), STATIC))
    np.testing.assert_allclose(_obs(state), eager)


def test_vmap_over_a_batch_of_worlds():
    one = _state()
    two = _state(["T"], positions=((0, 0), (1, 1), (2, 2)))
    batch = jax.tree_util.tree_map(lambda a, b: jnp.stack([a, b]), one, two)
    batched = jax.vmap(OBSERVE, in_axes=(0, None, None))(batch, Params(), STATIC)
    assert batched.shape == (2, P, obs_size(STATIC))
    np.testing.assert_allclose(batched[0], _obs(one))
    np.testing.assert_allclose(batched[1], _obs(two))


def test_layout_table_matches_the_spec():
    """docs/rules/observations.md#symbolic-observation offsets, P = 3, nc = 0: readers use
    ``obs_layout``, so it must be right."""
    layout = obs_layout(StaticParams())
    assert layout["map"] == slice(0, 9603)
    assert layout["dashboard"] == slice(9603, 9603 + 3 * 14)
    assert layout["directions"] == slice(9645, 9645 + 24)
    own = layout["own"].start
    assert (own, layout["own"].stop) == (9669, 9718)
    expected = {"inventory": 0, "potions": 16, "intrinsics": 22, "facing": 30, "armour": 34}
    expected |= {"armour_enchant": 38, "flags": 42, "floor_info": 45}
    assert {name: layout[name].start - own for name in expected} == expected
    cell = cell_layout(3)
    assert (cell["teammates"], cell["coord"].start, cell["light"].start) == (slice(87, 91), 91, 96)
