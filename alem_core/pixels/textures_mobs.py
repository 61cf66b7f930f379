"""Creature textures: every mob type of each class, projectiles, and the players' roles.

``mob_textures(n)`` returns (3 * 8, n, n, 4) RGBA sprites indexed ``8 * MobClass + type`` for the
melee, passive and ranged classes (the passive class has 3 types; its 5 unused slots stay empty);
``projectile_textures(n)`` (8, n, n, 4) by projectile id; ``player_textures(n)`` (3 roles x 4
facings, n, n, 5): RGBA plus an accent mask, the shirt, which the renderer tints with the
player's own colour so teammates of one role stay apart.
"""

from __future__ import annotations

from collections.abc import Callable
from contextlib import contextmanager
from dataclasses import dataclass, field

import numpy as np

from alem_core.constants import Facing, Role
from alem_core.pixels.draw import Canvas, Color, rgb, scale

MOB_TYPES = 8
EYE, WHITE, STEEL = rgb("#141414"), rgb("#f4f4f4"), rgb("#b8bcc8")
BOW_WOOD, BLADE = rgb("#8a5a2a"), rgb("#dfe4ee")


@contextmanager
def shrunk(c: Canvas, size: float):
    """Draw at ``size`` times the tile, standing on the bottom centre (small creatures)."""
    x, y = c.x, c.y
    c.x, c.y = 0.5 + (x - 0.5) / size, 1.0 - (1.0 - y) / size
    try:
        yield c
    finally:
        c.x, c.y = x, y


@dataclass(frozen=True)
class Figure:
    """A standing humanoid: colours, size and extra painters drawn on top."""

    skin: Color
    shirt: Color
    legs: Color
    size: float = 1.0
    extras: tuple[Callable[[Canvas], None], ...] = field(default=())
    eyes: Color = EYE


def _eyes(c: Canvas, facing: Facing, color: Color, y: float = 0.27) -> None:
    if facing == Facing.UP:  # seen from behind: hair instead of a face
        c.paint(c.ellipse(0.5, 0.27, 0.17, 0.16), rgb("#5a3a22"))
    offsets = {Facing.DOWN: (-0.07, 0.07), Facing.LEFT: (-0.1,), Facing.RIGHT: (0.1,)}
    for dx in offsets.get(facing, ()):
        c.paint(c.ellipse(0.5 + dx, y, 0.035, 0.045), color)


def draw_figure(c: Canvas, fig: Figure, facing: Facing = Facing.DOWN) -> None:
    """Paint a humanoid (legs, body, arms, head, eyes, extras), front view unless ``facing``."""
    with shrunk(c, fig.size):
        c.paint(c.rect(0.36, 0.72, 0.47, 0.96) | c.rect(0.53, 0.72, 0.64, 0.96), fig.legs)
        c.paint(c.rounded(0.3, 0.44, 0.7, 0.78, 0.06), fig.shirt)
        c.shade(c.rect(0.3, 0.44, 0.38, 0.78), 0.8)
        c.paint(
            c.rounded(0.2, 0.46, 0.3, 0.72, 0.04) | c.rounded(0.7, 0.46, 0.8, 0.72, 0.04), fig.skin
        )
        c.paint(c.ellipse(0.5, 0.28, 0.17, 0.17), fig.skin)
        c.shade(c.ellipse(0.5, 0.28, 0.17, 0.17) & (c.x < 0.4), 0.85)
        _eyes(c, facing, fig.eyes)
        for extra in fig.extras:
            extra(c)


def _hat(color: Color, pointy: bool = False) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        if pointy:
            c.paint(c.polygon([(0.3, 0.2), (0.5, -0.12), (0.7, 0.2)]), color)
        else:
            c.paint(c.ellipse(0.5, 0.16, 0.19, 0.1) | c.rect(0.28, 0.15, 0.72, 0.2), color)

    return draw


def _beard(c: Canvas) -> None:
    c.paint(c.polygon([(0.38, 0.34), (0.62, 0.34), (0.5, 0.52)]), WHITE)


def _tusks(c: Canvas) -> None:
    c.paint(c.rect(0.42, 0.34, 0.45, 0.4) | c.rect(0.55, 0.34, 0.58, 0.4), WHITE)


def _sword(c: Canvas) -> None:
    c.paint(c.line(0.82, 0.62, 0.95, 0.25, 0.06), BLADE)
    c.paint(c.line(0.74, 0.6, 0.9, 0.66, 0.05), rgb("#6a4a20"))


def _bow(c: Canvas) -> None:
    c.paint(c.ring(0.72, 0.55, 0.26, 0.05) & (c.x > 0.8), BOW_WOOD)
    c.paint(c.rect(0.86, 0.32, 0.875, 0.78), WHITE)


