"""alem's one statistics module: aggregates and bootstrap intervals the way RL papers report them.

Every interval, IQM and comparison in alem comes from here: the evaluation protocol
(``alem_pz.evaluation.protocol``), ``alem-evaluate --compare`` / ``--plot``, the coordination-gap
experiment (``alem_train.experiment.stats``) and the parity tools (``bench/parity/``). It
is a thin layer over rliable (Agarwal et al. 2021, "Deep RL at the Edge of the Statistical
Precipice"), so the numbers are the ones a reader computes with the field's own tool rather than a
local re-implementation; scipy fills the one gap (the Mann-Whitney statistic is what rliable's
probability of improvement is built on, and arch's bootstrap gives the standard error).

Scores are matrices ``(runs, tasks)``: for the protocol a run is an episode (one world seed) and a
task a difficulty; for the experiment a run is a training seed. A 1-D array is one task.
Intervals are stratified percentile bootstraps (runs resampled with replacement inside each task)
seeded (``seed``; see ``_seeded``), so a summary is reproducible to the last digit.

rliable and tqdm are the ``eval`` extra (``pip install -e ".[eval]"`` in a clone); they are
imported when a statistic is first computed, so importing alem_pz does not need them.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any

import numpy as np

LEVEL = 0.95
"""The interval coverage every alem report uses."""


def _rliable() -> tuple[Any, Any]:
    try:
        from rliable import library, metrics
    except ImportError as err:  # pragma: no cover - the eval extra is in dev
        raise ImportError(
            'alem_pz.evaluation.stats needs rliable: pip install -e ".[eval]" (in a clone of alem)'
        ) from err
    return library, metrics


@contextmanager
def _seeded(seed: int) -> Iterator[None]:
    """Run rliable's bootstrap on a seeded global numpy RNG, then put the caller's state back.

    rliable 1.2 draws its resampling indices from ``np.random.choice`` whatever ``random_state``
    it is given (that only seeds arch's unused generator, with a FutureWarning), so seeding the
    global RNG is the one way to make an interval reproducible; restoring it keeps the caller's
    random stream as it was.
    """
    state = np.random.get_state()
    np.random.seed(seed)
    try:
        yield
    finally:
        np.random.set_state(state)


def _matrix(scores: Any) -> np.ndarray:
    x = np.asarray(scores, dtype=np.float64)
    if x.ndim == 1:
        x = x[:, None]
    if x.ndim != 2 or x.shape[0] == 0:
        raise ValueError(f"scores must be (runs,) or (runs, tasks) with runs >= 1, got {x.shape}")
    return x


def iqm(scores: Any) -> float:
    """Interquartile mean over all runs and tasks: rliable's 25 % trimmed mean (it drops
    ``floor(n / 4)`` scores at each end), robust to one lucky or one collapsed run.

    The same arithmetic as rliable's ``aggregate_iqm`` (``tests/pz/evaluation/test_stats.py``
    checks they agree), without scipy's per-call argument wrapper: that wrapper costs
    milliseconds, and an IQM interval calls this once per bootstrap resample.
    """
    x = np.sort(_matrix(scores), axis=None)
    cut = x.size // 4
    return float(x[cut : x.size - cut].mean())


def mean(scores: Any) -> float:
    """Mean over tasks of each task's mean over runs (rliable's ``aggregate_mean``)."""
    return float(_rliable()[1].aggregate_mean(_matrix(scores)))


def optimality_gap(scores: Any, gamma: float = 1.0) -> float:
    """How far the scores fall short of ``gamma`` (scores above it count as ``gamma``): 0 is
    perfect. For alem's fraction-valued scores ``gamma=1`` is every achievement unlocked."""
    return float(_rliable()[1].aggregate_optimality_gap(_matrix(scores), gamma))


AGGREGATES: dict[str, Callable[[Any], float]] = {
    "IQM": iqm,
    "Mean": mean,
    "Optimality gap": optimality_gap,
}
"""The aggregates ``alem-evaluate --plot`` draws, by the names rliable's papers give them."""


