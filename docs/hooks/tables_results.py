"""Generated tables of results: the coordination-gap experiment's summaries, read from its CSVs,
and the reference agents' rows from their ``summary.json``.

Why: the figures on ``coordination-gap.md`` must be the ones ``write_summary`` computed from the
stored runs, not a copy typed once and left behind when the statistics change. The rows come
from ``results/coordination_gap/summary.csv`` and ``ablation_summary.csv`` at build time.
"""

from __future__ import annotations

import json
from pathlib import Path

from tables_world import md_table

from alem_train import reference
from alem_train.experiment.report import load_rows

RESULTS = Path(__file__).resolve().parents[2] / "results" / "coordination_gap"
REFERENCE = Path(__file__).resolve().parents[2] / "results" / "reference"


def _interval(row: dict, score: str, digits: int) -> str:
    mean, lo, hi = (row[f"{score}_mean{end}"] for end in ("", "_lo", "_hi"))
    return f"{mean:.{digits}f} [{lo:.{digits}f}, {hi:.{digits}f}]"


def _hyper(row: dict) -> str:
    """lr, ε, β and, for the sequential methods (the only ones that read it), δ."""
    values = [row["lr"], row["eps"], row["beta"]]
    if row["method"].startswith("seqtr"):
        values.append(row["delta"])
    return ", ".join(f"{v:g}" for v in values)


def experiment_summary() -> str:
    """One row per (task, method) of the final runs: seeds, mean and IQM of both scores."""
    rows = [
        (
            row["task"],
            row["method"],
            int(row["eval_success_n"]),
            _interval(row, "eval_success", 3),
            f"{row['eval_success_iqm']:.3f}",
            _interval(row, "eval_return", 2),
            f"{row['eval_return_iqm']:.2f}",
            f"{row['grad_steps']:.0f}",
            f"{row['env_steps_per_s']:.0f}",
            _hyper(row),
        )
        for row in load_rows(RESULTS / "summary.csv")
    ]
    headers = (
        "task",
        "method",
        "seeds",
        "success: mean [95 % CI]",
        "success IQM",
        "return: mean [95 % CI]",
        "return IQM",
        "grad steps",
        "env-steps/s",
        "lr, ε, β, δ",
    )
    return md_table(headers, rows)


def experiment_ablation() -> str:
    """One row per (task, method, group size, δ) of the ablation runs."""
    rows = [
        (
            row["task"],
            row["method"],
            f"{row['group_size']:g}",
            f"{row['delta']:g}",
            int(row["eval_return_n"]),
            _interval(row, "eval_success", 3),
            _interval(row, "eval_return", 2),
            f"{row['eval_return_iqm']:.2f}",
            f"{row['grad_steps']:.0f}",
        )
        for row in load_rows(RESULTS / "ablation_summary.csv")
    ]
    headers = (
        "task",
        "method",
        "G",
        "δ",
        "seeds",
        "success: mean [95 % CI]",
        "return: mean [95 % CI]",
        "return IQM",
        "grad steps",
    )
    return md_table(headers, rows)


def reference_agents() -> str:
    """The reference agents' rows (``results/reference/summary.json``), as
    ``python -m alem_train.reference summary`` prints them."""
    rows = json.loads((REFERENCE / "summary.json").read_text())
    return reference.markdown_table(rows)


GENERATORS = {
    "experiment_summary": experiment_summary,
    "experiment_ablation": experiment_ablation,
    "reference_agents": reference_agents,
}