def _staff(orb: Color) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        c.paint(c.line(0.85, 0.95, 0.85, 0.3, 0.05), BOW_WOOD)
        c.paint(c.ellipse(0.85, 0.25, 0.08), orb)

    return draw


def _helmet(plume: Color | None = None) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        c.paint(c.ellipse(0.5, 0.26, 0.19, 0.19) & (c.y < 0.36), STEEL)
        c.paint(c.rect(0.38, 0.25, 0.62, 0.29), EYE)
        if plume is not None:
            c.paint(c.ellipse(0.5, 0.07, 0.05, 0.09), plume)

    return draw


def _shield(c: Canvas) -> None:
    c.paint(
        c.polygon([(0.08, 0.5), (0.3, 0.5), (0.3, 0.7), (0.19, 0.82), (0.08, 0.7)]), rgb("#3050a0")
    )


def _snout(c: Canvas) -> None:
    c.paint(c.ellipse(0.5, 0.34, 0.07, 0.05), rgb("#e090a0"))
    c.paint(c.ellipse(0.47, 0.34, 0.015) | c.ellipse(0.53, 0.34, 0.015), EYE)


FIGURES: dict[tuple[int, int], Figure] = {
    (0, 0): Figure(rgb("#6aa84f"), rgb("#2f7f8f"), rgb("#3a3a7a")),  # zombie
    (0, 1): Figure(
        rgb("#f0c090"),
        rgb("#8a5a2a"),
        rgb("#4a3a2a"),
        0.8,
        (_hat(rgb("#d02020"), True), _beard, _sword),
    ),
    (0, 2): Figure(rgb("#4a7a3a"), rgb("#707078"), rgb("#3a3030"), 1.0, (_tusks, _sword)),
    (0, 4): Figure(
        STEEL, rgb("#9aa0b0"), rgb("#707888"), 1.0, (_helmet(rgb("#d02020")), _shield, _sword)
    ),
    (0, 6): Figure(rgb("#f0a0b0"), rgb("#d8b030"), rgb("#8a6a20"), 1.0, (_snout, _sword)),
    (2, 0): Figure(rgb("#ecebe0"), rgb("#ecebe0"), rgb("#ecebe0"), 1.0, (_bow,), rgb("#202020")),
    (2, 1): Figure(
        rgb("#f0c090"),
        rgb("#2a6a3a"),
        rgb("#4a3a2a"),
        0.8,
        (_hat(rgb("#3050d0"), True), _beard, _bow),
    ),
    (2, 2): Figure(
        rgb("#4a7a3a"), rgb("#6a2a8a"), rgb("#4a1a5a"), 1.0, (_tusks, _staff(rgb("#ff6020")))
    ),
    (2, 3): Figure(rgb("#b0502a"), rgb("#6a4a2a"), rgb("#4a3020"), 0.75, (_sword,), rgb("#ffd000")),
    (2, 4): Figure(STEEL, rgb("#9aa0b0"), rgb("#707888"), 1.0, (_helmet(rgb("#2060d0")), _bow)),
}


def _skeleton_ribs(c: Canvas) -> None:
    for y in (0.5, 0.58, 0.66):
        c.paint(c.rect(0.34, y, 0.66, y + 0.03), rgb("#505050"))


def _big_brute(body: Color, fur: Color) -> Callable[[Canvas], None]:
    """Trolls: a wide hunched body with long arms and a club."""

    def draw(c: Canvas) -> None:
        c.paint(c.rect(0.3, 0.75, 0.44, 0.98) | c.rect(0.56, 0.75, 0.7, 0.98), scale(body, 0.8))
        c.paint(c.ellipse(0.5, 0.58, 0.34, 0.28), body)
        c.paint(c.ellipse(0.5, 0.62, 0.2, 0.15), fur)
        c.paint(
            c.rounded(0.06, 0.45, 0.2, 0.88, 0.06) | c.rounded(0.8, 0.45, 0.94, 0.88, 0.06), body
        )
        c.paint(c.ellipse(0.5, 0.26, 0.16, 0.14), body)
        c.paint(c.ellipse(0.44, 0.25, 0.03) | c.ellipse(0.56, 0.25, 0.03), rgb("#ffe040"))
        c.paint(c.line(0.9, 0.85, 0.98, 0.4, 0.1), BOW_WOOD)

    return draw


