"""Clipped policy losses: independent GRPO and setwise SRPO (docs/training.md#objectives 4.2, items
7-8).

Both return ``(loss, metrics)``: a scalar to *minimise* and a dict of scalars with at least
``clip_frac`` (share of rows whose clipped branch is binding, so their gradient is 0),
``approx_kl`` (k3 estimate of KL(pi_old || pi_new) from the behaviour samples, r - 1 - log r,
a member-row mean) and ``ratio_mean`` (mean ratio over the rows the loss averages: members for
IGRPO, events for SRPO).

Conventions (they change results, so they are arguments):

- IGRPO ``agg``: "token" averages the surrogate over every active (b, g, t, i) row; "agent-seq"
  averages each agent's rows within its rollout first, then over (rollout, agent) pairs that
  acted at least once (verl's seq-mean-token-mean with one sequence per agent); "event" averages
  each event's members first, then over events with K_e > 0.
- IGRPO's KL term is ``beta`` times the k3 estimate of KL(pi_new || pi_ref), averaged with the
  same ``agg`` as the surrogate.
- SRPO's event log-ratio is the sum of member log-ratios divided by c(K): sqrt(K) ("sqrt", the
  paper), 1 ("sum", the exact joint ratio) or K ("mean"). One clip per event; the loss averages
  over events with K_e > 0 only. Its KL term (off by default) is **our addition**, not the
  paper's: ``beta`` times the member-mean k3 per event, averaged over events.

SRPO's formulas come from a secondary summary of arXiv 2609.08452 (see docs/training.md#objectives
2.1).
"""

from __future__ import annotations

from functools import partial
from typing import Literal

import jax
import jax.numpy as jnp
from jax import Array

from alem_train.objectives.divergences import kl_k3
from alem_train.objectives.masking import (
    broadcast_to_members,
    event_sizes,
    masked_mean,
    masked_sum,
    member_mask,
)

Aggregation = Literal["token", "agent-seq", "event"]
Reduction = Literal["sqrt", "sum", "mean"]
AGGREGATIONS = ("token", "agent-seq", "event")
REDUCTIONS = ("sqrt", "sum", "mean")


def clipped_surrogate(
    ratio: Array, adv: Array, eps_lo: float, eps_hi: float
) -> tuple[Array, Array]:
    """PPO's ``min(r A, clip(r, 1 - eps_lo, 1 + eps_hi) A)`` and where its clip binds.

    The clip binds (zero gradient) exactly when r > 1 + eps_hi with A > 0, or r < 1 - eps_lo
    with A < 0; those rows are flagged in the second output.
    """
    clipped = jnp.clip(ratio, 1.0 - eps_lo, 1.0 + eps_hi)
    surrogate = jnp.minimum(ratio * adv, clipped * adv)
    binding = ((adv > 0) & (ratio > 1.0 + eps_hi)) | ((adv < 0) & (ratio < 1.0 - eps_lo))
    return surrogate, binding


def aggregate(x: Array, mask: Array, agg: Aggregation) -> Array:
    """Average member rows ``x`` [B,G,T,N] over ``mask`` by the IGRPO aggregation ``agg``."""
    if agg == "token":
        return masked_mean(x, mask)
    if agg == "agent-seq":
        per_sequence = masked_mean(x, mask, axis=2)
        return masked_mean(per_sequence, jnp.any(mask, axis=2))
    if agg == "event":
        per_event = masked_mean(x, mask, axis=3)
        return masked_mean(per_event, jnp.any(mask, axis=3))
    raise ValueError(f"agg must be one of {AGGREGATIONS}, got {agg!r}")


def _behaviour_kl(log_ratio: Array, mask: Array) -> Array:
    """k3 estimate of KL(pi_old || pi_new) on behaviour samples: r - 1 - log r, member mean."""
    return masked_mean(jnp.expm1(log_ratio) - log_ratio, mask)


@partial(jax.jit, static_argnames=("beta", "agg"))
def igrpo_loss(
    logp_new: Array,
    logp_old: Array,
    A: Array,
    act: Array,
    valid: Array,
    eps_lo: float = 0.2,
    eps_hi: float = 0.2,
    beta: float = 0.0,
    logp_ref: Array | None = None,
    agg: Aggregation = "token",
) -> tuple[Array, dict[str, Array]]:
    """Independent GRPO: a PPO clip per (t, i) row, each agent with its own ratio.

    Args:
        logp_new: [B,G,T,N] log pi_theta(a | o), differentiable.
        logp_old: [B,G,T,N] behaviour log-probs (treated as constants).
        A: advantages, [B,G], [B,G,T] or [B,G,T,N] (broadcast over the missing trailing axes).
        act: [B,G,T,N] bool active members; valid: [B,G,T] bool existing steps.
        eps_lo, eps_hi: the clip window [1 - eps_lo, 1 + eps_hi] (DAPO-style when unequal).
        beta: weight of the k3 KL to ``logp_ref`` (required when beta != 0). A static float:
            it decides whether the term exists.
        agg: "token", "agent-seq" or "event" (module docstring).
    """
    mask = member_mask(act, valid)
    if jnp.shape(logp_new) != jnp.shape(mask) or jnp.shape(logp_old) != jnp.shape(mask):
        raise ValueError(
            f"logp_new {jnp.shape(logp_new)} and logp_old {jnp.shape(logp_old)} must be "
            f"[B,G,T,N] = {jnp.shape(mask)}"
        )
    if agg not in AGGREGATIONS:
        raise ValueError(f"agg must be one of {AGGREGATIONS}, got {agg!r}")
    adv = broadcast_to_members("A", A, jnp.shape(mask))
    log_ratio = jnp.where(mask, logp_new - logp_old, 0.0)
    ratio = jnp.exp(log_ratio)
    surrogate, binding = clipped_surrogate(ratio, adv, eps_lo, eps_hi)
    objective = aggregate(surrogate, mask, agg)
    metrics = {
        "surrogate": objective,
        "clip_frac": masked_mean(binding, mask),
        "approx_kl": _behaviour_kl(log_ratio, mask),
        "ratio_mean": masked_mean(ratio, mask),
    }
    loss = -objective
    if beta != 0.0:
        kl_ref = aggregate(_ref_k3(logp_new, logp_ref, mask), mask, agg)
        metrics["kl_ref"] = kl_ref
        loss = loss + beta * kl_ref
    return loss, metrics


