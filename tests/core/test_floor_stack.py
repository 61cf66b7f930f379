"""The floor swap (``state/floor_stack.py``) gives the masked per-world swap's answer however it
is batched: one world, a batch (its own batching rule: one branch, a loop over the movers), a
batch with an unbatched flag, and a vmap of a vmap."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.state.floor_stack import _masked_swap, swap_floor

WORLDS, LEVELS, SIZE = 5, 3, 4


@pytest.fixture(scope="module")
def batch():
    rng = np.random.default_rng(0)
    hot = {
        "block": jnp.asarray(rng.integers(0, 9, (WORLDS, SIZE, SIZE)), jnp.uint8),
        "soft": jnp.asarray(rng.integers(0, 2, (WORLDS, SIZE, SIZE)), bool),
    }
    stack = {
        "block": jnp.asarray(rng.integers(0, 9, (WORLDS, LEVELS, SIZE, SIZE)), jnp.uint8),
        "soft": jnp.asarray(rng.integers(0, 2, (WORLDS, LEVELS, SIZE, SIZE)), bool),
    }
    floor = jnp.array([0, 1, 2, 1, 0], jnp.int32)
    new_floor = jnp.array([1, 0, 1, 2, 0], jnp.int32)
    moved = jnp.array([True, False, True, True, False])
    return hot, stack, floor, new_floor, moved


def _same(a, b):
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        np.testing.assert_array_equal(np.asarray(x), np.asarray(y))


def test_batched_swap_matches_the_masked_swap(batch):
    reference = jax.vmap(_masked_swap)(*batch)
    _same(jax.jit(jax.vmap(swap_floor))(*batch), reference)
    # the swap really happened: a mover's hot map is its new floor's stored map
    hot, _ = reference
    np.testing.assert_array_equal(hot["block"][0], batch[1]["block"][0, 1])


def test_one_world_and_an_unbatched_flag(batch):
    hot, stack, floor, new_floor, _ = batch
    for w in range(WORLDS):
        one = jax.tree.map(lambda x, w=w: x[w], batch)
        _same(jax.jit(swap_floor)(*one), _masked_swap(*one))
    nobody = jax.vmap(swap_floor, in_axes=(0, 0, 0, 0, None))(
        hot, stack, floor, new_floor, jnp.bool_(False)
    )
    _same(nobody, (hot, stack))


def test_nested_vmap(batch):
    twice = jax.tree.map(lambda x: jnp.stack([x, x]), batch)
    twice = (*twice[:4], jnp.stack([batch[4], ~batch[4]]))
    got = jax.jit(jax.vmap(jax.vmap(swap_floor)))(*twice)
    _same(got, jax.vmap(jax.vmap(_masked_swap))(*twice))
