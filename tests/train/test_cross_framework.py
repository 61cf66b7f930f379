"""JAX objectives against the loop-wise numpy reference on random fixtures (1e-6)."""

from __future__ import annotations

import jax
import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

from alem_train import objectives as jx
from alem_train.objectives import numpy_reference as ref

TOL = {"rtol": 1e-6, "atol": 1e-6}
# Jitted once per shape and static setting, so compilations land in the persistent cache.
igrpo = jax.jit(jx.igrpo_loss, static_argnames=("eps_lo", "eps_hi", "beta", "agg"))
srpo = jax.jit(jx.srpo_loss, static_argnames=("eps", "reduction", "beta"))
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


@settings(max_examples=15, deadline=None)
@given(
    shape=shapes,
    seed=st.integers(0, 2**16),
    ddof=st.sampled_from([0, 1]),
    singleton=st.sampled_from(["zero", "raw"]),
    scale=st.sampled_from(["std", "none"]),
)
def test_advantages_agree(shape, seed, ddof, singleton, scale):
    f = _fixture(shape, seed, 0.6)
    with jax.enable_x64(True):
        got = jx.group_norm_adv(f["R"], 1e-6, scale, ddof=ddof, singleton=singleton)
        np.testing.assert_allclose(
            got, ref.group_norm_adv(f["R"], 1e-6, scale, ddof, singleton), **TOL
        )
        adv = np.asarray(got)
        np.testing.assert_allclose(
            jx.broadcast_outcome_adv(adv, f["valid"], f["act"]),
            ref.broadcast_outcome_adv(adv, f["valid"], f["act"]),
            **TOL,
        )
        np.testing.assert_allclose(
            jx.reward_to_go_norm(f["r"], f["valid"], 1e-6, ddof=ddof, singleton=singleton),
            ref.reward_to_go_norm(f["r"], f["valid"], 1e-6, ddof, singleton),
            **TOL,
        )


@settings(max_examples=10, deadline=None)
@given(shape=shapes, seed=st.integers(0, 2**16))
def test_divergences_agree(shape, seed):
    f = _fixture(shape, seed, 0.6)
    with jax.enable_x64(True):
        for name in ("kl_k1", "kl_k2", "kl_k3"):
            np.testing.assert_allclose(
                getattr(jx, name)(f["logp_new"], f["logp_ref"]),
                getattr(ref, name)(f["logp_new"], f["logp_ref"]),
                **TOL,
            )
        for direction in ("forward", "reverse"):
            np.testing.assert_allclose(
                jx.kl_exact(f["logits"], f["logits_q"], direction),
                ref.kl_exact(f["logits"], f["logits_q"], direction),
                **TOL,
            )


@settings(max_examples=15, deadline=None)
@given(
    shape=shapes,
    seed=st.integers(0, 2**16),
    density=st.floats(0.0, 1.0),
    beta=st.sampled_from([0.0, 0.05]),
)
def test_igrpo_and_srpo_forward_values_agree(shape, seed, density, beta):
    f = _fixture(shape, seed, density)
    adv = np.random.default_rng(seed).normal(size=shape)
    lp = (f["logp_new"], f["logp_old"])
    with jax.enable_x64(True):
        for agg in ("token", "agent-seq", "event"):
            got = igrpo(
                *lp,
                adv,
                f["act"],
                f["valid"],
                eps_lo=0.2,
                eps_hi=0.28,
                beta=beta,
                logp_ref=f["logp_ref"],
                agg=agg,
            )
            want = ref.igrpo_loss(
                *lp, adv, f["act"], f["valid"], 0.2, 0.28, beta, f["logp_ref"], agg
            )
            np.testing.assert_allclose(float(got[0]), want, **TOL)
        for reduction in ("sqrt", "sum", "mean"):
            got = jx.srpo_loss(
                *lp, f["A_event"], f["act"], f["valid"], 0.2, reduction, beta, f["logp_ref"]
            )
            want = ref.srpo_loss(
                *lp, f["A_event"], f["act"], f["valid"], 0.2, reduction, beta, f["logp_ref"]
            )
            np.testing.assert_allclose(float(got[0]), want, **TOL)