def _lizard(c: Canvas) -> None:
    green = rgb("#3f9f4a")
    c.paint(c.line(0.2, 0.8, 0.05, 0.55, 0.08), green)
    c.paint(c.ellipse(0.45, 0.7, 0.28, 0.16), green)
    for x in (0.28, 0.6):
        c.paint(
            c.line(x, 0.75, x - 0.05, 0.95, 0.07) | c.line(x + 0.05, 0.75, x + 0.1, 0.95, 0.07),
            scale(green, 0.8),
        )
    c.paint(c.ellipse(0.76, 0.55, 0.16, 0.12), green)
    c.paint(c.ellipse(0.8, 0.52, 0.03), rgb("#ffe040"))
    c.paint(c.line(0.2, 0.62, 0.65, 0.62, 0.04), rgb("#c0e060"))


def _cow(c: Canvas) -> None:
    c.paint(c.rect(0.2, 0.7, 0.3, 0.95) | c.rect(0.62, 0.7, 0.72, 0.95), rgb("#e8e8e8"))
    c.paint(c.rounded(0.12, 0.4, 0.78, 0.78, 0.1), rgb("#f4f4f0"))
    c.paint(c.ellipse(0.3, 0.52, 0.1, 0.08) | c.ellipse(0.6, 0.66, 0.09, 0.07), rgb("#2a2a2a"))
    c.paint(c.rounded(0.64, 0.22, 0.95, 0.55, 0.08), rgb("#f4f4f0"))
    c.paint(c.ellipse(0.82, 0.48, 0.12, 0.07), rgb("#f0a0a8"))
    c.paint(c.ellipse(0.72, 0.33, 0.03) | c.ellipse(0.86, 0.33, 0.03), EYE)
    c.paint(
        c.line(0.66, 0.22, 0.6, 0.12, 0.04) | c.line(0.92, 0.22, 0.98, 0.12, 0.04), rgb("#d8c8a0")
    )


def _bat(c: Canvas) -> None:
    wing = rgb("#4a2a5a")
    c.paint(c.polygon([(0.5, 0.45), (0.05, 0.3), (0.12, 0.55), (0.25, 0.5), (0.35, 0.65)]), wing)
    c.paint(c.polygon([(0.5, 0.45), (0.95, 0.3), (0.88, 0.55), (0.75, 0.5), (0.65, 0.65)]), wing)
    c.paint(c.ellipse(0.5, 0.5, 0.12, 0.16), rgb("#2a1a30"))
    c.paint(c.ellipse(0.46, 0.45, 0.025) | c.ellipse(0.54, 0.45, 0.025), rgb("#ff4040"))


def _snail(c: Canvas) -> None:
    c.paint(c.ellipse(0.5, 0.85, 0.42, 0.1), rgb("#a0a090"))
    c.paint(c.line(0.85, 0.82, 0.92, 0.6, 0.05), rgb("#a0a090"))
    c.paint(c.ellipse(0.45, 0.6, 0.28), rgb("#c87a30"))
    for r in (0.2, 0.12):
        c.paint(c.ring(0.45, 0.6, r, 0.04), rgb("#8a4a18"))


def _blob(body: Color, eyes: Color, spikes: bool) -> Callable[[Canvas], None]:
    """Deep things (tentacled blobs) and elementals (flames or crystals)."""

    def draw(c: Canvas) -> None:
        if spikes:
            c.paint(
                c.polygon([(0.5, 0.02), (0.8, 0.4), (0.7, 0.95), (0.3, 0.95), (0.2, 0.4)]), body
            )
            c.paint(
                c.polygon([(0.5, 0.25), (0.65, 0.5), (0.6, 0.85), (0.4, 0.85), (0.35, 0.5)]),
                scale(body, 1.3),
            )
        else:
            c.paint(c.ellipse(0.5, 0.45, 0.34, 0.3), body)
            for x in (0.25, 0.42, 0.58, 0.75):
                c.paint(c.line(x, 0.6, x + 0.05 * np.sign(x - 0.5), 0.95, 0.07), body)
        c.paint(c.ellipse(0.42, 0.45, 0.05) | c.ellipse(0.58, 0.45, 0.05), eyes)

    return draw


CUSTOM: dict[tuple[int, int], Callable[[Canvas], None]] = {
    (0, 3): _lizard,
    (0, 5): _big_brute(rgb("#6f7f5a"), rgb("#8a9a70")),
    (0, 7): _big_brute(rgb("#a8d0e8"), WHITE),
    (1, 0): _cow,
    (1, 1): _bat,
    (1, 2): _snail,
    (2, 5): _blob(rgb("#1f4a5a"), rgb("#a0ff60"), False),
    (2, 6): _blob(rgb("#f06a1a"), rgb("#fff080"), True),
    (2, 7): _blob(rgb("#8ad8f8"), rgb("#2040a0"), True),
}


