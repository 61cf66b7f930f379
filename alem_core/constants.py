"""Identifiers of the alem world: blocks, items, actions, achievements, roles, mob classes.

Pure data (docs/rules/entities.md). Ids never move: they match the published benchmark so scores
compare. Every enum is an ``IntEnum``, so members index arrays and compare correctly under ``jit``.
Numeric rule tables built from these ids live in ``tables.py``.
"""

from __future__ import annotations

from enum import IntEnum


class Block(IntEnum):
    """Block types of the map layer (docs/rules/entities.md#blocks)."""

    INVALID = 0
    OUT_OF_BOUNDS = 1
    GRASS = 2
    WATER = 3
    STONE = 4
    TREE = 5
    WOOD = 6
    PATH = 7
    COAL = 8
    IRON = 9
    DIAMOND = 10
    CRAFTING_TABLE = 11
    FURNACE = 12
    SAND = 13
    LAVA = 14
    PLANT = 15
    RIPE_PLANT = 16
    WALL = 17
    DARKNESS = 18
    WALL_MOSS = 19
    STALAGMITE = 20
    SAPPHIRE = 21
    RUBY = 22
    CHEST = 23
    FOUNTAIN = 24
    FIRE_GRASS = 25
    ICE_GRASS = 26
    GRAVEL = 27
    FIRE_TREE = 28
    ICE_SHRUB = 29
    ENCHANTMENT_TABLE_FIRE = 30
    ENCHANTMENT_TABLE_ICE = 31
    NECROMANCER = 32
    GRAVE = 33
    GRAVE2 = 34
    GRAVE3 = 35
    NECROMANCER_VULNERABLE = 36
    CONSTRUCTION_SITE = 37
    EPIC_SHELTER = 38
    EPIC_FORGE = 39
    EPIC_BEACON = 40
    CONSTRUCTION_IN_PROGRESS = 41


NUM_BLOCKS = len(Block)


class Item(IntEnum):
    """The item layer, one item per cell (docs/rules/entities.md#items). Items never block
    movement."""

    NONE = 0
    TORCH = 1
    LADDER_DOWN = 2
    LADDER_UP = 3
    LADDER_DOWN_BLOCKED = 4


NUM_ITEMS = len(Item)


class Inv(IntEnum):
    """Columns of the per-player inventory array ``Players.inventory`` (P, NUM_INV).

    Counted resources first (their order is the order of the observation's inventory block),
    then tool levels and potions. Armour lives in its own arrays.
    """

    WOOD = 0
    STONE = 1
    COAL = 2
    IRON = 3
    DIAMOND = 4
    SAPPHIRE = 5
    RUBY = 6
    SAPLING = 7
    TORCH = 8
    ARROW = 9
    BOOK = 10
    PICKAXE = 11
    SWORD = 12
    BOW = 13
    POTION_RED = 14
    POTION_GREEN = 15
    POTION_BLUE = 16
    POTION_PINK = 17
    POTION_CYAN = 18
    POTION_YELLOW = 19


NUM_INV = len(Inv)
NUM_POTIONS = 6
MAX_INVENTORY = 99


class Action(IntEnum):
    """The 54 fixed actions (docs/rules/entities.md#actions); Give slots and comm channels follow at
    run time."""

    NOOP = 0
    LEFT = 1
    RIGHT = 2
    UP = 3
    DOWN = 4
    DO = 5
    SLEEP = 6
    PLACE_STONE = 7
    PLACE_TABLE = 8
    PLACE_FURNACE = 9
    PLACE_PLANT = 10
    MAKE_WOOD_PICKAXE = 11
    MAKE_STONE_PICKAXE = 12
    MAKE_IRON_PICKAXE = 13
    MAKE_WOOD_SWORD = 14
    MAKE_STONE_SWORD = 15
    MAKE_IRON_SWORD = 16
    REST = 17
    DESCEND = 18
    ASCEND = 19
    MAKE_DIAMOND_PICKAXE = 20
    MAKE_DIAMOND_SWORD = 21
    MAKE_IRON_ARMOUR = 22
    MAKE_DIAMOND_ARMOUR = 23
    SHOOT_ARROW = 24
    MAKE_ARROW = 25
    CAST_SPELL = 26
    PLACE_TORCH = 27
    DRINK_POTION_RED = 28
    DRINK_POTION_GREEN = 29
    DRINK_POTION_BLUE = 30
    DRINK_POTION_PINK = 31
    DRINK_POTION_CYAN = 32
    DRINK_POTION_YELLOW = 33
    READ_BOOK = 34
    ENCHANT_SWORD = 35
    ENCHANT_ARMOUR = 36
    MAKE_TORCH = 37
    LEVEL_UP_DEXTERITY = 38
    LEVEL_UP_STRENGTH = 39
    LEVEL_UP_INTELLIGENCE = 40
    ENCHANT_BOW = 41
    REQUEST_FOOD = 42
    REQUEST_DRINK = 43
    REQUEST_WOOD = 44
    REQUEST_STONE = 45
    REQUEST_IRON = 46
    REQUEST_COAL = 47
    REQUEST_DIAMOND = 48
    REQUEST_RUBY = 49
    REQUEST_SAPPHIRE = 50
    BUILD_SHELTER = 51
    BUILD_FORGE = 52
    BUILD_BEACON = 53


