"""Block and item textures (docs/rules/entities.md), drawn by code at any resolution.

Each ``_draw_*`` function paints one tile on a ``Canvas``; ``block_textures(n)`` returns the
(42, n, n, 3) opaque block atlas and ``item_textures(n)`` the (5, n, n, 4) item overlays.
Ground-covering blocks share a few base painters (grass, stone, dirt) so related tiles read as
one family (every ore sits on stone; trees and plants stand on their biome's grass).
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from alem_core.constants import NUM_BLOCKS, NUM_ITEMS, Block, Item
from alem_core.pixels.draw import Canvas, Color, rgb, scale

GRASS, FIRE_GRASS, ICE_GRASS = rgb("#5a9e3a"), rgb("#9e4a2a"), rgb("#cfe6f0")
STONE, DIRT, SAND = rgb("#8a8a8e"), rgb("#a58a64"), rgb("#e2cf8c")
WOOD, WOOD_DARK = rgb("#9b6a3c"), rgb("#5e3d20")


def _speckled(c: Canvas, base: Color, seed: int, spread: float = 0.18, cells: int = 8) -> None:
    """Fill with ``base`` and blocky brightness noise (the material grain)."""
    c.paint(np.ones((c.n, c.n)), base)
    c.shade(np.ones((c.n, c.n), bool), 1.0 + spread * (c.noise(cells, seed) - 0.5) * 2)


def _grass(c: Canvas, base: Color = GRASS, seed: int = 1) -> None:
    _speckled(c, base, seed, 0.12)
    for x, y in ((0.2, 0.3), (0.65, 0.2), (0.45, 0.7), (0.8, 0.75)):
        c.paint(c.line(x, y, x + 0.04, y - 0.12, 0.05), scale(base, 1.3))


def _stone(c: Canvas, seed: int = 2) -> None:
    _speckled(c, STONE, seed, 0.12)
    c.shade(c.line(0.15, 0.35, 0.45, 0.45, 0.04), 0.7)
    c.shade(c.line(0.55, 0.75, 0.85, 0.6, 0.04), 0.7)
    c.shade(c.rect(0, 0, 1, 0.06) | c.rect(0, 0, 0.06, 1), 1.2)
    c.shade(c.rect(0, 0.94, 1, 1) | c.rect(0.94, 0, 1, 1), 0.75)


def _ore(color: Color, gem: bool = False) -> Callable[[Canvas], None]:
    """Stone with lumps (coal, iron) or faceted gems (diamond, sapphire, ruby) of ``color``."""

    def draw(c: Canvas) -> None:
        _stone(c)
        for cx, cy, r in ((0.3, 0.3, 0.14), (0.68, 0.42, 0.12), (0.42, 0.72, 0.13)):
            if gem:
                shape = c.polygon([(cx, cy - r), (cx + r, cy), (cx, cy + r), (cx - r, cy)])
                c.paint(shape, color)
                c.paint(c.polygon([(cx, cy - r), (cx + r, cy), (cx, cy)]), scale(color, 1.35))
            else:
                c.paint(c.ellipse(cx, cy, r * 1.1, r * 0.9), color)
                c.paint(c.ellipse(cx - r * 0.3, cy - r * 0.3, r * 0.35), scale(color, 1.5))

    return draw


def _tree(leaf: Color, ground: Callable[[Canvas], None]) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        ground(c)
        c.paint(c.rect(0.42, 0.55, 0.58, 0.95), WOOD_DARK)
        c.paint(c.ellipse(0.5, 0.42, 0.4, 0.36), scale(leaf, 0.75))
        c.paint(c.ellipse(0.45, 0.37, 0.3, 0.27), leaf)
        c.paint(c.ellipse(0.38, 0.3, 0.1), scale(leaf, 1.3))

    return draw


def _bricks(c: Canvas, base: Color, moss: bool = False) -> None:
    _speckled(c, base, 5, 0.1)
    for row in range(4):
        y = row * 0.25
        c.shade(c.rect(0, y, 1, y + 0.04), 0.55)
        off = 0.25 if row % 2 else 0.0
        for x in (off, off + 0.5):
            c.shade(c.rect(x, y, x + 0.04, y + 0.25), 0.55)
    if moss:
        m = (c.noise(6, 9) > 0.55) & (c.y < 0.7)
        c.paint(m, rgb("#4f7d2c"))


def _table(top: Color, accent: Color | None = None) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        _speckled(c, DIRT, 3, 0.1)
        c.paint(c.rect(0.1, 0.45, 0.2, 0.95) | c.rect(0.8, 0.45, 0.9, 0.95), WOOD_DARK)
        c.paint(c.rounded(0.05, 0.2, 0.95, 0.55, 0.05), top)
        c.shade(c.rect(0.05, 0.2, 0.95, 0.28), 1.25)
        if accent is None:  # crafting table: a saw and a hammer on the top
            c.paint(c.line(0.2, 0.32, 0.5, 0.45, 0.06), rgb("#c8c8d0"))
            c.paint(c.line(0.62, 0.3, 0.78, 0.48, 0.05), WOOD_DARK)
            c.paint(c.rect(0.56, 0.28, 0.72, 0.34), rgb("#606068"))
        else:  # enchantment table: a glowing gem on an open book
            c.paint(c.rect(0.25, 0.3, 0.75, 0.45), rgb("#efe6d0"))
            c.paint(c.polygon([(0.5, 0.02), (0.64, 0.2), (0.5, 0.38), (0.36, 0.2)]), accent)

    return draw


def _furnace(c: Canvas) -> None:
    _bricks(c, rgb("#6b6b70"))
    c.paint(c.rounded(0.25, 0.45, 0.75, 0.9, 0.08), rgb("#1d1a18"))
    c.paint(c.ellipse(0.5, 0.8, 0.18, 0.12), rgb("#f08a24"))
    c.paint(c.ellipse(0.5, 0.78, 0.09, 0.07), rgb("#ffe070"))


def _water(c: Canvas) -> None:
    _speckled(c, rgb("#3a6fc4"), 4, 0.06)
    for y in (0.25, 0.55, 0.85):
        wave = np.abs(c.y - y - 0.04 * np.sin(c.x * 2 * np.pi * 2)) < 0.03
        c.paint(wave, rgb("#7fb2ee"))


def _lava(c: Canvas) -> None:
    _speckled(c, rgb("#d2461e"), 6, 0.15)
    c.paint(c.noise(5, 7) > 0.6, rgb("#f59b2a"))
    c.paint(c.noise(10, 8) > 0.85, rgb("#ffe27a"))


def _plant(ripe: bool) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        _grass(c)
        c.paint(c.line(0.5, 0.95, 0.5, 0.45, 0.06), rgb("#2f6b1e"))
        c.paint(c.ellipse(0.36, 0.55, 0.14, 0.07), rgb("#3f8f2a"))
        c.paint(c.ellipse(0.64, 0.45, 0.14, 0.07), rgb("#3f8f2a"))
        if ripe:
            c.paint(c.ellipse(0.5, 0.42, 0.3, 0.26), rgb("#2f7a22"))
            for x, y in ((0.38, 0.35), (0.6, 0.32), (0.5, 0.5), (0.66, 0.5)):
                c.paint(c.ellipse(x, y, 0.07), rgb("#e03040"))

    return draw


def _stalagmite(c: Canvas) -> None:
    _speckled(c, rgb("#5c5550"), 10, 0.1)
    c.paint(c.polygon([(0.2, 0.95), (0.5, 0.1), (0.8, 0.95)]), rgb("#a09890"))
    c.paint(c.polygon([(0.5, 0.1), (0.8, 0.95), (0.55, 0.95)]), rgb("#7a7068"))


def _chest(c: Canvas) -> None:
    _speckled(c, DIRT, 3, 0.1)
    c.paint(c.rounded(0.12, 0.3, 0.88, 0.85, 0.06), WOOD)
    c.paint(c.rect(0.12, 0.3, 0.88, 0.48), scale(WOOD, 0.8))
    c.paint(c.rect(0.12, 0.46, 0.88, 0.52), rgb("#e2b43a"))
    c.paint(c.rect(0.44, 0.44, 0.56, 0.6), rgb("#ffd860"))


def _fountain(c: Canvas) -> None:
    _stone(c)
    c.paint(c.ellipse(0.5, 0.6, 0.42, 0.3), rgb("#b9b9c0"))
    c.paint(c.ellipse(0.5, 0.6, 0.32, 0.2), rgb("#4c8fe0"))
    c.paint(c.line(0.5, 0.55, 0.5, 0.15, 0.08), rgb("#9fd0ff"))
    c.paint(c.ellipse(0.5, 0.14, 0.1), rgb("#cfe8ff"))


def _graves(style: int) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        _speckled(c, rgb("#6a5a46"), 11, 0.12)
        stone = rgb("#9a9aa4")
        if style == 0:
            c.paint(c.rounded(0.28, 0.2, 0.72, 0.85, 0.2) & (c.y < 0.85), stone)
        elif style == 1:
            c.paint(c.rect(0.44, 0.15, 0.56, 0.85) | c.rect(0.25, 0.3, 0.75, 0.42), stone)
        else:
            c.paint(
                c.polygon([(0.25, 0.85), (0.3, 0.35), (0.55, 0.25), (0.75, 0.45), (0.72, 0.85)]),
                stone,
            )
        c.paint(c.rect(0.2, 0.82, 0.8, 0.9), rgb("#4a3e30"))

    return draw


def _necromancer(vulnerable: bool) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        _speckled(c, rgb("#3a3040"), 12, 0.1)
        if vulnerable:
            c.paint(c.ellipse(0.5, 0.5, 0.48), rgb("#f0e070"), 0.6)
        c.paint(c.polygon([(0.5, 0.1), (0.85, 0.95), (0.15, 0.95)]), rgb("#3b1f5c"))
        c.paint(c.ellipse(0.5, 0.3, 0.13), rgb("#d8d2c0"))
        c.paint(c.ellipse(0.45, 0.29, 0.03) | c.ellipse(0.55, 0.29, 0.03), rgb("#ff2a2a"))

    return draw


def _site(progress: bool) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        _speckled(c, DIRT, 13, 0.1)
        stripes = ((c.x + c.y) * 6 % 1.0) < 0.5
        border = ~c.rect(0.1, 0.1, 0.9, 0.9)
        c.paint(border & stripes, rgb("#f2c230"))
        c.paint(border & ~stripes, rgb("#2a2a2a"))
        for x in (0.25, 0.75):
            c.paint(c.rect(x - 0.04, 0.2, x + 0.04, 0.85), WOOD)
        c.paint(c.rect(0.2, 0.3, 0.8, 0.36), WOOD)
        if progress:  # half-built walls between the posts
            c.paint(c.rect(0.22, 0.55, 0.78, 0.85), rgb("#b0a090"))
            c.shade(c.rect(0.22, 0.68, 0.78, 0.71), 0.6)

    return draw


def _shelter(c: Canvas) -> None:
    _grass(c)
    c.paint(c.rect(0.18, 0.45, 0.82, 0.92), rgb("#c9a36a"))
    c.paint(c.polygon([(0.05, 0.5), (0.5, 0.08), (0.95, 0.5)]), rgb("#b0382e"))
    c.paint(c.rect(0.42, 0.62, 0.58, 0.92), WOOD_DARK)


def _forge(c: Canvas) -> None:
    _bricks(c, rgb("#4e4a50"))
    c.paint(c.rounded(0.12, 0.12, 0.88, 0.5, 0.06), rgb("#ff8a1c"))
    c.paint(c.ellipse(0.5, 0.32, 0.25, 0.12), rgb("#ffe070"))
    c.paint(c.polygon([(0.2, 0.6), (0.8, 0.6), (0.65, 0.72), (0.35, 0.72)]), rgb("#2c2c34"))
    c.paint(c.rect(0.42, 0.72, 0.58, 0.92), rgb("#2c2c34"))


def _beacon(c: Canvas) -> None:
    _stone(c)
    c.paint(c.ellipse(0.5, 0.3, 0.45), rgb("#fff4b0"), 0.45)
    c.paint(c.polygon([(0.3, 0.95), (0.4, 0.4), (0.6, 0.4), (0.7, 0.95)]), rgb("#d8d0c0"))
    c.paint(c.ellipse(0.5, 0.3, 0.14), rgb("#fffbe0"))


def _plain(base: Color, seed: int = 0, spread: float = 0.1) -> Callable[[Canvas], None]:
    return lambda c: _speckled(c, base, seed, spread)


def _planks(c: Canvas) -> None:
    _speckled(c, WOOD, 14, 0.08)
    for y in (0.33, 0.66):
        c.shade(c.rect(0, y - 0.02, 1, y + 0.02), 0.6)


BLOCK_PAINTERS: dict[Block, Callable[[Canvas], None]] = {
    Block.INVALID: _plain(rgb("#000000"), spread=0.0),
    Block.OUT_OF_BOUNDS: _plain(rgb("#000000"), spread=0.0),
    Block.GRASS: _grass,
    Block.WATER: _water,
    Block.STONE: _stone,
    Block.TREE: _tree(rgb("#2f8a2a"), _grass),
    Block.WOOD: _planks,
    Block.PATH: _plain(DIRT, 3, 0.14),
    Block.COAL: _ore(rgb("#202024")),
    Block.IRON: _ore(rgb("#d49a6a")),
    Block.DIAMOND: _ore(rgb("#e8fbff"), gem=True),
    Block.CRAFTING_TABLE: _table(WOOD),
    Block.FURNACE: _furnace,
    Block.SAND: _plain(SAND, 15, 0.08),
    Block.LAVA: _lava,
    Block.PLANT: _plant(ripe=False),
    Block.RIPE_PLANT: _plant(ripe=True),
    Block.WALL: lambda c: _bricks(c, rgb("#55555c")),
    Block.DARKNESS: _plain(rgb("#08080c"), 16, 0.3),
    Block.WALL_MOSS: lambda c: _bricks(c, rgb("#55555c"), moss=True),
    Block.STALAGMITE: _stalagmite,
    Block.SAPPHIRE: _ore(rgb("#2f5fe8"), gem=True),
    Block.RUBY: _ore(rgb("#e0203c"), gem=True),
    Block.CHEST: _chest,
    Block.FOUNTAIN: _fountain,
    Block.FIRE_GRASS: lambda c: _grass(c, FIRE_GRASS, 17),
    Block.ICE_GRASS: lambda c: _grass(c, ICE_GRASS, 18),
    Block.GRAVEL: _plain(rgb("#7c766e"), 19, 0.3),
    Block.FIRE_TREE: _tree(rgb("#e0602a"), lambda c: _grass(c, FIRE_GRASS, 17)),
    Block.ICE_SHRUB: _tree(rgb("#8fd0f0"), lambda c: _grass(c, ICE_GRASS, 18)),
    Block.ENCHANTMENT_TABLE_FIRE: _table(rgb("#5a2c6e"), rgb("#ff4a2a")),
    Block.ENCHANTMENT_TABLE_ICE: _table(rgb("#5a2c6e"), rgb("#5ad0ff")),
    Block.NECROMANCER: _necromancer(False),
    Block.GRAVE: _graves(0),
    Block.GRAVE2: _graves(1),
    Block.GRAVE3: _graves(2),
    Block.NECROMANCER_VULNERABLE: _necromancer(True),
    Block.CONSTRUCTION_SITE: _site(False),
    Block.EPIC_SHELTER: _shelter,
    Block.EPIC_FORGE: _forge,
    Block.EPIC_BEACON: _beacon,
    Block.CONSTRUCTION_IN_PROGRESS: _site(True),
}


def _torch(c: Canvas) -> None:
    c.paint(c.rect(0.45, 0.45, 0.55, 0.9), WOOD_DARK)
    c.paint(c.ellipse(0.5, 0.36, 0.12, 0.16), rgb("#ff9a20"))
    c.paint(c.ellipse(0.5, 0.39, 0.06, 0.09), rgb("#fff0a0"))


def _ladder(down: bool, blocked: bool = False) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        if down:
            c.paint(c.rounded(0.12, 0.12, 0.88, 0.88, 0.1), rgb("#141010"))
        rail = rgb("#c89a5a")
        c.paint(c.rect(0.28, 0.08, 0.36, 0.92) | c.rect(0.64, 0.08, 0.72, 0.92), rail)
        for y in (0.22, 0.42, 0.62, 0.82):
            c.paint(c.rect(0.28, y - 0.03, 0.72, y + 0.03), rail)
        if blocked:
            cross = c.line(0.2, 0.2, 0.8, 0.8, 0.1) | c.line(0.8, 0.2, 0.2, 0.8, 0.1)
            c.paint(cross, rgb("#e02020"))

    return draw


ITEM_PAINTERS: dict[Item, Callable[[Canvas], None]] = {
    Item.NONE: lambda c: None,
    Item.TORCH: _torch,
    Item.LADDER_DOWN: _ladder(True),
    Item.LADDER_UP: _ladder(False),
    Item.LADDER_DOWN_BLOCKED: _ladder(True, blocked=True),
}


def block_textures(n: int) -> np.ndarray:
    """(42, n, n, 3) float32 opaque texture of every ``Block`` id, drawn at resolution n."""
    assert len(BLOCK_PAINTERS) == NUM_BLOCKS
    out = np.zeros((NUM_BLOCKS, n, n, 3), np.float32)
    for block, paint in BLOCK_PAINTERS.items():
        canvas = Canvas(n)
        paint(canvas)
        out[block] = canvas.rgba[..., :3]
    return out


def item_textures(n: int) -> np.ndarray:
    """(5, n, n, 4) float32 RGBA overlay of every ``Item`` id (NONE is fully transparent)."""
    out = np.zeros((NUM_ITEMS, n, n, 4), np.float32)
    for item, paint in ITEM_PAINTERS.items():
        canvas = Canvas(n)
        paint(canvas)
        out[item] = canvas.rgba
    return out
