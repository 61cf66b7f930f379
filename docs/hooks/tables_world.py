"""Generated tables of the world: blocks, items, floors, mobs, recipes, survival, the boss.

Each function returns Markdown built from the rule tables the systems read. Modules are read
through their attributes at call time (``tables.MOB_HEALTH``, not a copy), so a monkeypatched
rule value shows up in the next render.
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import numpy as np

from alem_core import constants
from alem_core.rules import boss_tables, item_tables, survival_tables, tables
from alem_core.rules import specialisation as spec
from alem_pz.text import wording


def md_table(headers: Sequence[str], rows: Iterable[Sequence[object]]) -> str:
    """A GitHub-style Markdown table, framed by blank lines so it always parses as a table."""
    lines = ["| " + " | ".join(headers) + " |", "|" + "---|" * len(headers)]
    lines += ["| " + " | ".join(_cell(v) for v in row) + " |" for row in rows]
    return "\n" + "\n".join(lines) + "\n"


def _cell(value: object) -> str:
    if isinstance(value, (bool, np.bool_)):
        return "yes" if value else ""
    if isinstance(value, (float, np.floating)):
        return f"{float(value):g}"
    return str(value).replace("|", "\\|")


def _name(member: object) -> str:
    return f"`{member.name}`"  # type: ignore[attr-defined]


def _vector(values: np.ndarray) -> str:
    """A (physical, fire, ice) damage or defence vector, e.g. ``(6, 1, 1)``."""
    return "(" + ", ".join(f"{float(v):g}" for v in values) + ")"


def blocks() -> str:
    """Every block id with its physical properties and what mining it gives."""
    rows = []
    for block in constants.Block:
        item = int(tables.MINE_ITEM[block])
        mining = ""
        if item >= 0:
            mining = (
                f"pickaxe ≥ {int(tables.MINE_TIER[block])}: +{constants.Inv(item).name.lower()},"
                f" leaves {constants.Block(int(tables.MINE_RESULT[block])).name}"
            )
        rows.append(
            (
                int(block),
                _name(block),
                bool(tables.SOLID[block]),
                mining,
                bool(tables.COORD_ELIGIBLE[block]),
                bool(tables.ITEM_PLACEABLE[block]),
                bool(tables.MOB_SPAWN_TILE[block]),
            )
        )
    headers = ("id", "block", "solid", "mining", "task block", "torch tile", "mob spawn tile")
    return md_table(headers, rows)


def items() -> str:
    """The item layer (one item per cell, never blocking movement)."""
    rows = [(int(item), _name(item)) for item in constants.Item]
    return md_table(("id", "item"), rows)


def floors() -> str:
    """The nine floors: generator, the mob types that spawn, spawn chances, enter achievement."""
    names = wording.MOB_NAMES
    rows = []
    for floor, title in enumerate(wording.FLOOR_NAMES):
        enter = int(tables.FLOOR_ENTER_ACHIEVEMENT[floor])
        rows.append(
            (
                floor,
                title,
                "rooms" if tables.FLOOR_IS_DUNGEON[floor] else "noise",
                names[constants.MobClass.PASSIVE][int(tables.FLOOR_PASSIVE_TYPE[floor])],
                names[constants.MobClass.MELEE][int(tables.FLOOR_MELEE_TYPE[floor])],
                names[constants.MobClass.RANGED][int(tables.FLOOR_RANGED_TYPE[floor])],
                f"{float(tables.FLOOR_PASSIVE_CHANCE[floor]):g} / "
                f"{float(tables.FLOOR_MELEE_CHANCE[floor]):g} / "
                f"{float(tables.FLOOR_RANGED_CHANCE[floor]):g}",
                f"`{constants.Achievement(enter).name}`" if enter >= 0 else "",
            )
        )
    headers = (
        "floor",
        "name",
        "generator",
        "passive",
        "melee",
        "ranged",
        "spawn chance p / m / r",
        "first arrival",
    )
    return md_table(headers, rows)


def _moves(cls: int, kind: int) -> str:
    allowed = tables.MOB_MOVES_ON[cls, kind]
    return ", ".join(t for t, ok in zip(("ground", "water", "lava"), allowed, strict=True) if ok)


def mobs() -> str:
    """Health, damage, defence and movement of every mob kind, by class and type id."""
    cls = constants.MobClass
    rows = []
    for kind in range(8):
        melee = (
            wording.MOB_NAMES[cls.MELEE][kind],
            "melee",
            float(tables.MOB_HEALTH[cls.MELEE, kind]),
            _vector(tables.MELEE_DAMAGE[kind]),
            _vector(tables.MOB_DEFENCE[cls.MELEE, kind]),
            _moves(cls.MELEE, kind),
        )
        shot = int(tables.RANGED_PROJECTILE[kind])
        ranged = (
            wording.MOB_NAMES[cls.RANGED][kind],
            "ranged",
            float(tables.MOB_HEALTH[cls.RANGED, kind]),
            f"{constants.Projectile(shot).name} {_vector(tables.PROJECTILE_DAMAGE[shot])}",
            _vector(tables.MOB_DEFENCE[cls.RANGED, kind]),
            _moves(cls.RANGED, kind),
        )
        rows += [(kind, *melee), (kind, *ranged)]
    for kind in range(3):
        rows.append(
            (
                kind,
                wording.MOB_NAMES[cls.PASSIVE][kind],
                "passive",
                float(tables.MOB_HEALTH[cls.PASSIVE, kind]),
                "",
                _vector(tables.MOB_DEFENCE[cls.PASSIVE, kind]),
                _moves(cls.PASSIVE, kind),
            )
        )
    headers = ("type", "mob", "class", "health", "damage (phys, fire, ice)", "defence", "moves on")
    return md_table(headers, rows)


def _cost(row: int) -> str:
    cost = tables.RECIPE_COST[row]
    return ", ".join(f"{int(n)} {constants.Inv(c).name.lower()}" for c, n in enumerate(cost) if n)


def recipes() -> str:
    """The crafting recipes in resolution order, with their stations, gates and outputs."""
    rows = []
    for row, action in enumerate(tables.RECIPE_ACTION):
        stations = ["table"] if tables.RECIPE_TABLE[row] else []
        if tables.RECIPE_FURNACE[row]:
            stations.append("furnace")
        if tables.RECIPE_DIAMOND[row]:
            stations = ["table, or an Epic Forge with co-crafters (coordination on)"]
        kind, column = int(tables.RECIPE_KIND[row]), int(tables.RECIPE_COLUMN[row])
        amount = int(tables.RECIPE_AMOUNT[row])
        if kind == tables.CRAFT_TOOL:
            gives = f"{constants.Inv(column).name.lower()} level {amount}"
        elif kind == tables.CRAFT_COUNT:
            gives = f"+{amount} {constants.Inv(column).name.lower()}"
        else:
            gives = f"one armour slot to level {amount}"
        role = int(spec.ACTION_ROLE[int(action)])
        gate = constants.Role(role).name.lower() if role >= 0 else ""
        rows.append(
            (_name(constants.Action(int(action))), _cost(row), " + ".join(stations), gate, gives)
        )
    return md_table(("action", "consumes", "station", "role gate", "gives"), rows)


def survival() -> str:
    """The intrinsic counters, capacities and thresholds (``IntrinsicRules``)."""
    rules = survival_tables.INTRINSICS
    rows = [(f"`{name}`", getattr(rules, name)) for name in rules._fields]
    return md_table(("rule", "value"), rows)


def starting() -> str:
    """The step-0 player (``StartingValues``)."""
    start = survival_tables.STARTING
    return md_table(("field", "value"), [(f"`{n}`", getattr(start, n)) for n in start._fields])


NUMBERS = (
    ("SWORD_DAMAGE", "physical melee damage by sword tier 0-4"),
    ("SLEEP_DAMAGE_MULTIPLIER", "melee and friendly-fire damage on a sleeping player"),
    ("DRINK_AMOUNT", "drink from one Do on water or a fountain"),
    ("PLANT_FOOD", "food from eating a ripe plant"),
    ("COW_FOOD", "food from eating a passive mob"),
    ("SAPLING_CHANCE", "chance of a sapling from a Do on grass"),
    ("RIPE_AGE", "steps for a sapling to ripen"),
    ("MONSTERS_TO_CLEAR_FLOOR", "kills that open the floor's down ladders"),
    ("OVERWORLD_INITIAL_KILLS", "the overworld's kill counter at reset (it starts cleared)"),
    ("ENTER_XP", "xp for a player's first arrival on a floor"),
    ("MELEE_COOLDOWN", "steps between two attacks of a melee mob"),
    ("RANGED_COOLDOWN", "steps between two shots of a ranged mob"),
    ("MELEE_CHASE_PROB", "chance a melee mob steps toward the nearest player"),
    ("MELEE_CHASE_DISTANCE", "Manhattan distance under which melee mobs chase"),
    ("RANGED_KEEP_INTENT_PROB", "chance a ranged mob keeps its approach/retreat intent"),
)


def numbers() -> str:
    """Single rule numbers of ``alem_core.rules.tables`` and ``alem_core.constants``."""
    rows = [(f"`{name}`", _value(getattr(tables, name)), text) for name, text in NUMBERS]
    rows.append(("`REQUEST_DURATION`", constants.REQUEST_DURATION, "steps a request stays open"))
    rows.append(("`MAX_INVENTORY`", constants.MAX_INVENTORY, "cap of every inventory count"))
    return md_table(("constant", "value", "meaning"), rows)


def _value(value: object) -> object:
    if isinstance(value, np.ndarray):
        return ", ".join(f"{float(v):g}" for v in value)
    return value


def boss() -> str:
    """The graveyard's numbers (``alem_core.rules.boss_tables``)."""
    rows = [
        ("`BOSS_FLOOR`", boss_tables.BOSS_FLOOR, "the Necromancer's floor"),
        ("`BOSS_DAMAGE_MULTIPLIER`", boss_tables.BOSS_DAMAGE_MULTIPLIER, "mob damage there"),
        ("`BOSS_WAVE_TIMER`", boss_tables.BOSS_WAVE_TIMER, "wave timer at reset and after a hit"),
        ("`BOSS_PROGRESS_TO_WIN`", boss_tables.BOSS_PROGRESS_TO_WIN, "hits that win the game"),
        ("`BOSS_WAVE_DISTANCE`", boss_tables.BOSS_WAVE_DISTANCE, "wave spawn radius"),
        (
            "`BOSS_WAVE_CHANCE_MULTIPLIER`",
            boss_tables.BOSS_WAVE_CHANCE_MULTIPLIER,
            "spawn chance factor during a wave",
        ),
        ("`GRAVE_BLOCKS`", ", ".join(b.name for b in boss_tables.GRAVE_BLOCKS), "wave tiles"),
    ]
    return md_table(("constant", "value", "meaning"), rows)


def potions() -> str:
    """Potion effects (a colour's effect is drawn per episode) and the enchantment tables."""
    rows = [
        (effect, stat, f"{int(n):+d}")
        for effect, (stat, n) in enumerate(
            zip(item_tables.POTION_STAT, item_tables.POTION_AMOUNT, strict=True)
        )
    ]
    text = md_table(("effect", "changes", "by"), rows)
    element = {1: "fire", 2: "ice"}
    enchant = [
        (b.name, element[e], constants.Inv(c).name.lower(), item_tables.ENCHANT_MANA)
        for b, e, c in item_tables.ENCHANT_TABLES
    ]
    return text + md_table(("table", "element", "consumes one", "mana"), enchant)


GENERATORS = {
    "blocks": blocks,
    "items": items,
    "floors": floors,
    "mobs": mobs,
    "recipes": recipes,
    "survival": survival,
    "starting": starting,
    "numbers": numbers,
    "boss": boss,
    "potions": potions,
}