GIVE_BASE = 54
"""Id of Give slot 0; slots run to ``54 + P - 2``, then the comm channels."""


def action_count(player_count: int, num_comm_channels: int) -> int:
    """Size of each agent's discrete action space: 55 + max(0, P - 2) + nc
    (docs/rules/entities.md#actions)."""
    return 55 + max(0, player_count - 2) + num_comm_channels


def num_give_slots(player_count: int) -> int:
    """Give slots per agent: one per other teammate (P - 1)."""
    return max(0, player_count - 1)


def comm_base(player_count: int) -> int:
    """Id of comm channel 0: ``55 + (P - 2)``."""
    return 55 + max(0, player_count - 2)


def give_target(agent: int, slot: int) -> int:
    """Give slot k of agent i targets "the k-th other player in index order"."""
    return slot if slot < agent else slot + 1


def action_label(action: int, player_count: int) -> str:
    """The label of an action id wherever people read one (errors, key tables, the browser):
    the ``Action`` name, ``GIVE_SLOT_<k>`` or ``COMM_<j>`` (``action <id>`` for a negative id,
    so that an error message about a bad id never raises itself)."""
    action = int(action)
    if action < 0:
        return f"action {action}"
    if action < GIVE_BASE:
        return Action(action).name
    if action < comm_base(player_count):
        return f"GIVE_SLOT_{action - GIVE_BASE}"
    return f"COMM_{action - comm_base(player_count)}"


class Role(IntEnum):
    """Soft roles; agent i has role ``ROLE_OF_INDEX[i % 3]`` (docs/rules/roles.md)."""

    WARRIOR = 0
    FORAGER = 1
    MINER = 2


ROLE_OF_INDEX = (Role.WARRIOR, Role.FORAGER, Role.MINER)


class MobClass(IntEnum):
    """Entity classes; also the order of the observation's mob channels
    (docs/rules/observations.md#symbolic-observation)."""

    MELEE = 0
    PASSIVE = 1
    RANGED = 2
    MOB_PROJECTILE = 3
    PLAYER_PROJECTILE = 4


class Projectile(IntEnum):
    """Projectile ids; rows of the projectile damage table (docs/rules/mobs.md#mob-kinds)."""

    ARROW = 0
    DAGGER = 1
    FIREBALL = 2
    ICEBALL = 3
    ARROW2 = 4
    SLIMEBALL = 5
    FIREBALL2 = 6
    ICEBALL2 = 7


class Request(IntEnum):
    """Tradable resources, in REQUEST_* action order (docs/rules/step.md#trading)."""

    FOOD = 0
    DRINK = 1
    WOOD = 2
    STONE = 3
    IRON = 4
    COAL = 5
    DIAMOND = 6
    RUBY = 7
    SAPPHIRE = 8


NUM_REQUESTS = len(Request)
REQUEST_DURATION = 10


class Facing(IntEnum):
    """Facing codes stored in the player state; equal to the movement action ids."""

    LEFT = 1
    RIGHT = 2
    UP = 3
    DOWN = 4


