"""Plot helpers (alem_pz.evaluation.plots) and ``alem-evaluate --plot``."""

from __future__ import annotations

import pytest

pytest.importorskip("matplotlib")
from matplotlib.container import ErrorbarContainer

from alem_pz.evaluation import cli as ev
from alem_pz.evaluation import plots


def _summary(policy: str, mean: float) -> dict:
    """A hand-made runner summary: every plotted key at ``mean`` with a +-0.05 interval."""
    stats = {"mean": mean, "ci_low": mean - 0.05, "ci_high": mean + 0.05}
    keys = (*plots.HEADLINE_KEYS, *plots.CATEGORY_KEYS)
    result = {"episodes": 4, "metrics": dict.fromkeys(keys, stats)}
    return {"protocol": {"policy": policy}, "results": {"hard": result, "easy": result}}


def test_bars_are_percent_means_with_the_bootstrap_whiskers():
    fig = plots.comparison_figure({"a": _summary("a", 0.2), "b": _summary("b", 0.4)})
    panels = [ax for ax in fig.axes if ax.get_visible()]
    assert len(panels) == len(plots.HEADLINE_KEYS) + len(plots.CATEGORY_KEYS)
    first = panels[0]
    assert [t.get_text() for t in first.get_xticklabels()] == ["easy", "hard"]  # protocol order
    heights = sorted(round(p.get_height(), 6) for p in first.patches)
    assert heights == [20.0, 20.0, 40.0, 40.0]
    errorbars = [c for c in first.containers if isinstance(c, ErrorbarContainer)]
    whiskers = errorbars[0].lines[2][0].get_segments()
    assert [round(s[1][1] - s[0][1], 6) for s in whiskers] == [10.0, 10.0]


def test_one_summary_is_named_by_its_policy_and_bad_input_is_named():
    fig = plots.comparison_figure(_summary("greedy", 0.1))
    assert fig.axes[0].get_legend_handles_labels()[1] == ["greedy"]
    with pytest.raises(ValueError, match="'x'"):
        plots.comparison_figure({"x": {"protocol": {}}})


def test_command_line_plot_writes_a_png(tmp_path):
    from PIL import Image

    png, out = tmp_path / "scores.png", tmp_path / "scores.json"
    argv = ["--policy", "random", "--episodes", "1", "--max-steps", "5", "--difficulties"]
    argv += ["easy,hard", "--map-size", "16", "--num-levels", "1", "--resamples", "50"]
    assert ev.main([*argv, "--no-progress", "--out", str(out), "--plot", str(png)]) == 0
    with Image.open(png) as image:
        image.verify()
        assert image.format == "PNG" and image.size[0] > 600 and image.size[1] > 400
