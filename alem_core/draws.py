"""The step's and the reset's randomness: one uniform draw each, cut into the named blocks that
systems and generators read.

Every random decision of a step reads uniforms in [0, 1) from ``Draws``, a dict of named blocks
cut from a single ``jax.random.uniform`` call. On the CPU each threefry call compiles into a
loop of its own, and a step that split its key per stage and drew per subsystem carried about
sixteen of them; one draw of a few hundred numbers costs one.

Each system that draws declares its blocks next to its rules (a module-level ``DRAWS`` dict of
``DrawBlock``), and ``pipeline.DRAW_BLOCKS`` gathers them in stage order. A system takes the
whole ``Draws`` (``pipeline.System``) and reads only its own blocks, so adding a block changes no
other system's signature. The blocks are independent uniforms, as separate keys gave, but the
streams differ from the earlier one key per stage (CHANGELOG).

The reset works the same way: each floor generator draws its floor's uniforms in one call
(``draw_uniforms``), and everything else a new episode rolls (α, the potion permutation, the
coordination tasks, the construction sites, the elite and large mob slots) comes from one draw
cut into ``worldgen.RESET_DRAW_BLOCKS``.
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
    """One block of a step's (or a reset's) draw: its shape for the static params, and what
    reads it. A ``per_floor`` block has that shape on every floor: it is drawn as
    (L, *shape), floor by floor (``draw_blocks``)."""

    shape: Callable[[StaticParams], tuple[int, ...]]
    reader: str
    per_floor: bool = False

    def full_shape(self, static: StaticParams) -> tuple[int, ...]:
        """The block's shape as drawn: (L, *shape) for a per-floor block."""
        floors = (static.num_levels,) if self.per_floor else ()
        return (*floors, *self.shape(static))


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


def draw_uniforms(key: jax.Array, shapes: dict[str, tuple[int, ...]]) -> Draws:
    """Uniforms in [0, 1) of the given shapes, in order, cut from one ``jax.random.uniform``
    call: the one place alem turns a key into many random numbers (each further call site is
    a threefry loop of its own in the compiled program)."""
    return _cut(jax.random.uniform(key, (_size(shapes),)), shapes)


def draw_blocks(key: jax.Array, blocks: dict[str, DrawBlock], static: StaticParams) -> Draws:
    """All of a step's (or a reset's) uniforms from ``key`` in one call, cut into ``blocks``:
    the blocks of the whole world first, in their order, then floor after floor the per-floor
    blocks of that floor. Uniforms of a threefry draw depend only on their place in it, so
    floor l's uniforms are the same whatever the number of floors: a world of fewer floors
    draws the first floors of the full one."""
    whole = {n: b.shape(static) for n, b in blocks.items() if not b.per_floor}
    floor = {n: b.shape(static) for n, b in blocks.items() if b.per_floor}
    levels, head = static.num_levels, _size(whole)
    flat = jax.random.uniform(key, (head + levels * _size(floor),))
    rows = flat[head:].reshape(levels, _size(floor))
    cut = _cut(flat[:head], whole) | jax.vmap(lambda row: _cut(row, floor))(rows)
    return {name: cut[name] for name in blocks}


def _size(shapes: dict[str, tuple[int, ...]]) -> int:
    return sum(int(np.prod(shape)) for shape in shapes.values())


def _cut(flat: jax.Array, shapes: dict[str, tuple[int, ...]]) -> Draws:
    """``flat`` cut into consecutive arrays of ``shapes``, in order."""
    ends = np.cumsum([int(np.prod(shape)) for shape in shapes.values()], dtype=int)
    return {
        name: flat[end - int(np.prod(shape)) : end].reshape(shape)
        for (name, shape), end in zip(shapes.items(), ends, strict=True)
    }
