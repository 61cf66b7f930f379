"""The protocol every parity tool plays on both sides, and the pick of a side's adapter.

Both packages are driven the same way (3 agents, "medium" difficulty, individual rewards, the
full 9-floor env), so the ids and settings below are shared by the tools and by the two adapters
(``peer.py`` for the published package, ``ours.py`` for alem_core). What the adapters need
themselves lives in ``settings.py``, which they import instead of this module, so that this
module imports both adapters at its top without a cycle; it is re-exported here so that a tool
imports from one place. Neither package is imported at load time, here or in the adapters: a
tool is loaded before it is known which interpreter will do the work.
"""

from __future__ import annotations

from types import ModuleType

from bench.parity import ours, peer
from bench.parity.settings import (  # noqa: F401  (re-exported for the tools)
    CHEST,
    DIFFICULTY,
    GRASS,
    LOOT_ITEMS,
    MELEE_COOLDOWN,
    PATH,
    PLAYERS,
    STONE,
    TREE,
    WATER,
    melee_hits,
)

MAX_HEALTH = 9.0
"""Max health at strength 1; a random team rarely levels up."""
CLEARED = 8
"""Kills that clear a floor and open its down ladder
(docs/rules/world.md#ladders-and-floor-changes)."""

DIRECTIONS = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0))
"""Step per facing code (1 left, 2 right, 3 up, 4 down), docs/rules/entities.md#actions."""

NOOP, DO, DESCEND = 0, 5, 18
"""Action ids (the same on both sides)."""

SIDES = {"peer": peer, "ours": ours}


def adapter(name: str) -> ModuleType:
    """The adapter module of side ``name`` ("peer" or "ours"); both offer the same functions,
    so a tool written once drives either package."""
    if name not in SIDES:
        raise ValueError(f"unknown side {name!r}")
    return SIDES[name]
