"""Inventory-based achievements, checked at the end of every step
(docs/rules/achievements.md#every-achievement).

Reads: players.inventory. Writes: players.achievements (never cleared).
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_ACHIEVEMENTS, Achievement, Inv
from alem_core.dense import column_table, spread
from alem_core.draws import Draws
from alem_core.params import Params, StaticParams
from alem_core.state import State

A = Achievement
INVENTORY_ACHIEVEMENTS = (
    # achievement, inventory column, minimum count or level
    (A.COLLECT_WOOD, Inv.WOOD, 1),
    (A.COLLECT_SAPLING, Inv.SAPLING, 1),
    (A.COLLECT_STONE, Inv.STONE, 1),
    (A.COLLECT_COAL, Inv.COAL, 1),
    (A.COLLECT_IRON, Inv.IRON, 1),
    (A.COLLECT_DIAMOND, Inv.DIAMOND, 1),
    (A.COLLECT_SAPPHIRE, Inv.SAPPHIRE, 1),
    (A.COLLECT_RUBY, Inv.RUBY, 1),
    (A.MAKE_WOOD_PICKAXE, Inv.PICKAXE, 1),
    (A.MAKE_STONE_PICKAXE, Inv.PICKAXE, 2),
    (A.MAKE_IRON_PICKAXE, Inv.PICKAXE, 3),
    (A.MAKE_DIAMOND_PICKAXE, Inv.PICKAXE, 4),
    (A.MAKE_WOOD_SWORD, Inv.SWORD, 1),
    (A.MAKE_STONE_SWORD, Inv.SWORD, 2),
    (A.MAKE_IRON_SWORD, Inv.SWORD, 3),
    (A.MAKE_DIAMOND_SWORD, Inv.SWORD, 4),
    (A.MAKE_ARROW, Inv.ARROW, 1),
    (A.MAKE_TORCH, Inv.TORCH, 1),
    (A.FIND_BOW, Inv.BOW, 1),
)
_IDS = np.array([row[0] for row in INVENTORY_ACHIEVEMENTS], np.int32)
assert len(set(_IDS.tolist())) == len(_IDS), "one inventory condition per achievement"
_COLUMNS = np.array([row[1] for row in INVENTORY_ACHIEVEMENTS], np.int32)
_THRESHOLDS = np.array([row[2] for row in INVENTORY_ACHIEVEMENTS], np.int32)


def inventory_achievements(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Unlock every achievement whose inventory condition holds now."""
    players = state.players
    met = players.inventory[:, _COLUMNS] >= jnp.asarray(_THRESHOLDS)[None]
    achievements = players.achievements | column_table(
        met.shape[0], NUM_ACHIEVEMENTS, spread(_IDS, met)
    )
    return dataclasses.replace(
        state, players=dataclasses.replace(players, achievements=achievements)
    )
