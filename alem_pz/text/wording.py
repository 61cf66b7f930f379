"""Names and relative-location wording of the text observation
(docs/language-agents.md#long-term-and-short-term-context to docs/rules/world.md#floors).

Names come from the core's enums (lower case, spaces for underscores), so a new block or
achievement is named without a second table. Location settings are those of the evaluation
configuration by default.
"""

from __future__ import annotations

from dataclasses import dataclass

from alem_core.constants import Achievement, Block, Facing, Item, MobClass, Projectile, Role
from alem_core.grid import DIRECTIONS

FLOOR_NAMES = (
    "Overworld",
    "Dungeon",
    "Gnomish Mines",
    "Sewers",
    "Vault",
    "Troll Mines",
    "Fire Realm",
    "Ice Realm",
    "Graveyard",
)
"""Decision 2 (docs/rules/world.md#floors): floor 1 is the Dungeon, floor 2 the Gnomish Mines,
everywhere."""

MOB_NAMES = {
    MobClass.MELEE: (
        "zombie", "gnome_warrior", "orc_soldier", "lizard",
        "knight", "troll", "pigman", "frost_troll",
    ),
    MobClass.RANGED: (
        "skeleton", "gnome_archer", "orc_mage", "kobold",
        "knight_archer", "deep_thing", "fire_elemental", "ice_elemental",
    ),
    MobClass.PASSIVE: ("cow", "bat", "snail", "buffalo", "large_cow"),
}  # fmt: skip
"""Mob name by class and type id (docs/language-agents.md#long-term-and-short-term-context item
5)."""

ITEM_NAMES = {
    Item.TORCH: "placed torch",
    Item.LADDER_DOWN: "ladder down",
    Item.LADDER_UP: "ladder up",
    Item.LADDER_DOWN_BLOCKED: "ladder down (blocked - clear more monsters)",
}

FACING_NAMES = {Facing.LEFT: "west", Facing.RIGHT: "east", Facing.UP: "north", Facing.DOWN: "south"}
FACING_DELTA = {facing: tuple(int(d) for d in DIRECTIONS[facing]) for facing in Facing}
FACING_ARROWS = {Facing.LEFT: "←", Facing.RIGHT: "→", Facing.UP: "↑", Facing.DOWN: "↓"}


def block_name(block: int) -> str:
    """ "crafting table", "stone", ... (out-of-range ids read "unknown")."""
    try:
        return Block(block).name.lower().replace("_", " ")
    except ValueError:
        return "unknown"


def mob_name(cls: MobClass, kind: int) -> str:
    """Name of a mob by class and type id."""
    if cls in (MobClass.MOB_PROJECTILE, MobClass.PLAYER_PROJECTILE):
        return projectile_name(kind)
    names = MOB_NAMES[cls]
    return names[kind] if 0 <= kind < len(names) else f"{cls.name.lower()} mob"


def projectile_name(kind: int) -> str:
    """ "arrow", "fireball", ..."""
    try:
        return Projectile(kind).name.lower()
    except ValueError:
        return "projectile"


def role_name(role: Role | int) -> str:
    """ "warrior", "forager" or "miner"."""
    return Role(role).name.lower()


def achievement_title(achievement: int) -> str:
    """Title Case name: "Collect Wood", "Coord Mine Stone Soft"."""
    return Achievement(achievement).name.replace("_", " ").title()


def floor_location(floor: int) -> str:
    """The ``Location:`` value of floor ``floor``."""
    if floor == 0:
        return "Overworld (surface)"
    name = FLOOR_NAMES[floor] if floor < len(FLOOR_NAMES) else f"level {floor}"
    return f"dungeon level {floor} — {name}"


@dataclass(frozen=True)
class LocationStyle:
    """Relative-location settings (docs/language-agents.md#long-term-and-short-term-context);
    defaults are the evaluation configuration's."""

    precise: bool = True
    exact_coordinates: bool = True
    egocentric: bool = False


def _steps(n: int) -> str:
    return f"{n} step" if n == 1 else f"{n} steps"


_EGO = {  # facing -> (name for -row, +row, -col, +col)
    Facing.UP: ("ahead", "behind", "left", "right"),
    Facing.DOWN: ("behind", "ahead", "right", "left"),
    Facing.RIGHT: ("left", "right", "behind", "ahead"),
    Facing.LEFT: ("right", "left", "ahead", "behind"),
}


def _axis_names(style: LocationStyle, facing: int) -> tuple[str, str, str, str]:
    if style.egocentric and facing in _EGO:
        return _EGO[Facing(facing)]
    return ("north", "south", "west", "east")


def relative(dr: int, dc: int, style: LocationStyle, facing: int = 0) -> str:
    """Wording of an offset (rows south, cols east) from the viewer: "2 steps north and 3 steps
    east" (precise), "5 steps north-east" (Manhattan form), "here" at distance 0."""
    if dr == 0 and dc == 0:
        return "here"
    up, down, left, right = _axis_names(style, facing)
    row_part = (up if dr < 0 else down) if dr else ""
    col_part = (left if dc < 0 else right) if dc else ""
    if style.precise or style.egocentric or not (dr and dc):
        parts = [f"{_steps(abs(dr))} {row_part}" if dr else "", f"{_steps(abs(dc))} {col_part}"]
        return " and ".join(p for p in parts if p and not p.startswith("0 "))
    return f"{_steps(abs(dr) + abs(dc))} {row_part}-{col_part}"


def coords(row: int, col: int) -> str:
    """``(x=<col>, y=<row>)``: x grows east, y grows south."""
    return f"(x={col}, y={row})"


def located(dr: int, dc: int, row: int, col: int, style: LocationStyle, facing: int = 0) -> str:
    """Relative phrase plus exact coordinates when they are on."""
    phrase = relative(dr, dc, style, facing)
    return f"{phrase} {coords(row, col)}" if style.exact_coordinates else phrase


def compass(dr: int, dc: int) -> str:
    """ "north", "south-east", ... of an offset (for off-screen teammates and side hints)."""
    vertical = "north" if dr < 0 else "south" if dr > 0 else ""
    horizontal = "west" if dc < 0 else "east" if dc > 0 else ""
    return "-".join(p for p in (vertical, horizontal) if p) or "here"
