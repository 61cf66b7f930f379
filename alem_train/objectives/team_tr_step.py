"""One agent's sub-step of a TeamTR-style stage as one compiled function
(docs/training.md#objectives 4.2, 9).

``agent_substep`` runs in one ``jax.jit`` everything ``team_tr_stage`` does for agent i between
two collections: the group-normalised advantage, the HAPPO factor, up to ``max_epochs``
optimiser steps with the exact-KL early stop at delta inside a ``lax.while_loop``, and the
stale-gap surrogates. Nothing is read back to the host; the log comes back as device scalars,
which the driver converts once per stage.

It computes what the first, Python-driven driver computed (kept as the tests' reference,
``tests/train/team_tr_reference.py``), with fewer forward passes:

- the agent's stage-start logits on its batch serve as its behaviour log-probs (the loss's
  ``logp_old``) and as the KL baseline of every epoch, instead of being recomputed per epoch;
- one forward pass per optimiser step: the newest parameters' logits give that step's KL
  check, the next step's gradient (through their VJP) and, for the kept parameters, the
  surrogate on the training batch and the agent's new log-probs for the HAPPO factor;
- only the agent's own column of the behaviour and reference log-probs is computed, since
  ``seq_tr_agent_loss`` masks every other column out (the other columns hold copies of it).
"""

from __future__ import annotations

from collections import Counter
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
import optax
from jax import Array

from alem_train.objectives.actor_critic import log_prob
from alem_train.objectives.advantages import broadcast_outcome_adv, group_norm_adv
from alem_train.objectives.divergences import kl_exact
from alem_train.objectives.masking import masked_mean, member_mask
from alem_train.objectives.sequential import agent_rows, happo_factor, seq_tr_agent_loss
from alem_train.objectives.team_tr_types import PolicyLogits, Rollout

TRACES: Counter = Counter()
"""Times ``agent_substep`` was traced, per agent: tests check that repeated stages reuse it."""


class LossSpec(NamedTuple):
    """The loss settings that shape the traced computation (part of the jit key)."""

    eps_lo: float
    eps_hi: float
    beta: float
    agg: str
    adv_eps: float
    adv_ddof: int
    adv_singleton: str


class SubStepSpec(NamedTuple):
    """Everything static about one agent's sub-step: ``agent_substep`` compiles once per value."""

    agent: int
    policy_logits: PolicyLogits
    optimizer: optax.GradientTransformation
    loss: LossSpec
    keep_violation: bool  # on_violation == "keep": the step that crossed delta is kept
    happo_max_factor: float


def kl_threshold(delta: float) -> np.float32:
    """The float32 t with ``kl > t`` exactly when ``float(kl) > delta``, for every float32 kl.

    The device compares float32 values; rounding delta to the nearest float32 could round it
    up past a KL the host comparison (in float64) would call a violation, so round down.
    """
    threshold = np.float32(delta)
    if float(threshold) > delta:
        threshold = np.nextafter(threshold, np.float32(-np.inf))
    return threshold


def _columns(spec: SubStepSpec, logits: Array, batch: Rollout) -> Array:
    """[B,G,T,N] log-probs whose every column is the agent's (the loss reads only its own)."""
    logp = log_prob(logits, batch.actions[..., spec.agent])
    return jnp.broadcast_to(logp[..., None], batch.act.shape)


def _advantage(batch: Rollout, s: LossSpec) -> Array:
    adv = group_norm_adv(
        batch.returns, s.adv_eps, "std", ddof=s.adv_ddof, singleton=s.adv_singleton
    )
    return broadcast_outcome_adv(adv, batch.valid, batch.act)


class _Terms(NamedTuple):
    """The constants of the agent's loss on its batch."""

    adv: Array
    logp_old: Array
    logp_ref: Array | None
    correction: Array | None


def _loss(spec, logits, batch, terms: _Terms, beta: float):
    logp_i = log_prob(logits, batch.actions[..., spec.agent])
    logp_new = terms.logp_old.at[..., spec.agent].set(logp_i)
    s = spec.loss
    return seq_tr_agent_loss(
        spec.agent,
        logp_new,
        terms.logp_old,
        terms.adv,
        batch.act,
        batch.valid,
        s.eps_lo,
        s.eps_hi,
        beta,
        terms.logp_ref,
        s.agg,
        terms.correction,
    )


def _visited_kl(spec: SubStepSpec, logits_new: Array, logits_old: Array, batch: Rollout) -> Array:
    """Exact mean KL(pi_new || pi_old) over the agent's active rows of the batch."""
    rows = member_mask(agent_rows(batch.act, spec.agent), batch.valid)[..., spec.agent]
    return masked_mean(kl_exact(logits_new, logits_old), rows)


def _surrogate(spec, logits_new, logits_old, batch, adv) -> Array:
    """The agent's clipped surrogate of new against old logits (no HAPPO factor, no KL)."""
    terms = _Terms(adv, _columns(spec, logits_old, batch), None, None)
    return _loss(spec, logits_new, batch, terms, 0.0)[1]["surrogate"]


class _Epochs(NamedTuple):
    params: Any  # the newest parameters, checked against delta at the next iteration
    opt_state: Any
    kept: Any  # the parameters kept so far
    logits: Array  # their logits on the batch
    kl: Array  # their exact KL to the stage-start policy
    epochs: Array  # optimiser steps kept
    tried: Array  # optimiser steps taken
    stopped: Array  # the newest step crossed delta (the early stop fired)
    done: Array  # stopped, or max_epochs steps taken and checked


