"""Twenty full worlds (48 x 48, nine floors, P = 3, "medium"), generated once per test process.

Shared by ``test_worldgen_deep.py`` and ``test_worldgen_rooms.py``: one jitted, vmapped compile;
generating 20 seeds instead of 3 costs well under a second once compiled.
"""

from __future__ import annotations

import functools

import jax
import numpy as np

from alem_core.constants import Block
from alem_core.params import StaticParams, make_params
from alem_core.worldgen import Floors, generate_floors

B = Block
STATIC = StaticParams()  # 48 x 48, 9 floors, P = 3
PARAMS = make_params("medium").as_arrays()
P = STATIC.player_count
N_SEEDS = 20
CLOSED = (B.WALL, B.WALL_MOSS, B.DARKNESS)
"""Dungeon cells no room or corridor opened."""


def world_keys() -> jax.Array:
    return jax.random.split(jax.random.key(77), N_SEEDS)


@functools.cache
def deep_floors() -> Floors:
    """The 20 worlds' floor maps and ladder cells, as numpy."""
    generate = jax.jit(jax.vmap(generate_floors, in_axes=(0, None, None)), static_argnums=2)
    return jax.tree.map(np.asarray, generate(world_keys(), PARAMS, STATIC))


def count(a: np.ndarray, blocks) -> np.ndarray:
    """Per-world count of cells holding any of ``blocks``; ``a`` is (N, H, W)."""
    return np.isin(a, blocks).sum(axis=(1, 2))


def binomial_ok(hits: int, trials: int, p: float, sds: float = 4.5) -> bool:
    """``hits`` lies within ``sds`` standard deviations of Binomial(trials, p)'s mean."""
    sd = np.sqrt(max(trials * p * (1 - p), 1e-9))
    return abs(hits - trials * p) <= sds * sd
