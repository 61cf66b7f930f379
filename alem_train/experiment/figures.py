"""Every figure of the coordination-gap write-up, drawn from the CSVs alone (no training).

``notebooks/coordination_gap.ipynb`` calls these; ``python -m alem_train.experiment.figures``
writes them all as PNG next to the CSVs. matplotlib is imported lazily (the ``plots`` extra).
"""

from __future__ import annotations

import itertools
import math
from pathlib import Path

import numpy as np

from alem_train.experiment.report import group_rows, load_rows, summary_rows
from alem_train.experiment.stats import seed_summary

SWEPT = ("group_size", "delta")
"""The variables the ablation phase varies (``run.py ablation``)."""
REGRESSION_DROP = 0.1
"""A regression event: the on-policy success rate falls by at least this much in one update."""


def _pyplot():
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    return plt


def final_scores(runs: list[dict], task: str, path: Path, score: str = "eval_success") -> Path:
    """Per-method IQM (dot) and mean (cross) of ``score`` with 95 % bootstrap intervals."""
    rows = [r for r in summary_rows(runs, "final") if r["task"] == task]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 0.5 + 0.45 * len(rows)))
    for y, row in enumerate(rows):
        for stat, marker, shift in (("iqm", "o", 0.12), ("mean", "x", -0.12)):
            centre = row[f"{score}_{stat}"]
            span = [[centre - row[f"{score}_{stat}_lo"]], [row[f"{score}_{stat}_hi"] - centre]]
            ax.errorbar(
                centre, y + shift, xerr=span, fmt=marker, color="C0" if stat == "iqm" else "C1"
            )
    ax.set_yticks(range(len(rows)), [r["method"] for r in rows])
    ax.set_xlabel(f"{score} (o IQM, x mean; 95 % bootstrap CI over {rows[0][f'{score}_n']} seeds)")
    ax.set_title(task)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def learning_curves(
    curves: list[dict], task: str, path: Path, field: str = "train_success"
) -> Path:
    """Mean over seeds of ``field`` against env steps, one line per method (final runs)."""
    rows = [r for r in curves if r["task"] == task and r["phase"] == "final"]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for method, m_rows in sorted(group_rows(rows, ("method",)).items()):
        seeds = group_rows(m_rows, ("seed",))
        length = min(len(s) for s in seeds.values())
        steps = np.mean([[r["env_steps"] for r in s[:length]] for s in seeds.values()], axis=0)
        values = np.mean([[r[field] for r in s[:length]] for s in seeds.values()], axis=0)
        ax.plot(steps, values, label=method[0])
    ax.set_xlabel("env steps (training batches only)")
    ax.set_ylabel(f"{field} (mean over seeds)")
    ax.set_title(task)
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def stale_gaps(curves: list[dict]) -> dict[tuple[str, int], list[float]]:
    """{(method, chain length n): per-stage mean |stale gap|} over the T3 final runs."""
    out: dict[tuple[str, int], list[float]] = {}
    for row in curves:
        if row["phase"] != "final" or not row["task"].startswith("t3_chain_n"):
            continue
        gap = row["stale_gap_abs"]
        if gap == "" or math.isnan(gap):
            continue
        n = int(row["task"].removeprefix("t3_chain_n"))
        out.setdefault((row["method"], n), []).append(gap)
    return out


def stale_gap_slopes(curves: list[dict]) -> dict[str, float]:
    """Least-squares slope of log(mean |stale gap|) on log(n), per sequential method."""
    gaps = stale_gaps(curves)
    slopes = {}
    for method in sorted({m for m, _ in gaps}):
        ns = sorted(n for m, n in gaps if m == method)
        if len(ns) >= 2:
            y = [math.log(np.mean(gaps[(method, n)])) for n in ns]
            slopes[method] = float(np.polyfit(np.log(ns), y, 1)[0])
    return slopes


def stale_gap_plot(curves: list[dict], path: Path) -> Path:
    """H3: mean |stale gap| per stage against chain length n, log-log, with fitted slopes."""
    gaps, slopes = stale_gaps(curves), stale_gap_slopes(curves)
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(6, 4))
    for method in sorted({m for m, _ in gaps}):
        ns = sorted(n for m, n in gaps if m == method)
        means = [np.mean(gaps[(method, n)]) for n in ns]
        label = f"{method} (slope {slopes.get(method, float('nan')):.2f})"
        ax.loglog(ns, means, "o-", label=label)
    ax.set_xlabel("chain length n")
    ax.set_ylabel("mean |surrogate(cached) - surrogate(fresh)|")
    ax.set_title("T3: stale gap against chain length")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def regression_events(curves: list[dict], task: str) -> dict[str, list[int]]:
    """{method: per-seed count of updates after which train_success fell >= REGRESSION_DROP}."""
    rows = [r for r in curves if r["task"] == task and r["phase"] == "final"]
    out: dict[str, list[int]] = {}
    for (method, _seed), seq in sorted(group_rows(rows, ("method", "seed")).items()):
        values = [r["train_success"] for r in seq]
        drops = sum(b <= a - REGRESSION_DROP for a, b in itertools.pairwise(values))
        out.setdefault(method, []).append(int(drops))
    return out


