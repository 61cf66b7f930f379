"""alem_pz.evaluation.report and ``alem-evaluate``'s CSV, ``--compare`` and rliable figures
(docs/evaluation.md#reports)."""

from __future__ import annotations

import csv

import numpy as np
import pytest

from alem_pz.evaluation import cli as ev
from alem_pz.evaluation import report

KEY = report.DEFAULT_METRIC


def _summary(policy: str, per_difficulty: dict[str, list[float]]) -> dict:
    """A hand-made summary whose episodes score ``per_difficulty[d]`` on KEY."""
    results = {}
    for difficulty, values in per_difficulty.items():
        stats = {"mean": float(np.mean(values)), "ci_low": min(values), "ci_high": max(values)}
        episodes = [{"metrics": {KEY: v, "Other/x": 1.0}} for v in values]
        metrics = {KEY: stats, "Other/x": {"mean": 1.0, "ci_low": 1.0, "ci_high": 1.0}}
        results[difficulty] = {"episodes": len(values), "metrics": metrics, "per_episode": episodes}
    return {"protocol": {"policy": policy}, "results": results}


A = _summary("a", {"easy": [0.3, 0.4, 0.5, 0.6], "hard": [0.2, 0.2, 0.2, 0.2]})
B = _summary("b", {"easy": [0.1, 0.2, 0.3, 0.45], "hard": [0.2, 0.2, 0.2, 0.2]})


def test_csv_has_one_row_per_agent_difficulty_and_metric(tmp_path):
    path = report.write_csv({"a": A, "b": B}, tmp_path / "s.csv")
    with path.open() as f:
        rows = list(csv.DictReader(f))
    assert tuple(rows[0]) == report.CSV_COLUMNS
    assert len(rows) == 2 * 2 * 2
    row = next(r for r in rows if (r["agent"], r["difficulty"], r["metric"]) == ("a", "easy", KEY))
    assert float(row["mean"]) == pytest.approx(0.45)
    assert float(row["iqm"]) == pytest.approx(0.45)  # middle two of four: 0.4 and 0.5
    assert row["episodes"] == "4"


def test_compare_gives_the_pairwise_probability_per_difficulty():
    rows = {r["difficulty"]: r for r in report.compare(A, B, reps=200)}
    # easy: of 16 pairs, A wins all but (0.3 vs 0.3 tie: 1/2), (0.3 vs 0.45), (0.4 vs 0.45)
    assert rows["easy"]["p"] == pytest.approx((16 - 2 - 0.5) / 16)
    assert rows["hard"]["p"] == 0.5  # identical episodes
    assert rows["all"]["p"] == pytest.approx((rows["easy"]["p"] + 0.5) / 2)
    assert rows["easy"]["ci_low"] <= rows["easy"]["p"] <= rows["easy"]["ci_high"]


def test_command_line_writes_csv_plots_and_compares(tmp_path, capsys):
    pytest.importorskip("matplotlib")
    from PIL import Image

    argv = ["--policy", "greedy", "--policy", "random", "--episodes", "2", "--max-steps", "5"]
    argv += ["--difficulties", "easy", "--map-size", "16", "--num-levels", "1"]
    argv += ["--resamples", "50", "--no-progress", "--out", str(tmp_path)]
    assert ev.main([*argv, "--plot", str(tmp_path / "cmp.png")]) == 0
    for name in ("eval_greedy.json", "eval_greedy.csv", "eval_random.csv"):
        assert (tmp_path / name).stat().st_size > 0
    for name in ("cmp.png", "cmp_intervals.png", "cmp_profile.png"):
        with Image.open(tmp_path / name) as image:
            image.verify()
            assert image.format == "PNG"
    capsys.readouterr()
    with pytest.raises(ValueError, match="holds 2 summaries"):  # a directory of two: ambiguous
        ev.main(["--compare", str(tmp_path / "eval_greedy.json"), str(tmp_path)])
    pair = [str(tmp_path / "eval_greedy.json"), str(tmp_path / "eval_random.json")]
    assert ev.main(["--compare", *pair]) == 0
    out = capsys.readouterr().out
    assert "P(greedy > random)" in out and "easy" in out
