"""The step's and the reset's one draw (``alem_core/draws.py``): every declared block, of its
shape, in [0, 1), cut without overlap; a block declared by two systems is refused."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from alem_core.draws import merge_blocks, per_player
from alem_core.pipeline import DRAW_BLOCKS, step_draws
from alem_core.worldgen import RESET_DRAW_BLOCKS, reset_draws

from .conftest import SMALL


@pytest.mark.parametrize(
    ("draw", "blocks"), [(step_draws, DRAW_BLOCKS), (reset_draws, RESET_DRAW_BLOCKS)]
)
def test_every_block_of_its_shape_in_the_unit_interval(draw, blocks):
    draws = jax.jit(draw, static_argnums=1)(jax.random.key(0), SMALL)
    assert set(draws) == set(blocks)
    for name, block in blocks.items():
        values = np.asarray(draws[name])
        assert values.shape == block.full_shape(SMALL), name
        assert ((values >= 0) & (values < 1)).all(), name
    # blocks are cut from one draw without overlap: no two blocks share their values
    flat = np.concatenate([np.asarray(v).ravel() for v in draws.values()])
    assert np.unique(flat).size == flat.size


def test_a_block_declared_twice_is_refused():
    with pytest.raises(ValueError, match="sapling"):
        merge_blocks({"sapling": per_player("a")}, {"sapling": per_player("b")})


def test_the_potion_permutation_is_uniform_over_permutations():
    """Ranks of six uniforms: always a permutation, and each colour's effect uniform (1,200
    draws: every count within 5 SE of 200)."""
    from alem_core.worldgen.initial import potion_permutation

    u = jax.random.uniform(jax.random.key(1), (1200, 6))
    perms = np.asarray(jax.vmap(potion_permutation)(u))
    assert (np.sort(perms, axis=1) == np.arange(6)).all()
    counts = np.stack([(perms == k).sum(axis=0) for k in range(6)])  # (effect, colour)
    assert (np.abs(counts - 200) < 5 * np.sqrt(1200 * (1 / 6) * (5 / 6))).all()
