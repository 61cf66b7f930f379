"""Interface icons (status, inventory, requests, cues) and a pixel font for numbers.

``Icon`` names every icon; ``icon_textures(n)`` returns them as (len(Icon), n, n, 4) RGBA.
Digits are not drawn supersampled: ``digit_masks(box)`` scales a 3 x 5 bitmap font by whole
pixels, so numbers stay crisp at 10 px per tile as well as at 64.
"""

from __future__ import annotations

from collections.abc import Callable
from enum import IntEnum

import numpy as np

from alem_core.pixels.draw import Canvas, Color, rgb, scale
from alem_core.pixels.textures_blocks import WOOD, WOOD_DARK

STEEL, WHITE = rgb("#c8ccd8"), rgb("#f4f4f4")
TIER_COLOURS = (WOOD, rgb("#8a8a8e"), rgb("#d8d8e0"), rgb("#7ff0ff"))
"""Head colour of wood, stone, iron and diamond tools."""
POTION_COLOURS = tuple(
    rgb(h) for h in ("#e02828", "#30c030", "#3060f0", "#f070c0", "#40e0e0", "#f0e030")
)


class Icon(IntEnum):
    """Icons of the teammate strip and the status panel."""

    EMPTY = 0
    HEART = 1
    FOOD = 2
    DRINK = 3
    ENERGY = 4
    MANA = 5
    XP = 6
    DEX = 7
    STR = 8
    INT = 9
    SUN = 10
    MOON = 11
    FLOOR = 12
    WOOD = 13
    STONE = 14
    COAL = 15
    IRON = 16
    DIAMOND = 17
    SAPPHIRE = 18
    RUBY = 19
    SAPLING = 20
    TORCH = 21
    ARROW = 22
    BOOK = 23
    PICKAXE = 24  # 24-27: wood, stone, iron, diamond
    SWORD = 28  # 28-31
    BOW = 32
    POTION = 33  # 33-38: red, green, blue, pink, cyan, yellow
    ARMOUR = 39
    SPELL = 40
    REQUEST = 41
    CLOCK = 42
    SYNC = 43
    HANDOVER = 44
    ELITE = 45
    SLEEP = 46
    REST = 47
    SKULL = 48
    BUBBLE = 49
    DIRECTION = 50  # 50-57: W, E, N, NW, NE, S, SW, SE (the observation's sector order)


NUM_ICONS = Icon.DIRECTION + 8
SECTOR_VECTORS = ((-1, 0), (1, 0), (0, -1), (-1, -1), (1, -1), (0, 1), (-1, 1), (1, 1))
"""(dx, dy) of each direction sector, x east and y south."""


def _gem(color: Color) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        c.paint(c.polygon([(0.5, 0.15), (0.85, 0.45), (0.5, 0.9), (0.15, 0.45)]), color)
        c.paint(c.polygon([(0.5, 0.15), (0.85, 0.45), (0.5, 0.45)]), scale(color, 1.4))

    return draw


def _lump(color: Color) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        c.paint(c.ellipse(0.5, 0.55, 0.32, 0.26), color)
        c.paint(c.ellipse(0.4, 0.45, 0.1), scale(color, 1.5))

    return draw


def _tool(kind: str, tier: int) -> Callable[[Canvas], None]:
    head = TIER_COLOURS[tier]

    def draw(c: Canvas) -> None:
        if kind == "pickaxe":
            c.paint(c.line(0.3, 0.85, 0.62, 0.3, 0.09), WOOD_DARK)
            c.paint(c.ring(0.7, 0.62, 0.45, 0.12) & (c.y < 0.32) & (c.x > 0.3), head)
        else:
            c.paint(c.line(0.22, 0.78, 0.8, 0.2, 0.12), head)
            c.paint(c.line(0.18, 0.6, 0.4, 0.82, 0.08), WOOD_DARK)

    return draw


def _potion(color: Color) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        c.paint(c.rect(0.42, 0.12, 0.58, 0.38), rgb("#d0e0e8"))
        c.paint(c.ellipse(0.5, 0.62, 0.28), color)
        c.paint(c.ellipse(0.42, 0.55, 0.07), WHITE)

    return draw


