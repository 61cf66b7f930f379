"""What both adapters play with: the team, the difficulty, the block ids and chest loot they read,
and the melee-hit count they trace.

``peer.py`` and ``ours.py`` import this module and nothing else of the parity tools, so that
``protocol.py`` can import both adapters at its top without a cycle. Neither package is
imported here: the peer's interpreter loads it without alem_core's dependencies.
"""

from __future__ import annotations

from typing import Any

from bench.common import PLAYERS  # noqa: F401  (one team size for every tool)

DIFFICULTY = "medium"

MELEE_COOLDOWN = 5
"""A melee mob's cooldown right after it attacked (docs/rules/mobs.md#behaviour)."""

GRASS, WATER, STONE, TREE, PATH, CHEST = 2, 3, 4, 5, 7, 23
"""Block ids (docs/rules/entities.md#blocks; the same on both sides)."""

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