def _ref_k3(logp_new: Array, logp_ref: Array | None, mask: Array) -> Array:
    if logp_ref is None:
        raise ValueError("beta != 0 needs logp_ref, the frozen reference log-probs [B,G,T,N]")
    if jnp.shape(logp_ref) != jnp.shape(mask):
        raise ValueError(f"logp_ref must be [B,G,T,N] = {jnp.shape(mask)}, got {logp_ref.shape}")
    return jnp.where(mask, kl_k3(logp_new, jnp.where(mask, logp_ref, logp_new)), 0.0)


@partial(jax.jit, static_argnames=("reduction",))
def event_log_ratio(
    logp_new: Array, logp_old: Array, act: Array, valid: Array, reduction: Reduction = "sqrt"
) -> tuple[Array, Array]:
    """SRPO's set log-ratio L_e = (sum of active members' log-ratios) / c(K_e), and K_e.

    c(K) is sqrt(K), 1 or K for ``reduction`` "sqrt", "sum" or "mean". Returns two [B,G,T]
    arrays, L_e (0 where K_e = 0) and K_e.
    """
    if reduction not in REDUCTIONS:
        raise ValueError(f"reduction must be one of {REDUCTIONS}, got {reduction!r}")
    mask = member_mask(act, valid)
    sizes = event_sizes(act, valid)
    summed = masked_sum(logp_new - logp_old, mask, axis=-1)
    safe = jnp.maximum(sizes, 1).astype(summed.dtype)
    norm = {"sqrt": jnp.sqrt(safe), "sum": jnp.ones_like(safe), "mean": safe}[reduction]
    return summed / norm, sizes


@partial(jax.jit, static_argnames=("reduction", "beta"))
def srpo_loss(
    logp_new: Array,
    logp_old: Array,
    A_event: Array,
    act: Array,
    valid: Array,
    eps: float = 0.2,
    reduction: Reduction = "sqrt",
    beta: float = 0.0,
    logp_ref: Array | None = None,
) -> tuple[Array, dict[str, Array]]:
    """Setwise relative policy optimisation: one ratio, one clip, one advantage per event.

    Args:
        logp_new, logp_old: [B,G,T,N] member log-probs (new differentiable, old constant).
        A_event: [B,G] or [B,G,T] event advantages (every member shares its event's scalar).
        act, valid: masks; events with K_e = 0 or invalid steps are ignored entirely.
        eps: symmetric clip of the set ratio exp(L_e) to [1 - eps, 1 + eps].
        reduction: "sqrt" (SRPO), "sum" (exact joint ratio) or "mean".
        beta: weight of a member-mean k3 KL to ``logp_ref`` -- our addition, not the paper's.
    """
    mask = member_mask(act, valid)
    set_log_ratio, sizes = event_log_ratio(logp_new, logp_old, act, valid, reduction)
    events = sizes > 0
    if (
        jnp.ndim(A_event) not in (2, 3)
        or jnp.shape(A_event) != jnp.shape(events)[: jnp.ndim(A_event)]
    ):
        raise ValueError(
            f"A_event must be [B,G] or [B,G,T] = {jnp.shape(events)}, got {jnp.shape(A_event)}"
        )
    adv = broadcast_to_members("A_event", A_event, jnp.shape(mask))[..., 0]
    ratio = jnp.exp(jnp.where(events, set_log_ratio, 0.0))
    surrogate, binding = clipped_surrogate(ratio, adv, eps, eps)
    objective = masked_mean(surrogate, events)
    log_ratio = jnp.where(mask, logp_new - logp_old, 0.0)
    metrics = {
        "surrogate": objective,
        "clip_frac": masked_mean(binding, events),
        "approx_kl": _behaviour_kl(log_ratio, mask),
        "ratio_mean": masked_mean(ratio, events),
        "mean_set_size": masked_mean(sizes.astype(ratio.dtype), events),
    }
    loss = -objective
    if beta != 0.0:
        per_event = masked_mean(_ref_k3(logp_new, logp_ref, mask), mask, axis=-1)
        metrics["kl_ref"] = masked_mean(per_event, events)
        loss = loss + beta * metrics["kl_ref"]
    return loss, metrics
