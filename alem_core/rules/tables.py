"""Rule tables as arrays: achievement weights, mining, recipes, mobs, floors (docs/rules/entities.md
to docs/rules/interactions.md).

Systems index these tables instead of branching on ids, so one vectorised function handles every
row. Tables are plain numpy here and become constants when a jitted function closes over them.
"""

from __future__ import annotations

import numpy as np

from alem_core.constants import (
    NUM_ACHIEVEMENTS,
    NUM_BLOCKS,
    NUM_INV,
    Achievement,
    Action,
    Block,
    Inv,
)

A = Achievement

# --- Achievements (docs/rules/achievements.md#every-achievement)
# -----------------------------------------------------------------

_COORD_TIERS = {
    A.COORD_2_AGENTS_SOFT: 3,
    A.COORD_LARGE_PASSIVE_KILL: 3,
    A.COORD_2_AGENTS_HARD: 5,
    A.COORD_3_AGENTS_SOFT: 5,
    A.HANDOVER_COMPLETE: 5,
    A.COORD_MINE_HANDOVER: 5,
    A.COORD_MINE_STONE_SOFT: 3,
    A.COORD_MINE_STONE_HARD: 3,
    A.COORD_MINE_COAL_SOFT: 3,
    A.COORD_MINE_COAL_HARD: 3,
    A.COORD_MINE_IRON_SOFT: 5,
    A.COORD_MINE_IRON_HARD: 5,
    A.COORD_MINE_DIAMOND_SOFT: 5,
    A.COORD_MINE_DIAMOND_HARD: 5,
    A.COORD_MINE_SAPPHIRE_SOFT: 8,
    A.COORD_MINE_SAPPHIRE_HARD: 8,
    A.COORD_MINE_RUBY_SOFT: 8,
    A.COORD_MINE_RUBY_HARD: 8,
    A.COORD_BUILD_SHELTER: 5,
    A.COORD_3_AGENTS_HARD: 8,
    A.COORD_BUILD_FORGE: 8,
    A.COORD_BUILD_BEACON: 8,
    A.COORD_DIAMOND_PICKAXE: 8,
    A.COORD_DIAMOND_SWORD: 8,
    A.COORD_DIAMOND_ARMOUR: 8,
    A.COORD_ELITE_MELEE_KILL: 8,
    A.COORD_ELITE_RANGED_KILL: 8,
}


def _achievement_weights() -> np.ndarray:
    weights = np.zeros(NUM_ACHIEVEMENTS, np.float32)
    # Normal achievements are laid out by tier: 0-25 basic, 26-43 intermediate,
    # 44-56 advanced, 57-65 very advanced.
    for lo, hi, w in ((0, 26, 1), (26, 44, 3), (44, 57, 5), (57, 66, 8)):
        weights[lo:hi] = w
    for ach, w in _COORD_TIERS.items():
        weights[ach] = w
    return weights


ACHIEVEMENT_WEIGHT = _achievement_weights()
"""(93,) float32 reward for the first unlock of each achievement: 1, 3, 5 or 8."""

ACHIEVEMENT_IS_COORD = np.arange(NUM_ACHIEVEMENTS) >= A.COORD_2_AGENTS_SOFT
"""(93,) bool: the 27 coordination achievements (ids 66-92)."""

# --- Mining (docs/rules/interactions.md#the-do-action)
# -----------------------------------------------------------------------


def _mining_tables() -> tuple[np.ndarray, np.ndarray, np.ndarray, np.ndarray]:
    item = np.full(NUM_BLOCKS, -1, np.int32)
    tier = np.zeros(NUM_BLOCKS, np.int32)
    result = np.arange(NUM_BLOCKS, dtype=np.int32)
    multiplies = np.zeros(NUM_BLOCKS, bool)
    rows = (
        # block, inventory column, pickaxe needed, block left behind, yield multipliable
        (Block.TREE, Inv.WOOD, 0, Block.GRASS, True),
        (Block.FIRE_TREE, Inv.WOOD, 0, Block.FIRE_GRASS, True),
        (Block.ICE_SHRUB, Inv.WOOD, 0, Block.ICE_GRASS, True),
        (Block.STONE, Inv.STONE, 1, Block.PATH, True),
        (Block.COAL, Inv.COAL, 1, Block.PATH, True),
        (Block.IRON, Inv.IRON, 2, Block.PATH, True),
        (Block.DIAMOND, Inv.DIAMOND, 3, Block.PATH, True),
        (Block.SAPPHIRE, Inv.SAPPHIRE, 4, Block.PATH, True),
        (Block.RUBY, Inv.RUBY, 4, Block.PATH, True),
        (Block.STALAGMITE, Inv.STONE, 1, Block.PATH, False),
    )
    for block, column, need, left, mult in rows:
        item[block], tier[block], result[block], multiplies[block] = column, need, left, mult
    return item, tier, result, multiplies


