"""SRPO: docs/training.md#objectives 4.3, every listed SRPO property, and event-atomic
mini-batches."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from alem_train.objectives import (
    broadcast_outcome_adv,
    check_events_unsplit,
    event_log_ratio,
    event_minibatches,
    igrpo_loss,
    kl_k3,
    member_rows,
    srpo_loss,
)

SHAPE = (2, 3, 4, 3)


def _batch(seed, density=0.6, scale=0.3):
    rng = np.random.default_rng(seed)
    logp_old = (rng.normal(size=SHAPE) * scale - 1.0).astype(np.float32)
    logp_new = (logp_old + rng.normal(size=SHAPE) * scale).astype(np.float32)
    act = rng.random(SHAPE) < density
    valid = rng.random(SHAPE[:3]) < 0.8
    adv = rng.normal(size=SHAPE[:3]).astype(np.float32)
    return logp_new, logp_old, adv, act, valid


def _one_member_per_event(seed):
    rng = np.random.default_rng(seed)
    chosen = rng.integers(0, SHAPE[3], size=SHAPE[:3])
    act = np.eye(SHAPE[3], dtype=bool)[chosen]
    act &= (rng.random(SHAPE[:3]) < 0.8)[..., None]  # and some empty (K = 0) events
    return act


@pytest.mark.parametrize("reduction", ["sqrt", "sum", "mean"])
def test_singletons_match_igrpo_exactly(reduction):
    logp_new, logp_old, adv, _, valid = _batch(0)
    act = _one_member_per_event(1)
    per_member = np.broadcast_to(adv[..., None], SHAPE)

    def srpo(lp):
        return srpo_loss(lp, logp_old, adv, act, valid, 0.2, reduction)[0]

    def igrpo(lp):
        return igrpo_loss(lp, logp_old, per_member, act, valid, 0.2, 0.2)[0]

    np.testing.assert_allclose(float(srpo(logp_new)), float(igrpo(logp_new)), rtol=1e-6)
    np.testing.assert_allclose(
        np.asarray(jax.grad(srpo)(logp_new)), np.asarray(jax.grad(igrpo)(logp_new)), atol=1e-7
    )


def test_sum_reduction_is_the_exact_joint_ratio():
    logp_new, logp_old, _, act, valid = _batch(2)
    set_log_ratio, sizes = event_log_ratio(logp_new, logp_old, act, valid, "sum")
    mask = act & valid[..., None]
    joint = np.prod(np.where(mask, np.exp(logp_new - logp_old), 1.0), axis=-1)
    np.testing.assert_allclose(np.exp(np.asarray(set_log_ratio)), joint, rtol=1e-5)
    np.testing.assert_array_equal(np.asarray(sizes), mask.sum(-1))
    # With a window too wide to bind and A = 1, the loss is minus the mean joint ratio.
    loss, _ = srpo_loss(logp_new, logp_old, np.ones(SHAPE[:2]), act, valid, 1e6, "sum")
    assert float(loss) == pytest.approx(-joint[mask.sum(-1) > 0].mean(), rel=1e-5)


@pytest.mark.parametrize("reduction", ["sqrt", "sum", "mean"])
def test_invariant_to_permuting_agents(reduction):
    logp_new, logp_old, adv, act, valid = _batch(3)
    perm = np.array([2, 0, 1])
    base = srpo_loss(logp_new, logp_old, adv, act, valid, 0.2, reduction)[0]
    permuted = srpo_loss(
        logp_new[..., perm], logp_old[..., perm], adv, act[..., perm], valid, 0.2, reduction
    )[0]
    assert float(permuted) == pytest.approx(float(base), rel=1e-6)


def test_inactive_members_change_nothing():
    logp_new, logp_old, adv, act, valid = _batch(4)
    scrambled = np.where(
        act, logp_new, logp_new + 5.0 * np.random.default_rng(9).normal(size=SHAPE)
    )

    def loss(lp):
        return srpo_loss(lp, logp_old, adv, act, valid)[0]

    assert float(loss(scrambled.astype(np.float32))) == pytest.approx(float(loss(logp_new)))
    grad = np.asarray(jax.grad(loss)(logp_new))
    assert np.all(grad[~(act & valid[..., None])] == 0.0)
    assert np.any(grad != 0.0)


def test_events_with_no_member_are_ignored():
    logp_new, logp_old, adv, act, valid = _batch(5)
    base = srpo_loss(logp_new, logp_old, adv, act, valid)[0]
    # Append 3 valid steps where nobody acts, with huge advantages: they must not count.
    pad = ((0, 0), (0, 0), (0, 3), (0, 0))
    padded = srpo_loss(
        np.pad(logp_new, pad, constant_values=0.7),
        np.pad(logp_old, pad),
        np.pad(adv, pad[:3], constant_values=1e3),
        np.pad(act, pad),
        np.pad(valid, pad[:3], constant_values=True),
    )[0]
    assert float(padded) == pytest.approx(float(base), rel=1e-6)


@pytest.mark.parametrize(("reduction", "power"), [("sqrt", 0), ("sum", 1), ("mean", -1)])
def test_event_log_ratio_variance_against_set_size(reduction, power):
    sigma, samples, widest = 0.1, 20_000, 8
    ell = sigma * jax.random.normal(jax.random.key(0), (samples, 1, 1, widest))
    valid = jnp.ones((samples, 1, 1), bool)
    variances = {}
    for k in (1, 2, 4, 8):
        # One array shape for every K (the first k members active): one compilation.
        act = jnp.broadcast_to(jnp.arange(widest) < k, ell.shape)
        set_log_ratio, _ = event_log_ratio(ell, jnp.zeros_like(ell), act, valid, reduction)
        variances[k] = float(jnp.var(set_log_ratio))
    for k, var in variances.items():
        # Var of a 20k-sample variance estimate is ~1 %; 6 % leaves room and still separates K.
        assert var == pytest.approx(sigma**2 * k**power, rel=0.06), (k, variances)


def test_joint_gate_zeroes_every_member_once_the_set_ratio_leaves_the_window():
    shape = (1, 1, 1, 3)
    logp_old = jnp.full(shape, -1.0)
    logp_new = logp_old + jnp.array([0.5, 0.3, 0.0])  # member 2 has not moved (r = 1)
    act, valid, adv = jnp.ones(shape, bool), jnp.ones((1, 1, 1), bool), jnp.ones((1, 1, 1))
    # L_e = 0.8 / sqrt(3) = 0.46: rho = 1.59 > 1.2 with A > 0.
    grad = jax.grad(lambda lp: srpo_loss(lp, logp_old, adv, act, valid, 0.2)[0])(logp_new)
    assert np.all(np.asarray(grad) == 0.0)
    # Independent clipping would still push the unmoved member.
    per_member = jnp.ones(shape)
    g_ind = jax.grad(lambda lp: igrpo_loss(lp, logp_old, per_member, act, valid)[0])(logp_new)
    assert float(g_ind[0, 0, 0, 2]) != 0.0 and float(g_ind[0, 0, 0, 0]) == 0.0
    # Inside the window every member gets rho_e / sqrt(K) times -A / |events|.
    inside = logp_old + jnp.array([0.05, 0.0, -0.02])
    grad = jax.grad(lambda lp: srpo_loss(lp, logp_old, adv, act, valid, 0.2)[0])(inside)
    rho = np.exp(0.03 / np.sqrt(3))
    np.testing.assert_allclose(np.asarray(grad)[0, 0, 0], -rho / np.sqrt(3), rtol=1e-5)


def test_our_kl_addition_is_the_member_mean_k3_per_event():
    logp_new, logp_old, adv, act, valid = _batch(6)
    logp_ref = logp_old - 0.2
    base = srpo_loss(logp_new, logp_old, adv, act, valid)[0]
    with_kl, m = srpo_loss(logp_new, logp_old, adv, act, valid, beta=0.1, logp_ref=logp_ref)
    k3 = np.asarray(kl_k3(logp_new, logp_ref))
    mask = act & valid[..., None]
    per_event = [k3[idx][mask[idx]].mean() for idx in np.ndindex(*SHAPE[:3]) if mask[idx].any()]
    assert float(m["kl_ref"]) == pytest.approx(np.mean(per_event), rel=1e-5)
    assert float(with_kl - base) == pytest.approx(0.1 * np.mean(per_event), rel=1e-4)


def test_outcome_advantage_shared_by_members_matches_a_broadcast_igrpo_row_count():
    # Sanity link with the advantage helpers: a [B,G] advantage broadcasts over events.
    logp_new, logp_old, _, act, valid = _batch(7)
    outcome = np.arange(6, dtype=np.float32).reshape(2, 3) - 2.5
    by_event = srpo_loss(logp_new, logp_old, outcome, act, valid)[0]
    expanded = np.broadcast_to(outcome[:, :, None], SHAPE[:3])
    assert float(by_event) == float(srpo_loss(logp_new, logp_old, expanded, act, valid)[0])
    assert np.asarray(broadcast_outcome_adv(outcome, valid, act)).shape == SHAPE


@settings(max_examples=30, deadline=None)
@given(seed=st.integers(0, 10_000), density=st.floats(0.05, 1.0), n=st.integers(1, 6))
def test_event_minibatches_never_split_an_event(seed, density, n):
    rng = np.random.default_rng(seed)
    act = rng.random((2, 2, 3, 4)) < density
    valid = rng.random((2, 2, 3)) < 0.9
    rows, keys = member_rows(act, valid)
    events = np.unique(keys)
    if len(events) == 0:
        return
    n = min(n, len(events))
    batches = event_minibatches(keys, n, rng=np.random.default_rng(seed + 1))
    assert len(batches) == n
    owners = {}
    for index, batch in enumerate(batches):
        for key in keys[batch]:
            assert owners.setdefault(int(key), index) == index
    assert sorted(np.concatenate(batches).tolist()) == list(range(len(rows)))
    assert np.all(np.asarray(act & valid[..., None]).reshape(-1)[rows])


def test_split_events_and_bad_counts_are_caught():
    keys = np.array([0, 0, 1, 1, 2])
    with pytest.raises(AssertionError, match="event 0 is split"):
        check_events_unsplit(keys, [np.array([0, 2, 3]), np.array([1, 4])])
    with pytest.raises(AssertionError, match="exactly once"):
        check_events_unsplit(keys, [np.array([0, 1, 2, 3])])
    with pytest.raises(ValueError, match="event count"):
        event_minibatches(keys, 4)