class Achievement(IntEnum):
    """The 93 achievements (docs/rules/achievements.md#every-achievement); ids 66-92 are the
    coordination ones."""

    COLLECT_WOOD = 0
    PLACE_TABLE = 1
    EAT_COW = 2
    COLLECT_SAPLING = 3
    COLLECT_DRINK = 4
    COLLECT_FOOD = 5
    MAKE_WOOD_PICKAXE = 6
    MAKE_WOOD_SWORD = 7
    PLACE_PLANT = 8
    DEFEAT_ZOMBIE = 9
    COLLECT_STONE = 10
    PLACE_STONE = 11
    EAT_PLANT = 12
    DEFEAT_SKELETON = 13
    MAKE_STONE_PICKAXE = 14
    MAKE_STONE_SWORD = 15
    WAKE_UP = 16
    PLACE_FURNACE = 17
    COLLECT_COAL = 18
    COLLECT_IRON = 19
    COLLECT_DIAMOND = 20
    MAKE_IRON_PICKAXE = 21
    MAKE_IRON_SWORD = 22
    MAKE_ARROW = 23
    MAKE_TORCH = 24
    PLACE_TORCH = 25
    COLLECT_SAPPHIRE = 26
    COLLECT_RUBY = 27
    MAKE_DIAMOND_PICKAXE = 28
    MAKE_DIAMOND_SWORD = 29
    MAKE_IRON_ARMOUR = 30
    MAKE_DIAMOND_ARMOUR = 31
    ENTER_GNOMISH_MINES = 32
    ENTER_DUNGEON = 33
    DEFEAT_GNOME_WARRIOR = 34
    DEFEAT_GNOME_ARCHER = 35
    DEFEAT_ORC_SOLIDER = 36
    DEFEAT_ORC_MAGE = 37
    EAT_BAT = 38
    EAT_SNAIL = 39
    FIND_BOW = 40
    FIRE_BOW = 41
    OPEN_CHEST = 42
    DRINK_POTION = 43
    ENTER_SEWERS = 44
    ENTER_VAULT = 45
    ENTER_TROLL_MINES = 46
    DEFEAT_LIZARD = 47
    DEFEAT_KOBOLD = 48
    DEFEAT_KNIGHT = 49
    DEFEAT_ARCHER = 50
    DEFEAT_TROLL = 51
    DEFEAT_DEEP_THING = 52
    LEARN_SPELL = 53
    CAST_SPELL = 54
    ENCHANT_SWORD = 55
    ENCHANT_ARMOUR = 56
    ENTER_FIRE_REALM = 57
    ENTER_ICE_REALM = 58
    ENTER_GRAVEYARD = 59
    DEFEAT_PIGMAN = 60
    DEFEAT_FIRE_ELEMENTAL = 61
    DEFEAT_FROST_TROLL = 62
    DEFEAT_ICE_ELEMENTAL = 63
    DAMAGE_NECROMANCER = 64
    DEFEAT_NECROMANCER = 65
    COORD_2_AGENTS_SOFT = 66
    COORD_LARGE_PASSIVE_KILL = 67
    COORD_2_AGENTS_HARD = 68
    COORD_3_AGENTS_SOFT = 69
    HANDOVER_COMPLETE = 70
    COORD_MINE_HANDOVER = 71
    COORD_MINE_STONE_SOFT = 72
    COORD_MINE_STONE_HARD = 73
    COORD_MINE_COAL_SOFT = 74
    COORD_MINE_COAL_HARD = 75
    COORD_MINE_IRON_SOFT = 76
    COORD_MINE_IRON_HARD = 77
    COORD_MINE_DIAMOND_SOFT = 78
    COORD_MINE_DIAMOND_HARD = 79
    COORD_MINE_SAPPHIRE_SOFT = 80
    COORD_MINE_SAPPHIRE_HARD = 81
    COORD_MINE_RUBY_SOFT = 82
    COORD_MINE_RUBY_HARD = 83
    COORD_BUILD_SHELTER = 84
    COORD_3_AGENTS_HARD = 85
    COORD_BUILD_FORGE = 86
    COORD_BUILD_BEACON = 87
    COORD_DIAMOND_PICKAXE = 88
    COORD_DIAMOND_SWORD = 89
    COORD_DIAMOND_ARMOUR = 90
    COORD_ELITE_MELEE_KILL = 91
    COORD_ELITE_RANGED_KILL = 92


NUM_ACHIEVEMENTS = len(Achievement)
