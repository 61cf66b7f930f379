"""Potions and books (docs/rules/interactions.md#potions-books-spells): the colour -> effect
permutation, READ_BOOK, their mask rows.

Agents 0 warrior, 1 forager, 2 miner stand on grass with health 9, mana 9, energy 9 (defaults).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement, Action, Inv
from alem_core.observation.masking import action_mask
from alem_core.params import Params
from alem_core.systems.consumables import drink_potions, read_books
from alem_core.testing import hand_built_state, with_inventory
from alem_core.testing.rollout import compiled

from ..conftest import SMALL

PERMUTATION = [3, 5, 0, 2, 4, 1]
"""colour -> effect used in these tests (red -3 mana, green -3 energy, blue +8 health, ...)."""
EFFECT = {
    0: ("health", 8),
    1: ("health", -3),
    2: ("mana", 8),
    3: ("mana", -3),
    4: ("energy", 8),
    5: ("energy", -3),
}
"""docs/rules/interactions.md#potions-books-spells's effect list, written out independently of
tables.py."""
COLOURS = ["red", "green", "blue", "pink", "cyan", "yellow"]
NOOP = Action.NOOP

drink = jax.jit(lambda s, a: drink_potions(s, a, None, None, None))
read = jax.jit(lambda s, a: read_books(s, a, None, None, None))
mask_of = jax.jit(lambda state: action_mask(state, Params(), SMALL))


def stocked(potions=1, books=0):
    state = hand_built_state(["."], SMALL, Params(shared_reward=False))
    world = state.world.replace(potion_effect=jnp.array(PERMUTATION, jnp.int32))
    players = state.players.replace(
        health=jnp.full(3, 5.0, jnp.float32),
        mana=jnp.full(3, 5, jnp.int32),
        energy=jnp.full(3, 5, jnp.int32),
    )
    state = state.replace(world=world, players=players)
    for agent in range(3):
        counts = {f"potion_{c}": potions for c in COLOURS}
        state = with_inventory(state, agent, book=books, **counts)
    return state


def acts(*actions):
    return jnp.array(actions, jnp.int32)


def stats(state):
    p = state.players
    return {
        "health": np.asarray(p.health),
        "mana": np.asarray(p.mana),
        "energy": np.asarray(p.energy),
    }


@pytest.mark.parametrize("colour", range(6))
def test_each_colour_applies_its_permuted_effect_and_uses_one_potion(colour):
    state = stocked(potions=2)
    out = drink(state, acts(Action.DRINK_POTION_RED + colour, NOOP, NOOP))
    name, amount = EFFECT[PERMUTATION[colour]]
    for stat, values in stats(out).items():
        expected = 5 + (amount if stat == name else 0)
        assert values[0] == expected, (stat, values)
        assert values[1] == 5 and values[2] == 5
    potions = np.asarray(out.players.inventory[:, Inv.POTION_RED : Inv.POTION_YELLOW + 1])
    assert potions[0].tolist() == [1 if c == colour else 2 for c in range(6)]
    assert (potions[1:] == 2).all()
    achieved = np.asarray(out.players.achievements[:, Achievement.DRINK_POTION])
    assert achieved.tolist() == [True, False, False]


def test_three_players_drink_different_colours_at_once():
    state = stocked()
    actions = acts(Action.DRINK_POTION_BLUE, Action.DRINK_POTION_GREEN, Action.DRINK_POTION_PINK)
    out = stats(drink(state, actions))
    # blue -> effect 0 (+8 health), green -> 5 (-3 energy), pink -> 2 (+8 mana)
    assert out["health"].tolist() == [13, 5, 5]
    assert out["energy"].tolist() == [5, 2, 5]
    assert out["mana"].tolist() == [5, 5, 13]


def test_a_different_permutation_changes_the_effect():
    state = stocked()
    state = state.replace(world=state.world.replace(potion_effect=jnp.arange(6, dtype=jnp.int32)))
    out = stats(drink(state, acts(Action.DRINK_POTION_RED, NOOP, NOOP)))
    assert out["health"][0] == 13 and out["mana"][0] == 5


def test_without_that_potion_nothing_happens_and_the_mask_forbids_it():
    state = with_inventory(stocked(), 0, potion_red=0)
    mask = np.asarray(mask_of(state))
    assert not mask[0, Action.DRINK_POTION_RED] and mask[0, Action.DRINK_POTION_GREEN]
    assert mask[1:, Action.DRINK_POTION_RED].all()
    out = drink(state, acts(Action.DRINK_POTION_RED, NOOP, NOOP))
    assert jax.tree.all(jax.tree.map(lambda a, b: bool((a == b).all()), out, state))


def test_book_teaches_the_spell_once_per_book():
    state = stocked(potions=0, books=2)
    out = read(state, acts(Action.READ_BOOK, NOOP, Action.READ_BOOK))
    assert out.players.spell_learned.tolist() == [True, False, True]
    assert out.players.inventory[:, Inv.BOOK].tolist() == [1, 2, 1]
    assert out.players.achievements[:, Achievement.LEARN_SPELL].tolist() == [True, False, True]


def test_without_a_book_reading_does_nothing_and_the_mask_forbids_it():
    state = with_inventory(stocked(potions=0, books=0), 1, book=1)
    mask = np.asarray(mask_of(state))
    assert mask[:, Action.READ_BOOK].tolist() == [False, True, False]
    assert not mask[:, Action.DRINK_POTION_RED : Action.DRINK_POTION_YELLOW + 1].any()
    out = read(state, acts(Action.READ_BOOK, NOOP, NOOP))
    assert jax.tree.all(jax.tree.map(lambda a, b: bool((a == b).all()), out, state))


def test_a_harmful_potion_can_kill_through_the_step():
    state = stocked()
    players = state.players.replace(health=jnp.array([2.0, 9.0, 9.0], jnp.float32))
    state = state.replace(players=players)
    # red -> effect 3 (-3 mana); blue -> effect 0; the -3 health potion is effect 1: yellow
    step = compiled(SMALL)[1]
    _, out, *_ = step(
        jax.random.key(0), state, acts(Action.DRINK_POTION_YELLOW, NOOP, NOOP), Params()
    )
    assert not bool(out.players.alive[0]) and bool(out.players.alive[1])
    assert int(out.players.inventory[0, Inv.POTION_YELLOW]) == 0
    assert bool(out.players.achievements[0, Achievement.DRINK_POTION])
