"""alem_pz.evaluation.stats (docs/evaluation.md#statistics): rliable's aggregates and bootstrap
intervals against answers known in closed form, and the progress bars' on/off rule."""

from __future__ import annotations

import io

import numpy as np
import pytest

from alem_pz.evaluation import stats
from alem_pz.progress import bar


def test_aggregates_have_their_textbook_values():
    assert stats.iqm([1, 2, 3, 4]) == pytest.approx(2.5)
    assert stats.iqm([0, 1, 1, 1, 1, 1, 1, 100]) == pytest.approx(1.0)  # the outliers drop
    assert stats.iqm([5.0]) == 5.0
    # runs x tasks: the IQM pools every score; the mean averages the task means.
    assert stats.iqm([[0, 10], [1, 11], [2, 12], [3, 13]]) == pytest.approx((2 + 3 + 10 + 11) / 4)
    assert stats.mean([[0.0, 1.0], [2.0, 1.0], [4.0, 1.0]]) == pytest.approx((2.0 + 1.0) / 2)
    assert stats.optimality_gap([0.5, 1.5]) == pytest.approx(0.25)  # 1.5 counts as 1
    assert stats.optimality_gap([0.5, 1.5], gamma=2.0) == pytest.approx(1.0)
    with pytest.raises(ValueError, match="runs >= 1"):
        stats.iqm([])


def test_iqm_is_rliables_on_any_shape_with_ties():
    from rliable import metrics

    rng = np.random.default_rng(3)
    for runs, tasks in [(1, 1), (3, 1), (5, 2), (7, 3), (8, 4), (101, 5)]:
        x = rng.integers(0, 4, size=(runs, tasks)).astype(float)  # many ties
        assert stats.iqm(x) == pytest.approx(metrics.aggregate_iqm(x), abs=1e-12)
        y = rng.normal(size=(runs, tasks))
        assert stats.iqm(y) == pytest.approx(metrics.aggregate_iqm(y), abs=1e-12)


def test_mean_interval_matches_the_normal_approximation():
    """Large n: the percentile bootstrap of a mean is mean +- 1.96 s / sqrt(n) to within
    Monte-Carlo error (2000 draws put the 2.5 % quantile within about 5 % of the half-width)."""
    x = np.random.default_rng(0).normal(3.0, 1.0, size=5000)
    est, low, high = stats.interval(x, np.mean, reps=2000, seed=1)
    half = 1.96 * x.std() / np.sqrt(x.size)
    assert est[0] == pytest.approx(x.mean())
    assert low[0] == pytest.approx(x.mean() - half, abs=0.1 * half)
    assert high[0] == pytest.approx(x.mean() + half, abs=0.1 * half)


def test_column_means_are_seeded_per_column_and_constant_columns_have_no_spread():
    values = np.random.default_rng(2).normal(0.0, 1.0, size=(400, 3))
    values[:, 2] = 0.7
    mean, low, high = stats.column_means(values, reps=2000, seed=3)
    again = stats.column_means(values, reps=2000, seed=3)
    np.testing.assert_array_equal(low, again[1])
    np.testing.assert_allclose(mean, values.mean(axis=0))
    half = 1.96 * values[:, :2].std(axis=0) / np.sqrt(400)
    np.testing.assert_allclose(high[:2] - low[:2], 2 * half, rtol=0.1)
    assert low[2] == high[2] == pytest.approx(0.7)


