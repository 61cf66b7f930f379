"""Shooting arrows and casting spells (docs/rules/interactions.md#potions-books-spells), and arrows
as friendly fire (docs/rules/step.md#friendly-fire-and-revives).

Agents on one row: 0 warrior at (5,2), 1 forager at (5,6), 2 miner at (8,2); all face right.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement, Action, Facing, Inv, Projectile
from alem_core.observation.masking import action_mask
from alem_core.params import Params
from alem_core.systems.launching import launch
from alem_core.testing import hand_built_state, with_inventory
from alem_core.testing.rollout import compiled

from ..conftest import SMALL

POSITIONS = [(5, 2), (5, 6), (8, 2)]
NOOP, SHOOT, CAST = Action.NOOP, Action.SHOOT_ARROW, Action.CAST_SPELL


def archer_team(params=None, rows=(".",)):
    params = Params(shared_reward=False) if params is None else params
    state = hand_built_state(list(rows), SMALL, params, POSITIONS, [Facing.RIGHT] * 3)
    return with_inventory(state, 0, bow=1, arrow=3)


def acts(*actions):
    return jnp.array(actions, jnp.int32)


def test_arrow_starts_on_the_faced_cell_and_costs_one_arrow():
    state = archer_team()
    out = launch(state, acts(SHOOT, NOOP, NOOP), None, None, SMALL)
    proj = out.mobs.player_projectiles
    assert bool(proj.alive[0]) and int(proj.owner[0]) == 0
    assert proj.pos[0].tolist() == [5, 3] and proj.direction[0].tolist() == [0, 1]
    assert int(proj.kind[0]) == Projectile.ARROW
    assert int(out.players.inventory[0, Inv.ARROW]) == 2
    assert bool(out.players.achievements[0, Achievement.FIRE_BOW])


def test_no_bow_or_a_wall_ahead_launches_nothing_and_costs_nothing():
    state = with_inventory(archer_team(), 0, bow=0)
    out = launch(state, acts(SHOOT, NOOP, NOOP), None, None, SMALL)
    assert not bool(out.mobs.player_projectiles.alive.any())
    walled = archer_team(rows=["", "", "", "", "", "...#"])
    out = launch(walled, acts(SHOOT, NOOP, NOOP), None, None, SMALL)
    assert not bool(out.mobs.player_projectiles.alive.any())
    assert int(out.players.inventory[0, Inv.ARROW]) == 3


def test_full_slots_launch_nothing():
    state = archer_team()
    proj = state.mobs.player_projectiles
    full = proj.replace(alive=jnp.ones_like(proj.alive))
    state = state.replace(mobs=state.mobs.replace(player_projectiles=full))
    out = launch(state, acts(SHOOT, NOOP, NOOP), None, None, SMALL)
    assert int(out.players.inventory[0, Inv.ARROW]) == 3


def _casters(state, mana):
    players = state.players.replace(
        spell_learned=jnp.ones(3, bool), mana=jnp.asarray(mana, jnp.int32)
    )
    return state.replace(players=players)


def test_spell_follows_the_role_fireball_or_team_heal():
    state = _casters(archer_team(), [9, 9, 9])
    state = state.replace(
        players=state.players.replace(
            health=jnp.array([4.0, 8.5, 3.0]), alive=jnp.array([True, True, False])
        )
    )
    out = launch(state, acts(NOOP, CAST, CAST), None, None, SMALL)
    assert out.players.mana.tolist() == [9, 3, 7]
    # the forager's heal: +2 for every alive player, capped at max health 9; the dead stay
    np.testing.assert_allclose(out.players.health, [6.0, 9.0, 3.0])
    proj = out.mobs.player_projectiles
    slot = int(np.flatnonzero(np.asarray(proj.alive))[0])
    assert int(proj.kind[slot]) == Projectile.FIREBALL and int(proj.owner[slot]) == 2
    assert bool(out.players.achievements[1, Achievement.CAST_SPELL])


def test_not_enough_mana_casts_nothing():
    state = _casters(archer_team(), [1, 5, 1])
    out = launch(state, acts(CAST, CAST, CAST), None, None, SMALL)
    assert out.players.mana.tolist() == [1, 5, 1]
    assert not bool(out.mobs.player_projectiles.alive.any())


def test_mask_offers_shooting_and_casting_only_when_possible():
    state = archer_team()
    mask = np.asarray(action_mask(state, Params(), SMALL))
    assert mask[:, SHOOT].tolist() == [True, False, False]
    assert not mask[:, CAST].any()
    mask = np.asarray(action_mask(_casters(state, [0, 0, 0]), Params(), SMALL))
    assert mask[:, CAST].all()


@pytest.mark.parametrize("friendly_fire", [True, False])
def test_an_arrow_hurts_a_teammate_down_range(friendly_fire):
    params = Params(shared_reward=False, friendly_fire=friendly_fire, mob_despawn_distance=100)
    state = archer_team(params)
    step = compiled(SMALL)[1]
    key = jax.random.key(0)
    state = step(key, state, acts(SHOOT, NOOP, NOOP), params)[1]
    for _ in range(3):
        state = step(key, state, acts(NOOP, NOOP, NOOP), params)[1]
    lost = 9.0 - float(state.players.health[1])
    logged = float(state.stats.friendly_fire_damage[0])
    if friendly_fire:
        assert lost == pytest.approx(5.0, abs=0.5) and logged == pytest.approx(5.0)
    else:
        assert lost == pytest.approx(0.0, abs=0.5) and logged == 0.0
    assert not bool(state.mobs.player_projectiles.alive.any())  # stopped on the teammate