MINE_ITEM, MINE_TIER, MINE_RESULT, MINE_MULTIPLIES = _mining_tables()
"""Indexed by block id: inventory column gained (-1: not mineable), pickaxe level needed,
block left behind, and whether a synchronous-coordination yield multiplier applies."""

COORD_ELIGIBLE = np.zeros(NUM_BLOCKS, bool)
COORD_ELIGIBLE[
    [
        Block.TREE,
        Block.FIRE_TREE,
        Block.ICE_SHRUB,
        Block.STONE,
        Block.COAL,
        Block.IRON,
        Block.DIAMOND,
        Block.SAPPHIRE,
        Block.RUBY,
    ]
] = True
"""Blocks that may carry a mining task (stalagmites may not)."""

TASK_BLOCK = COORD_ELIGIBLE.copy()
TASK_BLOCK[[Block.CONSTRUCTION_SITE, Block.CONSTRUCTION_IN_PROGRESS]] = True
"""Blocks on which a coordination value counts. A completed task's block changes (mined to
path, built to a structure), so readers mask the coordination map with this table instead of
every system clearing it: fewer writes into the map each step."""

SOLID = np.zeros(NUM_BLOCKS, bool)
SOLID[
    [
        Block.STONE,
        Block.TREE,
        Block.COAL,
        Block.IRON,
        Block.DIAMOND,
        Block.CRAFTING_TABLE,
        Block.FURNACE,
        Block.PLANT,
        Block.RIPE_PLANT,
        Block.WALL,
        Block.WALL_MOSS,
        Block.STALAGMITE,
        Block.SAPPHIRE,
        Block.RUBY,
        Block.CHEST,
        Block.FOUNTAIN,
        Block.FIRE_TREE,
        Block.ICE_SHRUB,
        Block.ENCHANTMENT_TABLE_FIRE,
        Block.ENCHANTMENT_TABLE_ICE,
        Block.NECROMANCER,
        Block.GRAVE,
        Block.GRAVE2,
        Block.GRAVE3,
        Block.NECROMANCER_VULNERABLE,
        Block.CONSTRUCTION_SITE,
        Block.EPIC_SHELTER,
        Block.EPIC_FORGE,
        Block.EPIC_BEACON,
        Block.CONSTRUCTION_IN_PROGRESS,
    ]
] = True
"""(42,) bool: blocks nothing can walk into (docs/rules/entities.md#blocks)."""

WALKABLE = ~SOLID
WALKABLE[[Block.WATER, Block.LAVA, Block.INVALID, Block.OUT_OF_BOUNDS, Block.DARKNESS]] = False
"""(42,) bool: blocks a player may step onto (not solid, not water, not lava)."""

ITEM_PLACEABLE = np.zeros(NUM_BLOCKS, bool)
ITEM_PLACEABLE[[Block.GRASS, Block.SAND, Block.PATH, Block.FIRE_GRASS, Block.ICE_GRASS]] = True
"""(42,) bool: tiles a torch may be placed on."""

MOB_SPAWN_TILE = np.zeros(NUM_BLOCKS, bool)
MOB_SPAWN_TILE[[Block.GRASS, Block.PATH, Block.FIRE_GRASS, Block.ICE_GRASS]] = True

# --- Crafting (docs/rules/interactions.md#crafting), rows in resolution order
# -------------------------------------------

