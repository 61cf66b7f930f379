"""Params: the difficulty presets and the α-derived values (docs/rules/difficulty.md#the-presets,
decision 6)."""

from __future__ import annotations

import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.params import Params, alpha_overrides, make_params
from alem_core.rules.difficulty import derived_values


@pytest.mark.parametrize(
    ("difficulty", "efficiency", "window"),
    [("easy", 0.7, (9, 17)), ("medium", 0.4, (5, 10)), ("hard", 0.1, (3, 6))],
)
def test_presets_follow_the_table(difficulty, efficiency, window):
    params = make_params(difficulty)
    assert params.non_specialist_efficiency == pytest.approx(efficiency)
    assert (params.handover_window_min, params.handover_window_max) == window


def test_fixed_and_traced_alpha_derive_the_same_values():
    """The presets (numpy, float64) and a randomised α inside jit (jnp, float32) share one
    formula; over a grid of α they agree to float32 precision and exactly on windows."""
    params = Params(scale_base_difficulty=True)
    for alpha in np.linspace(0.0, 1.0, 101):
        fixed = alpha_overrides(float(alpha), scale_base_difficulty=True)
        traced = derived_values(jnp.float32(alpha), params)
        for name, value in traced.items():
            if name.startswith("handover_window"):
                assert int(value) == fixed[name], (alpha, name)
            else:
                assert float(value) == pytest.approx(fixed[name], abs=2e-4), (alpha, name)


def test_action_labels_name_fixed_give_and_comm_ids():
    from alem_core.constants import GIVE_BASE, action_label, comm_base

    assert action_label(0, 3) == "NOOP" and action_label(GIVE_BASE - 1, 3) == "BUILD_BEACON"
    assert [action_label(GIVE_BASE + k, 3) for k in range(2)] == ["GIVE_SLOT_0", "GIVE_SLOT_1"]
    assert (
        action_label(comm_base(3), 3) == "COMM_0" and action_label(comm_base(4) + 2, 4) == "COMM_2"
    )
    assert action_label(-1, 3) == "action -1"  # an error message about a bad id never raises