def tuning_sensitivity(runs: list[dict], task: str, path: Path) -> Path:
    """Mean tuning ``eval_return`` against lr per method (best eps/beta/delta at each lr)."""
    rows = [r for r in runs if r["phase"] == "tune" and r["task"] == task]
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    for method, m_rows in sorted(group_rows(rows, ("method",)).items()):
        points = group_rows(m_rows, ("lr", "eps", "beta", "delta"))
        best: dict[float, float] = {}
        for (lr, *_), seeds in points.items():
            score = float(np.mean([s["eval_return"] for s in seeds]))
            best[lr] = max(best.get(lr, -math.inf), score)
        lrs = sorted(best)
        ax.semilogx(lrs, [best[lr] for lr in lrs], "o-", label=method[0])
    ax.set_xlabel("learning rate")
    ax.set_ylabel("eval return (tuning-seed mean)")
    ax.set_title(f"{task}: tuning")
    ax.legend(fontsize=8)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def sweep(runs: list[dict], task: str, variable: str, score: str = "eval_return") -> dict:
    """{method: [(value, IQM, lo, hi, seeds)]}: ``score`` against ``variable`` (``group_size``
    or ``delta``) over the final runs (the default point) and the ablation runs of ``task``."""
    rows = [r for r in runs if r["task"] == task and r["phase"] in ("final", "ablation")]
    out: dict[str, list] = {}
    for (method, value), seeds in sorted(group_rows(rows, ("method", variable)).items()):
        stats = seed_summary([r[score] for r in seeds])
        out.setdefault(method, []).append(
            (value, stats["iqm"], stats["iqm_lo"], stats["iqm_hi"], stats["n"])
        )
    return {m: points for m, points in out.items() if len(points) > 1}


def sweep_plot(runs: list[dict], task: str, variable: str, path: Path) -> Path:
    """``sweep`` as lines with 95 % bootstrap intervals of the IQM, log x."""
    plt = _pyplot()
    fig, ax = plt.subplots(figsize=(7, 4))
    values: set[float] = set()
    for i, (method, points) in enumerate(sorted(sweep(runs, task, variable).items())):
        x, centre, lo, hi, _ = map(np.asarray, zip(*points, strict=True))
        values.update(x.tolist())
        x = x * (1 + 0.04 * (i - 4))  # spread the methods apart a little on the log axis
        ax.errorbar(x, centre, yerr=[centre - lo, hi - centre], fmt="o-", label=method, ms=3)
    ax.set_xscale("log")
    ax.set_xticks(sorted(values), [f"{v:g}" for v in sorted(values)])
    ax.minorticks_off()
    ax.set_xlabel(variable)
    ax.set_ylabel("eval return (IQM, 95 % CI over seeds)")
    ax.set_title(f"{task}: {variable} ablation")
    ax.legend(fontsize=7)
    fig.tight_layout()
    fig.savefig(path, dpi=110)
    plt.close(fig)
    return path


def stale_gap_by_delta(curves: list[dict], task: str) -> dict[tuple[str, float], float]:
    """{(method, δ): mean |stale gap| per stage} over the final and ablation runs of ``task``."""
    gaps: dict[tuple[str, float], list[float]] = {}
    for row in curves:
        if row["task"] != task or row["phase"] == "tune":
            continue
        gap = row["stale_gap_abs"]
        if gap != "" and not math.isnan(gap):
            gaps.setdefault((row["method"], row["delta"]), []).append(gap)
    return {k: float(np.mean(v)) for k, v in sorted(gaps.items())}


def write_all(out: Path) -> list[Path]:
    """Every figure the CSVs under ``out`` support, as PNG in ``out``."""
    out = Path(out)
    runs, curves = load_rows(out / "runs.csv"), load_rows(out / "curves.csv")
    paths = []
    for task in sorted({r["task"] for r in runs if r["phase"] == "final"}):
        paths.append(final_scores(runs, task, out / f"final_{task}.png"))
        paths.append(learning_curves(curves, task, out / f"curves_{task}.png"))
    for task in sorted({r["task"] for r in runs if r["phase"] == "tune"}):
        paths.append(tuning_sensitivity(runs, task, out / f"tuning_{task}.png"))
    if stale_gaps(curves):
        paths.append(stale_gap_plot(curves, out / "stale_gap_t3.png"))
    ablations = [r for r in runs if r["phase"] == "ablation"]
    for task, variable in sorted({(r["task"], v) for r in ablations for v in SWEPT}):
        if sweep(runs, task, variable):
            paths.append(sweep_plot(runs, task, variable, out / f"{variable}_{task}.png"))
    return paths


if __name__ == "__main__":
    for p in write_all(Path("results/coordination_gap")):
        print(p)
