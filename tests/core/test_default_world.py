"""The default world (48 x 48, nine floors, P = 3): its memory budget and a few jitted steps."""

from __future__ import annotations

import jax
import numpy as np
import pytest

import alem_core
from alem_core.state import MAP_DTYPES
from alem_core.testing.rollout import compiled

STATE_BUDGET_BYTES = 150_000
"""One world's state, all nine floors generated, stays under 150 KB for P = 3: a batch holds N
of them, so this bounds the memory of a large batch."""

STATIC = alem_core.StaticParams()
PARAMS = alem_core.make_params("medium")


def _state_bytes(state) -> int:
    return sum(int(np.prod(leaf.shape)) * leaf.dtype.itemsize for leaf in jax.tree.leaves(state))


def test_default_state_fits_the_memory_budget():
    _, state = jax.eval_shape(lambda key: alem_core.reset(key, PARAMS, STATIC), jax.random.key(0))
    assert STATIC.map_size == (48, 48) and STATIC.num_levels == 9 and STATIC.player_count == 3
    assert _state_bytes(state) <= STATE_BUDGET_BYTES, _state_bytes(state)
    for name, dtype in MAP_DTYPES.items():
        assert getattr(state.world, name).dtype == dtype and getattr(state.world, name).shape == (
            48,
            48,
        )
        assert getattr(state.world.floors, name).shape == (9, 48, 48)


@pytest.fixture(scope="module")
def rollout():
    """Three jitted steps of the default world with random legal actions."""
    reset, step = compiled(STATIC)  # shared with the other default-world tests
    key = jax.random.key(9999)
    obs, state = reset(key, PARAMS)
    mask = alem_core.action_mask(state, PARAMS, STATIC)
    states = [state]
    for _ in range(3):
        key, act_key, step_key = jax.random.split(key, 3)
        logits = np.where(np.asarray(mask), 0.0, -np.inf)
        actions = jax.random.categorical(act_key, logits)
        obs, state, _, _, _, info = step(step_key, state, actions, PARAMS)
        mask = info["action_mask"]
        states.append(state)
    return obs, states


def test_default_world_steps_with_stable_shapes_and_dtypes(rollout):
    obs, states = rollout
    assert obs.shape == (3, alem_core.obs_size(STATIC)) and np.isfinite(np.asarray(obs)).all()
    first = jax.tree.map(lambda x: (x.shape, x.dtype), states[0])
    for state in states[1:]:
        assert jax.tree.map(lambda x: (x.shape, x.dtype), state) == first
        assert _state_bytes(state) <= STATE_BUDGET_BYTES
    assert int(states[-1].timestep) == 3
