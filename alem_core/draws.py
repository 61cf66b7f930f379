"""The step's randomness: one uniform draw per step, cut into the named blocks systems read.

Every random decision of a step reads uniforms in [0, 1) from ``Draws``, a dict of named blocks
cut from a single ``jax.random.uniform`` call. On the CPU each threefry call compiles into a
loop of its own, and a step that split its key per stage and drew per subsystem carried about
sixteen of them; one draw of a few hundred numbers costs one.

Each system that draws declares its blocks next to its rules (a module-level ``DRAWS`` dict of
``DrawBlock``), and ``pipeline.DRAW_BLOCKS`` gathers them in stage order. A system takes the
whole ``Draws`` (``pipeline.System``) and reads only its own blocks, so adding a block changes no
other system's signature. The blocks are independent uniforms, as separate keys gave, but the
streams differ from the earlier one key per stage: since 2026-12-03 a given key plays a
different episode than it did before (CHANGELOG).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import NamedTuple

import jax
import numpy as np

from alem_core.params import StaticParams

Draws = dict[str, jax.Array]
"""Block name -> uniforms in [0, 1) of the block's shape."""


class DrawBlock(NamedTuple):
    """One block of a step's draw: its shape for the static params, and what reads it."""

    shape: Callable[[StaticParams], tuple[int, ...]]
    reader: str


def per_player(reader: str) -> DrawBlock:
    """A block of one uniform per agent (role gates and other per-agent rolls)."""
    return DrawBlock(lambda static: (static.player_count,), reader)


def merge_blocks(*tables: dict[str, DrawBlock]) -> dict[str, DrawBlock]:
    """The systems' ``DRAWS`` tables in order as one; a block name declared twice is an error
    (two systems would otherwise read the same uniforms without knowing it)."""
    merged: dict[str, DrawBlock] = {}
    for table in tables:
        twice = merged.keys() & table.keys()
        if twice:
            raise ValueError(f"draw blocks declared twice: {sorted(twice)}")
        merged |= table
    return merged


def draw_step(key: jax.Array, blocks: dict[str, DrawBlock], static: StaticParams) -> Draws:
    """All of a step's uniforms from ``key`` in one call, cut into ``blocks`` in their order."""
    shapes = {name: block.shape(static) for name, block in blocks.items()}
    sizes = [int(np.prod(shape)) for shape in shapes.values()]
    flat = jax.random.uniform(key, (sum(sizes),))
    ends = np.cumsum(sizes)
    return {
        name: flat[end - size : end].reshape(shape)
        for (name, shape), size, end in zip(shapes.items(), sizes, ends, strict=True)
    }
