"""Aggregate statistics over seeds: IQM and mean with percentile-bootstrap 95 % intervals.

The interquartile mean (rliable's 25 % trimmed mean over seeds) is robust to one lucky or one
collapsed seed. Both come from ``alem_pz.evaluation.stats`` (rliable), the module every alem report
uses, so the experiment's intervals are computed exactly as ``alem-evaluate``'s: seeds resampled
with replacement, 2000 draws, fixed seed.
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np

from alem_pz.evaluation.stats import interval, iqm

RESAMPLES = 2000


def seed_summary(scores) -> dict[str, float]:
    """``{n, mean, mean_lo, mean_hi, iqm, iqm_lo, iqm_hi}`` of one method's per-seed scores."""
    return dict(_seed_summary(tuple(np.asarray(scores, dtype=float).ravel().tolist())))


@lru_cache(maxsize=4096)
def _seed_summary(scores: tuple[float, ...]) -> dict[str, float]:
    # Cached: the summary table, each task's figure and the sweeps summarise the same seeds'
    # scores, and a seeded bootstrap gives the same figures every time it is asked.
    x = np.asarray(scores, dtype=float)
    # One bootstrap pass for both statistics: the same resamples (the seed is fixed per call),
    # so the same figures as two passes, in half the time (rliable resamples in Python).
    point, low, high = interval(x, lambda s: np.array([np.mean(s), iqm(s)]), RESAMPLES)
    return {
        "n": int(x.size),
        "mean": float(point[0]),
        "mean_lo": float(low[0]),
        "mean_hi": float(high[0]),
        "iqm": float(point[1]),
        "iqm_lo": float(low[1]),
        "iqm_hi": float(high[1]),
    }


__all__ = ["iqm", "seed_summary"]
