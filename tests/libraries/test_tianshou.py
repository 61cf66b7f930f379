"""Tianshou's ``PettingZooEnv`` over the AEC env with ``mask_in_obs=True`` (docs/libraries/
tianshou.md): masked random agents collect steps with zero illegal actions."""

from __future__ import annotations

import numpy as np
import pytest

pytest.importorskip("tianshou", reason="tianshou is not installed (pip install -e '.[rllibs]')")

from .conftest import run_snippet

pytestmark = pytest.mark.torch  # CI's second stage selects it (.ci/run)


def test_the_docs_snippet_collects_steps_with_no_illegal_action():
    """``strict_actions=True`` in the snippet: one illegal action would raise."""
    scope = run_snippet("tianshou.md", max_steps=10)
    assert scope["result"].n_collected_steps == 1000
    assert scope["result"].n_collected_episodes >= 2 * (1000 // (2 * 10 * 3)) - 2
    buffer = scope["collector"].buffer
    data = buffer[buffer.sample_indices(0)]
    masks = np.asarray(data.obs.mask, bool)
    assert not masks.all()  # Tianshou read alem's mask, not an all-True default
    assert masks[np.arange(len(data.act)), np.asarray(data.act)].all()
    assert "action_mask" in data.info and "score" in data.info  # infos keep the mask
