"""Soft specialisation (docs/rules/roles.md): the gate table, perks, hard and soft gates, the
mask."""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement, Action, Facing, Inv, Role
from alem_core.observation.masking import action_mask
from alem_core.params import Params, make_params
from alem_core.pipeline import do_phase, step_draws
from alem_core.rules.specialisation import ACTION_ROLE, JOB_ROLE, describe_roles, roles
from alem_core.systems.combat import player_melee_damage
from alem_core.systems.intrinsics import capacities
from alem_core.testing import hand_built_state, with_inventory

from .conftest import SMALL

W, F, M, NONE = Role.WARRIOR, Role.FORAGER, Role.MINER, -1
SPEC_ACTION_GATES = {
    Action.MAKE_WOOD_PICKAXE: M,
    Action.MAKE_STONE_PICKAXE: M,
    Action.MAKE_IRON_PICKAXE: M,
    Action.MAKE_DIAMOND_PICKAXE: M,
    Action.MAKE_TORCH: M,
    Action.PLACE_STONE: M,
    Action.MAKE_STONE_SWORD: W,
    Action.MAKE_IRON_SWORD: W,
    Action.MAKE_DIAMOND_SWORD: W,
    Action.MAKE_ARROW: W,
    Action.ENCHANT_SWORD: W,
    Action.ENCHANT_BOW: W,
}
"""docs/rules/roles.md's gated actions; every other fixed action is ungated."""


def test_gate_table_is_the_spec_table():
    for action in range(len(ACTION_ROLE)):
        assert ACTION_ROLE[action] == SPEC_ACTION_GATES.get(action, NONE), Action(action).name
    assert JOB_ROLE["drink"] == JOB_ROLE["sapling"] == JOB_ROLE["eat_passive"] == F
    assert JOB_ROLE["chest_weapons"] == W and JOB_ROLE["chest_tools"] == M


def test_roles_cycle_warrior_forager_miner():
    five = dataclasses.replace(SMALL, player_count=5)
    assert roles(five).tolist() == [W, F, M, W, F]


def test_perks_forager_capacity_and_warrior_damage():
    state = hand_built_state(["."], SMALL, Params())
    caps = capacities(state.players, SMALL)
    assert caps["food"].tolist() == [9, 27, 9] and caps["drink"].tolist() == [9, 27, 9]
    damage = player_melee_damage(state.players, SMALL)
    assert damage[:, 0].tolist() == [2.0, 1.0, 1.0]


def _drinking_team(params):
    """Everyone faces water; drink 3 so a success is visible."""
    state = hand_built_state(["~~~", "...", "..."], SMALL, params, [(1, 0), (1, 1), (1, 2)])
    state = state.replace(players=state.players.replace(drink=jnp.array([3, 3, 3], jnp.int32)))
    return state.replace(players=state.players.replace(facing=jnp.full(3, Facing.UP, jnp.int32)))


def DO_PHASE(state, actions, key, params, static):  # noqa: N802 (reads as the stage)
    """The Do phase with the draws the step would give it from ``key``."""
    return do_phase(state, actions, step_draws(key, static), params, static)


DO_ALL = jnp.full(3, Action.DO, jnp.int32)


@pytest.fixture(scope="module")
def drink_many():
    """Run the real Do-phase stage for many keys at once: (N, 3) bool drank."""

    def run(params, n):
        state = _drinking_team(params)
        keys = jax.random.split(jax.random.key(11), n)
        after = jax.jit(jax.vmap(lambda k: DO_PHASE(state, DO_ALL, k, params, SMALL)))(keys)
        return np.asarray(after.players.drink > 3), keys, state

    return run


def test_hard_gates_only_the_forager_drinks(drink_many):
    drank, _, _ = drink_many(Params(soft_specialization=False), 64)
    assert drank[:, 1].all() and not drank[:, 0].any() and not drank[:, 2].any()


def test_soft_gates_non_specialists_succeed_at_their_rate(drink_many):
    params = Params(soft_specialization=True, non_specialist_efficiency=0.4)
    n = 2000
    drank, _, _ = drink_many(params, n)
    assert drank[:, 1].all()  # specialist efficiency 1.0
    bound = 4 * np.sqrt(0.4 * 0.6 / n)  # 4 standard errors
    for agent in (0, 2):
        assert abs(drank[:, agent].mean() - 0.4) < bound
    # Independent draws per agent: the two non-specialists agree only by chance.
    both = (drank[:, 0] & drank[:, 2]).mean()
    assert abs(both - 0.16) < 4 * np.sqrt(0.16 * 0.84 / n)


def test_a_failed_soft_gate_costs_nothing(drink_many):
    params = Params(soft_specialization=True, non_specialist_efficiency=0.4)
    drank, keys, state = drink_many(params, 64)
    failed = int(np.flatnonzero(~drank[:, 0])[0])  # a seed where the warrior's gate fails
    after = DO_PHASE(state, DO_ALL, keys[failed], params, SMALL)
    assert int(after.players.drink[0]) == 3
    assert not bool(after.players.achievements[0, Achievement.COLLECT_DRINK])
    np.testing.assert_array_equal(after.players.inventory[0], state.players.inventory[0])
    np.testing.assert_array_equal(after.world.block, state.world.block)


def test_mask_reflects_hard_and_soft_gates():
    hard = Params(soft_specialization=False)
    state = hand_built_state(["t"], SMALL, hard, [(1, 0), (0, 1), (1, 1)])  # all by the table
    for agent in range(3):
        state = with_inventory(state, agent, wood=5, stone=5)
    mask = np.asarray(action_mask(state, hard, SMALL))
    assert mask[:, Action.MAKE_WOOD_PICKAXE].tolist() == [False, False, True]
    assert mask[:, Action.MAKE_STONE_SWORD].tolist() == [True, False, False]
    assert mask[:, Action.MAKE_WOOD_SWORD].tolist() == [True, True, True]
    assert mask[:, Action.PLACE_STONE].tolist() == [False, False, True]
    soft = make_params("medium")
    mask = np.asarray(action_mask(state, soft, SMALL))
    assert mask[:, Action.MAKE_WOOD_PICKAXE].all() and mask[:, Action.PLACE_STONE].all()
    assert int(state.players.inventory[0, Inv.WOOD]) == 5


def test_role_text_states_the_gates_and_the_chances_in_force():
    text = describe_roles(make_params("hard"))
    assert "forager" in text and "drink" in text and "pickaxes" in text
    assert "0.10" in text and "1.00" in text  # 1 - alpha for hard, specialist 1.0
    assert "Hard gates" in describe_roles(Params(soft_specialization=False))
