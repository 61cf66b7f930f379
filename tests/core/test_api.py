"""The functional API: shapes and dtypes, eager == jit == vmap, no retracing, determinism."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.rollout import compiled, random_legal_actions, random_rollout

from .conftest import SMALL

PARAMS = alem_core.make_params("medium", shared_reward=False)


@pytest.fixture(scope="module")
def fns():
    return compiled(SMALL)


def _leaves_equal(a, b) -> None:
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5)


def test_shapes_and_dtypes(fns):
    reset, step = fns
    obs, state = reset(jax.random.key(0), PARAMS)
    p, a = SMALL.player_count, SMALL.num_actions
    assert obs.shape == (p, alem_core.obs_size(SMALL)) and obs.dtype == jnp.float32
    actions = jnp.zeros(p, jnp.int32)
    obs, state, reward, terminated, truncated, info = step(
        jax.random.key(1), state, actions, PARAMS
    )
    assert reward.shape == (p,) and reward.dtype == jnp.float32
    assert terminated.shape == truncated.shape == (p,) and terminated.dtype == jnp.bool_
    assert info["action_mask"].shape == (p, a) and info["action_mask"].dtype == jnp.bool_
    assert int(state.timestep) == 1


def test_obs_sizes_match_spec():
    assert alem_core.obs_size(alem_core.StaticParams(player_count=3)) == 9718
    assert alem_core.obs_size(alem_core.StaticParams(player_count=3, num_comm_channels=4)) == 9730
    assert alem_core.StaticParams(player_count=3).num_actions == 56
    assert alem_core.StaticParams(player_count=3, num_comm_channels=4).num_actions == 60


def test_jit_matches_eager_for_a_few_steps(fns):
    reset, step = fns
    key = jax.random.key(3)
    obs_j, state_j = reset(key, PARAMS)
    with jax.disable_jit():
        obs_e, state_e = alem_core.reset(key, PARAMS, SMALL)
    _leaves_equal((obs_j, state_j), (obs_e, state_e))
    for t in range(2):
        k_act, k_step = jax.random.split(jax.random.fold_in(key, t))
        actions = random_legal_actions(k_act, alem_core.action_mask(state_j, PARAMS, SMALL))
        out_j = step(k_step, state_j, actions, PARAMS)
        with jax.disable_jit():
            out_e = alem_core.step(k_step, state_e, actions, PARAMS, SMALL)
        _leaves_equal(out_j, out_e)
        state_j, state_e = out_j[1], out_e[1]


def test_vmap_matches_single_worlds(fns):
    reset, step = fns
    keys = jax.random.split(jax.random.key(5), 2)
    batched_reset = jax.jit(jax.vmap(lambda k: reset(k, PARAMS)))
    obs_b, states_b = batched_reset(keys)
    actions = jnp.ones((2, SMALL.player_count), jnp.int32) * alem_core.Action.DO
    step_keys = jax.random.split(jax.random.key(6), 2)
    batched_step = jax.jit(jax.vmap(lambda k, s, a: step(k, s, a, PARAMS)))
    out_b = batched_step(step_keys, states_b, actions)
    for i in range(2):
        obs_i, state_i = reset(keys[i], PARAMS)
        _leaves_equal((obs_i, state_i), jax.tree.map(lambda x, i=i: x[i], (obs_b, states_b)))
        out_i = step(step_keys[i], state_i, actions[i], PARAMS)
        _leaves_equal(out_i, jax.tree.map(lambda x, i=i: x[i], out_b))


def test_step_does_not_retrace(fns):
    reset, step = fns
    _, state = reset(jax.random.key(0), PARAMS)
    step(jax.random.key(1), state, jnp.zeros(3, jnp.int32), PARAMS)
    size = step._cache_size()
    hard = alem_core.make_params("hard", shared_reward=False)
    for t in range(3):
        _, state, *_ = step(jax.random.key(t), state, jnp.full(3, t, jnp.int32), hard)
    assert step._cache_size() == size


def test_same_key_same_episode_for_many_steps():
    rollout = jax.jit(lambda k, s: random_rollout(k, s, PARAMS, SMALL, 150))
    reset, _ = compiled(SMALL)
    _, state = reset(jax.random.key(11), PARAMS)
    first = rollout(jax.random.key(12), state)
    second = rollout(jax.random.key(12), state)
    _leaves_equal(first, second)
    other = rollout(jax.random.key(13), state)
    assert not np.array_equal(np.asarray(first[1]["actions"]), np.asarray(other[1]["actions"]))


def test_make_params_rejects_bad_input():
    with pytest.raises(ValueError, match="difficulty"):
        alem_core.make_params("impossible")
    with pytest.raises(ValueError, match=r"\[0, 1\]"):
        alem_core.make_params(1.5)
    with pytest.raises(ValueError, match="unknown Params field"):
        alem_core.make_params("easy", not_a_field=1)
    with pytest.raises(ValueError, match="friendly_fire"):
        alem_core.make_params("easy", friendly_fire="yes")
    with pytest.raises(ValueError, match="player_count"):
        alem_core.StaticParams(player_count=0)


def test_presets_follow_the_alpha_table():
    easy, medium, hard = (alem_core.make_params(d) for d in ("easy", "medium", "hard"))
    assert (easy.handover_window_min, easy.handover_window_max) == (9, 17)
    assert (medium.handover_window_min, medium.handover_window_max) == (5, 10)
    assert (hard.handover_window_min, hard.handover_window_max) == (3, 6)
    assert [p.non_specialist_efficiency for p in (easy, medium, hard)] == [0.7, 0.4, 0.1]
    custom = alem_core.make_params(0.5)
    assert (custom.handover_window_min, custom.handover_window_max) == (6, 12)
    none = alem_core.make_params("NONE", non_specialist_efficiency=0.3)
    assert not none.coordination_enabled and none.non_specialist_efficiency == 0.3
    scaled = alem_core.make_params("hard", scale_base_difficulty=True)
    assert scaled.mob_health_multiplier == 1.3 and scaled.starting_resource_multiplier == 0.7
