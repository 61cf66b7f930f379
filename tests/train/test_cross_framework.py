"""JAX objectives against the loop-wise numpy reference on random fixtures (1e-6)."""

from __future__ import annotations

import jax
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from alem_train import objectives as jx
from alem_train.objectives import numpy_reference as ref

TOL = {"rtol": 1e-6, "atol": 1e-6}
AGGREGATIONS = ("token", "agent-seq", "event")
REDUCTIONS = ("sqrt", "sum", "mean")
# A few fixed shapes (a group of one, a single agent, a wider team): every new shape costs JAX
# compilations, while masks, values and conventions vary freely within them.
shapes = st.sampled_from([(1, 1, 2, 2), (2, 3, 2, 1), (2, 4, 3, 3)])


def _fixture(shape, seed, density):
    rng = np.random.default_rng(seed)
    logp_old = rng.normal(size=shape) * 0.4 - 1.0
    return {
        "logp_new": logp_old + rng.normal(size=shape) * 0.3,
        "logp_old": logp_old,
        "logp_ref": logp_old + rng.normal(size=shape) * 0.3,
        "act": rng.random(shape) < density,
        "valid": rng.random(shape[:3]) < 0.85,
        "R": rng.normal(size=shape[:2]) * 3.0,
        "r": rng.normal(size=shape[:3]),
        "A_event": rng.normal(size=shape[:3]),
        "logits": rng.normal(size=(*shape, 4)) * 2.0,
        "logits_q": rng.normal(size=(*shape, 4)) * 2.0,
    }


CONVENTIONS = [
    (scale, ddof, singleton)
    for scale in ("std", "none")
    for ddof in (0, 1)
    for singleton in ("zero", "raw")
]


@jax.jit
def _advantages(f):
    """Every advantage convention at once: one compilation per shape."""
    out = []
    for scale, ddof, singleton in CONVENTIONS:
        adv = jx.group_norm_adv(f["R"], 1e-6, scale, ddof=ddof, singleton=singleton)
        out.append(adv)
        out.append(jx.broadcast_outcome_adv(adv, f["valid"], f["act"]))
        if scale == "std":
            rtg = jx.reward_to_go_norm(f["r"], f["valid"], 1e-6, ddof=ddof, singleton=singleton)
            out.append(rtg)
    return out


@settings(max_examples=10, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16), density=st.floats(0.0, 1.0))
def test_advantages_agree(shape, seed, density):
    f = _fixture(shape, seed, density)
    want = []
    for scale, ddof, singleton in CONVENTIONS:
        adv = ref.group_norm_adv(f["R"], 1e-6, scale, ddof, singleton)
        want += [adv, ref.broadcast_outcome_adv(adv, f["valid"], f["act"])]
        if scale == "std":
            want.append(ref.reward_to_go_norm(f["r"], f["valid"], 1e-6, ddof, singleton))
    with jax.enable_x64(True):
        got = _advantages(f)
    assert len(got) == len(want) == 20
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, **TOL)


@jax.jit
def _divergences(f):
    estimates = [getattr(jx, n)(f["logp_new"], f["logp_ref"]) for n in ("kl_k1", "kl_k2", "kl_k3")]
    exact = [jx.kl_exact(f["logits"], f["logits_q"], d) for d in ("forward", "reverse")]
    return estimates + exact


@settings(max_examples=10, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_divergences_agree(shape, seed):
    f = _fixture(shape, seed, 0.6)
    want = [getattr(ref, n)(f["logp_new"], f["logp_ref"]) for n in ("kl_k1", "kl_k2", "kl_k3")]
    want += [ref.kl_exact(f["logits"], f["logits_q"], d) for d in ("forward", "reverse")]
    with jax.enable_x64(True):
        got = _divergences(f)
    for g, w in zip(got, want, strict=True):
        np.testing.assert_allclose(np.asarray(g), w, **TOL)


def _losses(f, adv, beta):
    """Every IGRPO aggregation, then every SRPO reduction."""
    lp, masks = (f["logp_new"], f["logp_old"]), (f["act"], f["valid"])
    igrpo = [
        jx.igrpo_loss(*lp, adv, *masks, 0.2, 0.28, beta, f["logp_ref"], agg)[0]
        for agg in AGGREGATIONS
    ]
    srpo = [
        jx.srpo_loss(*lp, f["A_event"], *masks, 0.2, reduction, beta, f["logp_ref"])[0]
        for reduction in REDUCTIONS
    ]
    return igrpo + srpo


# One compilation per (shape, beta) for all six losses.
_jitted_losses = jax.jit(_losses, static_argnames=("beta",))


@settings(max_examples=12, deadline=None)
@given(
    shape=shapes,
    seed=st.integers(0, 2**16),
    density=st.floats(0.0, 1.0),
    beta=st.sampled_from([0.0, 0.05]),
)
def test_igrpo_and_srpo_forward_values_agree(shape, seed, density, beta):
    f = _fixture(shape, seed, density)
    adv = np.random.default_rng(seed).normal(size=shape)
    lp, masks = (f["logp_new"], f["logp_old"]), (f["act"], f["valid"])
    want = [
        ref.igrpo_loss(*lp, adv, *masks, 0.2, 0.28, beta, f["logp_ref"], agg)
        for agg in AGGREGATIONS
    ]
    want += [
        ref.srpo_loss(*lp, f["A_event"], *masks, 0.2, reduction, beta, f["logp_ref"])
        for reduction in REDUCTIONS
    ]
    with jax.enable_x64(True):
        got = [float(x) for x in _jitted_losses(f, adv, beta=beta)]
    np.testing.assert_allclose(got, want, **TOL)