def _direction(dx: int, dy: int) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        norm = np.hypot(dx, dy)
        ux, uy = dx / norm, dy / norm
        tip = (0.5 + 0.42 * ux, 0.5 + 0.42 * uy)
        base = (0.5 - 0.3 * ux, 0.5 - 0.3 * uy)
        c.paint(c.line(*base, *tip, 0.16), rgb("#f0f0f0"))
        left = (tip[0] - 0.45 * ux + 0.32 * uy, tip[1] - 0.45 * uy - 0.32 * ux)
        right = (tip[0] - 0.45 * ux - 0.32 * uy, tip[1] - 0.45 * uy + 0.32 * ux)
        c.paint(c.polygon([tip, left, right]), rgb("#f0f0f0"))

    return draw


def _framed(color: Color, dashed: bool) -> Callable[[Canvas], None]:
    """A cell with a coloured frame: the on-map marks of sync, handover and elite targets."""

    def draw(c: Canvas) -> None:
        c.paint(c.rect(0.2, 0.2, 0.8, 0.8), rgb("#8a8a8e"))
        frame = ~c.rect(0.14, 0.14, 0.86, 0.86) & c.rect(0.04, 0.04, 0.96, 0.96)
        if dashed:
            frame &= ((c.x + c.y) * 4 % 1.0) < 0.6
        c.paint(frame, color)

    return draw


def _clock(c: Canvas) -> None:
    c.paint(c.ellipse(0.5, 0.5, 0.4), WHITE)
    c.paint(c.ring(0.5, 0.5, 0.4, 0.08), rgb("#303030"))
    c.paint(c.line(0.5, 0.5, 0.5, 0.22, 0.08) | c.line(0.5, 0.5, 0.7, 0.5, 0.08), rgb("#303030"))


def _bubble(c: Canvas) -> None:
    c.paint(c.rounded(0.08, 0.1, 0.92, 0.72, 0.15), WHITE)
    c.paint(c.polygon([(0.25, 0.65), (0.45, 0.65), (0.2, 0.92)]), WHITE)


