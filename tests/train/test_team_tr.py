"""TeamTR-style stage driver: docs/training.md#objectives 4.3 driver tests, on tabular one-shot
policies."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import optax
import pytest

from alem_train.matrix_games import climbing_game, expected_return
from alem_train.objectives import (
    Rollout,
    SeqTRSettings,
    happo_factor,
    igrpo_loss,
    kl_exact,
    seq_tr_agent_loss,
    team_tr_stage,
)
from tests.train.climbing import ClimbingCollector, tabular_logits

SETTINGS = SeqTRSettings(adv_ddof=1, adv_singleton="zero")
SGD = optax.sgd(0.5)
BIG_STEP = optax.sgd(20.0)  # shared, so its jitted steps are compiled once


def _team(n, seed=0):
    return tuple(
        0.3 * jax.random.normal(k, (3,)) for k in jax.random.split(jax.random.key(seed), n)
    )


def _stage(team, collector, **kw):
    args = dict(
        collect=collector,
        policy_logits=tabular_logits,
        optimizer=SGD,
        resample=True,
        happo_correction=False,
        delta=1e9,
        max_epochs=2,
        settings=SETTINGS,
    )
    args.update(kw)
    return team_tr_stage(team, args.pop("order", (2, 0, 1)), jax.random.key(1), **args)


def test_only_the_scheduled_agent_changes_and_bits_elsewhere_are_identical():
    collector = ClimbingCollector(3)
    order = (2, 0, 1)
    final, _ = _stage(_team(3), collector, order=order)
    snapshots = [*collector.teams, [np.asarray(p) for p in final]]
    for k, agent in enumerate(order):
        before, after = snapshots[k], snapshots[k + 1]
        for j in range(3):
            same = before[j].tobytes() == after[j].tobytes()
            assert same == (j != agent), (k, j)


@pytest.mark.parametrize(
    ("resample", "probe", "expected"), [(True, False, 3), (False, False, 1), (False, True, 3)]
)
def test_collections_per_stage(resample, probe, expected):
    collector = ClimbingCollector(3)
    settings = SeqTRSettings(adv_ddof=1, adv_singleton="zero", probe_fresh=probe)
    _, log = _stage(_team(3), collector, resample=resample, settings=settings)
    assert len(collector.teams) == expected == log.collections
    gaps = [u.stale_gap for u in log.updates]
    assert gaps[0] == 0.0  # the first agent's fresh batch is the stage-start batch
    assert all(g is not None for g in gaps) == (resample or probe)


def test_early_stop_fires_once_the_exact_kl_exceeds_delta():
    team = _team(2)
    _, log = _stage(
        team,
        ClimbingCollector(2),
        order=(0, 1),
        optimizer=BIG_STEP,
        delta=1e-3,
        max_epochs=5,
    )
    for update in log.updates:
        assert update.early_stopped and update.delta_violated and update.epochs == 1
        assert update.kl_exact > 1e-3
    relaxed, log = _stage(
        team, ClimbingCollector(2), order=(0, 1), optimizer=BIG_STEP, delta=1e9, max_epochs=5
    )
    assert all(u.epochs == 5 and not u.early_stopped for u in log.updates)
    # The logged KL is the exact KL of the final policy against the stage start (one state here).
    assert log.updates[0].kl_exact == pytest.approx(float(kl_exact(relaxed[0], team[0])), rel=1e-4)


def test_revert_on_violation_keeps_the_last_step_inside_delta():
    team = _team(2)
    revert = SeqTRSettings(adv_ddof=1, adv_singleton="zero", on_violation="revert")
    final, log = _stage(
        team,
        ClimbingCollector(2),
        order=(0, 1),
        optimizer=BIG_STEP,
        delta=1e-3,
        max_epochs=5,
        settings=revert,
    )
    for update, before, after in zip(log.updates, team, final, strict=True):
        assert update.early_stopped and not update.delta_violated and update.epochs == 0
        assert np.asarray(before).tobytes() == np.asarray(after).tobytes()


def test_happo_correction_matches_a_hand_computed_step():
    theta = (jnp.array([0.2, -0.1, 0.0]), jnp.array([0.0, 0.3, -0.2]))
    a0, a1 = np.array([0, 1, 2, 0]), np.array([1, 1, 0, 2])
    returns = np.array([[1.0, 3.0, -2.0, 0.5]], np.float32)
    batch = Rollout(
        obs=jnp.zeros((1, 4, 1, 2)),
        actions=jnp.asarray(np.stack([a0, a1], -1)[None, :, None]),
        act=jnp.ones((1, 4, 1, 2), bool),
        valid=jnp.ones((1, 4, 1), bool),
        returns=jnp.asarray(returns),
    )
    calls = []

    def collect(team, key):
        calls.append(key)
        return batch

    def run(happo):
        return _stage(
            theta, collect, order=(1, 0), resample=False, happo_correction=happo, max_epochs=1
        )[0]

    final = run(True)
    assert len(calls) == 1  # one cached batch for the whole stage
    # By hand: A = (R - mean) / (std_ddof1 + eps); agent 1 first, then agent 0 weighted by M.
    r = returns[0].astype(np.float64)
    adv = (r - r.mean()) / (r.std(ddof=1) + 1e-6)
    softmax = lambda z: np.exp(z) / np.exp(z).sum()  # noqa: E731
    pi1 = softmax(np.asarray(theta[1], np.float64))
    grad1 = -np.mean([adv[g] * (np.eye(3)[a1[g]] - pi1) for g in range(4)], axis=0)
    theta1 = np.asarray(theta[1], np.float64) - 0.5 * grad1
    factor = softmax(theta1)[a1] / pi1[a1]
    pi0 = softmax(np.asarray(theta[0], np.float64))
    grad0 = -np.mean([factor[g] * adv[g] * (np.eye(3)[a0[g]] - pi0) for g in range(4)], axis=0)
    theta0 = np.asarray(theta[0], np.float64) - 0.5 * grad0
    np.testing.assert_allclose(np.asarray(final[1]), theta1, atol=1e-5)
    np.testing.assert_allclose(np.asarray(final[0]), theta0, atol=1e-5)
    assert not np.allclose(factor, 1.0, atol=1e-3)
    uncorrected = run(False)
    assert not np.allclose(np.asarray(uncorrected[0]), theta0, atol=1e-4)


def test_a_resampled_stage_raises_the_exact_expected_return():
    game = climbing_game(3)
    team = tuple(jnp.zeros(3) for _ in range(3))
    final, _ = _stage(team, ClimbingCollector(3, group=64), order=(0, 1, 2), delta=0.05)
    probs = lambda t: jax.nn.softmax(jnp.stack(t), axis=-1)  # noqa: E731
    assert float(expected_return(game, probs(final))) > float(expected_return(game, probs(team)))


def test_bad_stage_arguments_are_named():
    with pytest.raises(ValueError, match="permutation"):
        _stage(_team(3), ClimbingCollector(3), order=(0, 0, 1))
    with pytest.raises(ValueError, match="delta"):
        _stage(_team(3), ClimbingCollector(3), delta=0.0)
    with pytest.raises(ValueError, match="reference"):
        _stage(_team(3), ClimbingCollector(3), settings=SeqTRSettings(beta=0.1))


def test_agent_loss_reads_only_its_own_rows_and_scales_by_the_correction():
    rng = np.random.default_rng(0)
    shape = (1, 3, 2, 3)
    logp_old = rng.normal(size=shape).astype(np.float32) - 1
    logp_new = logp_old + 0.1 * rng.normal(size=shape).astype(np.float32)
    adv, act = rng.normal(size=shape[:2]).astype(np.float32), np.ones(shape, bool)
    valid = np.ones(shape[:3], bool)
    own = seq_tr_agent_loss(1, logp_new, logp_old, adv, act, valid)[0]
    only = act & (np.arange(3) == 1)
    assert float(own) == pytest.approx(float(igrpo_loss(logp_new, logp_old, adv, only, valid)[0]))
    others = logp_new.copy()
    others[..., [0, 2]] += 3.0
    assert float(seq_tr_agent_loss(1, others, logp_old, adv, act, valid)[0]) == float(own)
    doubled = seq_tr_agent_loss(
        1, logp_new, logp_old, adv, act, valid, correction=np.full(shape[:3], 2.0, np.float32)
    )[0]
    assert float(doubled) == pytest.approx(
        float(igrpo_loss(logp_new, logp_old, 2 * adv, only, valid)[0]), rel=1e-6
    )


def test_happo_factor_multiplies_updated_active_ratios_and_clips():
    logp_b = np.zeros((1, 1, 2, 3), np.float32)
    logp_now = np.log(np.array([[[[2.0, 3.0, 5.0], [100.0, 1.0, 1.0]]]], np.float32))
    act = np.array([[[[True, True, True], [True, True, True]]]])
    act[0, 0, 0, 1] = False  # an inactive updated agent contributes a ratio of 1
    updated = np.array([True, True, False])
    factor = np.asarray(happo_factor(logp_now, logp_b, act, np.ones((1, 1, 2), bool), updated))
    np.testing.assert_allclose(factor, [[[2.0, 10.0]]], rtol=1e-5)  # 100 is clipped to 10
    with pytest.raises(ValueError, match="max_factor"):
        happo_factor(logp_now, logp_b, act, np.ones((1, 1, 2), bool), updated, 0.5)


def test_kl_weight_pulls_the_agent_towards_its_reference():
    team = tuple(jnp.zeros(3) for _ in range(2))
    reference = tuple(jnp.array([2.0, -2.0, 0.0]) for _ in range(2))
    with_kl = SeqTRSettings(adv_ddof=1, adv_singleton="zero", beta=1.0)
    pulled, _ = _stage(
        team,
        ClimbingCollector(2),
        order=(0, 1),
        settings=with_kl,
        reference=reference,
        max_epochs=3,
    )
    free, _ = _stage(team, ClimbingCollector(2), order=(0, 1), max_epochs=3)
    for agent in range(2):
        to_ref = lambda p: float(kl_exact(p, reference[agent]))  # noqa: B023, E731
        assert to_ref(pulled[agent]) < to_ref(free[agent])
