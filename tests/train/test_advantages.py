"""Group-relative advantages: docs/training.md#objectives 4.3, GRPO advantage properties."""

from __future__ import annotations

import numpy as np
import pytest

from alem_train.objectives import (
    agentwise_group_norm_adv,
    broadcast_outcome_adv,
    group_norm_adv,
    reward_to_go_norm,
)

RNG = np.random.default_rng(7)
R = RNG.normal(size=(3, 5)).astype(np.float32) * 4 + 2


@pytest.mark.parametrize("ddof", [0, 1])
def test_groups_have_zero_mean_and_unit_std(ddof):
    adv = np.asarray(group_norm_adv(R, 0.0, "std", ddof=ddof, singleton="zero"))
    np.testing.assert_allclose(adv.mean(axis=1), 0.0, atol=1e-5)
    np.testing.assert_allclose(adv.std(axis=1, ddof=ddof), 1.0, rtol=1e-5)


def test_ddof_changes_the_scale_by_bessel_factor():
    a0 = np.asarray(group_norm_adv(R, 0.0, "std", ddof=0, singleton="zero"))
    a1 = np.asarray(group_norm_adv(R, 0.0, "std", ddof=1, singleton="zero"))
    np.testing.assert_allclose(a0 / a1, np.sqrt(5 / 4), rtol=1e-5)


@pytest.mark.parametrize("ddof", [0, 1])
def test_constant_group_gives_exact_zeros(ddof):
    constant = np.full((2, 4), 3.5, dtype=np.float32)
    adv = np.asarray(group_norm_adv(constant, 1e-6, "std", ddof=ddof, singleton="raw"))
    assert np.all(adv == 0.0)


@pytest.mark.parametrize(("a", "b"), [(3.0, -2.0), (0.5, 10.0)])
def test_invariant_to_positive_affine_maps(a, b):
    base = np.asarray(group_norm_adv(R, 1e-9, "std", ddof=1, singleton="zero"))
    moved = np.asarray(group_norm_adv(a * R + b, 1e-9, "std", ddof=1, singleton="zero"))
    np.testing.assert_allclose(moved, base, atol=1e-4)


def test_negative_scale_flips_the_sign():
    base = np.asarray(group_norm_adv(R, 1e-9, "std", ddof=1, singleton="zero"))
    flipped = np.asarray(group_norm_adv(-R, 1e-9, "std", ddof=1, singleton="zero"))
    np.testing.assert_allclose(flipped, -base, atol=1e-5)


@pytest.mark.parametrize("ddof", [0, 1])
def test_group_of_one_follows_the_singleton_convention(ddof):
    single = np.array([[2.0], [-3.0]], dtype=np.float32)
    zero = np.asarray(group_norm_adv(single, 1e-6, "std", ddof=ddof, singleton="zero"))
    raw = np.asarray(group_norm_adv(single, 1e-6, "std", ddof=ddof, singleton="raw"))
    assert np.all(zero == 0.0)
    np.testing.assert_allclose(raw, single / (1 + 1e-6), rtol=1e-7)  # verl: mean 0, std 1
    raw_unscaled = group_norm_adv(single, 1e-6, "none", ddof=ddof, singleton="raw")
    np.testing.assert_array_equal(np.asarray(raw_unscaled), single)


def test_scale_none_only_centres():
    adv = np.asarray(group_norm_adv(R, 1e-6, "none", ddof=1, singleton="zero"))
    np.testing.assert_allclose(adv, R - R.mean(axis=1, keepdims=True), atol=1e-5)


def test_bad_conventions_are_named():
    with pytest.raises(ValueError, match="ddof"):
        group_norm_adv(R, 1e-6, "std", ddof=2, singleton="zero")
    with pytest.raises(ValueError, match="singleton"):
        group_norm_adv(R, 1e-6, "std", ddof=1, singleton="verl")
    with pytest.raises(ValueError, match="scale"):
        group_norm_adv(R, 1e-6, "max", ddof=1, singleton="zero")


def test_agentwise_normalises_each_agent_on_its_own():
    per_agent = RNG.normal(size=(2, 6, 3)).astype(np.float32)
    per_agent[..., 1] *= 100.0
    adv = np.asarray(agentwise_group_norm_adv(per_agent, 0.0, "std", ddof=0, singleton="zero"))
    np.testing.assert_allclose(adv.std(axis=1), 1.0, rtol=1e-5)
    alone = group_norm_adv(per_agent[..., 0], 0.0, "std", ddof=0, singleton="zero")
    np.testing.assert_allclose(adv[..., 0], np.asarray(alone), rtol=1e-6)
    with pytest.raises(ValueError, match="R_i"):
        agentwise_group_norm_adv(per_agent[..., 0], ddof=0, singleton="zero")


def test_broadcast_outcome_puts_the_rollout_value_on_active_rows_only():
    adv = np.array([[1.5, -2.0]], dtype=np.float32)
    valid = np.array([[[True, False], [True, True]]])
    act = np.array([[[[True, False], [True, True]], [[False, True], [True, True]]]])
    out = np.asarray(broadcast_outcome_adv(adv, valid, act))
    expected = np.array([[[[1.5, 0.0], [0.0, 0.0]], [[0.0, -2.0], [-2.0, -2.0]]]])
    np.testing.assert_array_equal(out, expected)
    per_agent = np.array([[[1.0, 2.0], [3.0, 4.0]]], dtype=np.float32)
    out = np.asarray(broadcast_outcome_adv(per_agent, valid, act))
    assert out[0, 1, 1, 0] == 3.0 and out[0, 1, 1, 1] == 4.0 and out[0, 0, 0, 1] == 0.0


def test_reward_to_go_matches_a_hand_computed_group():
    r = np.array([[[1.0, 0.0, 9.0], [0.0, 0.0, 9.0]]], dtype=np.float32)
    valid = np.array([[[True, True, False], [True, True, False]]])
    out = np.asarray(reward_to_go_norm(r, valid, 0.0, ddof=0, singleton="zero"))
    # Valid rewards {1, 0, 0, 0}: mean 1/4, std sqrt(3)/4; the invalid 9s must not count.
    hi, lo = 0.75 / (np.sqrt(3) / 4), -0.25 / (np.sqrt(3) / 4)
    expected = np.array([[[hi + lo, lo, 0.0], [2 * lo, lo, 0.0]]])
    np.testing.assert_allclose(out, expected, rtol=1e-5)


def test_reward_to_go_single_valid_step_follows_the_singleton_rule():
    r = np.array([[[4.0, 7.0]]], dtype=np.float32)
    valid = np.array([[[True, False]]])
    zero = np.asarray(reward_to_go_norm(r, valid, 1e-6, ddof=1, singleton="zero"))
    raw = np.asarray(reward_to_go_norm(r, valid, 1e-6, ddof=1, singleton="raw"))
    np.testing.assert_array_equal(zero, [[[0.0, 0.0]]])
    np.testing.assert_allclose(raw, [[[4.0 / (1 + 1e-6), 0.0]]], rtol=1e-7)
