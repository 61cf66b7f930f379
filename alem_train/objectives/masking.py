"""Masks and masked reductions shared by every objective (docs/training.md#objectives 4.1 data
contract).

Shapes: B groups x G rollouts per group x T steps x N agents. ``act`` [B,G,T,N] marks the agents
whose action the env consumed at that step; ``valid`` [B,G,T] marks steps before the episode end.
A member row (b, g, t, i) counts only where ``act & valid``; an event (b, g, t) counts only where
``valid`` and at least one member is active (K_e > 0).

Shape errors are raised here, at trace time, as ``ValueError`` naming the argument and its shape.
"""

from __future__ import annotations

import jax.numpy as jnp
from jax import Array


def check_rank(name: str, x: Array, rank: int) -> None:
    """Raise a clear error unless ``x`` has exactly ``rank`` dimensions."""
    if jnp.ndim(x) != rank:
        raise ValueError(f"{name} must have {rank} dims, got shape {jnp.shape(x)}")


def member_mask(act: Array, valid: Array) -> Array:
    """[B,G,T,N] bool: agent i's action at (b, g, t) is consumed and the step exists."""
    check_rank("act", act, 4)
    check_rank("valid", valid, 3)
    if jnp.shape(act)[:3] != jnp.shape(valid):
        raise ValueError(f"act {jnp.shape(act)} and valid {jnp.shape(valid)} disagree on [B,G,T]")
    return jnp.logical_and(act.astype(bool), valid.astype(bool)[..., None])


def event_sizes(act: Array, valid: Array) -> Array:
    """[B,G,T] int: K_e, the number of active members of each event (0 on invalid steps)."""
    return jnp.sum(member_mask(act, valid), axis=-1)


def masked_sum(x: Array, mask: Array, axis=None) -> Array:
    """Sum of ``x`` where ``mask``; masked-out entries never leak NaN or inf into the sum."""
    return jnp.sum(jnp.where(mask, x, 0.0), axis=axis)


def masked_mean(x: Array, mask: Array, axis=None) -> Array:
    """Mean of ``x`` over ``mask``; 0 where the mask is empty (an empty batch has no signal)."""
    count = jnp.sum(mask, axis=axis)
    total = masked_sum(x, mask, axis=axis)
    return jnp.where(count > 0, total / jnp.maximum(count, 1), 0.0)


def broadcast_to_members(name: str, x: Array, shape: tuple[int, ...]) -> Array:
    """Broadcast a per-rollout [B,G], per-step [B,G,T] or per-member [B,G,T,N] array to ``shape``.

    A [B,G] array gets trailing T and N axes, [B,G,T] a trailing N axis; [B,G,N] is ambiguous
    with [B,G,T] and must be expanded by the caller (see ``broadcast_outcome_adv``).
    """
    rank = jnp.ndim(x)
    if rank not in (2, 3, 4) or jnp.shape(x) != shape[:rank]:
        raise ValueError(
            f"{name} must have shape [B,G], [B,G,T] or [B,G,T,N] = a prefix of {shape}, "
            f"got {jnp.shape(x)}"
        )
    return jnp.broadcast_to(jnp.reshape(x, jnp.shape(x) + (1,) * (4 - rank)), shape)
