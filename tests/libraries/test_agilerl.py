"""AgileRL's IPPO trained over the ParallelEnv, masks read from the infos
(docs/libraries/agilerl.md). AgileRL pins pettingzoo<1.27 and tensordict<0.14, so it lives in a
virtual environment of its own (``pip install -e ".[agilerl]"``); this test runs there and skips
elsewhere."""

from __future__ import annotations

import math

import pytest

pytest.importorskip("agilerl", reason='agilerl is not installed (its own venv: ".[agilerl]")')

import numpy as np
import torch
from agilerl.algorithms import IPPO

from .conftest import run_snippet

pytestmark = pytest.mark.torch  # CI's second stage selects it (.ci/run)


def _parameters(agent) -> list[torch.Tensor]:
    return [p.detach().clone() for actor in agent.actors.values() for p in actor.parameters()]


@pytest.mark.slow
def test_the_docs_ippo_snippet_trains_and_takes_no_illegal_action(monkeypatch):
    """The snippet with ``strict_actions=True`` added to its env (an illegal action raises):
    every ``learn()`` call returns finite losses and changes the policy's weights."""
    import alem_pz

    strict = alem_pz.parallel_env
    monkeypatch.setattr(alem_pz, "parallel_env", lambda **kw: strict(strict_actions=True, **kw))
    learn, updates = IPPO.learn, []

    def checked_learn(agent, experiences):
        before = _parameters(agent)
        losses = learn(agent, experiences)
        moved = any(not torch.equal(a, b) for a, b in zip(before, _parameters(agent), strict=True))
        updates.append((losses, moved))
        return losses

    monkeypatch.setattr(IPPO, "learn", checked_learn)
    scope = run_snippet("agilerl.md", max_steps=10)
    assert scope["env"].strict_actions
    assert len(updates) == 3
    for losses, moved in updates:
        assert losses and all(math.isfinite(v) for v in losses.values()), losses
        assert moved, "learn() left the policy unchanged"
    assert isinstance(scope["masks_as_lists"](scope["infos"])["agent_0"]["action_mask"], list)
    assert np.asarray(scope["infos"]["agent_0"]["action_mask"]).dtype == np.int8
