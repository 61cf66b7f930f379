"""Aggregate statistics over seeds: IQM and mean with percentile-bootstrap 95 % intervals.

The interquartile mean is the mean of the middle 50 % of the sorted scores (with fractional
weights at the quartile boundaries, as in Agarwal et al. 2021), robust to one lucky or one
collapsed seed. Intervals resample seeds with replacement (``resamples`` draws, fixed seed).
"""

from __future__ import annotations

import numpy as np


def iqm(scores) -> float:
    """Interquartile mean of a 1-D sample (weights 1 inside the quartiles, fractions at them)."""
    x = np.sort(np.asarray(scores, dtype=float))
    n = x.size
    if n == 0:
        raise ValueError("iqm needs at least one score")
    lo, hi = 0.25 * n, 0.75 * n
    edges = np.arange(n + 1)
    weights = np.clip(np.minimum(edges[1:], hi) - np.maximum(edges[:-1], lo), 0.0, 1.0)
    return float((weights * x).sum() / weights.sum())


def bootstrap_ci(
    scores, statistic, resamples: int = 2000, level: float = 0.95, seed: int = 0
) -> tuple[float, float]:
    """Percentile-bootstrap interval of ``statistic`` over resampled seeds."""
    x = np.asarray(scores, dtype=float)
    rng = np.random.default_rng(seed)
    draws = rng.integers(0, x.size, size=(resamples, x.size))
    values = np.array([statistic(x[d]) for d in draws])
    tail = (1.0 - level) / 2.0
    return float(np.quantile(values, tail)), float(np.quantile(values, 1.0 - tail))


def summarise(scores) -> dict[str, float]:
    """``{n, mean, mean_lo, mean_hi, iqm, iqm_lo, iqm_hi}`` of one method's per-seed scores."""
    x = np.asarray(scores, dtype=float)
    mean_lo, mean_hi = bootstrap_ci(x, np.mean)
    iqm_lo, iqm_hi = bootstrap_ci(x, iqm)
    return {
        "n": int(x.size),
        "mean": float(x.mean()),
        "mean_lo": mean_lo,
        "mean_hi": mean_hi,
        "iqm": iqm(x),
        "iqm_lo": iqm_lo,
        "iqm_hi": iqm_hi,
    }


__all__ = ["bootstrap_ci", "iqm", "summarise"]