def test_probability_of_improvement_counts_pairs_and_halves_ties():
    # the point estimate does not depend on the bootstrap, so these checks resample little
    def poi(x, y):
        return stats.probability_of_improvement(x, y, reps=20)

    assert poi([5.0, 6.0], [1.0, 2.0])[0] == 1.0
    assert poi([1.0, 2.0], [5.0, 6.0])[0] == 0.0
    assert poi([1.0, 2.0], [1.0, 2.0])[0] == 0.5
    assert poi([3.0, 5.0], [2.0, 4.0])[0] == pytest.approx(3 / 4)  # 3>2, 5>2, 5>4 of 4 pairs
    assert poi([2.0, 2.0], [2.0, 1.0])[0] == pytest.approx(3 / 4)  # two ties count 1/2 each
    # two tasks: the mean of the per-task probabilities (1 and 0.5)
    assert poi([[5.0, 1.0], [6.0, 2.0]], [[1.0, 1.0], [2.0, 2.0]])[0] == pytest.approx(0.75)
    x, y = np.random.default_rng(4).normal(size=(2, 30))
    p, low, high = stats.probability_of_improvement(x + 1.0, y, reps=500)
    assert low <= p <= high and p > 0.6  # a one-sd shift: P(X > Y) = Phi(1 / sqrt 2) ~ 0.76
    with pytest.raises(ValueError, match="same tasks"):
        stats.probability_of_improvement(np.zeros((3, 2)), np.zeros((3, 1)))


def test_difference_of_means_standard_error_matches_the_analytic_one():
    rng = np.random.default_rng(5)
    a, b = rng.normal(0.0, 1.0, 300), rng.normal(0.5, 2.0, 200)
    b[:10] = np.nan  # NaN worlds drop out
    ma, mb, se = stats.difference_of_means(a, b, reps=4000)
    kept = b[~np.isnan(b)]
    assert (ma, mb) == (pytest.approx(a.mean()), pytest.approx(kept.mean()))
    assert se == pytest.approx(np.sqrt(a.var() / a.size + kept.var() / kept.size), rel=0.06)
    assert np.isnan(stats.difference_of_means(a, np.full(3, np.nan))[2])


def test_performance_profile_and_aggregate_intervals_have_rliables_shapes():
    scores = {"a": np.array([[0.1], [0.5], [0.9]]), "b": np.array([[0.2], [0.2], [0.2]])}
    profiles, cis = stats.performance_profile(scores, [0.0, 0.5, 1.0], reps=200)
    np.testing.assert_allclose(profiles["a"], [1.0, 1 / 3, 0.0])
    np.testing.assert_allclose(profiles["b"], [1.0, 0.0, 0.0])
    assert cis["a"].shape == (2, 3)
    points, intervals = stats.aggregate_intervals(scores, reps=200)
    assert list(stats.AGGREGATES) == ["IQM", "Mean", "Optimality gap"]
    np.testing.assert_allclose(points["b"], [0.2, 0.2, 0.8])
    assert intervals["a"].shape == (2, 3)
    assert (intervals["a"][0] <= points["a"] + 1e-12).all()
    assert (points["a"] <= intervals["a"][1] + 1e-12).all()


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


def test_progress_bar_draws_only_on_a_terminal_and_when_enabled():
    terminal = _Terminal()
    shown = bar(10, "eval", file=terminal)
    shown.update(10)
    shown.close()
    assert "eval" in terminal.getvalue() and "10/10" in terminal.getvalue()
    for stream, enabled in ((io.StringIO(), True), (_Terminal(), False)):
        silent = bar(10, "eval", enabled=enabled, file=stream)
        silent.update(10)
        silent.close()
        assert stream.getvalue() == ""


def test_crossed_interval_counts_both_the_seeds_and_the_worlds():
    """Seeds that differ widen the interval far past what the worlds alone give; the pairing of
    worlds across seeds is kept (a world effect shared by every seed cancels in no draw)."""
    rng = np.random.default_rng(0)
    worlds = rng.normal(0.0, 0.05, 20)
    same_seeds = np.stack([0.2 + worlds] * 3)
    spread_seeds = np.array([0.1, 0.2, 0.3])[:, None] + worlds[None]
    mean, low, high = stats.crossed_interval(same_seeds)
    assert low < mean < high and mean == pytest.approx(same_seeds.mean())
    _, wide_low, wide_high = stats.crossed_interval(spread_seeds)
    assert wide_high - wide_low > 3 * (high - low)
    assert stats.crossed_interval(spread_seeds, seed=1) != stats.crossed_interval(spread_seeds)
    assert stats.crossed_interval(spread_seeds) == stats.crossed_interval(spread_seeds)
