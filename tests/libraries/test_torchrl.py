"""TorchRL's documented PettingZoo pattern: ``PettingZooWrapper(env=..., use_mask=True)`` over
the ParallelEnv, with no user-written wrapper (docs/libraries/torchrl.md)."""

from __future__ import annotations

import pytest

pytest.importorskip("torchrl", reason="torchrl is not installed (pip install -e '.[rllibs]')")

import torch
from torchrl.envs.libs.pettingzoo import PettingZooWrapper
from torchrl.envs.utils import check_env_specs

import alem_pz

from .conftest import run_snippet, small

pytestmark = pytest.mark.torch  # CI's second stage selects it (.ci/run)

HORIZON = 5


def _env(**overrides):
    return PettingZooWrapper(env=alem_pz.parallel_env(**small(max_steps=HORIZON, **overrides)),
                             use_mask=True)  # fmt: skip


def test_specs_check_and_a_rollout_crosses_episode_ends_respecting_the_mask():
    env = _env()
    check_env_specs(env)
    assert env.observation_spec["agent", "info", "score"].shape[-1] == len(env._env.score_keys)
    torch.manual_seed(0)
    td = env.rollout(3 * HORIZON, break_when_any_done=False)
    assert int(td["next", "done"].sum()) == 3  # three episodes ended and were reset
    action, mask = td["agent", "action"], td["agent", "action_mask"]
    assert mask.gather(-1, action.long().unsqueeze(-1)).all()  # random actions are legal
    assert not mask.all()  # and the mask does forbid something
    score = td["next", "agent", "info", "score"]
    ended = td["next", "done"].squeeze(-1)
    assert score[~ended].abs().sum() == 0 and score[ended].abs().sum() > 0


@pytest.mark.slow
def test_the_docs_mappo_example_trains_for_a_few_iterations():
    scope = run_snippet("torchrl.md", index=1, max_steps=16, ITERATIONS=2, FRAMES=64)
    assert len(scope["losses"]) == 2
    assert all(torch.isfinite(torch.tensor(x)) for x in scope["losses"])


def test_the_docs_smallest_snippet_runs():
    scope = run_snippet("torchrl.md", index=0, max_steps=50)
    assert int(scope["rollout"]["next", "done"].sum()) == 10
