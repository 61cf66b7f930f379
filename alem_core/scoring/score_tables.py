"""The tables behind the score (docs/rules/achievements.md#every-achievement, docs/rules/score.md;
docs/evaluation.md), in one place.

Achievement categories, role alignment, eligibility and the names of the end-of-episode fields.
Plain numpy and tuples: ``score.py`` closes over them, so they become constants under ``jit``.

Eligibility (which achievements count in the denominators):

* ``num_levels > 1`` (the full world): all 93, or the 66 normal ones when P = 1.
* ``num_levels == 1`` (the overworld-only debug world): docs/rules/achievements.md#every-achievement
  and docs/rules/score.md give 57 = 30 normal + all 27 coordination ones;
  docs/evaluation.md#achievements-and-weights says 54 without a list. We follow
  docs/rules/index.md's count, which is stated twice and broken down: the 30 normal ones are the 26
  basic ones plus the four intermediate items made from overworld materials (diamond pickaxe,
  diamond sword, iron armour, diamond armour); everything else needs a deeper floor (sapphire, ruby,
  chests, books, potions, bows, the deeper mobs, the ENTER_* floors). With P = 1 only those 30
  count.
* Partial worlds (1 < num_levels < 9) count all 93: the spec defines no other variant.
"""

from __future__ import annotations

import numpy as np

from alem_core.constants import NUM_ACHIEVEMENTS, ROLE_OF_INDEX, Achievement, Inv, Role
from alem_core.params import StaticParams
from alem_core.rules.tables import ACHIEVEMENT_IS_COORD, ACHIEVEMENT_WEIGHT, FLOOR_ENTER_ACHIEVEMENT
from alem_core.systems.lifecycle import DEATH_CAUSES as CAUSE_OF_CODE

A = Achievement


def _mask(ids: tuple[int, ...]) -> np.ndarray:
    mask = np.zeros(NUM_ACHIEVEMENTS, bool)
    mask[list(ids)] = True
    return mask


IS_COORD = ACHIEVEMENT_IS_COORD
IS_NORMAL = ~ACHIEVEMENT_IS_COORD
WEIGHT = ACHIEVEMENT_WEIGHT

SOFT = (
    A.COORD_2_AGENTS_SOFT,
    A.COORD_3_AGENTS_SOFT,
    A.COORD_MINE_STONE_SOFT,
    A.COORD_MINE_COAL_SOFT,
    A.COORD_MINE_IRON_SOFT,
    A.COORD_MINE_DIAMOND_SOFT,
    A.COORD_MINE_SAPPHIRE_SOFT,
    A.COORD_MINE_RUBY_SOFT,
)
SYNC_HARD = (
    A.COORD_2_AGENTS_HARD,
    A.COORD_3_AGENTS_HARD,
    A.COORD_MINE_STONE_HARD,
    A.COORD_MINE_COAL_HARD,
    A.COORD_MINE_IRON_HARD,
    A.COORD_MINE_DIAMOND_HARD,
    A.COORD_MINE_SAPPHIRE_HARD,
    A.COORD_MINE_RUBY_HARD,
    A.COORD_ELITE_MELEE_KILL,
    A.COORD_ELITE_RANGED_KILL,
    A.COORD_LARGE_PASSIVE_KILL,
    A.COORD_DIAMOND_PICKAXE,
    A.COORD_DIAMOND_SWORD,
    A.COORD_DIAMOND_ARMOUR,
)
HANDOVER = (A.HANDOVER_COMPLETE, A.COORD_MINE_HANDOVER)
CONSTRUCTION = (A.COORD_BUILD_SHELTER, A.COORD_BUILD_FORGE, A.COORD_BUILD_BEACON)

COORD_CATEGORIES: dict[str, np.ndarray] = {
    "soft": _mask(SOFT),
    "sync_hard": _mask(SYNC_HARD),
    "handover": _mask(HANDOVER),
    "construction": _mask(CONSTRUCTION),
}
"""The four coordination sub-categories (8 + 14 + 2 + 3 = 27), as (93,) bool masks."""
COORD_CATEGORIES["hard"] = (
    COORD_CATEGORIES["sync_hard"] | COORD_CATEGORIES["handover"] | COORD_CATEGORIES["construction"]
)
# "Hard" = sync-hard ∪ handover ∪ construction (docs/rules/achievements.md#every-achievement);
# reported as its own category.

