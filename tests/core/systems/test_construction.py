"""Construction sites (docs/rules/coordination.md#construction-sites): sync groups with one payer,
handover builds, refunds.

. . . . .
. 0 S 1 .      site S at (1,2); agent 0 at (1,1) facing right, agent 1 at (1,3) facing
. . 2 . .      left; agent 2 at (2,2) facing down (away) unless a test turns it up.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Achievement, Action, Block, Facing, Inv
from alem_core.observation.masking import action_mask
from alem_core.params import Params
from alem_core.rules.tables import TASK_BLOCK
from alem_core.state import light_level
from alem_core.systems.construction import build
from alem_core.systems.handovers import revert_builds
from alem_core.testing import hand_built_state

from ..conftest import SMALL

BUILD = jax.jit(lambda s, a, st: build(s, a, None, None, st), static_argnums=2)
SHELTER, FORGE, BEACON = Action.BUILD_SHELTER, Action.BUILD_FORGE, Action.BUILD_BEACON
NOOP = Action.NOOP
SHELTER_COST = {Inv.WOOD: 10, Inv.STONE: 5}


def site(value: int, soft: bool = False, payers=(0, 1), facing2=Facing.DOWN):
    params = Params(shared_reward=False)
    state = hand_built_state(
        ["....."], SMALL, params, [(1, 1), (1, 3), (2, 2)], [Facing.RIGHT, Facing.LEFT, facing2]
    )
    w = state.world
    state = state.replace(
        world=w.replace(
            block=w.block.at[1, 2].set(Block.CONSTRUCTION_SITE),
            coord=w.coord.at[1, 2].set(value),
            soft=w.soft.at[1, 2].set(soft),
        )
    )
    inventory = state.players.inventory
    for agent in payers:
        for column, amount in SHELTER_COST.items():
            inventory = inventory.at[agent, column].set(amount)
    return state.replace(players=state.players.replace(inventory=inventory))


def act(state, *actions, t=0):
    state = state.replace(timestep=jnp.asarray(t, jnp.int32))
    return BUILD(state, jnp.array(actions, jnp.int32), SMALL)


def wood(state):
    return np.asarray(state.players.inventory[:, Inv.WOOD]).tolist()


def has(state, achievement):
    return np.asarray(state.players.achievements[:, achievement]).tolist()


def test_sync_pair_one_payer_both_credited():
    out = act(site(2), SHELTER, SHELTER, NOOP)
    assert int(out.world.block[1, 2]) == Block.EPIC_SHELTER
    assert not TASK_BLOCK[int(out.world.block[1, 2])]  # the task ends with the site
    assert wood(out) == [0, 10, 0]  # the lowest-index member who can pay
    assert has(out, Achievement.COORD_BUILD_SHELTER) == [True, True, False]
    assert np.asarray(out.coordination.builds).tolist() == [1, 0, 0]
    assert int(out.coordination.build_sync_attempts) == 1


def test_only_a_member_who_can_pay_pays():
    out = act(site(2, payers=(1,)), SHELTER, SHELTER, NOOP)
    assert int(out.world.block[1, 2]) == Block.EPIC_SHELTER
    assert wood(out) == [0, 0, 0]


def test_different_structures_do_not_form_one_group():
    out = act(site(2), SHELTER, FORGE, NOOP)
    assert int(out.world.block[1, 2]) == Block.CONSTRUCTION_SITE
    assert wood(out) == [10, 10, 0]


def test_hard_site_alone_fails_soft_site_alone_builds_without_credit():
    hard = act(site(2), SHELTER, NOOP, NOOP)
    assert int(hard.world.block[1, 2]) == Block.CONSTRUCTION_SITE and wood(hard) == [10, 10, 0]
    soft = act(site(2, soft=True), SHELTER, NOOP, NOOP)
    assert int(soft.world.block[1, 2]) == Block.EPIC_SHELTER and wood(soft) == [0, 10, 0]
    assert not any(has(soft, Achievement.COORD_BUILD_SHELTER))


def test_unfunded_group_builds_nothing():
    out = act(site(2, payers=()), SHELTER, SHELTER, NOOP)
    assert int(out.world.block[1, 2]) == Block.CONSTRUCTION_SITE
    assert int(out.coordination.build_unfunded) == 1
    assert int(out.coordination.build_sync_attempts) == 0  # not an attempt (docs/decisions.md)


def test_handover_build_started_then_completed_for_free():
    started = act(site(-4), SHELTER, NOOP, NOOP, t=3)
    assert int(started.world.block[1, 2]) == Block.CONSTRUCTION_IN_PROGRESS
    assert wood(started) == [0, 10, 0]
    row = int(np.flatnonzero(np.asarray(started.handovers.open))[0])
    assert int(started.handovers.deadline[row]) == 8 and int(started.handovers.kind[row]) == 1
    wrong = act(started, NOOP, FORGE, NOOP, t=4)  # another structure does not complete it
    assert int(wrong.world.block[1, 2]) == Block.CONSTRUCTION_IN_PROGRESS
    done = act(wrong, NOOP, SHELTER, NOOP, t=7)  # t + W, the last step of the window
    assert int(done.world.block[1, 2]) == Block.EPIC_SHELTER
    assert wood(done) == [0, 10, 0]  # the completer pays nothing
    assert has(done, Achievement.COORD_BUILD_SHELTER) == [False, True, False]
    assert has(done, Achievement.HANDOVER_COMPLETE) == [True, True, False]
    assert not bool(done.handovers.open.any())


def test_handover_build_expiring_refunds_the_initiator():
    started = act(site(-4), SHELTER, NOOP, NOOP, t=3)
    expired = act(started, NOOP, NOOP, NOOP, t=8)  # the construction stage expires it first
    assert int(expired.world.block[1, 2]) == Block.CONSTRUCTION_SITE
    assert wood(expired) == [10, 10, 0]
    assert int(expired.players.inventory[0, Inv.STONE]) == 5
    assert int(expired.coordination.build_handover_expiries) == 1
    assert not bool(expired.handovers.open.any())


def test_half_built_site_is_cleared_and_refunded_directly():
    """Decision 5, tested on the clearing function until floor changes exist."""
    started = act(site(-4), SHELTER, NOOP, NOOP, t=3)
    cleared = revert_builds(started, started.handovers.open)
    assert int(cleared.world.block[1, 2]) == Block.CONSTRUCTION_SITE
    assert wood(cleared) == [10, 10, 0] and not bool(cleared.handovers.open.any())


def test_a_lower_index_player_facing_the_cell_blocks_the_start():
    state = site(-4, payers=(1,))
    out = act(state, NOOP, SHELTER, NOOP)  # agent 0 faces the site too, doing nothing
    assert int(out.world.block[1, 2]) == Block.CONSTRUCTION_SITE and wood(out) == [0, 10, 0]


def test_beacon_lights_the_cells_around_it():
    state = site(2, payers=())
    inventory = state.players.inventory.at[0, Inv.IRON].set(3).at[0, Inv.COAL].set(2)
    state = state.replace(players=state.players.replace(inventory=inventory))
    state = state.replace(world=state.world.replace(light=jnp.zeros_like(state.world.light)))
    out = act(state, BEACON, BEACON, NOOP)
    light = np.asarray(light_level(out.world.light))
    assert light[1, 2] == 1.0 and light[1, 4] == 0.5 and light[1, 6] == 0.0
    assert int(out.world.block[1, 2]) == Block.EPIC_BEACON


def test_mask_offers_build_next_to_a_site_when_a_teammate_can_pay():
    state = site(2, payers=(2,))
    mask = np.asarray(action_mask(state, Params(), SMALL))
    assert mask[:, SHELTER].tolist() == [True, True, True]  # all three are adjacent
    assert not mask[:, FORGE].any()
    nobody = np.asarray(action_mask(site(2, payers=()), Params(), SMALL))
    assert not nobody[:, SHELTER].any()
    started = act(site(-4, payers=(0,)), SHELTER, NOOP, NOOP)
    resume = np.asarray(action_mask(started, Params(), SMALL))
    assert resume[:, SHELTER].tolist() == [False, True, True]  # started by agent 0
