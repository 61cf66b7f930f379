"""Synchronous and handover mining (docs/rules/coordination.md) through the real Do-phase stage.

. . . . .
. 0 # 1 .      stone at (1,2); agent 0 at (1,1) facing right, agent 1 at (1,3) facing left,
. . 2 . .      agent 2 at (2,2) facing up. Everyone holds a wood pickaxe unless stated.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement as Ach
from alem_core.constants import Action, Block, Facing, Inv
from alem_core.params import Params
from alem_core.pipeline import do_phase, step_draws
from alem_core.testing import hand_built_state

from ..conftest import SMALL

DO_PHASE = jax.jit(
    lambda s, a, k, p, st: do_phase(s, a, step_draws(k, st), p, st), static_argnums=4
)
STONE = (1, 2)
POSITIONS = [(1, 1), (1, 3), (2, 2)]
FACING = [Facing.RIGHT, Facing.LEFT, Facing.UP]
DO, NOOP = Action.DO, Action.NOOP
KEY = jax.random.key(0)


def world(value: int, soft: bool = False, params: Params | None = None, pickaxe: int = 1):
    params = Params(shared_reward=False) if params is None else params
    state = hand_built_state([".....", "..#.."], SMALL, params, POSITIONS, FACING)
    w = state.world
    state = state.replace(
        world=w.replace(coord=w.coord.at[1, 2].set(value), soft=w.soft.at[1, 2].set(soft))
    )
    inventory = state.players.inventory.at[:, Inv.PICKAXE].set(pickaxe)
    return state.replace(players=state.players.replace(inventory=inventory)), params


def do(state, params, *actions, key=KEY):
    return DO_PHASE(state, jnp.array(actions, jnp.int32), key, params, SMALL)


def stone(state):
    return np.asarray(state.players.inventory[:, Inv.STONE]).tolist()


def unlocked(state, achievement):
    return np.asarray(state.players.achievements[:, achievement]).tolist()


def test_two_on_a_hard_pair_block_get_three_each():
    state, params = world(2)
    out = do(state, params, DO, DO, NOOP)
    assert stone(out) == [3, 3, 0]
    assert int(out.world.block[1, 2]) == Block.PATH  # the task ends with its block
    assert unlocked(out, Ach.COORD_2_AGENTS_HARD) == [True, True, False]
    assert unlocked(out, Ach.COORD_MINE_STONE_HARD) == [True, True, False]
    assert int(out.coordination.sync_successes) == 1 and int(out.coordination.sync_2_agents) == 1


def test_three_on_a_hard_team_block_get_six_each():
    state, params = world(3)
    out = do(state, params, DO, DO, DO)
    assert stone(out) == [6, 6, 6]
    assert unlocked(out, Ach.COORD_3_AGENTS_HARD) == [True, True, True]
    assert int(out.coordination.sync_3plus_agents) == 1


@pytest.mark.parametrize(("value", "actions"), [(2, (DO, NOOP, NOOP)), (3, (DO, DO, NOOP))])
def test_too_few_on_a_hard_block_do_nothing(value, actions):
    state, params = world(value)
    out = do(state, params, *actions)
    assert stone(out) == [0, 0, 0]
    assert int(out.world.block[1, 2]) == Block.STONE
    assert int(out.world.coord[1, 2]) == value
    assert int(out.coordination.sync_attempts) == 1 and int(out.coordination.sync_successes) == 0


def test_without_the_tool_tier_no_coordination_achievement():
    state, params = world(2, pickaxe=0)
    out = do(state, params, DO, DO, NOOP)
    assert stone(out) == [0, 0, 0]
    assert not any(unlocked(out, Ach.COORD_2_AGENTS_HARD))  # decision 7


def test_a_tree_counts_for_the_generic_achievement_only():
    state, params = world(2)
    w = state.world
    state = state.replace(world=w.replace(block=w.block.at[1, 2].set(Block.TREE)))
    out = do(state, params, DO, DO, NOOP)
    assert np.asarray(out.players.inventory[:, Inv.WOOD]).tolist() == [3, 3, 0]
    assert unlocked(out, Ach.COORD_2_AGENTS_HARD) == [True, True, False]
    assert (
        int(
            out.players.achievements[
                :, Ach.COORD_MINE_STONE_HARD : Ach.COORD_MINE_RUBY_HARD + 1
            ].sum()
        )
        == 0
    )


def test_soft_block_met_gives_the_bonus_and_soft_achievements():
    state, params = world(2, soft=True, params=Params(soft_solo_fail_prob=1.0))
    out = do(state, params, DO, DO, NOOP)
    assert stone(out) == [3, 3, 0]
    assert unlocked(out, Ach.COORD_2_AGENTS_SOFT) == [True, True, False]
    assert unlocked(out, Ach.COORD_MINE_STONE_SOFT) == [True, True, False]
    assert int(out.coordination.soft_bonus_events) == 1
    assert int(out.coordination.sync_successes) == 1
    assert int(out.coordination.sync_soft_successes) == 1


@pytest.mark.parametrize("fail", [0.0, 0.3, 1.0])
def test_soft_solo_attempt_fails_with_its_probability(fail):
    """A lone Do on a soft sync block mines with probability 1 - soft_solo_fail_prob (tested
    through the Do phase over 200 keys, not by re-deriving its internal draws)."""
    params = Params(soft_solo_fail_prob=fail)
    state, _ = world(2, soft=True, params=params)
    actions = jnp.array([DO, NOOP, NOOP], jnp.int32)
    keys = jax.random.split(jax.random.key(3), 200)
    outs = jax.vmap(lambda k: DO_PHASE(state, actions, k, params, SMALL))(keys)
    mined = np.asarray(outs.players.inventory[:, 0, Inv.STONE]) > 0
    sd = np.sqrt(200 * fail * (1 - fail))
    assert abs(mined.sum() - 200 * (1 - fail)) <= 4 * sd + 1e-9, mined.sum()
    assert not np.asarray(outs.players.achievements[:, 0, Ach.COORD_2_AGENTS_SOFT]).any()
    solo = np.asarray(outs.coordination.solo_soft_successes)
    np.testing.assert_array_equal(solo, mined)  # a lone success counts as solo-soft
    assert not np.asarray(outs.coordination.sync_successes).any()  # and not as a sync one
    np.testing.assert_array_equal(np.asarray(outs.coordination.sync_2_agents), mined)  # cell's N


def _handover_world(window: int):
    state, params = world(-window)
    return state, params


def _at(state, t):
    return state.replace(timestep=jnp.asarray(t, jnp.int32))


def test_handover_completed_on_the_last_step_of_its_window():
    state, params = _handover_world(5)
    opened = do(_at(state, 10), params, DO, NOOP, NOOP)
    assert stone(opened) == [0, 0, 0] and bool(opened.handovers.open.any())
    row = int(np.flatnonzero(np.asarray(opened.handovers.open))[0])
    assert int(opened.handovers.deadline[row]) == 16 and int(opened.handovers.initiator[row]) == 0
    again = do(_at(opened, 12), params, DO, NOOP, NOOP)  # the initiator re-acting: nothing
    assert stone(again) == [0, 0, 0] and int(again.handovers.open.sum()) == 1
    done = do(_at(again, 15), params, NOOP, DO, NOOP)  # t + W
    assert stone(done) == [0, 1, 0]
    assert not bool(done.handovers.open.any()) and int(done.world.coord[1, 2]) == 0
    assert unlocked(done, Ach.HANDOVER_COMPLETE) == [False, True, False]
    assert unlocked(done, Ach.COORD_MINE_HANDOVER) == [False, True, False]
    assert int(done.coordination.handover_successes) == 1


def test_handover_one_step_late_expires_and_restarts():
    state, params = _handover_world(5)
    opened = do(_at(state, 10), params, DO, NOOP, NOOP)
    late = do(_at(opened, 16), params, NOOP, DO, NOOP)  # t + W + 1: expired first
    assert stone(late) == [0, 0, 0]
    assert int(late.coordination.handover_expiries) == 1
    rows = np.flatnonzero(np.asarray(late.handovers.open))
    assert len(rows) == 1 and int(late.handovers.initiator[rows[0]]) == 1  # a new entry
    assert int(late.world.coord[1, 2]) == -5  # the cell keeps its requirement


def test_two_completers_on_one_step_lowest_index_wins():
    state, params = _handover_world(5)
    opened = do(_at(state, 10), params, NOOP, DO, NOOP)  # agent 1 starts
    done = do(_at(opened, 11), params, DO, NOOP, DO)  # agents 0 and 2 both complete
    assert stone(done) == [1, 0, 0]
    assert unlocked(done, Ach.HANDOVER_COMPLETE) == [True, False, False]


def test_completion_is_credited_without_the_pickaxe():
    state, params = world(-5, pickaxe=0)
    opened = do(_at(state, 0), params, DO, NOOP, NOOP)
    done = do(_at(opened, 1), params, NOOP, DO, NOOP)
    assert stone(done) == [0, 0, 0]
    assert unlocked(done, Ach.COORD_MINE_HANDOVER) == [False, True, False]


def test_a_finished_task_disappears_from_the_observation():
    from alem_core.observation.map_view import padded_floor

    state, params = world(2)
    ints, _ = padded_floor(state)
    assert int(ints[1 + 4, 2 + 5, 2]) == 2  # the sync value shows while the stone stands
    out = do(state, params, DO, DO, NOOP)
    ints, _ = padded_floor(out)
    assert int(ints[1 + 4, 2 + 5, 2]) == 0 and int(ints[1 + 4, 2 + 5, 3]) == 0
