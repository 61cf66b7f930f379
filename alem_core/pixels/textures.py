"""The texture atlas at one tile size: every texture drawn by code, supersampled, averaged down.

``atlas(tile_px)`` is built once per tile size (``functools.cache``) in numpy when first used and
handed to the JAX renderer as constant arrays; nothing is read from or written to disk. Textures
are drawn at ``tile_px * k`` pixels (k >= 2, at least 64 px) and area-averaged to ``tile_px``,
which anti-aliases them at 10 px and keeps them sharp at 64 px.
"""

from __future__ import annotations

import functools
import math
from typing import NamedTuple

import numpy as np

from alem_core.pixels.draw import downsample
from alem_core.pixels.textures_blocks import block_textures, item_textures
from alem_core.pixels.textures_mobs import mob_textures, player_textures, projectile_textures
from alem_core.pixels.textures_ui import digit_masks, icon_textures

ACCENTS = np.array(
    [[0.25, 0.85, 0.95], [0.35, 0.9, 0.35], [1.0, 0.72, 0.2], [0.7, 0.45, 0.95], [1.0, 0.45, 0.7]],
    np.float32,
)
"""Accent colour of player i (i mod 5): cyan, green, amber, purple, pink
(docs/playing.md#keyboard-play)."""


class Atlas(NamedTuple):
    """Every texture at one tile size ``t`` (float32, colours in [0, 1], straight alpha)."""

    blocks: np.ndarray
    """(42, t, t, 3) by ``Block`` id."""
    items: np.ndarray
    """(5, t, t, 4) by ``Item`` id."""
    mobs: np.ndarray
    """(24, t, t, 4) at ``8 * MobClass + type`` (melee, passive, ranged)."""
    projectiles: np.ndarray
    """(8, t, t, 4) by projectile id."""
    players: np.ndarray
    """(12, t, t, 5) at ``4 * role + facing - 1``; channel 4 is the shirt (accent) mask."""
    icons: np.ndarray
    """(NUM_ICONS, t, t, 4) by ``Icon``."""
    badges: np.ndarray
    """(NUM_ICONS, t, t, 4) every icon at half size in the tile's top-right quarter."""
    digits: np.ndarray
    """(4, 10, t, t) digit masks (pixel font) in the quarter TL, TR, BL, BR of a tile."""
    shadows: np.ndarray
    """(4, 10, t, t) the same masks grown down-right: a dark outline behind the digits."""
    frame: np.ndarray
    """(t, t) a border ring (coordination targets, hard)."""
    brackets: np.ndarray
    """(t, t) only the corners of that ring (soft targets)."""
    clock: np.ndarray
    """(2, t, t) handover clock geometry: disc mask; angle clockwise from 12 o'clock in [0, 1)."""
    grain: np.ndarray
    """(t, t) fixed noise in [-0.5, 0.5] (night grain, the same every step)."""


def _reduce(images: np.ndarray, tile_px: int) -> np.ndarray:
    return np.stack([downsample(image, tile_px) for image in images])


@functools.cache
def atlas(tile_px: int) -> Atlas:
    """The atlas for ``tile_px`` pixels per tile (built on first use, then cached)."""
    if not isinstance(tile_px, int) or tile_px < 4:
        raise ValueError(f"tile_px must be an int >= 4, got {tile_px!r}")
    n = tile_px * max(2, math.ceil(64 / tile_px))
    opaque = block_textures(n)
    blocks = _reduce(
        np.concatenate([opaque, np.ones((*opaque.shape[:-1], 1), np.float32)], -1), tile_px
    )
    players = player_textures(n)
    player_rgba = _reduce(players[..., :4], tile_px)
    shirt = _reduce(np.repeat(players[..., 4:], 4, axis=-1), tile_px)[..., :1]
    return Atlas(
        blocks=blocks[..., :3],
        items=_reduce(item_textures(n), tile_px),
        mobs=_reduce(mob_textures(n), tile_px),
        projectiles=_reduce(projectile_textures(n), tile_px),
        players=np.concatenate([player_rgba, shirt], axis=-1),
        icons=_reduce(icon_textures(n), tile_px),
        **_overlays(tile_px, _reduce(icon_textures(n), tile_px // 2)),
    )


def _quarters(images: np.ndarray, tile_px: int) -> np.ndarray:
    """(4, N, t, t, ...) ``images`` (N, h, h, ...) placed in the quarters TL, TR, BL, BR."""
    h = images.shape[1]
    out = np.zeros((4, images.shape[0], tile_px, tile_px, *images.shape[3:]), np.float32)
    for q, (row, col) in enumerate(
        ((0, 0), (0, tile_px - h), (tile_px - h, 0), (tile_px - h, tile_px - h))
    ):
        out[q, :, row : row + h, col : col + h] = images
    return out


def _overlays(tile_px: int, small_icons: np.ndarray) -> dict[str, np.ndarray]:
    """Masks the renderer lays over tiles: badges, digits, frames, the clock, night grain."""
    t = tile_px
    digits = _quarters(digit_masks(t // 2), t)
    shift = max(1, t // 16)
    shadows = digits.copy()
    for dy, dx in ((shift, 0), (0, shift), (shift, shift)):
        shadows = np.maximum(shadows, np.roll(np.roll(digits, dy, axis=-2), dx, axis=-1))
    width = max(1, round(t / 10))
    idx = np.arange(t)
    edge = np.minimum(idx, t - 1 - idx)
    ring = ((edge[:, None] < width) | (edge[None, :] < width)).astype(np.float32)
    corner = (edge[:, None] < max(2, t // 3)) & (edge[None, :] < max(2, t // 3))
    centre = (idx + 0.5) / t - 0.5
    y, x = np.meshgrid(centre, centre, indexing="ij")
    angle = (np.arctan2(x, -y) / (2 * np.pi)) % 1.0
    disc = (np.hypot(x, y) <= 0.34).astype(np.float32)
    grain = np.random.default_rng(0).random((t, t)).astype(np.float32) - 0.5
    return {
        "badges": _quarters(small_icons, t)[1],
        "digits": digits,
        "shadows": shadows,
        "frame": ring,
        "brackets": ring * corner,
        "clock": np.stack([disc, angle.astype(np.float32)]),
        "grain": grain,
    }
