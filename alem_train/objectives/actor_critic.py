"""MAPPO/IPPO pieces: GAE, the PPO actor loss, the clipped value loss and the entropy bonus.

docs/training.md#objectives 4.2, item 10. The critic itself (centralised for MAPPO: global state or
the concatenated observations plus the agent id; per agent for IPPO) is the caller's network; these
functions only take its values.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import Array

from alem_train.objectives.losses import Aggregation, igrpo_loss
from alem_train.objectives.masking import masked_mean, member_mask


@partial(jax.jit, static_argnames=("time_axis",))
def gae(
    r: Array, v: Array, done: Array, gamma: float, lam: float, time_axis: int = -1
) -> tuple[Array, Array]:
    """Generalised advantage estimation (Schulman et al. 2016) along ``time_axis``.

    Args:
        r: rewards, T steps along ``time_axis``.
        v: values with T + 1 entries along ``time_axis``; the last is the bootstrap value of the
            state after the final step.
        done: same shape as ``r``; ``done[t]`` means the episode ended at step t, so neither the
            value after t nor later advantages flow back into step t.
        gamma, lam: discount and GAE lambda.

    Returns:
        ``(advantages, returns)``, both shaped like ``r``; returns = advantages + v[:T].
    """
    r, done = jnp.moveaxis(r, time_axis, 0), jnp.moveaxis(done, time_axis, 0)
    v = jnp.moveaxis(v, time_axis, 0)
    if v.shape != (r.shape[0] + 1, *r.shape[1:]) or done.shape != r.shape:
        raise ValueError(
            f"v needs T + 1 = {r.shape[0] + 1} steps and done T = {r.shape[0]} along time_axis; "
            f"got r {r.shape}, v {v.shape}, done {done.shape} (time axis first)"
        )
    carry_on = 1.0 - done.astype(r.dtype)
    deltas = r + gamma * v[1:] * carry_on - v[:-1]

    def backward(next_adv, step):
        delta, alive = step
        adv = delta + gamma * lam * alive * next_adv
        return adv, adv

    _, adv = jax.lax.scan(backward, jnp.zeros_like(r[0]), (deltas, carry_on), reverse=True)
    returns = adv + v[:-1]
    return jnp.moveaxis(adv, 0, time_axis), jnp.moveaxis(returns, 0, time_axis)


@jax.jit
def normalise_batch_adv(A: Array, act: Array, valid: Array, eps: float = 1e-8) -> Array:
    """MAPPO's per-batch advantage normalisation over the active rows (ddof 0); 0 elsewhere."""
    mask = member_mask(act, valid)
    mean = masked_mean(A, mask)
    std = jnp.sqrt(masked_mean(jnp.square(A - mean), mask))
    return jnp.where(mask, (A - mean) / (std + eps), 0.0)


@partial(jax.jit, static_argnames=("normalise", "agg"))
def ppo_actor_loss(
    logp_new: Array,
    logp_old: Array,
    A: Array,
    act: Array,
    valid: Array,
    eps: float = 0.2,
    normalise: bool = True,
    agg: Aggregation = "token",
) -> tuple[Array, dict[str, Array]]:
    """PPO actor loss: IGRPO's clipped surrogate on GAE advantages [B,G,T,N], no KL term.

    With ``normalise`` the advantages are normalised over the batch's active rows first.
    """
    adv = normalise_batch_adv(A, act, valid) if normalise else A
    return igrpo_loss(logp_new, logp_old, adv, act, valid, eps, eps, 0.0, None, agg)


@partial(jax.jit, static_argnames=("clip",))
def value_loss(
    v: Array, v_old: Array, ret: Array, clip: float | None, mask: Array | None = None
) -> Array:
    """Half squared value error, pessimistically clipped around ``v_old`` (MAPPO/PPO2 style).

    With ``clip`` = c, the loss is max((v - ret)^2, (v_old + clip(v - v_old, -c, c) - ret)^2) / 2,
    so a value cannot profit from moving more than c from its old estimate; ``None`` turns
    clipping off. Averaged over ``mask`` (everything when None).
    """
    plain = jnp.square(v - ret)
    if clip is not None:
        moved = v_old + jnp.clip(v - v_old, -clip, clip)
        plain = jnp.maximum(plain, jnp.square(moved - ret))
    mask = jnp.ones(jnp.shape(v), dtype=bool) if mask is None else mask
    return 0.5 * masked_mean(plain, mask)


@jax.jit
def log_prob(logits: Array, actions: Array) -> Array:
    """log pi(action) per row: ``logits`` (..., A), ``actions`` (...) int -> (...) float. The
    one gather of the chosen actions' log-probabilities every trainer uses."""
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    return jnp.take_along_axis(log_probs, actions[..., None], axis=-1)[..., 0]


def entropy(logits: Array, mask: Array) -> Array:
    """Mean categorical entropy of ``logits`` [..., A] over ``mask`` [...].

    Subtract ``coef * entropy`` from the loss to get the usual entropy bonus.
    """
    log_p = jax.nn.log_softmax(logits, axis=-1)
    safe = jnp.where(log_p > -jnp.inf, log_p, 0.0)  # masked actions: 0 log 0 = 0, NaN-free grad
    per_row = -jnp.sum(jnp.exp(safe) * safe * (log_p > -jnp.inf), axis=-1)
    return masked_mean(per_row, mask)
