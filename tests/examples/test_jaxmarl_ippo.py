"""The JaxMARL-style IPPO example: two jitted updates on the small world, no masked action."""

from __future__ import annotations

import importlib.util
import math
from pathlib import Path

import pytest

pytest.importorskip("jaxmarl", reason="JaxMARL is not installed (pip install -e '.[jaxmarl]')")

pytestmark = pytest.mark.jaxmarl  # CI's second stage installs JaxMARL and selects it (.ci/run)

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "jaxmarl_ippo.py"


def test_two_updates_train_with_no_masked_action_sampled(capsys):
    spec = importlib.util.spec_from_file_location("jaxmarl_ippo", SCRIPT)
    example = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(example)
    argv = ["--updates", "2", "--envs", "2", "--steps", "8", "--max-steps", "6"]
    metrics = example.main(argv)
    assert metrics["illegal"] == [0, 0]
    assert sum(metrics["episodes"]) >= 2  # 16 steps of 2 envs with a 6-step horizon
    assert all(math.isfinite(x) for x in metrics["actor_loss"] + metrics["value_loss"])
    assert "2 updates, 32 env steps" in capsys.readouterr().out