def _step_from(spec, params, opt_state, logits, pull, batch, terms):
    """One optimiser step, its gradient pulled back from the loss's gradient in the logits."""

    def loss_of(logits):
        return _loss(spec, logits, batch, terms, spec.loss.beta)

    grad_logits, _ = jax.grad(loss_of, has_aux=True)(logits)
    (grads,) = pull(grad_logits)
    updates, opt_state = spec.optimizer.update(grads, opt_state, params)
    return optax.apply_updates(params, updates), opt_state


def _run_epochs(spec, p_start, batch, terms_of, threshold, max_epochs):
    """Optimiser steps until ``max_epochs`` or the first whose exact KL exceeds delta.

    Each iteration computes the newest parameters' logits once: they give that step's KL
    check and, through their VJP, the next step's gradient (skipped once the loop stops).
    ``terms_of`` builds the loss constants from the stage-start logits.
    """

    def agent_logits(params):
        return spec.policy_logits(params, batch.obs, spec.agent)

    logits_start, pull = jax.vjp(agent_logits, p_start)
    terms = terms_of(logits_start)
    opt_state = spec.optimizer.init(p_start)
    first, opt_state = _step_from(spec, p_start, opt_state, logits_start, pull, batch, terms)

    def iteration(state: _Epochs) -> _Epochs:
        logits, pull = jax.vjp(agent_logits, state.params)
        kl = _visited_kl(spec, logits, logits_start, batch)
        violated = kl > threshold
        accept = jnp.logical_or(~violated, spec.keep_violation)
        go_on = jnp.logical_and(~violated, state.tried < max_epochs)
        params, opt_state = jax.lax.cond(
            go_on,
            lambda: _step_from(spec, state.params, state.opt_state, logits, pull, batch, terms),
            lambda: (state.params, state.opt_state),
        )

        def pick(new, old):
            return jax.tree.map(lambda a, b: jnp.where(accept, a, b), new, old)

        return _Epochs(
            params,
            opt_state,
            pick(state.params, state.kept),
            pick(logits, state.logits),
            jnp.where(accept, kl, state.kl),
            state.epochs + accept.astype(jnp.int32),
            state.tried + go_on.astype(jnp.int32),
            violated,
            ~go_on,
        )

    false = jnp.zeros((), bool)
    start = _Epochs(
        first,
        opt_state,
        p_start,
        logits_start,
        jnp.zeros((), logits_start.dtype),
        jnp.zeros((), jnp.int32),
        jnp.ones((), jnp.int32),
        false,
        false,
    )
    return logits_start, jax.lax.while_loop(lambda s: ~s.done, iteration, start)


@partial(jax.jit, static_argnames=("spec",))
def agent_substep(p_i, batch, other, happo, p_ref, threshold, max_epochs, *, spec: SubStepSpec):
    """Update agent ``spec.agent`` on ``batch``; returns ``(params, logp_now, log)``.

    Args:
        p_i: the agent's parameters at the stage start (its behaviour policy on ``batch``).
        batch: the Rollout it trains on.
        other: a second Rollout for the stale gap (the stage-start batch when ``batch`` is
            fresh, a fresh probe when it is cached), or None.
        happo: None, or ``(logp_now, logp_behaviour, updated)``: [B,G,T,N] log-probs of the
            batch under the current and the collecting team, and the [N] bool mask of agents
            already updated; ``logp_now`` comes back with the agent's new column.
        p_ref: the agent's reference parameters for the k3 term (beta != 0), else None.
        threshold: ``kl_threshold(delta)``; max_epochs: the step limit (both traced).

    The log holds device scalars: ``epochs`` kept, ``stopped`` (the early stop fired), ``kl``
    of the kept parameters, and the clipped surrogates ``surrogate_used`` on ``batch`` and
    ``surrogate_other`` on ``other`` (when given) of the new against the stage-start policy.
    """
    TRACES[spec.agent] += 1
    adv = _advantage(batch, spec.loss)
    logp_ref = None
    if p_ref is not None:
        logp_ref = _columns(spec, spec.policy_logits(p_ref, batch.obs, spec.agent), batch)
    correction = None
    if happo is not None:
        logp_now, logp_behaviour, updated = happo
        correction = happo_factor(
            logp_now, logp_behaviour, batch.act, batch.valid, updated, spec.happo_max_factor
        )

    def terms_of(logits_start):
        return _Terms(adv, _columns(spec, logits_start, batch), logp_ref, correction)

    logits_start, run = _run_epochs(spec, p_i, batch, terms_of, threshold, max_epochs)
    log = {
        "epochs": run.epochs,
        "stopped": run.stopped,
        "kl": run.kl,
        "surrogate_used": _surrogate(spec, run.logits, logits_start, batch, adv),
    }
    if other is not None:
        new_logits = spec.policy_logits(run.kept, other.obs, spec.agent)
        old_logits = spec.policy_logits(p_i, other.obs, spec.agent)
        other_adv = _advantage(other, spec.loss)
        log["surrogate_other"] = _surrogate(spec, new_logits, old_logits, other, other_adv)
    logp_now = None
    if happo is not None:
        new_logp = log_prob(run.logits, batch.actions[..., spec.agent])
        logp_now = happo[0].at[..., spec.agent].set(new_logp)
    return run.kept, logp_now, log


@partial(jax.jit, static_argnames=("policy_logits",))
def team_logp(params: tuple, policy_logits: PolicyLogits, batch: Rollout) -> Array:
    """[B,G,T,N] log-probs of the batch's actions under each agent's parameters."""
    columns = [
        log_prob(policy_logits(p, batch.obs, i), batch.actions[..., i])
        for i, p in enumerate(params)
    ]
    return jnp.stack(columns, axis=-1)


__all__ = ["TRACES", "LossSpec", "SubStepSpec", "agent_substep", "kl_threshold", "team_logp"]
