"""Rule tables of consumables and enchanting (docs/rules/interactions.md#potions-books-spells);
chest loot's table is in ``systems/chests.py``. Read by the systems and by the system prompt."""

from __future__ import annotations

import numpy as np

from alem_core.constants import Block, Inv

POTION_STAT = ("health", "health", "mana", "mana", "energy", "energy")
"""Player field each potion effect 0-5 changes; a colour's effect is ``World.potion_effect``."""
POTION_AMOUNT = np.array([8, -3, 8, -3, 8, -3], np.int32)
"""(6,) change of ``POTION_STAT`` by effect (clamped with the other intrinsics at step end)."""

ENCHANT_MANA = 9
"""Mana every enchantment costs (full mana at intelligence 1)."""
ENCHANT_TABLES = (
    # table block, element it gives (1 fire, 2 ice), inventory column it consumes (one unit)
    (Block.ENCHANTMENT_TABLE_FIRE, 1, Inv.RUBY),
    (Block.ENCHANTMENT_TABLE_ICE, 2, Inv.SAPPHIRE),
)
