"""BenchMARL's documented pattern over alem (docs/libraries/benchmarl.md): a task from Python,
``Experiment(task=...)`` with MAPPO, masks through ``action_mask_spec``, the score logged."""

from __future__ import annotations

import csv

import pytest

pytest.importorskip("benchmarl", reason="not installed (pip install -e '.[benchmarl]')")

import torch
from torchrl.envs.utils import check_env_specs

from alem_pz.envs.benchmarl import TASKS, AlemTask

from .conftest import run_snippet

pytestmark = pytest.mark.torch  # CI's second stage selects it (.ci/run)

SMALL_TASK = dict(max_steps=8)


def test_the_task_env_passes_torchrl_check_env_specs():
    task = AlemTask.COOP_SMALL.get_task(config=SMALL_TASK)
    env = task.get_env_fun(num_envs=1, continuous_actions=False, seed=0, device="cpu")()
    check_env_specs(env)
    assert task.group_map(env) == {"agent": ["agent_0", "agent_1", "agent_2"]}
    assert set(task.action_mask_spec(env)["agent"].keys()) == {"action_mask"}
    assert set(task.observation_spec(env)["agent"].keys()) == {"observation"}
    assert task.max_steps(env) == 8 and not task.supports_continuous_actions()
    with pytest.raises(ValueError, match="unknown alem task config keys"):
        AlemTask.COOP_SMALL.get_task(config={"map_sise": 8})
    assert AlemTask.COOP.get_task().config == TASKS["COOP"]


def test_a_mappo_experiment_runs_two_iterations_with_masks_and_the_score_logged(
    tmp_path, monkeypatch
):
    monkeypatch.chdir(tmp_path)  # the csv logs go under the working directory
    scope = run_snippet("benchmarl.md", index=0, max_steps=8, small="map_size=16, num_levels=1",
                        ITERATIONS=2, FRAMES=48)  # fmt: skip
    experiment = scope["experiment"]
    assert experiment.n_iters_performed == 2
    # The trained policy, as collection runs it, takes no masked action.
    with torch.no_grad():
        td = experiment.test_env.rollout(20, policy=experiment.policy, break_when_any_done=False)
    action, mask = td.get(("agent", "action")), td.get(("agent", "action_mask"))
    assert mask.gather(-1, action.long().unsqueeze(-1)).all() and not mask.all()
    logged = {p.stem: p for p in tmp_path.rglob("*.csv")}
    score = [name for name in logged if name.startswith("collection_score_")]
    assert score, sorted(logged)
    with logged[score[0]].open() as f:
        values = [float(row[-1]) for row in csv.reader(f)]
    assert values and all(torch.isfinite(torch.tensor(values)))
