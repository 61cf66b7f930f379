"""Potions and books (docs/rules/interactions.md#potions-books-spells,
docs/rules/step.md#the-pipeline steps 10-11).

Reads: actions, players (inventory potions / books, health, mana, energy), world.potion_effect.
Writes: players (inventory, health, mana, energy, spell_learned), achievements DRINK_POTION and
LEARN_SPELL.

* DRINK_POTION_<colour> drinks one potion of that colour; its effect is the episode's
  permutation ``world.potion_effect[colour]`` into the effect table (``tables.POTION_STAT``,
  ``POTION_AMOUNT``). The change is not capped here: intrinsics are clamped to [0, max] with
  the others at step 23, so a -3 health potion can kill (filed as combat,
  docs/rules/survival.md#death-and-revival).
* READ_BOOK consumes one book and sets the spell-learned flag (also when already learned).

Both are ungated and need only the item; ``can_drink_potion`` / ``can_read_book`` state that
rule once, for this system and for the action mask.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_POTIONS, Achievement, Action, Inv
from alem_core.dense import add_to_column, raise_flags
from alem_core.draws import Draws
from alem_core.params import Params, StaticParams
from alem_core.rules.item_tables import POTION_AMOUNT, POTION_STAT
from alem_core.state import State

POTION_COLUMNS = np.arange(Inv.POTION_RED, Inv.POTION_RED + NUM_POTIONS, dtype=np.int32)
"""(6,) inventory column of each potion colour, in the order of the DRINK_POTION_* actions."""
DRINK_ACTIONS = np.arange(Action.DRINK_POTION_RED, Action.DRINK_POTION_RED + NUM_POTIONS)
"""(6,) DRINK_POTION_* action id of each colour."""
POTION_STATS = ("health", "mana", "energy")
_EFFECT_STAT = np.array([POTION_STATS.index(s) for s in POTION_STAT], np.int32)
"""(6,) index into ``POTION_STATS`` of the stat each effect changes."""


def can_drink_potion(state: State) -> jax.Array:
    """(P, 6) bool: the player holds a potion of each colour."""
    return state.players.inventory[:, POTION_COLUMNS] >= 1


def can_read_book(state: State) -> jax.Array:
    """(P,) bool: the player holds a book."""
    return state.players.inventory[:, Inv.BOOK] >= 1


def potion_changes(colour: jax.Array, drinks: jax.Array, potion_effect: jax.Array):
    """Per-stat (P,) changes of drinking ``colour`` (P,) where ``drinks`` (P,) bool.

    Returns ``{"health": ..., "mana": ..., "energy": ...}`` int32 (0 where no drink).
    """
    effect = potion_effect[jnp.clip(colour, 0, NUM_POTIONS - 1)]
    amount = jnp.where(drinks, jnp.asarray(POTION_AMOUNT)[effect], 0)
    stat = jnp.asarray(_EFFECT_STAT)[effect]
    return {name: jnp.where(stat == i, amount, 0) for i, name in enumerate(POTION_STATS)}


def drink_potions(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Resolve every DRINK_POTION_* action: one potion each, the episode's effect applied."""
    players = state.players
    colour = actions - Action.DRINK_POTION_RED
    wants = (colour >= 0) & (colour < NUM_POTIONS)
    held = jnp.take_along_axis(
        can_drink_potion(state), jnp.clip(colour, 0, NUM_POTIONS - 1)[:, None], axis=1
    )[:, 0]
    drinks = wants & held
    change = potion_changes(colour, drinks, state.world.potion_effect)
    column = jnp.asarray(POTION_COLUMNS)[jnp.clip(colour, 0, NUM_POTIONS - 1)]
    players = players.replace(
        inventory=add_to_column(players.inventory, column, -drinks.astype(jnp.int32)),
        health=players.health + change["health"].astype(players.health.dtype),
        mana=players.mana + change["mana"],
        energy=players.energy + change["energy"],
        achievements=raise_flags(players.achievements, Achievement.DRINK_POTION, drinks),
    )
    return state.replace(players=players)


def read_books(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Resolve READ_BOOK: one book consumed, the spell learned, LEARN_SPELL."""
    players = state.players
    reads = (actions == Action.READ_BOOK) & can_read_book(state)
    players = players.replace(
        inventory=add_to_column(players.inventory, Inv.BOOK, -reads.astype(jnp.int32)),
        spell_learned=players.spell_learned | reads,
        achievements=raise_flags(players.achievements, Achievement.LEARN_SPELL, reads),
    )
    return state.replace(players=players)