def mob_textures(n: int) -> np.ndarray:
    """(24, n, n, 4) RGBA sprite of (class, type) at ``8 * class + type`` for melee, passive,
    ranged; slots without a creature (passive types 3-7) are transparent."""
    out = np.zeros((3 * MOB_TYPES, n, n, 4), np.float32)
    for key in sorted(set(FIGURES) | set(CUSTOM)):
        c = Canvas(n)
        if key in FIGURES:
            draw_figure(c, FIGURES[key])
            if key == (2, 0):
                _skeleton_ribs(c)
        else:
            CUSTOM[key](c)
        out[key[0] * MOB_TYPES + key[1]] = c.rgba
    return out


def _arrow(tip: Color) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        c.paint(c.line(0.15, 0.85, 0.75, 0.25, 0.06), BOW_WOOD)
        c.paint(c.polygon([(0.85, 0.15), (0.62, 0.24), (0.76, 0.38)]), tip)
        c.paint(c.line(0.12, 0.78, 0.22, 0.88, 0.1), WHITE)

    return draw


def _ball(outer: Color, inner: Color) -> Callable[[Canvas], None]:
    def draw(c: Canvas) -> None:
        c.paint(c.ellipse(0.5, 0.5, 0.3), outer)
        c.paint(c.ellipse(0.45, 0.45, 0.16), inner)

    return draw


PROJECTILES = (
    _arrow(STEEL),
    lambda c: c.paint(c.polygon([(0.2, 0.8), (0.75, 0.2), (0.8, 0.25), (0.3, 0.85)]), BLADE),
    _ball(rgb("#f05a1a"), rgb("#ffe070")),
    _ball(rgb("#60b0f0"), rgb("#e0f4ff")),
    _arrow(rgb("#e0c040")),
    _ball(rgb("#50c040"), rgb("#b0ff80")),
    _ball(rgb("#c02010"), rgb("#ffb030")),
    _ball(rgb("#2060d0"), rgb("#a0f0ff")),
)


def projectile_textures(n: int) -> np.ndarray:
    """(8, n, n, 4) RGBA sprite of every projectile id (``Projectile``)."""
    out = np.zeros((len(PROJECTILES), n, n, 4), np.float32)
    for i, paint in enumerate(PROJECTILES):
        c = Canvas(n)
        paint(c)
        out[i] = c.rgba
    return out


def _pickaxe(c: Canvas) -> None:
    c.paint(c.line(0.78, 0.75, 0.9, 0.3, 0.05), BOW_WOOD)
    c.paint(c.ring(0.88, 0.48, 0.2, 0.05) & (c.y < 0.36), STEEL)


def _basket(c: Canvas) -> None:
    c.paint(c.rounded(0.72, 0.6, 0.95, 0.8, 0.04), rgb("#c89a50"))
    c.paint(c.ellipse(0.8, 0.58, 0.05) | c.ellipse(0.88, 0.6, 0.05), rgb("#e03040"))


ROLE_GEAR: dict[Role, tuple[Callable[[Canvas], None], ...]] = {
    Role.WARRIOR: (_helmet(rgb("#d02020")), _sword),
    Role.FORAGER: (_hat(rgb("#3a8a2a")), _basket),
    Role.MINER: (
        _hat(rgb("#f0c020")),
        lambda c: c.paint(c.ellipse(0.5, 0.13, 0.04), WHITE),
        _pickaxe,
    ),
}


def player_textures(n: int) -> np.ndarray:
    """(12, n, n, 5) player sprites at ``4 * role + facing - 1``: RGBA and the shirt mask.

    The shirt is drawn white so that multiplying by a colour tints it, shading included.
    """
    out = np.zeros((3 * 4, n, n, 5), np.float32)
    for role, gear in ROLE_GEAR.items():
        for facing in Facing:
            c = Canvas(n)
            fig = Figure(rgb("#f0c8a0"), WHITE, rgb("#3a3a4a"), 0.95, gear)
            # Facing left is facing right mirrored, so the tool hand turns too.
            draw_figure(c, fig, Facing.RIGHT if facing == Facing.LEFT else facing)
            shirt = Canvas(n)
            with shrunk(shirt, 0.95):
                mask = shirt.rounded(0.3, 0.44, 0.7, 0.78, 0.06).astype(np.float32)
            sprite = np.concatenate(
                [c.rgba, (mask * (c.rgba[..., :3].min(-1) > 0.5))[..., None]], -1
            )
            out[4 * role + facing - 1] = sprite[:, ::-1] if facing == Facing.LEFT else sprite
    return out
