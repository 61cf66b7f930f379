"""Enchanting at the fire and ice enchantment tables
(docs/rules/interactions.md#potions-books-spells, docs/rules/step.md#the-pipeline step 12).

Reads: actions, players (pos, facing, inventory sword / bow / ruby / sapphire, armour, mana,
armour_enchant), world.block (current floor).
Writes: players (inventory gems, mana, sword_enchant, bow_enchant, armour_enchant),
achievements ENCHANT_SWORD and ENCHANT_ARMOUR (ENCHANT_BOW has none).

An enchantment needs the player to **face** an enchantment table, one gem of that table (fire:
ruby, ice: sapphire, ``tables.ENCHANT_TABLES``) and ``ENCHANT_MANA`` mana; it sets the element
(1 fire, 2 ice) and spends the gem and the mana.
* ENCHANT_SWORD / ENCHANT_BOW need the weapon and pass the warrior gate ``enchant_weapon``
  (one ENCHANTING draw per agent per step in soft mode, ``specialisation.py``).
* ENCHANT_ARMOUR is ungated and needs some armour (a slot level > 0). It enchants a uniformly
  random unenchanted slot, or, when every slot is enchanted, a random slot of the opposite
  element; the slot may be an empty armour slot. When every slot already holds this element
  nothing happens and nothing is spent (docs/rules/index.md is silent; a no-op must cost nothing).
A failed gate or a missing requirement does nothing and costs nothing.

The action mask (``can_enchant``, docs/rules/observations.md#action-mask) is looser than the rule
above and therefore never forbids a possible enchantment: it asks for **any enchantment table in the
8-neighbourhood** (the faced cell is one of them), **a ruby or a sapphire** (whichever the table
takes is one of them), the mana, the item, and a gate that can be passed (holder, or soft mode).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_BLOCKS, Achievement, Action, Block, Inv
from alem_core.dense import add_to_column, raise_flags, set_column
from alem_core.draws import Draws, per_player
from alem_core.grid import adjacent_block, cell_values, faced_cell
from alem_core.params import Params, StaticParams
from alem_core.rules.item_tables import ENCHANT_MANA, ENCHANT_TABLES
from alem_core.rules.specialisation import ACTION_ROLE, may_pass_gate, passes_gate_with
from alem_core.state import Players, State

DRAWS = {
    "enchant_gate": per_player("enchanting: each agent's role gate"),
    "enchant_slot": per_player("enchanting: which armour piece"),
}
"""The step's uniforms this system reads (``alem_core/draws.py``)."""

ENCHANT_ACTIONS = (Action.ENCHANT_SWORD, Action.ENCHANT_BOW, Action.ENCHANT_ARMOUR)
"""The enchant actions, in the column order of ``can_enchant``."""
SWORD, BOW, ARMOUR = range(3)
ENCHANT_ROLE = ACTION_ROLE[np.array(ENCHANT_ACTIONS)]
"""(3,) role gate of each enchant action, from the one gate table (-1 ungated)."""

_TABLE_ELEMENT = np.zeros(NUM_BLOCKS, np.int32)
_TABLE_GEM = np.zeros(NUM_BLOCKS, np.int32)
for _block, _element, _gem in ENCHANT_TABLES:
    _TABLE_ELEMENT[_block], _TABLE_GEM[_block] = _element, _gem
_GEMS = np.array([gem for _, _, gem in ENCHANT_TABLES], np.int32)


def _owns_item(players: Players) -> jax.Array:
    """(P, 3) bool: has a sword, a bow, some armour."""
    inventory = players.inventory
    return jnp.stack(
        [inventory[:, Inv.SWORD] >= 1, inventory[:, Inv.BOW] >= 1, (players.armour > 0).any(1)],
        axis=1,
    )


def can_enchant(state: State, params: Params, static: StaticParams) -> jax.Array:
    """(P, 3) bool for the mask, columns ``ENCHANT_ACTIONS``: an enchantment table adjacent
    (8-neighbourhood), a ruby or a sapphire, enough mana, the item, a passable gate."""
    players = state.players
    near = jnp.zeros_like(players.alive)
    for block, _, _ in ENCHANT_TABLES:
        near |= adjacent_block(state.world.block, players.pos, block, static)
    gem = (players.inventory[:, _GEMS] >= 1).any(1)
    ready = near & gem & (players.mana >= ENCHANT_MANA)
    gate = may_pass_gate(jnp.asarray(ENCHANT_ROLE)[None], params, static)
    return ready[:, None] & _owns_item(players) & gate


def armour_slot(enchant: jax.Array, element: jax.Array, u: jax.Array) -> jax.Array:
    """(P,) armour slot to enchant with ``element`` (P,), chosen by uniforms ``u`` (P,): a random
    unenchanted slot of ``enchant`` (P, 4), else a random slot of the opposite element;
    -1 when there is neither."""
    unenchanted = enchant == 0
    opposite = (enchant != 0) & (enchant != element[:, None])
    candidates = jnp.where(unenchanted.any(1, keepdims=True), unenchanted, opposite)
    count = candidates.sum(1)
    pick = jnp.minimum(jnp.floor(u * count).astype(jnp.int32), count - 1)
    rank = jnp.cumsum(candidates, axis=1) - 1
    chosen = candidates & (rank == pick[:, None])
    return jnp.where(count > 0, jnp.argmax(chosen, axis=1), -1)


def enchant(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Resolve ENCHANT_SWORD, ENCHANT_BOW and ENCHANT_ARMOUR for every player."""
    players = state.players
    which = jnp.argmax(actions[:, None] == jnp.asarray(ENCHANT_ACTIONS)[None], axis=1)
    wants = (actions[:, None] == jnp.asarray(ENCHANT_ACTIONS)[None]).any(1)
    block = cell_values(state.world.block, faced_cell(players), static, Block.OUT_OF_BOUNDS)
    element = jnp.asarray(_TABLE_ELEMENT)[block]
    gem = jnp.asarray(_TABLE_GEM)[block]
    p = jnp.arange(static.player_count)
    ok = wants & (element > 0) & (players.inventory[p, gem] >= 1)
    ok &= can_enchant(state, params, static)[p, which]
    ok &= passes_gate_with(jnp.asarray(ENCHANT_ROLE)[which], draws["enchant_gate"], params, static)
    slot = armour_slot(players.armour_enchant, element, draws["enchant_slot"])
    ok &= (which != ARMOUR) | (slot >= 0)
    sword, bow, armour = (ok & (which == k) for k in (SWORD, BOW, ARMOUR))
    armour_enchant = set_column(players.armour_enchant, jnp.where(armour, slot, 4), element)
    achievements = raise_flags(players.achievements, Achievement.ENCHANT_SWORD, sword)
    players = players.replace(
        inventory=add_to_column(players.inventory, gem, -ok.astype(jnp.int32)),
        mana=players.mana - ENCHANT_MANA * ok,
        sword_enchant=jnp.where(sword, element, players.sword_enchant),
        bow_enchant=jnp.where(bow, element, players.bow_enchant),
        armour_enchant=armour_enchant,
        achievements=raise_flags(achievements, Achievement.ENCHANT_ARMOUR, armour),
    )
    return state.replace(players=players)
