"""Read the experiment's CSVs back and summarise them (no training; the notebook uses this).

``runs.csv`` holds one row per run, ``curves.csv`` one row per update (see ``run.py``).
``write_summary`` writes ``summary.csv``: per (phase, task, method) the number of seeds and the
IQM and mean of ``eval_success`` and ``eval_return`` with 95 % bootstrap intervals; and
``ablation_summary.csv``, the same per (task, method, group size, δ) for the ablation runs.
"""

from __future__ import annotations

import csv
from collections import defaultdict
from pathlib import Path

from alem_train.experiment.stats import seed_summary


def _value(key: str, text: str):
    if text == "" or key in ("phase", "task", "method", "git_sha"):
        return text
    try:
        return float(text)
    except ValueError:
        return text


def load_rows(path: Path) -> list[dict]:
    """Rows of a results CSV with numbers parsed."""
    with Path(path).open() as f:
        return [{k: _value(k, v) for k, v in row.items()} for row in csv.DictReader(f)]


def group_rows(rows: list[dict], keys: tuple[str, ...]) -> dict[tuple, list[dict]]:
    groups: dict[tuple, list[dict]] = defaultdict(list)
    for row in rows:
        groups[tuple(row[k] for k in keys)].append(row)
    return dict(groups)


VARIANT_KEYS = {"ablation": ("group_size", "delta")}
"""What tells a phase's runs of one (task, method) apart besides the seed."""


def summary_rows(runs: list[dict], phase: str = "final") -> list[dict]:
    """One row per (task, method[, variant]) of ``phase`` with IQM/mean and intervals of both
    scores."""
    out = []
    chosen = [r for r in runs if r["phase"] == phase]
    keys = ("task", "method", *VARIANT_KEYS.get(phase, ()))
    for ident, rows in sorted(group_rows(chosen, keys).items()):
        row = {"phase": phase, **dict(zip(keys, ident, strict=True))}
        for score in ("eval_success", "eval_return"):
            stats = seed_summary([r[score] for r in rows])
            row.update({f"{score}_{k}": v for k, v in stats.items()})
        row["env_steps"] = sum(r["env_steps"] for r in rows) / len(rows)
        row["grad_steps"] = sum(r["grad_steps"] for r in rows) / len(rows)
        row["probe_env_steps"] = sum(r["probe_env_steps"] for r in rows) / len(rows)
        row["env_steps_per_s"] = sum(r["env_steps_per_s"] for r in rows) / len(rows)
        row["lr"], row["eps"], row["beta"], row["delta"] = (
            rows[0][k] for k in ("lr", "eps", "beta", "delta")
        )
        out.append(row)
    return out


def _write(path: Path, rows: list[dict]) -> Path:
    with path.open("w", newline="") as f:
        writer = csv.DictWriter(f, fieldnames=list(rows[0]))
        writer.writeheader()
        writer.writerows(rows)
    return path


def write_summary(out: Path) -> Path:
    """``summary.csv`` (the final runs, else the tuning runs) and, where there are ablation
    runs, ``ablation_summary.csv``; returns the first."""
    runs = load_rows(Path(out) / "runs.csv")
    ablations = summary_rows(runs, "ablation")
    if ablations:
        _write(Path(out) / "ablation_summary.csv", ablations)
    return _write(
        Path(out) / "summary.csv", summary_rows(runs, "final") or summary_rows(runs, "tune")
    )


__all__ = ["VARIANT_KEYS", "group_rows", "load_rows", "summary_rows", "write_summary"]
