"""Critic-free, group-relative advantages (docs/training.md#objectives 4.2, items 1-4).

A *group* is the G rollouts of one row b that share a reset key, so the group axis is axis 1 of
every array here. Two conventions change results and are therefore parameters without defaults:

- ``ddof``: 0 divides the group variance by G (numpy's default), 1 by G - 1 (torch's and verl's
  Bessel-corrected std).
- ``singleton``: what a group of one sample gets (G = 1; one valid step for reward-to-go):
  ``"zero"`` gives advantage 0 (no baseline is possible, so no signal); ``"raw"`` takes mean 0 and
  std 1 as verl does, so A = R / (1 + eps) under ``scale="std"`` (REINFORCE without a baseline).

``scale="none"`` skips the std division (Dr. GRPO): A = R - mean.
"""

from __future__ import annotations

from functools import partial
from typing import Literal

import jax
import jax.numpy as jnp
from jax import Array

from alem_train.objectives.masking import check_rank, masked_mean, masked_sum, member_mask

Scale = Literal["std", "none"]
Singleton = Literal["zero", "raw"]
SCALES = ("std", "none")
SINGLETONS = ("zero", "raw")


def _check_conventions(scale: str, ddof: int, singleton: str) -> None:
    if scale not in SCALES:
        raise ValueError(f"scale must be one of {SCALES}, got {scale!r}")
    if ddof not in (0, 1):
        raise ValueError(f"ddof must be 0 or 1, got {ddof!r}")
    if singleton not in SINGLETONS:
        raise ValueError(f"singleton must be one of {SINGLETONS}, got {singleton!r}")


def _normalise(x, mean, std, eps, scale, has_spread, singleton):
    """(x - mean) / (std + eps), with the singleton rule where a group has no spread estimate."""
    centred = x - mean
    spread = std + eps if scale == "std" else jnp.ones_like(std)
    normal = centred / jnp.where(has_spread, spread, 1.0)
    fallback = (
        jnp.zeros_like(x) if singleton == "zero" else x / (1.0 + eps if scale == "std" else 1)
    )
    return jnp.where(has_spread, normal, fallback)


@partial(jax.jit, static_argnames=("scale", "ddof", "singleton"))
def group_norm_adv(
    R: Array,
    eps: float = 1e-6,
    scale: Scale = "std",
    *,
    ddof: int,
    singleton: Singleton,
) -> Array:
    """GRPO outcome advantage ``(R - mean_G) / (std_G + eps)``, normalised along axis 1.

    Args:
        R: [B, G, ...] returns; trailing axes (agents, for instance) are normalised separately.
        eps: added to the std; a constant group gives exactly 0.
        scale: "std" (GRPO) or "none" (Dr. GRPO, mean-centred only).
        ddof: 0 or 1, the std's delta degrees of freedom (verl and torch use 1).
        singleton: "zero" or "raw", the rule when G = 1 (see the module docstring).

    Returns:
        An array of R's shape and dtype.
    """
    _check_conventions(scale, ddof, singleton)
    if jnp.ndim(R) < 2:
        raise ValueError(f"R must be [B, G, ...] with a group axis 1, got shape {jnp.shape(R)}")
    group = jnp.shape(R)[1]
    mean = jnp.mean(R, axis=1, keepdims=True)
    std = jnp.std(R, axis=1, keepdims=True, ddof=ddof) if group > 1 else jnp.ones_like(mean)
    has_spread = jnp.asarray(group > 1)
    return _normalise(R, mean, std, eps, scale, has_spread, singleton)


@partial(jax.jit, static_argnames=("scale", "ddof", "singleton"))
def agentwise_group_norm_adv(
    R_i: Array,
    eps: float = 1e-6,
    scale: Scale = "std",
    *,
    ddof: int,
    singleton: Singleton,
) -> Array:
    """Dr. MAS advantage: each agent's own return normalised within its group, per agent.

    Args:
        R_i: [B, G, N] per-agent returns; agent i is normalised by its own mean and std over G.

    Returns:
        [B, G, N] advantages (feed them to ``broadcast_outcome_adv``).
    """
    check_rank("R_i", R_i, 3)
    return group_norm_adv(R_i, eps, scale, ddof=ddof, singleton=singleton)


@jax.jit
def broadcast_outcome_adv(A: Array, valid: Array, act: Array) -> Array:
    """Give every active (t, i) of a rollout that rollout's outcome advantage.

    Args:
        A: [B, G] team advantage, or [B, G, N] per-agent advantage.
        valid: [B, G, T] bool.
        act: [B, G, T, N] bool.

    Returns:
        [B, G, T, N]: A where ``act & valid``, else 0.
    """
    mask = member_mask(act, valid)
    b, g, _, n = jnp.shape(mask)
    if jnp.shape(A) == (b, g):
        per_member = A[:, :, None, None]
    elif jnp.shape(A) == (b, g, n):
        per_member = A[:, :, None, :]
    else:
        raise ValueError(f"A must be [B,G]=({b},{g}) or [B,G,N]=({b},{g},{n}), got {jnp.shape(A)}")
    return jnp.where(mask, per_member, 0.0)


@partial(jax.jit, static_argnames=("ddof", "singleton"))
def reward_to_go_norm(
    r: Array,
    valid: Array,
    eps: float = 1e-6,
    *,
    ddof: int,
    singleton: Singleton,
) -> Array:
    """DeepSeekMath process supervision: normalise step rewards within the group, then sum ahead.

    Every valid step reward of group b (over all its G rollouts and T steps) shares one mean and
    std; the advantage at step t is the sum of the normalised rewards at steps t' >= t of the
    same rollout. Invalid steps get 0 and contribute nothing. A group with a single valid step
    follows ``singleton``.

    Args:
        r: [B, G, T] team step rewards.
        valid: [B, G, T] bool.

    Returns:
        [B, G, T] advantages (broadcast over agents with ``act`` as needed).
    """
    _check_conventions("std", ddof, singleton)
    check_rank("r", r, 3)
    check_rank("valid", valid, 3)
    mask = valid.astype(bool)
    count = jnp.sum(mask, axis=(1, 2), keepdims=True)
    mean = masked_mean(r, mask, axis=(1, 2))[:, None, None]
    sq = masked_sum(jnp.square(r - mean), mask, axis=(1, 2))[:, None, None]
    has_spread = count > 1
    std = jnp.sqrt(sq / jnp.maximum(count - ddof, 1))
    normed = jnp.where(mask, _normalise(r, mean, std, eps, "std", has_spread, singleton), 0.0)
    to_go = jnp.flip(jnp.cumsum(jnp.flip(normed, axis=2), axis=2), axis=2)
    return jnp.where(mask, to_go, 0.0)