def interval(
    scores: Any,
    statistic: Callable[[np.ndarray], Any],
    reps: int = 2000,
    level: float = LEVEL,
    seed: int = 0,
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Point estimate and stratified percentile-bootstrap interval of ``statistic(scores)``.

    ``statistic`` maps a ``(runs, tasks)`` matrix to a scalar or 1-D array; the result is
    ``(estimate, low, high)`` with that shape.
    """
    library, _ = _rliable()
    x = _matrix(scores)
    with _seeded(seed):
        points, cis = library.get_interval_estimates(
            {"x": x},
            lambda s: np.atleast_1d(np.asarray(statistic(s), dtype=np.float64)),
            reps=reps,
            confidence_interval_size=level,
        )
    return points["x"], cis["x"][0], cis["x"][1]


def crossed_interval(
    scores: Any, reps: int = 10000, level: float = LEVEL, seed: int = 0
) -> tuple[float, float, float]:
    """Mean of a (seeds, worlds) matrix and its percentile-bootstrap interval with the rows and
    the columns resampled together: each of ``reps`` draws picks training seeds and evaluation
    worlds with replacement and averages the crossed cells.

    rliable's stratified bootstrap resamples runs inside fixed tasks, so it leaves out one of
    the two sources a trained agent's score varies with: with the seeds as strata the worlds'
    spread, with the worlds as strata the seeds'. Every seed plays the same worlds, so the
    worlds a draw picks are the same for every seed it picks (the pairing is kept). No library
    of the field offers this two-way draw; it is a few lines of numpy, seeded by ``seed``.
    """
    x = _matrix(scores)
    rng = np.random.default_rng(seed)
    rows = rng.integers(0, x.shape[0], (reps, x.shape[0]))
    cols = rng.integers(0, x.shape[1], (reps, x.shape[1]))
    means = x[rows[:, :, None], cols[:, None, :]].mean(axis=(1, 2))
    tail = 100 * (1 - level) / 2
    return (
        float(x.mean()),
        float(np.percentile(means, tail)),
        float(np.percentile(means, 100 - tail)),
    )


def column_means(
    values: Any, reps: int = 10000, level: float = LEVEL, seed: int = 0
) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Mean and percentile-bootstrap interval of each column of ``values`` (runs, K) over runs.

    The protocol's per-metric summary: each column is a metric (a "task" to the stratified
    bootstrap), so each gets the interval of its own mean over episodes.
    """
    return interval(values, lambda s: s.mean(axis=0), reps, level, seed)


def aggregate_intervals(
    scores: Mapping[str, Any], reps: int = 2000, level: float = LEVEL, seed: int = 0
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """IQM, mean and optimality gap with intervals for each agent's ``(runs, tasks)`` scores.

    Returns rliable's pair (point estimates ``{agent: (3,)}``, intervals ``{agent: (2, 3)}``),
    ordered as :data:`AGGREGATES`, ready for ``rliable.plot_utils.plot_interval_estimates``.
    """
    funcs = list(AGGREGATES.values())
    points, cis = {}, {}
    for agent, x in scores.items():
        est, low, high = interval(x, lambda s: np.array([f(s) for f in funcs]), reps, level, seed)
        points[agent], cis[agent] = est, np.stack([low, high])
    return points, cis


def probability_of_improvement(
    x: Any, y: Any, reps: int = 2000, level: float = LEVEL, seed: int = 0
) -> tuple[float, float, float]:
    """P(a run of X scores above a run of Y), averaged over tasks, with its interval.

    rliable's statistic (the Mann-Whitney U over ``runs_x * runs_y``, ties counting one half):
    0.5 is no difference. The interval resamples each agent's runs independently per task.
    """
    library, metrics = _rliable()
    a, b = _matrix(x), _matrix(y)
    if a.shape[1] != b.shape[1]:
        raise ValueError(f"X and Y need the same tasks, got {a.shape[1]} and {b.shape[1]}")
    with _seeded(seed):
        points, cis = library.get_interval_estimates(
            {"xy": [a, b]},
            lambda s, t: np.atleast_1d(metrics.probability_of_improvement(s, t)),
            reps=reps,
            confidence_interval_size=level,
        )
    return float(points["xy"][0]), float(cis["xy"][0][0]), float(cis["xy"][1][0])


def difference_of_means(
    a: Any, b: Any, reps: int = 1000, seed: int = 0
) -> tuple[float, float, float]:
    """(mean a, mean b, bootstrap standard error of mean b - mean a), NaN runs dropped.

    The parity scripts' test statistic: a and b are independent samples (two simulators'
    worlds), each resampled on its own (rliable's independent stratified bootstrap).
    """
    library, _ = _rliable()
    a = np.asarray(a, np.float64)
    b = np.asarray(b, np.float64)
    a, b = a[~np.isnan(a)], b[~np.isnan(b)]
    if a.size == 0 or b.size == 0:
        return np.nan, np.nan, np.nan
    with _seeded(seed):
        boot = library.StratifiedIndependentBootstrap(a[:, None], b[:, None])
        var = boot.var(lambda s, t: np.atleast_1d(t.mean() - s.mean()), reps=reps)
    return float(a.mean()), float(b.mean()), float(np.sqrt(np.ravel(var)[0]))


def performance_profile(
    scores: Mapping[str, Any], taus: Any, reps: int = 2000, level: float = LEVEL, seed: int = 0
) -> tuple[dict[str, np.ndarray], dict[str, np.ndarray]]:
    """Fraction of runs scoring above each threshold in ``taus``, with intervals, per agent
    (rliable's score distribution), for ``rliable.plot_utils.plot_performance_profiles``."""
    taus = np.asarray(taus, np.float64)
    profiles, cis = {}, {}
    for agent, x in scores.items():
        est, low, high = interval(x, lambda s: (s[..., None] > taus).mean(axis=(0, 1)), reps,
                                  level, seed)  # fmt: skip
        profiles[agent], cis[agent] = est, np.stack([low, high])
    return profiles, cis


__all__ = [
    "AGGREGATES",
    "LEVEL",
    "aggregate_intervals",
    "column_means",
    "crossed_interval",
    "difference_of_means",
    "interval",
    "iqm",
    "mean",
    "optimality_gap",
    "performance_profile",
    "probability_of_improvement",
]
