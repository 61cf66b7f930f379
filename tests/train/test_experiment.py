"""The coordination-gap experiment's machinery on T0 (seconds): rollouts, methods, runner, stats."""

from __future__ import annotations

import csv

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_train.experiment import run as runner
from alem_train.experiment.envs import matrix_task
from alem_train.experiment.methods import METHODS, MethodConfig
from alem_train.experiment.report import summary_rows
from alem_train.experiment.rollouts import collect, init_actors
from alem_train.experiment.stats import iqm, seed_summary
from alem_train.experiment.tasks import TASKS
from alem_train.experiment.train import train_run
from alem_train.matrix_games import games as matrix_games

CLIMB = matrix_task(matrix_games.climbing_game(3))
SMALL = {"groups": 4, "group_size": 4, "epochs": 2, "hidden": 16}


def test_group_rollouts_pay_the_joint_payoff_of_the_sampled_actions():
    actors = init_actors(jax.random.PRNGKey(0), CLIMB, 8, shared=False)
    batch = jax.jit(collect, static_argnums=(0, 2, 4, 5))(
        CLIMB, actors, False, jax.random.PRNGKey(1), 5, 3
    )
    assert batch.actions.shape == (5, 3, 1, 3) and batch.obs.shape == (5, 3, 1, 3, 3)
    payoff = matrix_games.joint_payoff(matrix_games.climbing_game(3), batch.actions[:, :, 0])
    np.testing.assert_allclose(batch.returns, payoff, rtol=1e-6)
    assert bool(batch.valid.all()) and bool(batch.act.all()) and bool(batch.done.all())
    # behaviour log-probs are the actors' own
    assert bool((batch.logp < 0).all()) and bool((batch.logp > -jnp.log(3.0) - 0.5).all())


FAST_METHODS = ("igrpo_separate", "srpo_sqrt", "mappo", "seqtr_stale", "seqtr_fresh")


@pytest.mark.parametrize(
    "method", [m if m in FAST_METHODS else pytest.param(m, marks=pytest.mark.slow) for m in METHODS]
)
def test_every_method_trains_to_its_budget_and_is_deterministic(method):
    cfg = MethodConfig(method, lr=1e-2, **SMALL)
    curve, final = train_run(CLIMB, cfg, seed=3, budget=64)
    again, final_again = train_run(CLIMB, cfg, seed=3, budget=64)
    assert final["env_steps"] >= 64 and final["grad_steps"] > 0
    assert 0.0 <= final["eval_success"] <= 1.0
    assert [r["train_return"] for r in curve] == [r["train_return"] for r in again]
    assert final["eval_return"] == final_again["eval_return"]
    per_update = curve[0]["env_steps"]
    if method == "seqtr_fresh":  # one fresh batch per agent per stage
        assert per_update == 3 * 16 and curve[0]["probe_env_steps"] == 0
    elif method.startswith("seqtr"):  # one training batch, probes counted apart
        assert per_update == 16 and curve[0]["probe_env_steps"] == 2 * 16
    else:
        assert per_update == 16


def test_training_moves_the_policy_toward_a_better_joint_action():
    """Penalty game, 2 agents: from uniform (expected 3.1) IGRPO must learn well above it."""
    env = matrix_task(matrix_games.penalty_game(-10.0, 2))
    uniform = float(matrix_games.expected_return(matrix_games.penalty_game(), jnp.ones((2, 3)) / 3))
    _, final = train_run(env, MethodConfig("igrpo_shared", lr=3e-3, **SMALL), 0, 3000)
    assert final["eval_return"] > uniform + 3.0


def test_runner_skips_finished_runs_and_picks_the_best_grid_point(tmp_path, monkeypatch):
    monkeypatch.setitem(TASKS, "tiny", lambda: CLIMB)
    base = MethodConfig("igrpo_shared", **SMALL)
    for lr in (1e-4, 1e-2):
        cfg = MethodConfig("igrpo_shared", lr=lr, **SMALL)
        assert runner.run_one(tmp_path, "tune", "tiny", cfg, 0, 32)
    assert not runner.run_one(
        tmp_path, "tune", "tiny", base.__class__(**{**base.__dict__, "lr": 1e-2}), 0, 32
    )
    with (tmp_path / "runs.csv").open() as f:
        rows = list(csv.DictReader(f))
    assert len(rows) == 2 and all(r["git_sha"] for r in rows)
    best = runner.best_configs(tmp_path, "tiny", 32)["igrpo_shared"]
    scores = {float(r["lr"]): (float(r["eval_success"]), float(r["eval_return"])) for r in rows}
    assert scores[best.lr] == max(scores.values())


def test_runner_writes_a_tensorboard_run_per_training_run(tmp_path, monkeypatch):
    pytest.importorskip("tensorboardX")
    from alem_train.tensorboard import read_scalars

    monkeypatch.setitem(TASKS, "tiny", lambda: CLIMB)
    cfg = MethodConfig("igrpo_shared", **SMALL)
    assert runner.run_one(tmp_path, "final", "tiny", cfg, 1, 32, runs=tmp_path / "tb")
    (run,) = (tmp_path / "tb").iterdir()
    assert run.name.startswith("tiny__igrpo_shared-final__1__")
    scalars = read_scalars(run)
    with (tmp_path / "runs.csv").open() as f:
        (row,) = list(csv.DictReader(f))
    assert scalars["eval/return"] == [
        (int(row["env_steps"]), pytest.approx(float(row["eval_return"])))
    ]
    steps = [s for s, _ in scalars["charts/episodic_return"]]
    assert steps == sorted(steps) and steps[-1] == int(row["env_steps"])


