"""The reference agents' summary: rows, intervals over seeds and episodes, the run flags."""

from __future__ import annotations

import json

import numpy as np
import pytest

from alem_train import reference


def _write_eval(root, method, seed, difficulty, scores, worlds=None):
    worlds = worlds or list(range(9999, 9999 + len(scores)))
    episodes = [
        {"seed": w, "metrics": {"Team/achievement_pct": a, "Team/coord_reward_pct_of_max": c}}
        for w, (a, c) in zip(worlds, scores, strict=True)
    ]
    path = reference.eval_path(root, method, seed, difficulty)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"results": {difficulty: {"per_episode": episodes}}}))


def test_a_row_pools_seeds_and_episodes_with_an_interval(tmp_path):
    rng = np.random.default_rng(0)
    table = rng.random((3, 5, 2))  # seeds x episodes x (achievement, coord)
    for seed in range(3):
        _write_eval(tmp_path, "greedy", seed, "hard", table[seed].tolist())
    row = reference.summary_row(tmp_path, "greedy", "hard", (0, 1, 2))
    for i, name in enumerate(("team_achievement", "coord_pct")):
        cell = row[name]
        assert cell["mean"] == pytest.approx(table[..., i].mean())
        assert cell["ci_low"] < cell["mean"] < cell["ci_high"]
    assert row["env_steps"] is None and row["episodes_per_seed"] == 5
    assert "--method greedy --difficulty hard" in row["eval_command"]
    _write_eval(tmp_path, "greedy", 2, "hard", table[2].tolist(), worlds=list(range(5)))
    with pytest.raises(ValueError, match="other worlds"):
        reference.summary_row(tmp_path, "greedy", "hard", (0, 1, 2))


def test_a_reference_run_is_the_preset_at_the_cpu_budget(tmp_path):
    from alem_train import run_ppo

    argv = reference.train_argv(tmp_path, "mappo", 2, 1_048_576, 32)
    config, args = run_ppo.parse_args(argv)
    assert (config.algo, config.network, config.num_worlds) == ("mappo", "mlp", 32)
    assert config.learning_rate == 2e-4 and config.num_minibatches == 8
    assert config.total_env_steps == 1_048_576 and config.num_updates == 512
    assert args.seed == 2 and args.out == tmp_path / "mappo_s2"


def test_a_summary_names_the_evaluations_it_lacks(tmp_path):
    with pytest.raises(SystemExit, match=r"missing: ippo seed 0, mappo seed 0"):
        reference.main(["summary", "--root", str(tmp_path), "--seeds", "0"])


def test_a_finished_run_is_not_trained_again(tmp_path):
    run = reference.run_dir(tmp_path, "ippo", 0)
    run.mkdir()
    (run / "metrics.csv").write_text("update,env_steps\n1,2048\n2,4096\n")
    assert not reference.finished(run, 2)  # no policy kept
    (run / "policy.npz").write_bytes(b"")
    assert reference.finished(run, 2) and not reference.finished(run, 3)


def test_a_summary_of_the_runs_evaluated_so_far(tmp_path, capsys):
    rng = np.random.default_rng(1)
    for difficulty in reference.DIFFICULTIES:
        for seed in range(3):
            for method in reference.BASELINES:
                _write_eval(tmp_path, method, seed, difficulty, rng.random((4, 2)).tolist())
        _write_eval(tmp_path, "ippo", 0, difficulty, rng.random((4, 2)).tolist())
    run = reference.run_dir(tmp_path, "ippo", 0)
    run.mkdir()
    (run / "metrics.csv").write_text("update,env_steps,Team/achievement_pct\n1,2048,0.1\n")
    reference.main(["summary", "--root", str(tmp_path)])
    rows = json.loads((tmp_path / "summary.json").read_text())
    assert {(r["method"], tuple(r["seeds"])) for r in rows} == {
        ("ippo", (0,)),
        ("masked_random", (0, 1, 2)),
        ("greedy", (0, 1, 2)),
    }
    assert len(rows) == 9 and (tmp_path / "curves.png").exists()
    printed = capsys.readouterr().out
    assert "mappo seed 0" in printed and "| easy | ippo | 0 | 2,048 |" in printed
