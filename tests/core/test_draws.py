"""The step's one draw (``alem_core/draws.py``): every declared block, of its shape, in [0, 1);
a block declared by two systems is refused."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from alem_core.draws import merge_blocks, per_player
from alem_core.pipeline import DRAW_BLOCKS, step_draws

from .conftest import SMALL


def test_every_block_of_its_shape_in_the_unit_interval():
    draws = jax.jit(step_draws, static_argnums=1)(jax.random.key(0), SMALL)
    assert set(draws) == set(DRAW_BLOCKS)
    for name, block in DRAW_BLOCKS.items():
        values = np.asarray(draws[name])
        assert values.shape == block.shape(SMALL), name
        assert ((values >= 0) & (values < 1)).all(), name
    # blocks are cut from one draw without overlap: no two blocks share their values
    flat = np.concatenate([np.asarray(v).ravel() for v in draws.values()])
    assert np.unique(flat).size == flat.size


def test_a_block_declared_twice_is_refused():
    with pytest.raises(ValueError, match="sapling"):
        merge_blocks({"sapling": per_player("a")}, {"sapling": per_player("b")})