PAINTERS: dict[int, Callable[[Canvas], None]] = {
    Icon.HEART: lambda c: c.paint(
        c.ellipse(0.33, 0.4, 0.2)
        | c.ellipse(0.67, 0.4, 0.2)
        | c.polygon([(0.14, 0.48), (0.86, 0.48), (0.5, 0.88)]),
        rgb("#e8303a"),
    ),
    Icon.FOOD: lambda c: (
        c.paint(c.ellipse(0.45, 0.55, 0.3), rgb("#e04030")),
        c.paint(c.line(0.5, 0.3, 0.6, 0.12, 0.07), WOOD_DARK),
        c.paint(c.ellipse(0.68, 0.2, 0.1, 0.05), rgb("#40a030")),
    ),
    Icon.DRINK: lambda c: c.paint(
        c.ellipse(0.5, 0.62, 0.26) | c.polygon([(0.5, 0.1), (0.27, 0.52), (0.73, 0.52)]),
        rgb("#3a8ef0"),
    ),
    Icon.ENERGY: lambda c: c.paint(
        c.polygon(
            [(0.6, 0.05), (0.22, 0.55), (0.48, 0.55), (0.38, 0.95), (0.78, 0.42), (0.52, 0.42)]
        ),
        rgb("#f0d020"),
    ),
    Icon.MANA: lambda c: c.paint(
        c.polygon(
            [
                (0.5, 0.08),
                (0.62, 0.38),
                (0.92, 0.5),
                (0.62, 0.62),
                (0.5, 0.92),
                (0.38, 0.62),
                (0.08, 0.5),
                (0.38, 0.38),
            ]
        ),
        rgb("#5a7af8"),
    ),
    Icon.XP: lambda c: c.paint(c.ring(0.5, 0.5, 0.38, 0.14), rgb("#70e070")),
    Icon.DEX: lambda c: c.paint(
        c.polygon([(0.2, 0.9), (0.75, 0.1), (0.85, 0.3), (0.35, 0.9)]), rgb("#60d0a0")
    ),
    Icon.STR: lambda c: c.paint(
        c.rect(0.15, 0.3, 0.3, 0.7) | c.rect(0.7, 0.3, 0.85, 0.7) | c.rect(0.3, 0.45, 0.7, 0.55),
        rgb("#e06050"),
    ),
    Icon.INT: lambda c: (
        c.paint(c.ellipse(0.5, 0.5, 0.4, 0.26), WHITE),
        c.paint(c.ellipse(0.5, 0.5, 0.16), rgb("#7040d0")),
    ),
    Icon.SUN: lambda c: c.paint(
        c.ellipse(0.5, 0.5, 0.25)
        | (
            c.ring(0.5, 0.5, 0.42, 0.08)
            & ((np.arctan2(c.y - 0.5, c.x - 0.5) * 4 / np.pi) % 1 < 0.5)
        ),
        rgb("#ffd030"),
    ),
    Icon.MOON: lambda c: c.paint(
        c.ellipse(0.5, 0.5, 0.35) & ~c.ellipse(0.65, 0.4, 0.3), rgb("#e0e0ff")
    ),
    Icon.FLOOR: lambda c: (
        c.paint(c.rect(0.28, 0.1, 0.36, 0.9) | c.rect(0.64, 0.1, 0.72, 0.9), WOOD),
        c.paint(c.rect(0.28, 0.3, 0.72, 0.36) | c.rect(0.28, 0.6, 0.72, 0.66), WOOD),
    ),
    Icon.WOOD: lambda c: (
        c.paint(c.rounded(0.1, 0.35, 0.9, 0.7, 0.15), WOOD),
        c.paint(c.ellipse(0.82, 0.52, 0.08, 0.15), rgb("#d8b070")),
    ),
    Icon.STONE: _lump(rgb("#8a8a8e")),
    Icon.COAL: _lump(rgb("#26262a")),
    Icon.IRON: _lump(rgb("#d49a6a")),
    Icon.DIAMOND: _gem(rgb("#e8fbff")),
    Icon.SAPPHIRE: _gem(rgb("#2f5fe8")),
    Icon.RUBY: _gem(rgb("#e0203c")),
    Icon.SAPLING: lambda c: (
        c.paint(c.line(0.5, 0.9, 0.5, 0.4, 0.08), rgb("#2f6b1e")),
        c.paint(
            c.ellipse(0.35, 0.4, 0.16, 0.09) | c.ellipse(0.65, 0.3, 0.16, 0.09), rgb("#4caf30")
        ),
    ),
    Icon.TORCH: lambda c: (
        c.paint(c.rect(0.44, 0.4, 0.56, 0.92), WOOD_DARK),
        c.paint(c.ellipse(0.5, 0.28, 0.16, 0.2), rgb("#ff9a20")),
    ),
    Icon.ARROW: lambda c: (
        c.paint(c.line(0.15, 0.85, 0.75, 0.25, 0.07), WOOD),
        c.paint(c.polygon([(0.88, 0.12), (0.6, 0.22), (0.78, 0.4)]), STEEL),
    ),
    Icon.BOOK: lambda c: (
        c.paint(c.rounded(0.18, 0.15, 0.82, 0.85, 0.05), rgb("#8a2a2a")),
        c.paint(c.rect(0.26, 0.22, 0.74, 0.3), rgb("#e0c060")),
    ),
    Icon.BOW: lambda c: (
        c.paint(c.ring(0.25, 0.5, 0.45, 0.1) & (c.x > 0.35), WOOD),
        c.paint(c.rect(0.4, 0.1, 0.44, 0.9), WHITE),
    ),
    Icon.ARMOUR: lambda c: c.paint(
        c.polygon(
            [(0.15, 0.2), (0.35, 0.1), (0.5, 0.2), (0.65, 0.1), (0.85, 0.2), (0.8, 0.9), (0.2, 0.9)]
        ),
        STEEL,
    ),
    Icon.SPELL: lambda c: (
        c.paint(c.ellipse(0.5, 0.5, 0.4), rgb("#f0a030"), 0.5),
        c.paint(c.ellipse(0.5, 0.5, 0.2), rgb("#fff0a0")),
    ),
    Icon.REQUEST: lambda c: (
        c.paint(c.ellipse(0.5, 0.5, 0.42), rgb("#f0c020")),
        c.paint(c.ring(0.5, 0.38, 0.16, 0.08) & ((c.y < 0.4) | (c.x > 0.5)), rgb("#202020")),
        c.paint(c.rect(0.46, 0.52, 0.54, 0.62) | c.ellipse(0.5, 0.75, 0.05), rgb("#202020")),
    ),
    Icon.CLOCK: _clock,
    Icon.SYNC: _framed(rgb("#ffd030"), False),
    Icon.HANDOVER: _framed(rgb("#c050f0"), False),
    Icon.ELITE: lambda c: (
        c.paint(c.ellipse(0.5, 0.5, 0.4), rgb("#e02020")),
        c.paint(c.polygon([(0.3, 0.35), (0.5, 0.15), (0.7, 0.35), (0.5, 0.75)]), rgb("#ffd030")),
    ),
    Icon.SLEEP: lambda c: c.paint(
        c.line(0.25, 0.25, 0.75, 0.25, 0.1)
        | c.line(0.75, 0.25, 0.25, 0.75, 0.1)
        | c.line(0.25, 0.75, 0.75, 0.75, 0.1),
        rgb("#a0c8ff"),
    ),
    Icon.REST: lambda c: c.paint(
        c.rounded(0.1, 0.5, 0.9, 0.75, 0.08) | c.ellipse(0.25, 0.42, 0.12), rgb("#a0e0a0")
    ),
    Icon.SKULL: lambda c: (
        c.paint(c.ellipse(0.5, 0.42, 0.32, 0.3) | c.rect(0.32, 0.55, 0.68, 0.85), WHITE),
        c.paint(c.ellipse(0.38, 0.45, 0.08) | c.ellipse(0.62, 0.45, 0.08), rgb("#202020")),
    ),
    Icon.BUBBLE: _bubble,
}
PAINTERS.update({Icon.PICKAXE + t: _tool("pickaxe", t) for t in range(4)})
PAINTERS.update({Icon.SWORD + t: _tool("sword", t) for t in range(4)})
PAINTERS.update({Icon.POTION + i: _potion(col) for i, col in enumerate(POTION_COLOURS)})
PAINTERS.update({Icon.DIRECTION + i: _direction(*v) for i, v in enumerate(SECTOR_VECTORS)})


