"""The ASCII map option of the text observation (docs/language-agents.md#ascii-map; off by default).

Replaces the "You see" list and the facing line with a 9 x 11 character grid and a legend.
"""

from __future__ import annotations

from alem_core.constants import Block, Item, MobClass
from alem_core.observation.map_view import LIGHT_THRESHOLD, VIEW_CENTRE, VIEW_COLS, VIEW_ROWS
from alem_pz.text import view
from alem_pz.text.wording import FACING_ARROWS, FACING_NAMES

B = Block
_GROUND = (B.GRASS, B.PATH, B.SAND, B.DARKNESS, B.FIRE_GRASS, B.ICE_GRASS, B.GRAVEL)
BLOCK_CHARS: dict[int, str] = {b: "." for b in _GROUND}
BLOCK_CHARS.update({
    B.OUT_OF_BOUNDS: " ", B.WATER: "~", B.STONE: "s", B.TREE: "T", B.WOOD: "W", B.COAL: "c",
    B.IRON: "i", B.DIAMOND: "d", B.CRAFTING_TABLE: "=", B.FURNACE: "f", B.LAVA: "L",
    B.PLANT: "p", B.RIPE_PLANT: "P", B.WALL: "#", B.WALL_MOSS: "#", B.STALAGMITE: "*",
    B.SAPPHIRE: "q", B.RUBY: "r", B.CHEST: "X", B.FOUNTAIN: "U", B.FIRE_TREE: "t",
    B.ICE_SHRUB: "y", B.ENCHANTMENT_TABLE_FIRE: "E", B.ENCHANTMENT_TABLE_ICE: "e",
    B.NECROMANCER: "N", B.NECROMANCER_VULNERABLE: "V", B.GRAVE: "G", B.GRAVE2: "G",
    B.GRAVE3: "G", B.CONSTRUCTION_SITE: "C", B.CONSTRUCTION_IN_PROGRESS: "+",
    B.EPIC_SHELTER: "H", B.EPIC_FORGE: "F", B.EPIC_BEACON: "B", B.INVALID: "?",
})  # fmt: skip
ITEM_CHARS = {Item.TORCH: "o", Item.LADDER_DOWN: "v", Item.LADDER_UP: "^",
              Item.LADDER_DOWN_BLOCKED: "x"}  # fmt: skip
MOB_CHARS = {MobClass.MELEE: "Z", MobClass.RANGED: "K", MobClass.PASSIVE: "A"}
LEGEND = (
    ("@", "you"), ("d", "diamond"), ("r", "ruby"), ("q", "sapphire"), ("i", "iron"),
    ("c", "coal"), ("s", "stone"), ("T", "tree"), ("t", "fire tree"), ("y", "ice shrub"),
    ("p", "plant"), ("P", "ripe plant"), ("W", "wood"), ("C", "construction site"),
    ("+", "construction in progress"), ("H", "shelter"), ("F", "forge"), ("B", "beacon"),
    ("Z", "melee enemy"), ("K", "ranged enemy"), ("A", "animal"), ("!", "projectile"),
    ("=", "table"), ("f", "furnace"), ("E", "fire enchant table"), ("e", "ice enchant table"),
    ("X", "chest"), ("U", "fountain"), ("N", "necromancer"), ("V", "necromancer vulnerable"),
    ("G", "grave"), ("o", "torch"), ("v", "ladder down"), ("^", "ladder up"),
    ("x", "ladder down blocked"), ("~", "water"), ("L", "lava"), ("#", "wall"),
    ("*", "stalagmite"), ("?", "darkness"),
)  # fmt: skip


def _grid(s, me: view.PlayerView) -> list[list[str]]:
    blocks, items = view.current_floor_blocks(s), view.current_floor_items(s)
    light = view.current_floor_light(s)
    height, width = blocks.shape
    top, left = me.row - VIEW_CENTRE[0], me.col - VIEW_CENTRE[1]
    grid = [[" "] * VIEW_COLS for _ in range(VIEW_ROWS)]
    for r in range(VIEW_ROWS):
        for c in range(VIEW_COLS):
            row, col = top + r, left + c
            if not (0 <= row < height and 0 <= col < width):
                continue
            if light[row, col] <= LIGHT_THRESHOLD:
                grid[r][c] = "?"
                continue
            grid[r][c] = ITEM_CHARS.get(items[row, col]) or BLOCK_CHARS.get(blocks[row, col], "?")

    def put(row: int, col: int, char: str) -> None:
        r, c = row - top, col - left
        if 0 <= r < VIEW_ROWS and 0 <= c < VIEW_COLS and grid[r][c] != "?":
            grid[r][c] = char

    for cls, char in MOB_CHARS.items():
        for e in view.entities(s, cls):
            put(e.row, e.col, char)
    for cls in (MobClass.MOB_PROJECTILE, MobClass.PLAYER_PROJECTILE):
        for e in view.entities(s, cls):
            put(e.row, e.col, "!")
    for k in range(view.player_count(s)):
        other = view.player(s, k)
        if k != me.index and other.alive:
            put(other.row, other.col, str(k % 10))
    grid[VIEW_CENTRE[0]][VIEW_CENTRE[1]] = "@"
    return grid


def ascii_map(s, me: view.PlayerView, do_target: str) -> str:
    """The map block: compass, grid rows with legend entries, facing and Do target."""
    grid = _grid(s, me)
    present = {ch for row in grid for ch in row}
    legend = [f"{sym}={label}" for sym, label in LEGEND if sym in present]
    legend += [f"{ch}=Agent {ch}" for ch in sorted(present) if ch.isdigit()]
    chunks = [legend[k : k + 3] for k in range(0, len(legend), 3)]
    lines = ["  " + " " * (2 * VIEW_CENTRE[1]) + "N"]
    for r, row in enumerate(grid):
        text = "  " + " ".join(row)
        if r < len(chunks):
            text += "   " + "  ".join(chunks[r])
        lines.append(text)
    for extra in chunks[len(grid) :]:
        lines.append("  " + " " * (2 * VIEW_COLS - 1) + "   " + "  ".join(extra))
    facing = FACING_NAMES.get(me.facing, "none")
    lines += ["", f"Facing: {facing} {FACING_ARROWS.get(me.facing, '')}".rstrip()]
    lines.append(f"(Do target: {do_target})")
    return "\n".join(lines)
