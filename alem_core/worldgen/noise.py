"""Two-dimensional Perlin gradient noise (docs/rules/world.md#noise-floors).

One octave of classic gradient noise: a random unit gradient (uniform angle) on every point of a
``(res_r + 1) x (res_c + 1)`` lattice, dot products with the offsets to the four surrounding lattice
points, blended with the quintic fade ``6t^5 - 15t^4 + 10t^3``, then min/max normalised to [0, 1].
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np


def _axis_coordinates(size: int, res: int) -> tuple[np.ndarray, np.ndarray]:
    """Lattice cell index and in-cell fraction of every pixel along one axis.

    The axis is padded up to the next multiple of ``res`` so that each lattice period spans a whole
    number of pixels; the caller crops the padding away. Both arrays are static (numpy), so they
    become constants under ``jit``.

    Args:
        size: pixels along the axis (before padding).
        res: lattice periods along the padded axis.

    Returns:
        ``(cell, frac)``: int cell index in ``[0, res)`` and float fraction in ``[0, 1)``, each of
        length ``size``.
    """
    period = -(-size // res)  # ceil: pixels per lattice period on the padded axis
    pixels = np.arange(size)
    return pixels // period, (pixels % period / period).astype(np.float32)


def _fade(t: jax.Array) -> jax.Array:
    """Quintic fade: zero first and second derivatives at 0 and 1, so cells join smoothly."""
    return t * t * t * (t * (t * 6.0 - 15.0) + 10.0)


def perlin(key: jax.Array, shape: tuple[int, int], res: tuple[int, int]) -> jax.Array:
    """One octave of 2-D Perlin noise, normalised to [0, 1].

    Args:
        key: PRNG key; the only source of randomness (the gradient angles).
        shape: static (rows, cols) of the output.
        res: static (rows, cols) lattice periods; each at least 1.

    Returns:
        (rows, cols) float32 noise with min 0 and max 1 (all zeros if the field is constant).
    """
    if res[0] < 1 or res[1] < 1:
        raise ValueError(f"Perlin resolution must be at least 1 per axis, got {res}")
    angles = jax.random.uniform(key, (res[0] + 1, res[1] + 1), maxval=2.0 * np.pi)
    return perlin_from_angles(angles, shape)


def perlin_from_angles(angles: jax.Array, shape: tuple[int, int]) -> jax.Array:
    """Perlin noise from given lattice gradient angles (radians), normalised to [0, 1].

    Callers that draw many random numbers draw the angles together with the rest (one PRNG call
    compiles far faster than several). Any ``shape`` works: the lattice is laid over a grid
    padded to a multiple of the resolution, and the result is cropped to ``shape`` before
    normalisation, so the map spans exactly [0, 1].

    Args:
        angles: (res_r + 1, res_c + 1) gradient angles; the resolution is read from this shape.
        shape: static (rows, cols) of the output.

    Returns:
        (rows, cols) float32 noise with min 0 and max 1 (all zeros if the field is constant).
    """
    rows, cols = shape
    res_r, res_c = angles.shape[0] - 1, angles.shape[1] - 1
    gradients = jnp.stack([jnp.cos(angles), jnp.sin(angles)], axis=-1)
    _, frac_r = _axis_coordinates(rows, res_r)
    _, frac_c = _axis_coordinates(cols, res_c)
    fr, fc = jnp.asarray(frac_r)[:, None], jnp.asarray(frac_c)[None, :]
    period_r, period_c = -(-rows // res_r), -(-cols // res_c)

    def corner(dr: int, dc: int) -> jax.Array:
        # Dot product of the corner's gradient with the offset from that corner to the pixel.
        # Pixel i lies in lattice cell i // period, so the per-pixel gradients are the lattice
        # repeated ``period`` times per axis: a broadcast, where indexing would be a gather
        # (several times slower once vmapped over worlds and floors).
        lattice = gradients[dr : dr + res_r, dc : dc + res_c]
        g = jnp.repeat(jnp.repeat(lattice, period_r, axis=0), period_c, axis=1)[:rows, :cols]
        return g[..., 0] * (fr - dr) + g[..., 1] * (fc - dc)

    n00, n01, n10, n11 = corner(0, 0), corner(0, 1), corner(1, 0), corner(1, 1)
    ur, uc = _fade(fr), _fade(fc)
    top = n00 + uc * (n01 - n00)
    bottom = n10 + uc * (n11 - n10)
    noise = top + ur * (bottom - top)
    low, high = noise.min(), noise.max()
    # A constant field (every pixel on a lattice point) has no range; map it to zeros, not NaN.
    return ((noise - low) / jnp.maximum(high - low, 1e-12)).astype(jnp.float32)
