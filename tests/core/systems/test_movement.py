"""Movement and collisions (docs/rules/step.md#movement) on hand-built maps.

Map (rows 0-4, players at (2,1) agent 0, (2,3) agent 1, (4,4) agent 2):

    . . . . .
    . # . ~ .
    . 0 . 1 .
    . . . . .
    . . . . 2
"""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np

from alem_core.constants import Action, Facing
from alem_core.systems.movement import move_players
from alem_core.testing import hand_built_state

MAP = [".....", ".#.~.", ".....", ".....", "....."]
POSITIONS = [(2, 1), (2, 3), (4, 4)]


def _move(state, actions, params, small):
    return move_players(state, jnp.array(actions), None, params, small).players


def test_free_move_and_blocked_by_stone_turns(small, params):
    state = hand_built_state(MAP, small, params, POSITIONS)
    players = _move(state, [Action.UP, Action.DOWN, Action.LEFT], params, small)
    # agent 0 faces stone at (1,1): stays but turns north; agent 1 moves south; agent 2 west.
    np.testing.assert_array_equal(players.pos, [[2, 1], [3, 3], [4, 3]])
    np.testing.assert_array_equal(players.facing, [Facing.UP, Facing.DOWN, Facing.LEFT])


def test_water_blocks(small, params):
    state = hand_built_state(MAP, small, params, POSITIONS)
    players = _move(state, [Action.NOOP, Action.UP, Action.NOOP], params, small)
    np.testing.assert_array_equal(players.pos[1], [2, 3])


def test_two_players_into_one_cell_both_fail(small, params):
    state = hand_built_state(MAP, small, params, POSITIONS)
    players = _move(state, [Action.RIGHT, Action.LEFT, Action.NOOP], params, small)
    np.testing.assert_array_equal(players.pos[:2], [[2, 1], [2, 3]])


def test_following_into_vacated_cell_and_swaps_fail(small, params):
    state = hand_built_state(MAP, small, params, [(2, 1), (2, 2), (4, 4)])
    follow = _move(state, [Action.RIGHT, Action.RIGHT, Action.NOOP], params, small)
    np.testing.assert_array_equal(follow.pos[:2], [[2, 1], [2, 3]])
    swap = _move(state, [Action.RIGHT, Action.LEFT, Action.NOOP], params, small)
    np.testing.assert_array_equal(swap.pos[:2], [[2, 1], [2, 2]])


def test_dead_player_still_blocks(small, params):
    state = hand_built_state(MAP, small, params, [(2, 1), (2, 2), (4, 4)])
    players = dataclasses.replace(state.players, alive=jnp.array([True, False, True]))
    state = dataclasses.replace(state, players=players)
    moved = _move(state, [Action.RIGHT, Action.NOOP, Action.NOOP], params, small)
    np.testing.assert_array_equal(moved.pos[0], [2, 1])


def test_map_edge_blocks(small, params):
    state = hand_built_state(MAP, small, params, [(0, 0), (2, 3), (4, 4)])
    players = _move(state, [Action.UP, Action.NOOP, Action.NOOP], params, small)
    np.testing.assert_array_equal(players.pos[0], [0, 0])


def test_god_mode_walks_through_stone(small, params):
    state = hand_built_state(MAP, small, params.replace(god_mode=True), POSITIONS)
    players = _move(
        state, [Action.UP, Action.NOOP, Action.NOOP], params.replace(god_mode=True), small
    )
    np.testing.assert_array_equal(players.pos[0], [1, 1])
