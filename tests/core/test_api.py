"""The functional API: shapes and dtypes, eager == jit == vmap, no retracing, determinism."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
import alem_core.api
from alem_core.testing import check_core_api
from alem_core.testing.rollout import compiled, random_rollout

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


def test_core_api_checker_passes_on_the_small_world():
    """jit == vmap, one trace of step, stable and finite leaves, arrays match spaces (the eager
    runs are the slow test below: they compile every primitive alone, ~150 s of a cold CI)."""
    check_core_api(SMALL, PARAMS, steps=12, eager_steps=0)


@pytest.mark.slow
def test_core_api_checker_with_eager_runs_passes_on_the_small_world():
    """The whole check: jit == eager for the reset and two steps, as well."""
    check_core_api(SMALL, PARAMS, steps=12)


def test_core_api_checker_catches_a_broken_step(monkeypatch):
    real_step = alem_core.api.step

    def leaky_step(key, state, actions, params, static):
        obs, state, *rest = real_step(key, state, actions, params, static)
        return (obs, state.replace(alpha=state.alpha * jnp.nan), *rest)  # a NaN leaks in

    monkeypatch.setattr(alem_core.api, "step", leaky_step)
    with pytest.raises(AssertionError, match="non-finite"):
        check_core_api(SMALL, PARAMS, steps=2, eager_steps=0)


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


_P = SMALL.player_count


@pytest.mark.parametrize(
    ("actions", "message"),
    [
        (np.zeros(1, np.int32), rf"actions: expected shape \({_P},\).*got shape \(1,\)"),
        (np.zeros((2, _P), np.int32), rf"expected shape \({_P},\).*got shape \(2, {_P}\)"),
        (np.zeros(_P, np.float32), "actions: expected integer action ids, got dtype float32"),
    ],
)
def test_wrong_actions_name_the_argument_and_both_shapes(actions, message):
    """Checked while tracing: the error names ``actions`` instead of failing deep in a system."""
    _, state = jax.eval_shape(lambda k: alem_core.reset(k, PARAMS, SMALL), jax.random.key(0))
    with pytest.raises((ValueError, TypeError), match=message):
        jax.eval_shape(
            lambda s, a: alem_core.step(jax.random.key(1), s, a, PARAMS, SMALL), state, actions
        )


@pytest.mark.parametrize(
    ("key", "message"),
    [
        (jax.random.split(jax.random.key(0), 2), r"key: expected one PRNG key of shape \(\)"),
        (np.zeros(3, np.uint32), r"raw key data of shape \(2,\) uint32, got shape \(3,\) uint32"),
        (np.zeros(2, np.int32), r"got shape \(2,\) int32"),
    ],
)
def test_wrong_keys_name_the_argument_and_both_shapes(key, message):
    with pytest.raises(ValueError, match=message):
        jax.eval_shape(lambda k: alem_core.reset(k, PARAMS, SMALL), key)
    _, state = jax.eval_shape(lambda k: alem_core.reset(k, PARAMS, SMALL), jax.random.key(0))
    actions = jnp.zeros(SMALL.player_count, jnp.int32)
    with pytest.raises(ValueError, match=message):
        jax.eval_shape(lambda k, s: alem_core.step(k, s, actions, PARAMS, SMALL), key, state)


def test_a_raw_key_and_a_typed_key_give_the_same_world():
    raw = alem_core.seed_key(5)
    a = jax.eval_shape(lambda k: alem_core.reset(k, PARAMS, SMALL), raw)
    b = jax.eval_shape(lambda k: alem_core.reset(k, PARAMS, SMALL), jax.random.wrap_key_data(raw))
    assert jax.tree.structure(a) == jax.tree.structure(b)