def test_ablation_varies_group_size_for_all_and_delta_only_for_sequential_methods(tmp_path):
    base = [MethodConfig("igrpo_shared", **SMALL), MethodConfig("seqtr_fresh", **SMALL)]
    both = runner.ablation_configs(base, (2, 16), (0.005, 0.08))
    assert sorted((c.method, c.group_size, c.delta) for c in both) == [
        ("igrpo_shared", 2, 0.02), ("igrpo_shared", 16, 0.02),
        ("seqtr_fresh", 2, 0.005), ("seqtr_fresh", 2, 0.08),
        ("seqtr_fresh", 16, 0.005), ("seqtr_fresh", 16, 0.08),
    ]  # fmt: skip
    only_delta = runner.ablation_configs(base, (), (0.005,))
    assert [(c.method, c.group_size, c.delta) for c in only_delta] == [("seqtr_fresh", 4, 0.005)]
    with pytest.raises(SystemExit, match="needs --group-size"):
        runner.ablation_configs(base, (), ())
    rows = [
        {"phase": "ablation", "task": "t", "method": "m", "group_size": g, "delta": 0.02,
         "seed": s, "eval_success": 0.0, "eval_return": g + s, "env_steps": 1, "grad_steps": 1,
         "probe_env_steps": 0, "env_steps_per_s": 1, "lr": 1e-3, "eps": 0.2, "beta": 0.0}
        for g in (2, 16) for s in (0, 1, 2)
    ]  # fmt: skip
    summary = summary_rows(rows, "ablation")
    assert [(r["group_size"], r["eval_return_n"], r["eval_return_mean"]) for r in summary] == [
        (2, 3, 3.0), (16, 3, 17.0)
    ]  # fmt: skip


def test_iqm_and_bootstrap_intervals():
    assert iqm([1, 2, 3, 4]) == pytest.approx(2.5)
    assert iqm([0, 1, 1, 1, 1, 1, 1, 100]) == pytest.approx(1.0)
    assert iqm([5.0]) == 5.0
    x = np.random.default_rng(0).normal(3.0, 1.0, size=40)
    stats = seed_summary(x)
    assert stats["mean_lo"] < x.mean() < stats["mean_hi"]
    # the 95 % interval of a mean of 40 seeds: about 2 * 1.96 sd / sqrt(40) wide
    width = 2 * 1.96 * x.std() / np.sqrt(40)
    assert stats["mean_hi"] - stats["mean_lo"] == pytest.approx(width, rel=0.15)
    assert stats["n"] == 40 and stats["iqm_lo"] <= stats["iqm"] <= stats["iqm_hi"]


def test_stored_summaries_are_what_the_code_computes_from_the_stored_runs():
    """The docs' result tables are rendered from summary.csv: it must not lag the statistics.
    One task is recomputed (seconds); a stale CSV differs in its IQM or interval columns."""
    from pathlib import Path

    from alem_train.experiment.report import load_rows

    results = Path(__file__).resolve().parents[2] / "results" / "coordination_gap"
    runs = [r for r in load_rows(results / "runs.csv") if r["task"] == "t1_sync_p2"]
    stored = [r for r in load_rows(results / "summary.csv") if r["task"] == "t1_sync_p2"]
    fresh = summary_rows(runs, "final")
    assert len(fresh) == len(stored) >= 3
    for new, old in zip(fresh, stored, strict=True):
        assert set(new) == set(old)
        for key, value in new.items():
            assert value == (pytest.approx(old[key]) if isinstance(value, float) else old[key])


def test_bad_method_config_is_named():
    with pytest.raises(ValueError, match="method must be one of"):
        MethodConfig("ppo")
    with pytest.raises(ValueError, match="group_size must be an int >= 1, got 0"):
        MethodConfig("srpo_sqrt", group_size=0)


@pytest.mark.slow
def test_alem_drill_task_rollouts_mark_sleepers_inactive_and_pay_only_success():
    """T2 through the TaskEnv: sleeping agents are outside the active set; returns are a
    multiple of one agent's achievement weight; groups share their world."""
    env = TASKS["t2_busy_p4"]()
    actors = init_actors(jax.random.PRNGKey(0), env, 8, shared=True)
    batch = jax.jit(collect, static_argnums=(0, 2, 4, 5))(
        env, actors, True, jax.random.PRNGKey(3), 2, 3
    )
    assert batch.obs.shape[:4] == (2, 3, env.horizon, 4)
    assert not bool(batch.act[:, :, 0].all())  # someone starts asleep (busy_prob 0.5)
    only_noop = batch.mask.sum(-1) == 1
    assert bool((batch.act == (~only_noop & batch.valid[..., None])).all())
    per_agent = env.success_return / 2
    assert np.allclose(np.asarray(batch.returns) % per_agent, 0.0)
    np.testing.assert_array_equal(batch.obs[:, 0, 0], batch.obs[:, 1, 0])  # same world per group
