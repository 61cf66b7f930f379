"""Damage arithmetic shared by every system that hurts players or mobs
(docs/rules/mobs.md#mob-kinds, docs/rules/survival.md#combat-numbers).

Damage is a vector over three channels (physical, fire, ice); defence removes a fraction per
channel. Reads players' armour, sword, strength and intelligence; writes nothing.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.constants import Inv
from alem_core.params import StaticParams
from alem_core.rules.specialisation import MELEE_MULTIPLIER, role_perk
from alem_core.rules.tables import MOB_DEFENCE, SWORD_DAMAGE
from alem_core.state import Players


def player_defence(players: Players) -> jax.Array:
    """(P, 3) fraction of damage removed: 0.1 per armour level, 0.2 per fire/ice enchanted slot."""
    physical = 0.1 * players.armour.sum(axis=1)
    fire = 0.2 * (players.armour_enchant == 1).sum(axis=1)
    ice = 0.2 * (players.armour_enchant == 2).sum(axis=1)
    return jnp.stack([physical, fire, ice], axis=1).astype(jnp.float32)


def damage_to_players(raw: jax.Array, players: Players) -> jax.Array:
    """(P,) health lost from raw damage vectors (P, 3) after each player's defence."""
    return ((1.0 - player_defence(players)) * raw).sum(axis=1)


def damage_to_mobs(raw: jax.Array, mob_class: int, kind: jax.Array) -> jax.Array:
    """(...,) health lost by mobs of ``mob_class`` with type ids ``kind`` from raw (..., 3)."""
    defence = jnp.asarray(MOB_DEFENCE)[mob_class][kind]
    return ((1.0 - defence) * raw).sum(axis=-1)


def player_melee_damage(players: Players, static: StaticParams) -> jax.Array:
    """(P, 3) each player's melee damage vector (docs/rules/survival.md#combat-numbers)."""
    base = jnp.asarray(SWORD_DAMAGE)[players.inventory[:, Inv.SWORD]]
    base = base * role_perk(MELEE_MULTIPLIER, static)
    strength_scale = 1.0 + 0.25 * (players.strength - 1)
    enchant = 0.5 * base * (1.0 + 0.05 * (players.intelligence - 1))
    fire = jnp.where(players.sword_enchant == 1, enchant, 0.0)
    ice = jnp.where(players.sword_enchant == 2, enchant, 0.0)
    return jnp.stack([base * strength_scale, fire, ice], axis=1).astype(jnp.float32)
