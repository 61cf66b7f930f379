"""Elite and large mobs (docs/rules/coordination.md#elite-and-large-mobs): multipliers by attackers
k against the required count.

. 1 .
0 M .      mob M at (1,2): agent 0 (warrior, 2 damage unarmed) at (1,1) facing right,
. 2 .      agent 1 (forager, 1) at (0,2) facing down, agent 2 (miner, 1) at (2,2) facing up.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement, Action, Facing
from alem_core.params import Params
from alem_core.systems.attack import attack_mobs
from alem_core.testing import hand_built_state

from ..conftest import SMALL

ATTACK = jax.jit(attack_mobs, static_argnums=4)
PASS = jnp.zeros(3)
DO, NOOP = Action.DO, Action.NOOP


def arena(mob_class: str, health: float, hard: bool, required: int, elite: bool = True):
    params = Params(shared_reward=False)
    state = hand_built_state(
        ["....", "....", "...."],
        SMALL,
        params,
        [(1, 1), (0, 2), (2, 2)],
        [Facing.RIGHT, Facing.DOWN, Facing.UP],
    )
    ents = getattr(state.mobs, mob_class)
    values = {"pos": jnp.array([1, 2]), "alive": True, "health": health}
    values.update(elite=elite, hard=hard, required=required)
    ents = ents.replace(**{k: getattr(ents, k).at[0].set(v) for k, v in values.items()})
    state = state.replace(mobs=state.mobs.replace(**{mob_class: ents}))
    food = jnp.array([2, 2, 2], jnp.int32)
    return state.replace(players=state.players.replace(food=food)), params


def hit(state, params, *actions):
    return ATTACK(state, jnp.array(actions, jnp.int32), PASS, params, SMALL)


@pytest.mark.parametrize(
    ("hard", "actions", "damage"),
    [
        (False, (DO, NOOP, NOOP), 0.5 * 2),  # soft, too few: x0.5
        (False, (DO, DO, NOOP), 2 * (2 + 1)),  # soft, enough: x2 each
        (True, (DO, NOOP, NOOP), 0.0),  # hard, too few: nothing
        (True, (DO, DO, DO), 3 * (2 + 1 + 1)),  # hard, enough (3 > 2): x3 each
    ],
)
def test_damage_multiplier_by_attackers(hard, actions, damage):
    state, params = arena("melee", 30.0, hard, required=2)
    out = hit(state, params, *actions)
    assert float(out.mobs.melee.health[0]) == pytest.approx(30.0 - damage)


def test_normal_mobs_take_plain_damage():
    state, params = arena("melee", 30.0, hard=False, required=0, elite=False)
    out = hit(state, params, DO, DO, NOOP)
    assert float(out.mobs.melee.health[0]) == pytest.approx(27.0)


def test_elite_kill_with_the_requirement_met_credits_every_killer():
    state, params = arena("melee", 3.0, hard=True, required=2)
    out = hit(state, params, DO, DO, NOOP)
    assert not bool(out.mobs.melee.alive[0])
    achieved = np.asarray(out.players.achievements[:, Achievement.COORD_ELITE_MELEE_KILL])
    assert achieved.tolist() == [True, True, False]
    assert np.asarray(out.coordination.elite_kills).tolist() == [1, 0, 0]
    assert np.asarray(out.coordination.elite_successes).tolist() == [1, 0, 0]


def test_soft_elite_killed_alone_gives_no_coordination_credit():
    state, params = arena("ranged", 0.5, hard=False, required=2)
    out = hit(state, params, DO, NOOP, NOOP)
    assert not bool(out.mobs.ranged.alive[0])
    assert not bool(out.players.achievements[0, Achievement.COORD_ELITE_RANGED_KILL])
    assert np.asarray(out.coordination.elite_attempts).tolist() == [0, 1, 0]
    assert np.asarray(out.coordination.elite_kills).tolist() == [0, 0, 0]


@pytest.mark.parametrize(("hard", "bonus"), [(False, 2), (True, 3)])
def test_large_passive_feeds_the_forager_more(hard, bonus):
    state, params = arena("passive", 1.0, hard=hard, required=2)
    out = hit(state, params, DO, DO, NOOP)
    assert int(out.players.food[1]) == 2 + 6 * bonus  # only the forager eats
    assert int(out.players.food[0]) == 2
    large = np.asarray(out.players.achievements[:, Achievement.COORD_LARGE_PASSIVE_KILL])
    assert large.tolist() == [True, True, False]
