"""IGRPO clipped surrogate: docs/training.md#objectives 4.3, clipped-surrogate gradient facts and
metrics."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_train.objectives import igrpo_loss, kl_k3

ONE = (1, 1, 1, 1)


def _one_row(ratio, adv, eps=0.2):
    """Loss and d loss / d logp_new for a single active row with the given ratio and A."""
    logp_old = jnp.full(ONE, -1.0)
    logp_new = logp_old + jnp.log(ratio)
    act, valid = jnp.ones(ONE, bool), jnp.ones(ONE[:3], bool)
    loss = lambda lp: igrpo_loss(lp, logp_old, jnp.full(ONE, adv), act, valid, eps, eps)[0]  # noqa: E731
    return jax.value_and_grad(loss)(logp_new)


def test_gradient_at_ratio_one_is_the_plain_policy_gradient():
    rng = np.random.default_rng(3)
    logits = jnp.asarray(rng.normal(size=(1, 2, 3, 2, 4)).astype(np.float32))
    actions = jnp.asarray(rng.integers(0, 4, size=(1, 2, 3, 2)))
    adv = jnp.asarray(rng.normal(size=(1, 2, 3, 2)).astype(np.float32))
    act = jnp.asarray(rng.random((1, 2, 3, 2)) < 0.7)
    valid = jnp.ones((1, 2, 3), bool)

    def logp(z):
        return jnp.take_along_axis(jax.nn.log_softmax(z), actions[..., None], -1)[..., 0]

    logp_old = jax.lax.stop_gradient(logp(logits))
    grad = jax.grad(lambda z: igrpo_loss(logp(z), logp_old, adv, act, valid)[0])(logits)
    # -A grad log pi, averaged over active rows: d log softmax(z)_a / dz = onehot(a) - pi.
    one_hot = jax.nn.one_hot(actions, 4)
    pg = -(adv * act)[..., None] * (one_hot - jax.nn.softmax(logits)) / act.sum()
    np.testing.assert_allclose(np.asarray(grad), np.asarray(pg), atol=1e-6)


@pytest.mark.parametrize(("ratio", "adv"), [(1.5, 1.0), (0.5, -1.0)])
def test_gradient_vanishes_outside_the_window_in_the_advantage_direction(ratio, adv):
    _, grad = _one_row(ratio, adv)
    assert float(grad.sum()) == 0.0


@pytest.mark.parametrize(("ratio", "adv"), [(1.5, -1.0), (0.5, 1.0), (1.1, 1.0), (0.9, -1.0)])
def test_gradient_survives_everywhere_else(ratio, adv):
    value, grad = _one_row(ratio, adv)
    assert float(grad.sum()) == pytest.approx(-ratio * adv, rel=1e-5)  # d(-r A)/d log r
    assert float(value) == pytest.approx(-ratio * adv, rel=1e-5)


def test_metrics_on_a_hand_made_batch():
    ratios = np.array([1.5, 0.5, 1.0, 1.1, 0.7, 2.0], dtype=np.float32)
    adv = np.array([1.0, -1.0, 1.0, -1.0, 1.0, 1.0], dtype=np.float32)
    act = np.array([True, True, True, True, True, False])  # the 2.0 row is inactive
    shape = (1, 1, 6, 1)
    logp_old = np.full(shape, -2.0, dtype=np.float32)
    logp_new = logp_old + np.log(ratios).reshape(shape)
    loss, m = igrpo_loss(
        logp_new,
        logp_old,
        adv.reshape(shape),
        act.reshape(shape),
        np.ones((1, 1, 6), bool),
        0.2,
        0.2,
    )
    # Binding clips: (1.5, +) and (0.5, -): 2 of 5 active rows.
    assert float(m["clip_frac"]) == pytest.approx(2 / 5)
    assert float(m["ratio_mean"]) == pytest.approx(ratios[:5].mean(), rel=1e-6)
    r = ratios[:5]
    assert float(m["approx_kl"]) == pytest.approx(np.mean(r - 1 - np.log(r)), rel=1e-5)
    surrogates = [1.2, -0.8, 1.0, -1.1, 0.7]
    assert float(loss) == pytest.approx(-np.mean(surrogates), rel=1e-5)


def test_asymmetric_window_uses_eps_hi_above_and_eps_lo_below():
    _, g_hi = _one_row(1.25, 1.0, eps=0.3)
    assert float(g_hi.sum()) != 0.0
    logp_old = jnp.full(ONE, -1.0)
    act, valid = jnp.ones(ONE, bool), jnp.ones(ONE[:3], bool)
    loss, m = igrpo_loss(logp_old + jnp.log(1.25), logp_old, jnp.ones(ONE), act, valid, 0.3, 0.2)
    assert float(m["clip_frac"]) == 1.0 and float(loss) == pytest.approx(-1.2)


def test_aggregations_weight_rows_differently():
    # One rollout, 2 steps, 2 agents; agent 0 acts twice, agent 1 once (at step 0).
    logp_old = np.zeros((1, 1, 2, 2), np.float32)
    adv = np.array([[[[1.0, 4.0], [2.0, 0.0]]]], np.float32)
    act = np.array([[[[True, True], [True, False]]]])
    valid = np.ones((1, 1, 2), bool)
    value = {
        agg: -float(igrpo_loss(logp_old, logp_old, adv, act, valid, agg=agg)[0])
        for agg in ("token", "agent-seq", "event")
    }
    assert value["token"] == pytest.approx((1 + 4 + 2) / 3)
    assert value["agent-seq"] == pytest.approx(((1 + 2) / 2 + 4) / 2)
    assert value["event"] == pytest.approx(((1 + 4) / 2 + 2) / 2)
    with pytest.raises(ValueError, match="agg"):
        igrpo_loss(logp_old, logp_old, adv, act, valid, agg="seq")


def test_kl_term_adds_beta_times_the_masked_k3():
    rng = np.random.default_rng(5)
    shape = (2, 2, 3, 2)
    logp_new, logp_old, logp_ref = (rng.normal(size=shape).astype(np.float32) - 1 for _ in "abc")
    adv = rng.normal(size=shape).astype(np.float32)
    act, valid = rng.random(shape) < 0.6, np.ones(shape[:3], bool)
    base, _ = igrpo_loss(logp_new, logp_old, adv, act, valid)
    with_kl, m = igrpo_loss(logp_new, logp_old, adv, act, valid, beta=0.5, logp_ref=logp_ref)
    k3 = np.asarray(kl_k3(logp_new, logp_ref))[act]
    assert float(m["kl_ref"]) == pytest.approx(k3.mean(), rel=1e-5)
    assert float(with_kl - base) == pytest.approx(0.5 * k3.mean(), rel=1e-5)
    with pytest.raises(ValueError, match="logp_ref"):
        igrpo_loss(logp_new, logp_old, adv, act, valid, beta=0.5)


def test_shape_errors_are_named():
    x = np.zeros((1, 1, 2, 2), np.float32)
    with pytest.raises(ValueError, match="logp_new"):
        igrpo_loss(x[..., :1], x, x, np.ones_like(x, bool), np.ones((1, 1, 2), bool))
    with pytest.raises(ValueError, match="valid"):
        igrpo_loss(x, x, x, np.ones_like(x, bool), np.ones((1, 1, 3), bool))
