"""TensorBoard logs in CleanRL's layout (alem_train.tensorboard, docs/training.md#tensorboard):
a short IPPO run through ``alem_train.run_ppo`` writes an event file that reads back."""

from __future__ import annotations

import csv

import pytest

pytest.importorskip("tensorboardX")

from alem_train import run_ppo
from alem_train.tensorboard import read_scalars, run_name, tag

# ppo_world's TINY as flags, so this run loads its compiled train call from the cache.
TINY = ["--map-size", "16", "--num-levels", "1", "--num-worlds", "4", "--num-steps", "8",
        "--updates-per-call", "2", "--hidden", "16", "--num-minibatches", "2",
        "--update-epochs", "1", "--max-steps", "12", "--total-env-steps", "256"]  # fmt: skip


def test_names_follow_cleanrl():
    assert run_name("alem-hard", "ippo", 3, when=1700000000.9) == "alem-hard__ippo__3__1700000000"
    assert tag("episode_return") == "charts/episodic_return"
    assert tag("actor_loss") == "losses/policy_loss"
    assert tag("approx_kl") == "losses/approx_kl"
    assert tag("Team/achievement_pct") == "Team/achievement_pct"


@pytest.mark.slow  # a whole run_ppo.main run, traced afresh: 29 s warm on 2 cores
def test_short_training_run_writes_scalars_that_read_back(tmp_path):
    runs, out = tmp_path / "runs", tmp_path / "ippo"
    argv = [*TINY, "--algo", "ippo", "--difficulty", "easy", "--seed", "2"]
    assert run_ppo.main([*argv, "--out", str(out), "--runs-dir", str(runs), "--no-progress"]) == 0
    (run,) = runs.iterdir()
    assert run.name.startswith("alem-easy__ippo__2__")
    scalars = read_scalars(run)
    with (out / "metrics.csv").open() as f:
        rows = list(csv.DictReader(f))
    steps = [int(r["env_steps"]) for r in rows]
    assert [s for s, _ in scalars["losses/value_loss"]] == steps
    for name, key in (("losses/value_loss", "value_loss"), ("losses/entropy", "entropy")):
        logged = [v for _, v in scalars[name]]
        assert logged == pytest.approx([float(r[key]) for r in rows], rel=1e-6), name
    assert {"charts/SPS", "losses/policy_loss", "Team/achievement_pct"} <= set(scalars)
    sps = [int(r["env_steps"]) / float(r["seconds"]) for r in rows]
    assert [v for _, v in scalars["charts/SPS"]] == pytest.approx(sps, rel=1e-5)
    assert all(v > 0 for v in sps)
    ended = [float(r["episode_return"]) for r in rows if r["episode_return"] != "nan"]
    assert ended  # 12-step episodes in 64 steps per world: some ended
    assert [v for _, v in scalars["charts/episodic_return"]] == pytest.approx(ended, rel=1e-6)
