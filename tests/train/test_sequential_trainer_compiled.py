"""The experiment's SequentialTrainer on the compiled driver vs the reference driver.

Same trainer, same team, same key: a stage through ``team_tr_stage`` and one through the
Python-driven ``team_tr_stage_reference`` must give the same team and the same stage metrics,
on T0 (seconds) and, marked slow, on a tiny alem drill.
"""

from __future__ import annotations

import jax
import numpy as np
import pytest

from alem_train.experiment import sequential
from alem_train.experiment.envs import matrix_task
from alem_train.experiment.methods import SEQUENTIAL, MethodConfig, init_params
from alem_train.experiment.rollouts import init_actors, team_logits
from alem_train.experiment.sequential import SequentialTrainer, split_team
from alem_train.experiment.tasks import TASKS
from alem_train.matrix_games import games as matrix_games
from tests.train.team_tr_reference import team_tr_stage_reference

CLIMB = matrix_task(matrix_games.climbing_game(3))
EXACT = ("env_steps", "probe_env_steps", "grad_steps", "delta_violations", "early_stops")


def _two_stages(env, cfg, monkeypatch, reference_driver: bool):
    if reference_driver:
        monkeypatch.setattr(sequential, "team_tr_stage", team_tr_stage_reference)
    trainer = SequentialTrainer(env, cfg)
    team = split_team(init_params(jax.random.PRNGKey(0), env, cfg)["actor"])
    start, rows = team, []
    for seed in (1, 2):
        team, metrics = trainer.stage(team, jax.random.PRNGKey(seed), start)
        rows.append(metrics)
    monkeypatch.undo()
    return team, rows


def assert_same_stages(env, cfg, monkeypatch):
    team, rows = _two_stages(env, cfg, monkeypatch, reference_driver=False)
    ref_team, ref_rows = _two_stages(env, cfg, monkeypatch, reference_driver=True)
    for p, q in zip(jax.tree.leaves(team), jax.tree.leaves(ref_team), strict=True):
        np.testing.assert_allclose(np.asarray(p), np.asarray(q), rtol=1e-5, atol=1e-6)
    for row, ref in zip(rows, ref_rows, strict=True):
        assert {k: row[k] for k in EXACT} == {k: ref[k] for k in EXACT}
        for name in ("train_success", "train_return", "kl_exact_max", "stale_gap_abs"):
            assert row[name] == pytest.approx(ref[name], rel=1e-5, abs=1e-6, nan_ok=True), name
    return rows


@pytest.mark.parametrize(
    ("method", "beta"),
    [
        pytest.param("seqtr_stale", 0.0, marks=pytest.mark.slow),  # HAPPO's path less its factor
        ("seqtr_happo", 0.1),
        ("seqtr_fresh", 0.0),
    ],
)
def test_trainer_stages_match_the_reference_driver_on_t0(method, beta, monkeypatch):
    cfg = MethodConfig(
        method, lr=0.05, beta=beta, delta=0.01, epochs=4, groups=4, group_size=4, hidden=16
    )
    rows = assert_same_stages(CLIMB, cfg, monkeypatch)
    assert sum(r["early_stops"] for r in rows) > 0  # the early stop is exercised


@pytest.mark.slow
@pytest.mark.parametrize("method", SEQUENTIAL)
def test_trainer_stages_match_the_reference_driver_on_an_alem_drill(method, monkeypatch):
    cfg = MethodConfig(method, lr=1e-3, epochs=2, groups=1, group_size=2, hidden=8)
    assert_same_stages(TASKS["t3_chain_n2"](), cfg, monkeypatch)


def test_agent_logits_are_the_collecting_policys_logits():
    """The trainer's per-agent hook reads the same policy that ``collect`` samples from."""
    env = matrix_task(matrix_games.climbing_game(3))
    actors = init_actors(jax.random.PRNGKey(4), env, 16, shared=False)
    obs = jax.random.normal(jax.random.PRNGKey(5), (2, 3, 1, 3, env.obs_size))
    mask = jax.random.bernoulli(jax.random.PRNGKey(6), 0.7, (2, 3, 1, 3, env.num_actions))
    team = team_logits(actors, obs, mask, shared=False)
    for agent, actor in enumerate(split_team(actors)):
        own = sequential.agent_logits(actor, (obs, mask), agent)
        np.testing.assert_allclose(own, team[..., agent, :], rtol=1e-6)
