"""MAPPO pieces: GAE against hand-computed steps, value clipping, entropy, PPO actor loss."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_train.objectives import entropy, gae, igrpo_loss, ppo_actor_loss, value_loss

R3 = np.array([1.0, 0.0, 2.0], np.float32)
V4 = np.array([0.5, 0.4, 0.3, 0.2], np.float32)


def test_gae_matches_a_hand_computed_three_step_episode():
    adv, ret = gae(R3, V4, np.array([0, 0, 1]), 0.9, 0.8)
    # delta_2 = 2 - 0.3 (terminal: no bootstrap), delta_1 = 0.9 * 0.3 - 0.4,
    # delta_0 = 1 + 0.9 * 0.4 - 0.5; A_t = delta_t + 0.72 A_{t+1}.
    a2 = 1.7
    a1 = -0.13 + 0.72 * a2
    a0 = 0.86 + 0.72 * a1
    np.testing.assert_allclose(np.asarray(adv), [a0, a1, a2], rtol=1e-6)
    np.testing.assert_allclose(np.asarray(ret), np.array([a0, a1, a2]) + V4[:3], rtol=1e-6)


def test_gae_stops_at_an_episode_end_in_the_middle():
    adv, _ = gae(R3, V4, np.array([0, 1, 0]), 0.9, 0.8)
    a2 = 2.0 + 0.9 * 0.2 - 0.3  # a new episode bootstraps from v[3]
    a1 = -0.4  # done at step 1: no value after it, nothing flows back
    np.testing.assert_allclose(np.asarray(adv), [0.86 + 0.72 * a1, a1, a2], rtol=1e-6)


def test_gae_with_lambda_one_gives_discounted_returns_to_go():
    _, ret = gae(R3, V4, np.array([0, 0, 0]), 0.9, 1.0)
    expected = [1 + 0.9 * 0 + 0.81 * 2 + 0.729 * 0.2, 0 + 0.9 * 2 + 0.81 * 0.2, 2 + 0.9 * 0.2]
    np.testing.assert_allclose(np.asarray(ret), expected, rtol=1e-6)


def test_gae_time_axis_of_a_batch_equals_per_slice_gae():
    rng = np.random.default_rng(0)
    r = rng.normal(size=(2, 3, 5, 2)).astype(np.float32)
    v = rng.normal(size=(2, 3, 6, 2)).astype(np.float32)
    done = rng.random((2, 3, 5, 2)) < 0.3
    adv, _ = gae(r, v, done, 0.99, 0.95, time_axis=2)
    one, _ = gae(r[1, 2, :, 0], v[1, 2, :, 0], done[1, 2, :, 0], 0.99, 0.95)
    np.testing.assert_allclose(np.asarray(adv[1, 2, :, 0]), np.asarray(one), rtol=1e-6)
    with pytest.raises(ValueError, match="T \\+ 1"):
        gae(r, r, done, 0.99, 0.95, time_axis=2)


def test_value_clipping_is_pessimistic_and_stops_the_gradient_beyond_the_clip():
    v_old, ret = jnp.array([0.0]), jnp.array([1.0])
    loss, grad = jax.value_and_grad(lambda v: value_loss(v, v_old, ret, 0.2))(jnp.array([0.5]))
    assert float(loss) == pytest.approx(0.5 * 0.8**2)  # the clipped 0.2 is farther from 1
    assert float(grad[0]) == 0.0
    assert float(value_loss(jnp.array([0.5]), v_old, ret, None)) == pytest.approx(0.125)
    # Moving past the return: the unclipped error is the larger, and it keeps its gradient.
    loss, grad = jax.value_and_grad(lambda v: value_loss(v, jnp.array([1.4]), ret, 0.05))(
        jnp.array([1.5])
    )
    assert float(loss) == pytest.approx(0.5 * 0.25) and float(grad[0]) == pytest.approx(0.5)
    mask = jnp.array([True, False])
    masked = value_loss(jnp.array([0.0, 9.0]), jnp.zeros(2), jnp.ones(2), None, mask)
    assert float(masked) == pytest.approx(0.5)


def test_entropy_of_uniform_and_masked_logits():
    logits = jnp.array([[0.0, 0.0, 0.0, 0.0], [0.0, 0.0, -jnp.inf, -jnp.inf]])
    both = entropy(logits, jnp.array([True, True]))
    assert float(both) == pytest.approx((np.log(4) + np.log(2)) / 2, rel=1e-6)
    grad = jax.grad(lambda z: entropy(z, jnp.array([True, True])))(logits)
    assert np.all(np.isfinite(np.asarray(grad)))
    assert float(entropy(logits, jnp.array([False, True]))) == pytest.approx(np.log(2), rel=1e-6)


def test_ppo_actor_loss_normalises_advantages_per_batch():
    rng = np.random.default_rng(1)
    shape = (1, 2, 3, 2)
    logp_old = rng.normal(size=shape).astype(np.float32) - 1
    logp_new = logp_old + 0.1 * rng.normal(size=shape).astype(np.float32)
    adv = rng.normal(size=shape).astype(np.float32)
    act, valid = rng.random(shape) < 0.8, np.ones(shape[:3], bool)
    base = float(ppo_actor_loss(logp_new, logp_old, adv, act, valid)[0])
    assert float(ppo_actor_loss(logp_new, logp_old, 10 * adv + 3, act, valid)[0]) == pytest.approx(
        base, rel=1e-4
    )
    raw = float(ppo_actor_loss(logp_new, logp_old, adv, act, valid, normalise=False)[0])
    assert raw == pytest.approx(float(igrpo_loss(logp_new, logp_old, adv, act, valid)[0]))
    assert raw != pytest.approx(base, rel=1e-3)
