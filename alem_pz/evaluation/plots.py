"""Scores as pictures: the evaluation runner's summaries as bar charts with bootstrap intervals.

    from alem_pz.evaluation.plots import comparison_figure, save_comparison
    fig = comparison_figure({"random": summary_random, "greedy": summary_greedy})
    save_comparison(summary, "scores.png")        # one summary, named by its protocol policy

One panel per score (the headline keys, then the coordination categories); in each panel the
difficulties sit side by side on the x axis with one bar per policy, and the whiskers are the
summary's 95% percentile-bootstrap intervals, in percent (each y axis starts at 0).
``alem-evaluate ... --plot out.png`` writes this figure for the policies it evaluated, and
rliable's interval plot and performance profile beside it (``alem_pz.evaluation.report``).

matplotlib is optional (``pip install -e ".[plots]"``) and imported only when a figure is drawn.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

from alem_core.scoring.score import HEADLINE_KEYS

CATEGORY_KEYS = (
    "Team/soft_coordination_achievement_pct",
    "Team/sync_hard_coordination_achievement_pct",
    "Team/handover_coordination_achievement_pct",
    "Team/construction_coordination_achievement_pct",
    "Team/hard_coordination_achievement_pct",
)
"""The coordination sub-categories (docs/rules/score.md), as fractions of their achievements
unlocked."""

PANEL_TITLES = {
    "Team/achievement_pct": "Achievements %",
    "Team/normal_achievement_pct": "Normal achievements %",
    "Team/coordination_achievement_pct": "Coordination achievements %",
    "Team/normal_reward_pct_of_max": "Base %",
    "Team/coord_reward_pct_of_max": "Coord. %",
    "Team/reward_pct_of_max": "Total %",
    "Team/soft_coordination_achievement_pct": "Soft coordination %",
    "Team/sync_hard_coordination_achievement_pct": "Hard sync %",
    "Team/handover_coordination_achievement_pct": "Handover %",
    "Team/construction_coordination_achievement_pct": "Construction %",
    "Team/hard_coordination_achievement_pct": "All hard coordination %",
}
DIFFICULTY_ORDER = ("easy", "medium", "hard")


def _by_policy(summaries: Mapping[str, Any]) -> dict[str, Mapping[str, Any]]:
    """Accept one runner summary or ``{policy name: summary}``."""
    if "results" in summaries and "protocol" in summaries:
        return {str(summaries["protocol"].get("policy", "policy")): summaries}
    if not summaries:
        raise ValueError("no summaries to plot")
    for name, summary in summaries.items():
        if not isinstance(summary, Mapping) or "results" not in summary:
            raise ValueError(f"summary for {name!r} has no 'results': not an evaluation summary")
    return dict(summaries)


def _difficulties(by_policy: Mapping[str, Mapping[str, Any]]) -> list[str]:
    seen = {d for s in by_policy.values() for d in s["results"]}
    ordered = [d for d in DIFFICULTY_ORDER if d in seen]
    return ordered + sorted(seen - set(ordered))


def _bars(summary: Mapping[str, Any], key: str, difficulties: Sequence[str]):
    """Means and (below, above) whisker lengths in percent; NaN where a difficulty is missing."""
    means, below, above = [], [], []
    for difficulty in difficulties:
        stats = summary["results"].get(difficulty, {}).get("metrics", {}).get(key)
        if stats is None:
            means.append(float("nan"))
            below.append(0.0)
            above.append(0.0)
            continue
        mean = 100.0 * stats["mean"]
        means.append(mean)
        below.append(max(mean - 100.0 * stats["ci_low"], 0.0))
        above.append(max(100.0 * stats["ci_high"] - mean, 0.0))
    return means, [below, above]


def comparison_figure(
    summaries: Mapping[str, Any],
    keys: Sequence[str] = (*HEADLINE_KEYS, *CATEGORY_KEYS),
    columns: int = 4,
    title: str | None = None,
):
    """A ``matplotlib.figure.Figure`` with one panel per key in ``keys`` (see module docstring).

    Args:
        summaries: an ``alem_pz.evaluation.protocol.evaluate`` summary, or
            ``{policy name: summary}``.
        keys: score keys holding fractions in [0, 1] (drawn as percentages).
        columns: panels per row.
        title: the figure's title (default: the policies and the episode count).
    """
    from matplotlib.figure import Figure

    by_policy = _by_policy(summaries)
    difficulties = _difficulties(by_policy)
    rows = -(-len(keys) // columns)
    fig = Figure(figsize=(3.2 * columns, 2.6 * rows + 0.6), layout="constrained")
    axes = fig.subplots(rows, columns, squeeze=False).ravel()
    width = 0.8 / len(by_policy)
    for ax, key in zip(axes, keys, strict=False):
        for i, (name, summary) in enumerate(by_policy.items()):
            means, errors = _bars(summary, key, difficulties)
            xs = [d + (i - (len(by_policy) - 1) / 2) * width for d in range(len(difficulties))]
            ax.bar(xs, means, width, yerr=errors, capsize=3, label=name, color=f"C{i}")
        ax.set_title(PANEL_TITLES.get(key, key), fontsize=10)
        ax.set_xticks(range(len(difficulties)), difficulties)
        ax.set_ylim(bottom=0)  # real scores are a few percent: a 0-100 axis would hide them
        ax.grid(axis="y", alpha=0.3)
    for ax in axes[len(keys) :]:
        ax.set_visible(False)
    axes[0].legend(fontsize=8)
    if title is None:
        counts = sorted({r["episodes"] for s in by_policy.values() for r in s["results"].values()})
        over = "/".join(map(str, counts)) + (" episode" if counts == [1] else " episodes")
        title = f"{', '.join(by_policy)}: mean and 95% bootstrap interval over {over}"
    fig.suptitle(title)
    return fig


def save_comparison(summaries: Mapping[str, Any], path: str | Path, dpi: int = 100) -> Path:
    """Draw ``comparison_figure(summaries)`` and write it to ``path`` (format from the suffix)."""
    path = Path(path)
    path.parent.mkdir(parents=True, exist_ok=True)
    comparison_figure(summaries).savefig(path, dpi=dpi)
    return path