CRAFT_TOOL, CRAFT_COUNT, CRAFT_ARMOUR = 0, 1, 2
_RECIPES = (
    # action, {cost}, table, furnace, diamond (forge when crafting coordination),
    # output kind, output column, output level or amount
    (Action.MAKE_WOOD_PICKAXE, {Inv.WOOD: 1}, 1, 0, 0, CRAFT_TOOL, Inv.PICKAXE, 1),
    (
        Action.MAKE_STONE_PICKAXE,
        {Inv.WOOD: 1, Inv.STONE: 1},
        1,
        0,
        0,
        CRAFT_TOOL,
        Inv.PICKAXE,
        2,
    ),
    (
        Action.MAKE_IRON_PICKAXE,
        {Inv.WOOD: 1, Inv.STONE: 1, Inv.IRON: 1, Inv.COAL: 1},
        1,
        1,
        0,
        CRAFT_TOOL,
        Inv.PICKAXE,
        3,
    ),
    (
        Action.MAKE_DIAMOND_PICKAXE,
        {Inv.WOOD: 1, Inv.DIAMOND: 3},
        1,
        0,
        1,
        CRAFT_TOOL,
        Inv.PICKAXE,
        4,
    ),
    (Action.MAKE_WOOD_SWORD, {Inv.WOOD: 1}, 1, 0, 0, CRAFT_TOOL, Inv.SWORD, 1),
    (
        Action.MAKE_STONE_SWORD,
        {Inv.WOOD: 1, Inv.STONE: 1},
        1,
        0,
        0,
        CRAFT_TOOL,
        Inv.SWORD,
        2,
    ),
    (
        Action.MAKE_IRON_SWORD,
        {Inv.WOOD: 1, Inv.STONE: 1, Inv.IRON: 1, Inv.COAL: 1},
        1,
        1,
        0,
        CRAFT_TOOL,
        Inv.SWORD,
        3,
    ),
    (
        Action.MAKE_DIAMOND_SWORD,
        {Inv.WOOD: 1, Inv.DIAMOND: 2},
        1,
        0,
        1,
        CRAFT_TOOL,
        Inv.SWORD,
        4,
    ),
    (Action.MAKE_IRON_ARMOUR, {Inv.IRON: 3, Inv.COAL: 3}, 1, 1, 0, CRAFT_ARMOUR, 0, 1),
    (Action.MAKE_DIAMOND_ARMOUR, {Inv.DIAMOND: 3}, 1, 0, 1, CRAFT_ARMOUR, 0, 2),
    (
        Action.MAKE_ARROW,
        {Inv.WOOD: 1, Inv.STONE: 1},
        1,
        0,
        0,
        CRAFT_COUNT,
        Inv.ARROW,
        2,
    ),
    (Action.MAKE_TORCH, {Inv.WOOD: 1, Inv.COAL: 1}, 1, 0, 0, CRAFT_COUNT, Inv.TORCH, 4),
)

RECIPE_ACTION = np.array([r[0] for r in _RECIPES], np.int32)
RECIPE_COST = np.zeros((len(_RECIPES), NUM_INV), np.int32)
for _row, _recipe in enumerate(_RECIPES):
    for _column, _amount in _recipe[1].items():
        RECIPE_COST[_row, _column] = _amount
RECIPE_TABLE = np.array([r[2] for r in _RECIPES], bool)
RECIPE_FURNACE = np.array([r[3] for r in _RECIPES], bool)
RECIPE_DIAMOND = np.array([r[4] for r in _RECIPES], bool)
RECIPE_KIND = np.array([r[5] for r in _RECIPES], np.int32)
RECIPE_COLUMN = np.array([r[6] for r in _RECIPES], np.int32)
RECIPE_AMOUNT = np.array([r[7] for r in _RECIPES], np.int32)

# --- Players (docs/rules/survival.md)
# ------------------------------------------------------------------------

SWORD_DAMAGE = np.array([1.0, 2.0, 3.0, 5.0, 8.0], np.float32)
"""Physical melee damage by sword tier 0-4."""

SLEEP_DAMAGE_MULTIPLIER = 3.5
DRINK_AMOUNT = 4
PLANT_FOOD = 4
COW_FOOD = 6
SAPLING_CHANCE = 0.2
RIPE_AGE = 500
MONSTERS_TO_CLEAR_FLOOR = 8
OVERWORLD_INITIAL_KILLS = 10


FLOOR_ENTER_ACHIEVEMENT = np.array(
    [
        -1,  # the overworld has none
        Achievement.ENTER_DUNGEON,
        Achievement.ENTER_GNOMISH_MINES,
        Achievement.ENTER_SEWERS,
        Achievement.ENTER_VAULT,
        Achievement.ENTER_TROLL_MINES,
        Achievement.ENTER_FIRE_REALM,
        Achievement.ENTER_ICE_REALM,
        Achievement.ENTER_GRAVEYARD,
    ],
    np.int32,
)
"""The achievement every player gets on arriving at each floor (docs/rules/world.md#floors,
docs/rules/world.md#ladders-and-floor-changes)."""
ENTER_XP = 1
"""XP for a player's first arrival on a floor (docs/rules/world.md#ladders-and-floor-changes)."""

# --- Mobs (docs/rules/mobs.md#mob-kinds)
# -------------------------------------------------------------------------

