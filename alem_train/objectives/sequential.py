"""Per-agent pieces of sequential (agent-by-agent) trust-region updates (docs/training.md#objectives
4.2, item 9).

``seq_tr_agent_loss`` is IGRPO restricted to one agent's rows; ``happo_factor`` is HAPPO's
joint-action correction (Kuba et al., arXiv 2109.11251): agent i's advantage is multiplied by the
product of the ratios of the agents already updated in this stage, computed on the cached batch.
The stage driver that uses both is ``alem_train.objectives.team_tr``.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import Array

from alem_train.objectives.losses import Aggregation, igrpo_loss
from alem_train.objectives.masking import broadcast_to_members, masked_sum, member_mask


def agent_rows(act: Array, agent: int) -> Array:
    """``act`` with every column but ``agent`` switched off."""
    n = jnp.shape(act)[-1]
    if not 0 <= agent < n:
        raise ValueError(f"agent index must be in [0, {n}), got {agent!r}")
    return jnp.logical_and(act.astype(bool), jnp.arange(n) == agent)


@partial(jax.jit, static_argnames=("agent", "beta", "agg"))
def seq_tr_agent_loss(
    agent: int,
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
    correction: Array | None = None,
) -> tuple[Array, dict[str, Array]]:
    """IGRPO loss on agent ``agent``'s rows only, optionally with a HAPPO advantage factor.

    Args:
        agent: the agent being updated (0-based column of the [B,G,T,N] arrays).
        logp_new, logp_old, A, act, valid, eps_lo, eps_hi, beta, logp_ref, agg: as
            ``igrpo_loss``; other agents' rows are ignored whatever they hold.
        correction: optional [B,G,T] factor (``happo_factor``) multiplying the advantage.
    """
    rows = agent_rows(act, agent)
    adv = broadcast_to_members("A", A, jnp.shape(rows))
    if correction is not None:
        adv = adv * broadcast_to_members("correction", correction, jnp.shape(rows))
    return igrpo_loss(logp_new, logp_old, adv, rows, valid, eps_lo, eps_hi, beta, logp_ref, agg)


@partial(jax.jit, static_argnames=("max_factor",))
def happo_factor(
    logp_now: Array,
    logp_behaviour: Array,
    act: Array,
    valid: Array,
    updated: Array,
    max_factor: float = 10.0,
) -> Array:
    """HAPPO's M factor per event: prod over already-updated active agents j of their ratio.

    Args:
        logp_now: [B,G,T,N] log-probs of the batch's actions under the current team.
        logp_behaviour: [B,G,T,N] log-probs under the team that collected the batch.
        act, valid: masks; inactive members contribute a ratio of 1.
        updated: [N] bool, the agents already updated in this stage.
        max_factor: the factor is clipped to [1 / max_factor, max_factor] so one stale event
            cannot dominate the next agent's step.

    Returns:
        [B,G,T] factor, gradient-stopped.
    """
    if max_factor < 1.0:
        raise ValueError(f"max_factor must be >= 1, got {max_factor!r}")
    mask = jnp.logical_and(member_mask(act, valid), jnp.asarray(updated, dtype=bool))
    log_factor = masked_sum(logp_now - logp_behaviour, mask, axis=-1)
    bound = jnp.log(max_factor)
    return jax.lax.stop_gradient(jnp.exp(jnp.clip(log_factor, -bound, bound)))
