"""AgileRL's IPPO over the ParallelEnv, reading masks from the infos (docs/libraries/agilerl.md).
AgileRL pins pettingzoo<1.27, so it lives in a virtual environment of its own; this test runs
there and skips elsewhere."""

from __future__ import annotations

import pytest

pytest.importorskip(
    "agilerl", reason="agilerl is not installed (it pins pettingzoo<1.27: use its own venv)"
)

import numpy as np

from .conftest import run_snippet

pytestmark = pytest.mark.torch  # CI's second stage selects it (.ci/run)


@pytest.mark.slow
def test_the_docs_ippo_snippet_takes_no_illegal_action():
    """The snippet with ``strict_actions=True`` added to its env: an illegal action raises."""
    import alem_pz

    strict = alem_pz.parallel_env

    def parallel_env(**kwargs):
        return strict(strict_actions=True, **kwargs)

    alem_pz.parallel_env = parallel_env
    try:
        scope = run_snippet("agilerl.md", max_steps=10)
    finally:
        alem_pz.parallel_env = strict
    assert scope["env"].strict_actions
    assert isinstance(scope["masks_as_lists"](scope["infos"])["agent_0"]["action_mask"], list)
    assert np.asarray(scope["infos"]["agent_0"]["action_mask"]).dtype == np.int8