def icon_textures(n: int) -> np.ndarray:
    """(NUM_ICONS, n, n, 4) RGBA of every ``Icon`` (EMPTY is transparent)."""
    out = np.zeros((NUM_ICONS, n, n, 4), np.float32)
    for icon, paint in PAINTERS.items():
        c = Canvas(n)
        paint(c)
        out[icon] = c.rgba
    return out


_FONT = (
    "111101101101111", "010110010010111", "111001111100111", "111001111001111", "101101111001001",
    "111100111001111", "111100111101111", "111001010010010", "111101111101111", "111101111001111",
)  # fmt: skip
"""3 x 5 bitmap digits 0-9, rows top to bottom."""


def digit_masks(box: int) -> np.ndarray:
    """(10, box, box) float32 masks of the digits 0-9, each centred in a ``box`` square.

    The 3 x 5 glyph is scaled by the largest whole factor that fits with a margin, never
    below 1 (at ``box`` = 5 the glyph fills the box height).
    """
    factor = max(1, (box - 1) // 6 if box > 6 else 1)
    out = np.zeros((10, box, box), np.float32)
    for d, bits in enumerate(_FONT):
        glyph = np.array([int(b) for b in bits], np.float32).reshape(5, 3)
        glyph = np.kron(glyph, np.ones((factor, factor), np.float32))[:box, :box]
        top, left = (box - glyph.shape[0]) // 2, (box - glyph.shape[1] + 1) // 2
        out[d, top : top + glyph.shape[0], left : left + glyph.shape[1]] = glyph
    return out
