"""Progressive disclosure: which achievements the prompt lists on each floor
(docs/language-agents.md#the-system-prompt item 4). Floor 0 lists 54 (31 normal, 23
coordination); floors 1, 3 and 5 add more; with decision 2 the floor-1 entry achievement is Enter
Dungeon and the floor-2 one Enter Gnomish Mines.
"""

from __future__ import annotations

from functools import cache

from alem_core.constants import NUM_ACHIEVEMENTS, Achievement
from alem_core.rules.tables import ACHIEVEMENT_IS_COORD

A = Achievement
_FROM_FLOOR_1 = (
    A.COLLECT_SAPPHIRE, A.COLLECT_RUBY, A.COORD_MINE_SAPPHIRE_SOFT, A.COORD_MINE_SAPPHIRE_HARD,
    A.COORD_MINE_RUBY_SOFT, A.COORD_MINE_RUBY_HARD, A.ENTER_GNOMISH_MINES, A.ENTER_SEWERS,
    A.DEFEAT_GNOME_WARRIOR, A.DEFEAT_GNOME_ARCHER, A.DEFEAT_ORC_SOLIDER, A.DEFEAT_ORC_MAGE,
    A.EAT_BAT, A.EAT_SNAIL, A.FIND_BOW, A.FIRE_BOW, A.OPEN_CHEST, A.DRINK_POTION,
)  # fmt: skip
_FROM_FLOOR_3 = (
    A.ENTER_VAULT, A.ENTER_TROLL_MINES, A.DEFEAT_LIZARD, A.DEFEAT_KOBOLD, A.DEFEAT_KNIGHT,
    A.DEFEAT_ARCHER, A.DEFEAT_TROLL, A.DEFEAT_DEEP_THING, A.LEARN_SPELL, A.CAST_SPELL,
    A.ENCHANT_SWORD, A.ENCHANT_ARMOUR,
)  # fmt: skip
_FROM_FLOOR_5 = (
    A.ENTER_FIRE_REALM, A.ENTER_ICE_REALM, A.ENTER_GRAVEYARD, A.DEFEAT_PIGMAN,
    A.DEFEAT_FIRE_ELEMENTAL, A.DEFEAT_FROST_TROLL, A.DEFEAT_ICE_ELEMENTAL,
    A.DAMAGE_NECROMANCER, A.DEFEAT_NECROMANCER,
)  # fmt: skip


def disclosure_floor(achievement: int) -> int:
    """The shallowest floor on which the prompt lists ``achievement``."""
    for floor, group in ((1, _FROM_FLOOR_1), (3, _FROM_FLOOR_3), (5, _FROM_FLOOR_5)):
        if achievement in group:
            return floor
    return 0


@cache
def disclosed(floor: int, coordination: bool, progressive: bool = True) -> tuple[int, ...]:
    """Achievement ids the prompt lists for a team that reached ``floor`` (enum order)."""
    return tuple(
        a
        for a in range(NUM_ACHIEVEMENTS)
        if (coordination or not ACHIEVEMENT_IS_COORD[a])
        and (not progressive or disclosure_floor(a) <= floor)
    )
