"""KL divergences between policies (docs/training.md#objectives 4.2, items 5-6).

Sample estimators of KL(p || ref) from one action sampled from p, given ``logp = log p(a)`` and
``logp_ref = log ref(a)``, following Schulman's k1/k2/k3 naming:

- k1 = log p - log ref: unbiased, can be negative, high variance.
- k2 = (log p - log ref)^2 / 2: biased, never negative.
- k3 = ref/p - log(ref/p) - 1: unbiased, never negative (GRPO's KL term and verl's
  ``low_var_kl``, which additionally clamps it to [-10, 10]; pass ``clamp=10.0`` for that).

``kl_exact`` needs full logits (discrete actions) and no estimator; TeamTR-style monitoring uses it.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

import jax
import jax.numpy as jnp
from jax import Array

Direction = Literal["forward", "reverse"]


def kl_k1(logp: Array, logp_ref: Array) -> Array:
    """Per-sample k1 estimate of KL(p || ref): log p - log ref."""
    return logp - logp_ref


def kl_k2(logp: Array, logp_ref: Array) -> Array:
    """Per-sample k2 estimate of KL(p || ref): (log p - log ref)^2 / 2."""
    return 0.5 * jnp.square(logp - logp_ref)


@partial(jax.jit, static_argnames=("clamp",))
def kl_k3(logp: Array, logp_ref: Array, clamp: float | None = None) -> Array:
    """Per-sample k3 estimate of KL(p || ref): exp(log ref - log p) - (log ref - log p) - 1.

    ``clamp``, if given, clips the result to [-clamp, clamp] (verl uses 10); the default leaves
    it unclamped so the estimator stays unbiased.
    """
    log_ratio = logp_ref - logp
    value = jnp.expm1(log_ratio) - log_ratio
    return value if clamp is None else jnp.clip(value, -clamp, clamp)


@partial(jax.jit, static_argnames=("direction",))
def kl_exact(logits_p: Array, logits_q: Array, direction: Direction = "forward") -> Array:
    """Exact KL between two categoricals given by logits over the last axis.

    ``direction="forward"`` gives KL(p || q) = sum_a p_a (log p_a - log q_a); ``"reverse"`` gives
    KL(q || p). Logits need not be normalised. Returns the input shape without its last axis.
    """
    if direction not in ("forward", "reverse"):
        raise ValueError(f"direction must be 'forward' or 'reverse', got {direction!r}")
    if jnp.shape(logits_p) != jnp.shape(logits_q):
        raise ValueError(
            f"logits_p {jnp.shape(logits_p)} and logits_q {jnp.shape(logits_q)} must match"
        )
    if direction == "reverse":
        logits_p, logits_q = logits_q, logits_p
    log_p = jax.nn.log_softmax(logits_p, axis=-1)
    log_q = jax.nn.log_softmax(logits_q, axis=-1)
    # p_a = 0 terms contribute 0 even where log q_a is -inf (masked actions); the inner where
    # keeps their NaN out of the gradient too.
    support = log_p > -jnp.inf
    diff = jnp.where(support, log_p - log_q, 0.0)
    terms = jnp.where(support, jnp.exp(log_p) * diff, 0.0)
    return jnp.sum(terms, axis=-1)
