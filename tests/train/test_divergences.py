"""KL estimators and exact KL: docs/training.md#objectives 4.3, k3 facts."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_train.objectives import kl_exact, kl_k1, kl_k2, kl_k3


def test_estimators_match_their_formulas():
    logp, logp_ref = np.log(0.5), np.log(0.2)
    assert float(kl_k1(logp, logp_ref)) == pytest.approx(np.log(2.5))
    assert float(kl_k2(logp, logp_ref)) == pytest.approx(0.5 * np.log(2.5) ** 2)
    assert float(kl_k3(logp, logp_ref)) == pytest.approx(0.4 - np.log(0.4) - 1.0, rel=1e-6)


def test_k3_is_zero_for_equal_policies_and_never_negative():
    rng = np.random.default_rng(0)
    logp = np.log(rng.uniform(1e-4, 1.0, size=1000)).astype(np.float32)
    logp_ref = np.log(rng.uniform(1e-4, 1.0, size=1000)).astype(np.float32)
    assert np.all(np.asarray(kl_k3(logp, logp)) == 0.0)
    assert np.all(np.asarray(kl_k3(logp, logp_ref)) >= 0.0)
    assert np.any(np.asarray(kl_k1(logp, logp_ref)) < 0.0)  # k1 can be negative, k3 cannot
    assert float(jnp.max(kl_k3(logp, logp_ref - 30.0, clamp=10.0))) == 10.0


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_k3_monte_carlo_mean_converges_to_the_exact_kl(seed):
    key_p, key_q, key_s = jax.random.split(jax.random.key(seed), 3)
    logits_p = 1.5 * jax.random.normal(key_p, (6,))
    logits_ref = 1.5 * jax.random.normal(key_q, (6,))
    samples = jax.random.categorical(key_s, logits_p, shape=(200_000,))
    logp = jax.nn.log_softmax(logits_p)[samples]
    logp_ref = jax.nn.log_softmax(logits_ref)[samples]
    exact = float(kl_exact(logits_p, logits_ref))
    for estimator in (kl_k1, kl_k3):
        values = np.asarray(estimator(logp, logp_ref), dtype=np.float64)
        stderr = values.std() / np.sqrt(values.size)
        assert abs(values.mean() - exact) < 4 * stderr + 1e-4, estimator.__name__
    # Sampling from the wrong policy (ref) must not reproduce KL(p || ref): the test can fail.
    wrong = jax.random.categorical(key_s, logits_ref, shape=(200_000,))
    biased = np.asarray(
        kl_k3(jax.nn.log_softmax(logits_p)[wrong], jax.nn.log_softmax(logits_ref)[wrong])
    )
    assert abs(biased.mean() - exact) > 10 * biased.std() / np.sqrt(biased.size)


def test_kl_exact_values_directions_and_shift_invariance():
    p, q = np.array([0.7, 0.2, 0.1]), np.array([0.2, 0.5, 0.3])
    forward = float(kl_exact(jnp.log(p), jnp.log(q)))
    reverse = float(kl_exact(jnp.log(p), jnp.log(q), direction="reverse"))
    assert forward == pytest.approx(np.sum(p * np.log(p / q)), rel=1e-5)
    assert reverse == pytest.approx(np.sum(q * np.log(q / p)), rel=1e-5)
    assert forward != pytest.approx(reverse, rel=1e-2)
    logits = np.array([[1.0, -2.0, 0.5]])
    assert float(kl_exact(logits, logits + 7.0)[0]) == pytest.approx(0.0, abs=1e-6)
    with pytest.raises(ValueError, match="direction"):
        kl_exact(logits, logits, direction="both")


def test_kl_exact_with_masked_actions_is_finite_with_finite_gradient():
    logits_p = jnp.array([0.3, -jnp.inf, 1.0])
    logits_q = jnp.array([0.0, -jnp.inf, 0.0])
    value, grad = jax.value_and_grad(kl_exact)(logits_p, logits_q)
    assert np.isfinite(float(value)) and float(value) > 0.0
    assert np.all(np.isfinite(np.asarray(grad)))