ROLE_ALIGNED: dict[Role, np.ndarray] = {
    Role.FORAGER: _mask(
        (A.COLLECT_SAPLING, A.COLLECT_DRINK, A.COLLECT_FOOD, A.EAT_COW, A.EAT_BAT, A.EAT_SNAIL)
    ),
    Role.WARRIOR: _mask(
        (
            A.MAKE_STONE_SWORD,
            A.MAKE_IRON_SWORD,
            A.MAKE_DIAMOND_SWORD,
            A.MAKE_ARROW,
            A.FIND_BOW,
            A.ENCHANT_SWORD,
        )
    ),
    Role.MINER: _mask(
        (
            A.MAKE_WOOD_PICKAXE,
            A.MAKE_STONE_PICKAXE,
            A.MAKE_IRON_PICKAXE,
            A.MAKE_DIAMOND_PICKAXE,
            A.MAKE_TORCH,
            A.PLACE_STONE,
        )
    ),
}
"""Role attribution table of docs/rules/achievements.md#every-achievement (a metric only; every
other achievement is shared)."""

OVERWORLD_NORMAL = _mask(
    (
        *range(A.COLLECT_WOOD, A.PLACE_TORCH + 1),
        A.MAKE_DIAMOND_PICKAXE,
        A.MAKE_DIAMOND_SWORD,
        A.MAKE_IRON_ARMOUR,
        A.MAKE_DIAMOND_ARMOUR,
    )
)
"""The 30 normal achievements of the overworld-only world (see the module docstring)."""

ENTER_FLOOR = {floor: A(int(ach)) for floor, ach in enumerate(FLOOR_ENTER_ACHIEVEMENT) if ach >= 0}
"""The achievement unlocked by first reaching each floor below the overworld
(docs/rules/world.md#floors)."""

DEATH_CAUSES = CAUSE_OF_CODE[1:]
"""Names of ``Players.death_cause`` codes 1..5 (0 = alive), in the published benchmark's
numbering (``systems/lifecycle.DEATH_CAUSES``, docs/decisions.md "Death-cause codes")."""

ATTRIBUTES = (
    "health",
    "food",
    "drink",
    "energy",
    "mana",
    "xp",
    "dexterity",
    "strength",
    "intelligence",
)
"""``Players`` fields reported as ``AgentK/<name>`` and ``Team/mean_<name>``."""

INVENTORY = tuple(member.name.lower() for member in Inv)
"""``AgentK/inventory_<name>`` fields, in ``Inv`` column order."""

ACHIEVEMENT_NAMES = tuple(member.name for member in Achievement)


HEADLINE_KEYS = (
    "Team/achievement_pct",
    "Team/normal_achievement_pct",
    "Team/coordination_achievement_pct",
    "Team/normal_reward_pct_of_max",
    "Team/coord_reward_pct_of_max",
    "Team/reward_pct_of_max",
)
"""The protocol's headline numbers: achievement pcts, then Base%, Coord.%, Total%."""


def eligible(static: StaticParams) -> np.ndarray:
    """(93,) bool: the achievements that count for this world shape (module docstring)."""
    base = OVERWORLD_NORMAL | IS_COORD if static.num_levels == 1 else np.ones_like(IS_COORD)
    if static.player_count == 1:
        base = base & ~IS_COORD
    return base


def role_aligned_matrix(static: StaticParams) -> tuple[np.ndarray, np.ndarray]:
    """(P, 93) bool each: achievements aligned with agent i's own role, and those aligned with
    another role (cross-role); both restricted to the eligible set."""
    ok = eligible(static)
    own, cross = [], []
    for i in range(static.player_count):
        role = ROLE_OF_INDEX[i % len(ROLE_OF_INDEX)]
        own.append(ROLE_ALIGNED[role] & ok)
        others = [mask for r, mask in ROLE_ALIGNED.items() if r != role]
        cross.append(np.logical_or.reduce(others) & ok)
    return np.stack(own), np.stack(cross)
