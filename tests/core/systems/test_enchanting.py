"""Enchanting at the fire and ice tables (docs/rules/interactions.md#potions-books-spells), its gate
(docs/rules/roles.md) and mask row (docs/rules/observations.md#action-mask).

Agents 0 warrior at (5,2), 1 forager at (5,6), 2 miner at (8,2), all facing right at a table
drawn in column 3 / 7 of their rows.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement, Action, Facing, Inv
from alem_core.observation.masking import action_mask
from alem_core.params import Params
from alem_core.pipeline import step_draws
from alem_core.systems.enchanting import ENCHANT_ACTIONS, armour_slot, enchant
from alem_core.testing import hand_built_state, with_inventory

from ..conftest import SMALL

POSITIONS = [(5, 2), (5, 6), (8, 2)]
SWORD, BOW, ARMOUR = Action.ENCHANT_SWORD, Action.ENCHANT_BOW, Action.ENCHANT_ARMOUR
NOOP = Action.NOOP
HARD = Params(shared_reward=False)
FIRE, ICE = 1, 2

run = jax.jit(
    lambda state, actions, key, params: enchant(
        state, actions, step_draws(key, SMALL), params, SMALL
    )
)
mask_of = jax.jit(lambda state, params: action_mask(state, params, SMALL))


def table_row(tables: str) -> list[str]:
    """Tables for agents 0 and 1 on row 5 (columns 3, 7) and for agent 2 on row 8 (column 3)."""
    row5 = f"...{tables[0]}...{tables[1]}"
    return ["", "", "", "", "", row5, "", "", f"...{tables[2]}"]


def enchanters(tables="EIE", mana=9, gems=1, facing=Facing.RIGHT):
    state = hand_built_state(table_row(tables), SMALL, HARD, POSITIONS, [facing] * 3)
    players = state.players.replace(
        mana=jnp.full(3, mana, jnp.int32), armour=jnp.array([[1, 0, 0, 0]] * 3, jnp.int32)
    )
    state = state.replace(players=players)
    for agent in range(3):
        state = with_inventory(state, agent, sword=1, bow=1, ruby=gems, sapphire=gems)
    return state


def acts(*actions):
    return jnp.array(actions, jnp.int32)


def run_key(state, actions, params=HARD, seed=0):
    return run(state, actions, jax.random.key(seed), params)


def unchanged(a, b):
    return jax.tree.all(jax.tree.map(lambda x, y: bool((x == y).all()), a, b))


@pytest.mark.parametrize(
    ("tables", "element", "gem", "other"),
    [("EIE", FIRE, Inv.RUBY, Inv.SAPPHIRE), ("IIE", ICE, Inv.SAPPHIRE, Inv.RUBY)],
)
def test_sword_takes_the_element_of_the_faced_table_and_its_gem(tables, element, gem, other):
    out = run_key(enchanters(tables), acts(SWORD, NOOP, NOOP))
    players = out.players
    assert players.sword_enchant.tolist() == [element, 0, 0]
    assert players.inventory[:, gem].tolist() == [0, 1, 1]
    assert players.inventory[:, other].tolist() == [1, 1, 1]
    assert players.mana.tolist() == [0, 9, 9]
    assert players.achievements[:, Achievement.ENCHANT_SWORD].tolist() == [True, False, False]


def test_bow_takes_the_element_without_an_achievement():
    out = run_key(enchanters("IIE"), acts(BOW, NOOP, NOOP))
    assert out.players.bow_enchant.tolist() == [ICE, 0, 0]
    assert out.players.sword_enchant.tolist() == [0, 0, 0]
    assert int(out.players.inventory[0, Inv.SAPPHIRE]) == 0 and int(out.players.mana[0]) == 0
    assert not bool(out.players.achievements[:, Achievement.ENCHANT_SWORD].any())


def test_missing_mana_gem_weapon_or_table_costs_nothing():
    state = enchanters()
    for broken in (
        enchanters(mana=8),
        enchanters(gems=0),
        with_inventory(state, 0, sword=0),
        enchanters(facing=Facing.LEFT),
        with_inventory(state, 0, ruby=0),  # a sapphire does not feed the fire table
    ):
        out = run_key(broken, acts(SWORD, NOOP, NOOP))
        assert unchanged(out, broken)


def test_weapon_enchanting_is_warrior_gated_in_hard_mode():
    state = enchanters()
    out = run_key(state, acts(NOOP, SWORD, BOW))
    assert unchanged(out, state)
    mask = np.asarray(mask_of(state, HARD))
    assert mask[:, SWORD].tolist() == [True, False, False]
    assert mask[:, BOW].tolist() == [True, False, False]
    assert mask[:, ARMOUR].tolist() == [True, True, True]


@pytest.mark.parametrize(("chance", "passes"), [(1.0, True), (0.0, False)])
def test_soft_gate_lets_others_through_with_the_non_specialist_chance(chance, passes):
    params = Params(shared_reward=False, soft_specialization=True, non_specialist_efficiency=chance)
    state = enchanters("EIE")
    for seed in range(3):
        out = run_key(state, acts(NOOP, SWORD, BOW), params, seed)
        assert out.players.sword_enchant.tolist() == [0, ICE if passes else 0, 0]
        assert out.players.bow_enchant.tolist() == [0, 0, FIRE if passes else 0]
        assert out.players.mana.tolist() == ([9, 0, 0] if passes else [9, 9, 9])
    assert np.asarray(mask_of(state, params))[:, SWORD].all()


def test_armour_enchants_an_unenchanted_slot_even_an_empty_one():
    state = enchanters()
    out = run_key(state, acts(ARMOUR, ARMOUR, NOOP))
    enchants = np.asarray(out.players.armour_enchant)
    assert (enchants[0] == FIRE).sum() == 1 and (enchants[0] == 0).sum() == 3
    assert (enchants[1] == ICE).sum() == 1 and (enchants[1] == 0).sum() == 3
    assert out.players.achievements[:, Achievement.ENCHANT_ARMOUR].tolist() == [True, True, False]
    assert out.players.mana.tolist() == [0, 0, 9]
    slots = set()
    for seed in range(12):  # the slot is random: all four get picked, empty ones included
        enchants = np.asarray(
            run_key(state, acts(ARMOUR, NOOP, NOOP), seed=seed).players.armour_enchant
        )
        slots.add(int(np.flatnonzero(enchants[0])[0]))
    assert slots == {0, 1, 2, 3}


def test_armour_needs_some_armour_and_a_slot_to_change():
    state = enchanters()
    bare = state.replace(players=state.players.replace(armour=jnp.zeros((3, 4), jnp.int32)))
    assert unchanged(run_key(bare, acts(ARMOUR, NOOP, NOOP)), bare)
    assert not np.asarray(mask_of(bare, HARD))[:, ARMOUR].any()
    all_fire = state.players.replace(armour_enchant=jnp.full((3, 4), FIRE, jnp.int32))
    all_fire = state.replace(players=all_fire)
    assert unchanged(run_key(all_fire, acts(ARMOUR, NOOP, NOOP)), all_fire)


def test_armour_slot_rule_unenchanted_first_then_opposite_element():
    enchants = jnp.array([[0, 1, 0, 2], [1, 2, 1, 2], [2, 2, 2, 2], [1, 1, 1, 1]], jnp.int32)
    element = jnp.array([FIRE, FIRE, FIRE, FIRE])
    low, high = jnp.zeros(4), jnp.full(4, 0.99)
    # row 0: the unenchanted slots 0 and 2; row 1: the ice slots 1 and 3; row 2: any slot;
    # row 3: every slot is already fire -> none
    assert armour_slot(enchants, element, low).tolist() == [0, 1, 0, -1]
    assert armour_slot(enchants, element, high).tolist() == [2, 3, 3, -1]
    ice = armour_slot(enchants, jnp.full(4, ICE), high)
    assert ice.tolist() == [2, 2, -1, 3]


def test_mask_asks_for_an_adjacent_table_not_a_faced_one():
    state = enchanters(facing=Facing.UP)
    mask = np.asarray(mask_of(state, HARD))
    assert mask[0, SWORD] and mask[0, ARMOUR]
    assert unchanged(run_key(state, acts(SWORD, ARMOUR, ARMOUR)), state)
    far = hand_built_state(["."], SMALL, HARD, POSITIONS, [Facing.RIGHT] * 3)
    far = with_inventory(far, 0, sword=1, ruby=1)
    far = far.replace(players=far.players.replace(mana=jnp.full(3, 9, jnp.int32)))
    assert not np.asarray(mask_of(far, HARD))[:, [SWORD, BOW, ARMOUR]].any()
    no_mana = enchanters(mana=8)
    assert not np.asarray(mask_of(no_mana, HARD))[:, [SWORD, BOW, ARMOUR]].any()
    no_gem = enchanters(gems=0)
    assert not np.asarray(mask_of(no_gem, HARD))[:, [SWORD, BOW, ARMOUR]].any()


@pytest.mark.parametrize("soft", [False, True])
def test_mask_covers_every_enchantment_that_happens(soft):
    """Random gear, mana, facing and enchant actions beside both tables: whenever an enchantment
    happens (mana is spent), the mask offered that action."""
    params = Params(shared_reward=False, soft_specialization=soft, non_specialist_efficiency=0.5)
    happened, offered = _enchant_trials(jax.random.split(jax.random.key(3), 256), params)
    happened, offered = np.asarray(happened), np.asarray(offered)
    assert happened.sum() > 10
    assert not (happened & ~offered).any()


@jax.jit
@partial(jax.vmap, in_axes=(0, None))
def _enchant_trials(key, params):
    """(P,) an enchantment happened, (P,) the mask offered it, for one random set-up."""
    base = enchanters("EII")
    k = jax.random.split(key, 7)
    gear = jax.random.bernoulli(k[0], 0.6, (3, 4)).astype(jnp.int32)
    inventory = base.players.inventory.at[:, [Inv.SWORD, Inv.BOW, Inv.RUBY, Inv.SAPPHIRE]].set(gear)
    players = base.players.replace(
        inventory=inventory,
        mana=jax.random.choice(k[1], jnp.array([8, 9], jnp.int32), (3,)),
        armour=jax.random.bernoulli(k[2], 0.3, (3, 4)).astype(jnp.int32),
        armour_enchant=jax.random.randint(k[3], (3, 4), 0, 3, jnp.int32),
        facing=jax.random.randint(k[4], (3,), 1, 5, jnp.int32),
    )
    state = base.replace(players=players)
    actions = jax.random.choice(k[5], jnp.array(ENCHANT_ACTIONS, jnp.int32), (3,))
    after = enchant(state, actions, step_draws(k[6], SMALL), params, SMALL)
    offered = action_mask(state, params, SMALL)[jnp.arange(3), actions]
    return after.players.mana != state.players.mana, offered
