"""Revives and friendly fire (docs/rules/survival.md#death-and-revival,
docs/rules/interactions.md#the-do-action, docs/rules/step.md#friendly-fire-and-revives) on a
hand-built map.

. . . . .
. 0 1 . .      agent 0 warrior at (1,1) facing right at agent 1 (forager, (1,2));
. . 2 . .      agent 2 miner at (2,2) facing up at agent 1.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Action, Facing, Inv
from alem_core.params import Params
from alem_core.rules.reward import reward_parts
from alem_core.systems.lifecycle import FRIENDLY_FIRE
from alem_core.systems.teammates import act_on_teammates
from alem_core.testing import hand_built_state
from alem_core.testing.rollout import compiled

from ..conftest import SMALL

POSITIONS = [(1, 1), (1, 2), (2, 2)]
FACING = [Facing.RIGHT, Facing.UP, Facing.UP]
NOOP, DO = Action.NOOP, Action.DO


def team(small, params, **fields):
    state = hand_built_state(["....."], small, params, POSITIONS, FACING)
    changes = {k: jnp.asarray(v, getattr(state.players, k).dtype) for k, v in fields.items()}
    return state.replace(players=state.players.replace(**changes))


def acts(*actions):
    return jnp.array(actions, jnp.int32)


def test_unarmed_miner_hits_teammate_for_one(small, params):
    state = team(small, params)
    out = act_on_teammates(state, acts(NOOP, NOOP, DO), params, small)
    assert out.players.health.tolist() == [9.0, 8.0, 9.0]
    assert out.stats.friendly_fire_damage.tolist() == [0.0, 0.0, 1.0]
    reward = reward_parts(state, out, params)["reward"]
    np.testing.assert_allclose(reward, [0.0, -0.1, 0.0], atol=1e-6)


def test_warrior_hits_twice_as_hard_and_sleepers_take_3_5x(small, params):
    out = act_on_teammates(team(small, params), acts(DO, NOOP, NOOP), params, small)
    assert float(out.players.health[1]) == 7.0  # 1 x warrior 2
    asleep = team(small, params, sleeping=[False, True, False])
    out = act_on_teammates(asleep, acts(DO, NOOP, DO), params, small)
    np.testing.assert_allclose(float(out.players.health[1]), 9.0 - 3.5 * (2 + 1))
    assert bool(out.players.sleeping[1])  # friendly fire only deals damage


def test_sword_and_armour_count(small, params):
    state = team(small, params)
    state = state.replace(
        players=state.players.replace(
            inventory=state.players.inventory.at[2, Inv.SWORD].set(2),
            armour=state.players.armour.at[1].set(jnp.array([1, 1, 0, 0])),
        )
    )
    out = act_on_teammates(state, acts(NOOP, NOOP, DO), params, small)
    np.testing.assert_allclose(
        float(out.players.health[1]), 9.0 - 3.0 * 0.8, rtol=1e-6
    )  # stone sword 3


@pytest.mark.parametrize("friendly_fire", [False, True])
def test_friendly_fire_switch(small, friendly_fire):
    params = Params(shared_reward=False, friendly_fire=friendly_fire)
    out = act_on_teammates(team(small, params), acts(DO, NOOP, DO), params, small)
    expected = 9.0 - 3.0 if friendly_fire else 9.0
    assert float(out.players.health[1]) == expected
    assert float(out.stats.friendly_fire_damage.sum()) == 9.0 - expected


def test_revive_sets_health_to_one_and_counts(small, params):
    state = team(small, params, alive=[True, False, True], health=[9.0, 0.0, 9.0], food=[9, 0, 9])
    out = act_on_teammates(state, acts(DO, NOOP, DO), params, small)
    assert float(out.players.health[1]) == 1.0  # two revivers: still 1, no damage
    assert out.stats.revives.tolist() == [1, 0, 1]
    assert out.stats.times_revived.tolist() == [0, 1, 0]
    assert int(out.players.food[1]) == 0  # needs unchanged
    assert float(out.stats.friendly_fire_damage.sum()) == 0.0


def test_do_on_empty_cell_or_mob_hits_no_teammate(small, params):
    state = team(small, params, facing=[Facing.LEFT, Facing.UP, Facing.DOWN])
    out = act_on_teammates(state, acts(DO, DO, DO), params, small)
    assert out.players.health.tolist() == [9.0, 9.0, 9.0]


@pytest.fixture(scope="module")
def step_fn():
    return compiled(SMALL)[1]


def _with_zombie_next_to(state, cell):
    melee = state.mobs.melee
    melee = melee.replace(
        pos=melee.pos.at[0].set(jnp.asarray(cell)),
        alive=melee.alive.at[0].set(True),
        health=melee.health.at[0].set(5.0),
        cooldown=melee.cooldown.at[0].set(0),
    )
    return state.replace(mobs=state.mobs.replace(melee=melee))


def test_revive_while_a_zombie_attacks(step_fn):
    """The revived player is alive at the end of the step; mobs only see it from the next one."""
    params = Params(shared_reward=False, mob_despawn_distance=100)
    # Stone on both sides of the zombie: it cannot step away before the revive, whatever it
    # draws (its only other neighbour is agent 1's cell).
    rows = [".#.#.", "....."]
    state = hand_built_state(rows, SMALL, params, POSITIONS, FACING)
    changes = {"alive": [True, False, True], "health": [9.0, 0.0, 9.0]}
    players = state.players.replace(
        **{k: jnp.asarray(v, getattr(state.players, k).dtype) for k, v in changes.items()}
    )
    state = _with_zombie_next_to(state.replace(players=players), (0, 2))  # agent 1's only
    key = jax.random.key(0)
    _, out, _, _, _, info = step_fn(key, state, acts(DO, NOOP, NOOP), params)
    assert bool(out.players.alive[1]) and float(out.players.health[1]) == 1.0
    assert int(out.players.death_cause[1]) == 0
    assert int(out.stats.times_revived[1]) == 1
    assert bool(info["action_mask"][1, Action.DO])  # acts again
    _, out, _, _, _, _ = step_fn(key, out, acts(NOOP, NOOP, NOOP), params)
    assert float(out.players.health[1]) < 1.0  # now the zombie hits
    assert not bool(out.players.alive[1])


def test_friendly_fire_death_is_recorded(step_fn):
    params = Params(shared_reward=False)
    state = team(SMALL, params, health=[9.0, 1.0, 9.0])
    _, out, _, _, _, _ = step_fn(jax.random.key(1), state, acts(DO, NOOP, NOOP), params)
    assert not bool(out.players.alive[1])
    assert int(out.players.death_cause[1]) == FRIENDLY_FIRE
