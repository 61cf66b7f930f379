"""The compiled TeamTR-style driver against the Python-driven one it replaced.

``team_tr_reference.team_tr_stage_reference`` is the driver as it was (a Python epoch loop of
small jitted pieces); ``team_tr_stage`` must give the same team and the same stage log on the
same inputs, for the stale, HAPPO and fresh variants, the probes, the reference KL term and
both violation policies, and must not retrace on later stages.
"""

from __future__ import annotations

import jax
import numpy as np
import optax
import pytest

from alem_train.objectives import SeqTRSettings, team_tr_stage
from alem_train.objectives.team_tr_step import TRACES, kl_threshold
from tests.train.climbing import ClimbingCollector, tabular_logits
from tests.train.team_tr_reference import team_tr_stage_reference

ADAM = optax.adam(0.3)  # big steps: the KL crosses delta within a few epochs
RTOL, ATOL = 1e-5, 1e-7

VARIANTS = {
    "stale": dict(resample=False, happo_correction=False, probe_fresh=True),
    "happo": dict(resample=False, happo_correction=True, probe_fresh=True),
    "fresh": dict(resample=True, happo_correction=False, probe_fresh=False),
    "stale-no-probe": dict(resample=False, happo_correction=False, probe_fresh=False),
    "happo-fresh": dict(resample=True, happo_correction=True, probe_fresh=False),
}


def _team(n, seed=0):
    keys = jax.random.split(jax.random.key(seed), n)
    return tuple(0.3 * jax.random.normal(k, (3,)) for k in keys)


def _run(driver, variant, team, *, delta, beta=0.0, on_violation="keep", order=(2, 0, 1)):
    spec = dict(VARIANTS[variant])
    settings = SeqTRSettings(
        adv_ddof=1,
        adv_singleton="zero",
        beta=beta,
        on_violation=on_violation,
        probe_fresh=spec.pop("probe_fresh"),
    )
    reference = tuple(p + 0.5 for p in team) if beta else None
    return driver(
        team,
        order,
        jax.random.key(7),
        collect=ClimbingCollector(len(team), group=16),
        policy_logits=tabular_logits,
        optimizer=ADAM,
        delta=delta,
        max_epochs=6,
        settings=settings,
        reference=reference,
        **spec,
    )


def assert_same_stage(new, old):
    (team, log), (ref_team, ref_log) = new, old
    for p, q in zip(jax.tree.leaves(team), jax.tree.leaves(ref_team), strict=True):
        np.testing.assert_allclose(np.asarray(p), np.asarray(q), rtol=RTOL, atol=ATOL)
    assert log.collections == ref_log.collections
    assert len(log.updates) == len(ref_log.updates)
    for u, r in zip(log.updates, ref_log.updates, strict=True):
        assert (u.agent, u.epochs, u.early_stopped, u.delta_violated) == (
            r.agent,
            r.epochs,
            r.early_stopped,
            r.delta_violated,
        )
        for name in ("kl_exact", "surrogate_cached", "surrogate_fresh", "stale_gap"):
            a, b = getattr(u, name), getattr(r, name)
            assert (a is None) == (b is None), name
            if a is not None:
                assert a == pytest.approx(b, rel=RTOL, abs=1e-6), name


SETTINGS = [(0.05, 0.0, "keep"), (0.05, 0.5, "revert"), (1e9, 0.0, "keep")]
CASES = [(v, *c) for v in ("stale", "happo", "fresh") for c in SETTINGS] + [
    (v, *SETTINGS[0]) for v in ("stale-no-probe", "happo-fresh")
]


@pytest.mark.parametrize(("variant", "delta", "beta", "on_violation"), CASES)
def test_compiled_stage_matches_the_reference_on_the_climbing_game(
    variant, delta, beta, on_violation
):
    team = _team(3)
    kw = dict(delta=delta, beta=beta, on_violation=on_violation)
    new = _run(team_tr_stage, variant, team, **kw)
    old = _run(team_tr_stage_reference, variant, team, **kw)
    assert_same_stage(new, old)
    epochs = [u.epochs for u in new[1].updates]
    if delta < 1:  # the early stop must have fired somewhere, after at least one kept step
        assert any(u.early_stopped for u in new[1].updates), epochs
    else:
        assert epochs == [6, 6, 6]


def test_repeated_stages_reuse_the_compiled_substeps():
    team = _team(3)
    team, _ = _run(team_tr_stage, "happo", team, delta=0.05)
    traced = dict(TRACES)
    for order in ((0, 1, 2), (1, 2, 0)):
        team, _ = _run(team_tr_stage, "happo", team, delta=0.02, order=order)
    assert dict(TRACES) == traced
    assert all(traced.get(agent, 0) >= 1 for agent in range(3))


@pytest.mark.parametrize("delta", [0.02, 0.1, 1e-9, 3.0000001])
def test_kl_threshold_gives_the_host_comparison(delta):
    threshold = kl_threshold(delta)
    below = np.nextafter(np.float32(delta), np.float32(-np.inf))
    above = np.nextafter(np.float32(delta), np.float32(np.inf))
    for kl in (below, np.float32(delta), above):
        assert bool(kl > threshold) == (float(kl) > delta)