MOB_HEALTH = np.array(
    [
        [5, 7, 9, 11, 12, 20, 20, 24],  # melee
        [3, 4, 6, 8, 1, 1, 1, 1],  # passive (types 4-7 do not exist)
        [3, 5, 6, 8, 12, 4, 14, 16],  # ranged
    ],
    np.float32,
)
"""(3, 8) base health by mob class (melee, passive, ranged) and type id."""

MELEE_DAMAGE = np.array(
    [[2, 0, 0], [4, 0, 0], [3, 0, 0], [5, 0, 0], [6, 0, 0], [6, 1, 1], [3, 5, 0], [4, 0, 5]],
    np.float32,
)
"""(8, 3) melee damage (physical, fire, ice) by melee type."""

PROJECTILE_DAMAGE = np.array(
    [[2, 0, 0], [4, 0, 0], [0, 3, 0], [0, 0, 3], [5, 0, 0], [4, 3, 3], [3, 5, 0], [4, 0, 5]],
    np.float32,
)
"""(8, 3) damage by projectile id."""

RANGED_PROJECTILE = np.array([0, 0, 2, 1, 4, 5, 6, 7], np.int32)
"""(8,) projectile id fired by each ranged type (skeleton and gnome archer ARROW, ...)."""

MOB_DEFENCE = np.zeros((3, 8, 3), np.float32)
"""(class, type, channel) fraction of damage removed."""
MOB_DEFENCE[[0, 2], 4, 0] = 0.5
MOB_DEFENCE[0, 5, 0] = 0.2
MOB_DEFENCE[[0, 2], 6] = (0.9, 1.0, 0.0)
MOB_DEFENCE[[0, 2], 7] = (0.9, 0.0, 1.0)

MELEE_COOLDOWN = 5
RANGED_COOLDOWN = 4
MELEE_CHASE_PROB = 0.75
MELEE_CHASE_DISTANCE = 10
RANGED_KEEP_INTENT_PROB = 0.15

# Per floor (docs/rules/world.md#floors): which type of each class spawns there.
FLOOR_PASSIVE_TYPE = np.array([0, 2, 1, 2, 2, 1, 1, 1, 0], np.int32)
FLOOR_MELEE_TYPE = np.array([0, 2, 1, 3, 4, 5, 6, 7, 0], np.int32)
FLOOR_RANGED_TYPE = np.array([0, 2, 1, 3, 4, 5, 6, 7, 0], np.int32)
FLOOR_PASSIVE_CHANCE = np.array([0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.1, 0.0, 0.1], np.float32)
FLOOR_MELEE_CHANCE = np.array([0.02] + [0.06] * 8, np.float32)
FLOOR_RANGED_CHANCE = np.full(9, 0.05, np.float32)
FLOOR_IS_DUNGEON = np.array([0, 1, 0, 1, 1, 0, 0, 0, 0], bool)
FLOOR_DEFEAT_MELEE = np.array(
    [
        A.DEFEAT_ZOMBIE,
        A.DEFEAT_GNOME_WARRIOR,
        A.DEFEAT_ORC_SOLIDER,
        A.DEFEAT_LIZARD,
        A.DEFEAT_KNIGHT,
        A.DEFEAT_TROLL,
        A.DEFEAT_PIGMAN,
        A.DEFEAT_FROST_TROLL,
    ],
    np.int32,
)
"""(8,) DEFEAT achievement by melee type id."""
FLOOR_DEFEAT_RANGED = np.array(
    [
        A.DEFEAT_SKELETON,
        A.DEFEAT_GNOME_ARCHER,
        A.DEFEAT_ORC_MAGE,
        A.DEFEAT_KOBOLD,
        A.DEFEAT_ARCHER,
        A.DEFEAT_DEEP_THING,
        A.DEFEAT_FIRE_ELEMENTAL,
        A.DEFEAT_ICE_ELEMENTAL,
    ],
    np.int32,
)
"""(8,) DEFEAT achievement by ranged type id."""
EAT_PASSIVE = np.array([A.EAT_COW, A.EAT_BAT, A.EAT_SNAIL, -1, -1, -1, -1, -1], np.int32)
"""(8,) EAT achievement by passive type id."""

# Movement permissions (ground, water, lava) by (class, type).
MOB_MOVES_ON = np.zeros((3, 8, 3), bool)
MOB_MOVES_ON[:, :, 0] = True
MOB_MOVES_ON[1, 1] = True  # bats fly
MOB_MOVES_ON[2, 6] = MOB_MOVES_ON[2, 7] = True  # fire and ice elementals fly
MOB_MOVES_ON[0, 3, 1] = True  # lizards swim
MOB_MOVES_ON[2, 5] = (False, True, False)  # deep things live in water only
