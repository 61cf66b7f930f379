"""A tiny procedural drawing kit for the texture atlas (numpy, used only when textures are built).

Every shape is a coverage mask over an ``n x n`` grid of pixel centres in unit coordinates
(x to the east, y to the south, both in [0, 1]), so one drawing function serves any resolution:
textures are drawn supersampled and averaged down, which anti-aliases the edges for free.
Canvases are straight (not premultiplied) RGBA float32 arrays (n, n, 4) in [0, 1].
"""

from __future__ import annotations

import numpy as np

Color = tuple[float, float, float]


def rgb(hex_code: str) -> Color:
    """``"#rrggbb"`` -> (r, g, b) floats in [0, 1]."""
    value = hex_code.lstrip("#")
    return tuple(int(value[i : i + 2], 16) / 255.0 for i in (0, 2, 4))  # type: ignore[return-value]


def scale(color: Color, factor: float) -> Color:
    """``color`` brightened (factor > 1) or darkened (< 1), clipped to [0, 1]."""
    return tuple(float(np.clip(c * factor, 0.0, 1.0)) for c in color)  # type: ignore[return-value]


class Canvas:
    """An RGBA canvas of ``n x n`` pixels plus the unit coordinates of its pixel centres."""

    def __init__(self, n: int, fill: Color | None = None) -> None:
        self.n = n
        centres = (np.arange(n, dtype=np.float32) + 0.5) / n
        self.y, self.x = np.meshgrid(centres, centres, indexing="ij")
        self.rgba = np.zeros((n, n, 4), np.float32)
        if fill is not None:
            self.rgba[..., :3] = fill
            self.rgba[..., 3] = 1.0

    def paint(self, mask: np.ndarray, color: Color | np.ndarray, alpha: float = 1.0) -> None:
        """Paint ``color`` (a triple or (n, n, 3) array) where ``mask`` covers, over the canvas."""
        m = (np.asarray(mask, np.float32) * alpha)[..., None]
        self.rgba[..., :3] = self.rgba[..., :3] * (1.0 - m) + np.asarray(color, np.float32) * m
        self.rgba[..., 3:] = self.rgba[..., 3:] * (1.0 - m) + m

    def shade(self, mask: np.ndarray, factor: np.ndarray | float) -> None:
        """Multiply the colour under ``mask`` by ``factor`` (shading without changing alpha)."""
        f = np.where(np.asarray(mask, bool), factor, 1.0).astype(np.float32)
        self.rgba[..., :3] = np.clip(self.rgba[..., :3] * f[..., None], 0.0, 1.0)

    # ---- shapes (boolean masks) ----------------------------------------------------------

    def rect(self, x0: float, y0: float, x1: float, y1: float) -> np.ndarray:
        """Axis-aligned rectangle [x0, x1] x [y0, y1]."""
        return (self.x >= x0) & (self.x <= x1) & (self.y >= y0) & (self.y <= y1)

    def rounded(self, x0: float, y0: float, x1: float, y1: float, r: float) -> np.ndarray:
        """Rectangle with corners rounded by radius ``r``."""
        cx = np.clip(self.x, x0 + r, x1 - r)
        cy = np.clip(self.y, y0 + r, y1 - r)
        return (self.x - cx) ** 2 + (self.y - cy) ** 2 <= r * r

    def ellipse(self, cx: float, cy: float, rx: float, ry: float | None = None) -> np.ndarray:
        """Ellipse (a disc when ``ry`` is None) centred on (cx, cy)."""
        ry = rx if ry is None else ry
        return ((self.x - cx) / rx) ** 2 + ((self.y - cy) / ry) ** 2 <= 1.0

    def ring(self, cx: float, cy: float, r: float, width: float) -> np.ndarray:
        """Annulus of outer radius ``r`` and the given width."""
        d = np.hypot(self.x - cx, self.y - cy)
        return (d <= r) & (d >= r - width)

    def line(self, x0: float, y0: float, x1: float, y1: float, width: float) -> np.ndarray:
        """Segment from (x0, y0) to (x1, y1) with round caps."""
        dx, dy = x1 - x0, y1 - y0
        t = ((self.x - x0) * dx + (self.y - y0) * dy) / max(dx * dx + dy * dy, 1e-9)
        t = np.clip(t, 0.0, 1.0)
        return np.hypot(self.x - (x0 + t * dx), self.y - (y0 + t * dy)) <= width / 2

    def polygon(self, points: list[tuple[float, float]]) -> np.ndarray:
        """Filled polygon (even-odd rule), vertices in order."""
        inside = np.zeros((self.n, self.n), bool)
        for (xa, ya), (xb, yb) in zip(points, points[1:] + points[:1], strict=True):
            crosses = (ya > self.y) != (yb > self.y)
            at = xa + (self.y - ya) * (xb - xa) / np.where(yb == ya, 1e-9, yb - ya)
            inside ^= crosses & (self.x < at)
        return inside

    def noise(self, cells: int, seed: int) -> np.ndarray:
        """(n, n) blocky value noise in [0, 1]: ``cells x cells`` random values, nearest upsampled.

        A fixed seed per texture keeps the atlas identical on every build.
        """
        values = np.random.default_rng(seed).random((cells, cells)).astype(np.float32)
        index = np.minimum((np.arange(self.n) * cells) // self.n, cells - 1)
        return values[index][:, index]


def downsample(rgba: np.ndarray, size: int) -> np.ndarray:
    """Area-average an (n, n, 4) straight-alpha image to (size, size, 4).

    Colours are averaged with alpha weights (premultiplied), so transparent pixels do not darken
    edges. Works for any ratio through an overlap-weight matrix.
    """
    n = rgba.shape[0]
    premul = np.concatenate([rgba[..., :3] * rgba[..., 3:], rgba[..., 3:]], axis=-1)
    if n % size == 0:  # the atlas case: a whole supersampling factor
        k = n // size
        out = premul.reshape(size, k, size, k, 4).mean(axis=(1, 3))
    else:
        weights = np.zeros((size, n), np.float32)
        for i in range(size):
            lo, hi = i * n / size, (i + 1) * n / size
            for j in range(int(np.floor(lo)), min(int(np.ceil(hi)), n)):
                weights[i, j] = min(hi, j + 1) - max(lo, j)
        weights /= weights.sum(axis=1, keepdims=True)
        out = np.tensordot(weights, np.tensordot(weights, premul, (1, 1)), (1, 1))
    alpha = out[..., 3:]
    colour = np.where(alpha > 1e-6, out[..., :3] / np.maximum(alpha, 1e-6), 0.0)
    return np.concatenate([np.clip(colour, 0, 1), np.clip(alpha, 0, 1)], axis=-1).astype(np.float32)
