"""Evaluation summaries as a researcher pastes them: a CSV table, rliable's figures, comparisons.

    from alem_pz.evaluation.report import write_csv, episode_scores, compare
    write_csv({"greedy": summary}, "eval_greedy.csv")   # one row per (agent, difficulty, metric)
    scores = episode_scores({"greedy": s1, "random": s2})   # {agent: (episodes, difficulties)}
    for row in compare(s1, s2): print(row)               # P(greedy > random) per difficulty

``alem-evaluate`` writes the CSV beside its JSON, draws :func:`save_rliable_figures` with
``--plot`` and prints :func:`compare` with ``--compare``. Every number comes from
``alem_pz.evaluation.stats`` (rliable), so the CSV, the figures and the JSON agree.
"""

from __future__ import annotations

import csv
import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any

import numpy as np

from alem_pz.evaluation import stats

DEFAULT_METRIC = "Team/achievement_pct"
"""The score the figures and comparisons use unless told otherwise: a fraction in [0, 1], so
the optimality gap (to 1) and the performance profile's thresholds read as fractions of all
achievements."""

CSV_COLUMNS = ("agent", "difficulty", "metric", "episodes", "mean", "ci_low", "ci_high", "iqm")


def csv_rows(summaries: Mapping[str, Mapping[str, Any]]) -> list[dict[str, Any]]:
    """One row per (agent, difficulty, metric): the summary's mean and interval, and the IQM
    over episodes (from ``per_episode``)."""
    rows = []
    for agent, summary in summaries.items():
        for difficulty, result in summary["results"].items():
            episodes = result.get("per_episode", [])
            for metric, values in result["metrics"].items():
                per_episode = [ep["metrics"][metric] for ep in episodes]
                rows.append(
                    {
                        "agent": agent,
                        "difficulty": difficulty,
                        "metric": metric,
                        "episodes": result["episodes"],
                        "mean": values["mean"],
                        "ci_low": values["ci_low"],
                        "ci_high": values["ci_high"],
                        "iqm": stats.iqm(per_episode) if per_episode else float("nan"),
                    }
                )
    return rows


def write_csv(summaries: Mapping[str, Mapping[str, Any]], path: str | Path) -> Path:
    """Write :func:`csv_rows` to ``path`` (header :data:`CSV_COLUMNS`)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=CSV_COLUMNS)
        writer.writeheader()
        writer.writerows(csv_rows(summaries))
    return path


def load_summary(path: str | Path) -> dict[str, Any]:
    """An evaluation summary from its JSON file, or from a run directory holding one
    (``summary.json``, as the LLM harness writes, or a single ``eval_*.json``)."""
    path = Path(path)
    if path.is_dir():
        found = [path / "summary.json"] if (path / "summary.json").exists() else []
        found = found or sorted(path.glob("eval_*.json"))
        if len(found) != 1:
            raise ValueError(f"{path} holds {len(found)} summaries; name the JSON file")
        path = found[0]
    return json.loads(path.read_text())


def episode_scores(
    summaries: Mapping[str, Mapping[str, Any]], metric: str = DEFAULT_METRIC
) -> tuple[dict[str, np.ndarray], list[str]]:
    """``{agent: (episodes, difficulties)}`` of ``metric`` and the difficulties in column order
    (those every agent was evaluated on, protocol order): rliable's runs x tasks layout."""
    common = [d for d in next(iter(summaries.values()))["results"]]
    common = [d for d in common if all(d in s["results"] for s in summaries.values())]
    if not common:
        raise ValueError("the summaries share no difficulty")
    scores = {}
    for agent, summary in summaries.items():
        columns = [
            [ep["metrics"][metric] for ep in summary["results"][d]["per_episode"]] for d in common
        ]
        if len({len(c) for c in columns}) != 1:
            raise ValueError(f"{agent}: difficulties have different episode counts")
        scores[agent] = np.array(columns, dtype=np.float64).T
    return scores, common


def compare(
    a: Mapping[str, Any],
    b: Mapping[str, Any],
    metric: str = DEFAULT_METRIC,
    reps: int = 2000,
    seed: int = 0,
) -> list[dict[str, Any]]:
    """Probability that an episode of ``a`` scores above one of ``b`` on ``metric``, with its
    95 % interval, per shared difficulty and over all of them (rliable's average over tasks)."""
    scores, difficulties = episode_scores({"a": a, "b": b}, metric)
    rows = []
    for i, difficulty in enumerate(difficulties):
        p, low, high = stats.probability_of_improvement(
            scores["a"][:, i], scores["b"][:, i], reps, seed=seed
        )
        rows.append({"difficulty": difficulty, "p": p, "ci_low": low, "ci_high": high})
    if len(difficulties) > 1:
        p, low, high = stats.probability_of_improvement(scores["a"], scores["b"], reps, seed=seed)
        rows.append({"difficulty": "all", "p": p, "ci_low": low, "ci_high": high})
    return rows


def save_rliable_figures(
    summaries: Mapping[str, Mapping[str, Any]],
    path: str | Path,
    metric: str = DEFAULT_METRIC,
    reps: int = 2000,
) -> tuple[Path, Path]:
    """rliable's interval plot (IQM, mean, optimality gap) and performance profile of ``metric``
    over episodes and difficulties, written beside ``path`` as ``<stem>_intervals<suffix>`` and
    ``<stem>_profile<suffix>``. Needs the plots extra (matplotlib, rliable)."""
    from rliable import plot_utils

    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    scores, _ = episode_scores(summaries, metric)
    points, cis = stats.aggregate_intervals(scores, reps)
    fig, _ = plot_utils.plot_interval_estimates(
        points,
        cis,
        metric_names=list(stats.AGGREGATES),
        algorithms=list(scores),
        xlabel=metric,
        xlabel_y_coordinate=-min(0.6, 1.1 / len(scores)),  # below the ticks for few agents
    )
    intervals = path.with_name(f"{path.stem}_intervals{path.suffix}")
    fig.savefig(intervals, bbox_inches="tight")
    taus = np.linspace(0.0, max(1e-9, max(float(x.max()) for x in scores.values())), 41)
    profiles, profile_cis = stats.performance_profile(scores, taus, reps)
    import matplotlib.pyplot as plt

    fig, ax = plt.subplots(figsize=(7, 4.5))
    plot_utils.plot_performance_profiles(
        profiles, taus, profile_cis, ax=ax, xlabel=rf"{metric} ($\tau$)",
        ylabel=r"Fraction of episodes with score $> \tau$",
    )  # fmt: skip
    ax.legend(loc="upper right")
    profile = path.with_name(f"{path.stem}_profile{path.suffix}")
    fig.savefig(profile, bbox_inches="tight")
    plt.close("all")
    return intervals, profile


__all__ = [
    "CSV_COLUMNS",
    "DEFAULT_METRIC",
    "compare",
    "csv_rows",
    "episode_scores",
    "load_summary",
    "save_rliable_figures",
    "write_csv",
]
