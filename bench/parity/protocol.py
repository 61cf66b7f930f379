"""The protocol every parity tool plays on both sides, and the pick of a side's adapter.

Both packages are driven the same way (3 agents, "medium" difficulty, individual rewards, the
full 9-floor env), so the ids and settings below are shared by the tools and by the two adapters
(``peer.py`` for the published package, ``ours.py`` for alem_core). Only the standard library is
imported here: the command line imports this module before it knows which interpreter will do
the work, and the speed tool times the first ``import jax`` itself.
"""

from __future__ import annotations

from types import ModuleType
from typing import Any

from bench.common import PLAYERS  # noqa: F401  (one team size for every tool)

DIFFICULTY = "medium"

MELEE_COOLDOWN = 5
"""A melee mob's cooldown right after it attacked (docs/rules/mobs.md#behaviour)."""
MAX_HEALTH = 9.0
"""Max health at strength 1; a random team rarely levels up."""
CLEARED = 8
"""Kills that clear a floor and open its down ladder
(docs/rules/world.md#ladders-and-floor-changes)."""

DIRECTIONS = ((0, 0), (0, -1), (0, 1), (-1, 0), (1, 0))
"""Step per facing code (1 left, 2 right, 3 up, 4 down), docs/rules/entities.md#actions."""

GRASS, WATER, STONE, TREE, PATH, CHEST = 2, 3, 4, 5, 7, 23
"""Block ids (docs/rules/entities.md#blocks; the same on both sides)."""
NOOP, DO, DESCEND = 0, 5, 18
"""Action ids (the same on both sides)."""

LOOT_ITEMS = (
    "wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "torches", "arrows",
    "books", "pickaxe", "bow", "potions",
)  # fmt: skip
"""Inventory entries a chest can fill, in the order of the ``loot`` probe column."""


def melee_hits(pos: Any, alive: Any, cooldown: Any, player_pos: Any) -> Any:
    """(P,) melee mobs (slots (S, 2) on the current floor) that hit each player this step;
    traced inside either side's probe, so the two count hits identically."""
    import jax.numpy as jnp

    gap = jnp.abs(pos[:, None, :] - player_pos[None]).sum(-1)
    attacked = alive & (cooldown == MELEE_COOLDOWN)
    return ((gap == 1) & attacked[:, None]).sum(0)


def adapter(name: str) -> ModuleType:
    """The adapter module of side ``name`` ("peer" or "ours"); both offer the same functions,
    so a tool written once drives either package."""
    if name == "peer":
        from bench.parity import peer

        return peer
    if name == "ours":
        from bench.parity import ours

        return ours
    raise ValueError(f"unknown side {name!r}")
