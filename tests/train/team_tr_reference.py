"""The TeamTR-style stage driver as it was before it was compiled (reference for the tests).

This is ``alem_train.objectives.team_tr.team_tr_stage`` as of commit e881f57: a Python loop of
small jitted pieces that reads the exact KL back to the host after every epoch. It is kept,
unchanged apart from its name and imports, so ``test_team_tr_compiled.py`` can check that the
compiled driver gives the same parameters and stage log on the same inputs.
"""

from __future__ import annotations

from collections.abc import Sequence
from functools import partial
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax import Array

from alem_train.objectives.advantages import broadcast_outcome_adv, group_norm_adv
from alem_train.objectives.divergences import kl_exact
from alem_train.objectives.masking import masked_mean, member_mask
from alem_train.objectives.sequential import agent_rows, happo_factor, seq_tr_agent_loss
from alem_train.objectives.team_tr import (
    AgentUpdateLog,
    Collect,
    PolicyLogits,
    Rollout,
    SeqTRSettings,
    StageLog,
)


def _logp_of(logits: Array, actions: Array) -> Array:
    log_probs = jax.nn.log_softmax(logits, axis=-1)
    return jnp.take_along_axis(log_probs, actions[..., None], axis=-1)[..., 0]


class _LossSpec(NamedTuple):
    """The settings that shape the traced computation (the jit key; the rest stays host-side)."""

    eps_lo: float
    eps_hi: float
    beta: float
    agg: str
    adv_eps: float
    adv_ddof: int
    adv_singleton: str


def _spec(s: SeqTRSettings, beta: float | None = None) -> _LossSpec:
    return _LossSpec(
        s.eps_lo,
        s.eps_hi,
        s.beta if beta is None else beta,
        s.agg,
        s.adv_eps,
        s.adv_ddof,
        s.adv_singleton,
    )


@partial(jax.jit, static_argnames=("policy_logits",))
def _team_logp(params: Sequence, policy_logits: PolicyLogits, batch: Rollout) -> Array:
    """[B,G,T,N] log-probs of the batch's actions under each agent's parameters."""
    columns = [
        _logp_of(policy_logits(p, batch.obs, i), batch.actions[..., i])
        for i, p in enumerate(params)
    ]
    return jnp.stack(columns, axis=-1)


def _agent_loss(p_i, batch, adv, logp_old, logp_ref, correction, agent, policy_logits, s):
    logp_i = _logp_of(policy_logits(p_i, batch.obs, agent), batch.actions[..., agent])
    logp_new = logp_old.at[..., agent].set(logp_i)
    return seq_tr_agent_loss(
        agent,
        logp_new,
        logp_old,
        adv,
        batch.act,
        batch.valid,
        s.eps_lo,
        s.eps_hi,
        s.beta,
        logp_ref,
        s.agg,
        correction,
    )


@partial(jax.jit, static_argnames=("agent", "policy_logits", "optimizer", "spec"))
def _optimiser_step(
    p_i,
    opt_state,
    batch,
    adv,
    logp_old,
    logp_ref,
    correction,
    *,
    agent,
    policy_logits,
    optimizer,
    spec,
):
    grads, _ = jax.grad(_agent_loss, has_aux=True)(
        p_i, batch, adv, logp_old, logp_ref, correction, agent, policy_logits, spec
    )
    updates, opt_state = optimizer.update(grads, opt_state, p_i)
    return optax.apply_updates(p_i, updates), opt_state


@partial(jax.jit, static_argnames=("agent", "policy_logits"))
def _visited_kl(p_new, p_old, batch, *, agent, policy_logits):
    """Exact mean KL(pi_new || pi_old) over the agent's active rows of the batch."""
    kl = kl_exact(policy_logits(p_new, batch.obs, agent), policy_logits(p_old, batch.obs, agent))
    return masked_mean(kl, member_mask(agent_rows(batch.act, agent), batch.valid)[..., agent])


@partial(jax.jit, static_argnames=("s",))
def _advantage(batch: Rollout, s: _LossSpec) -> Array:
    adv = group_norm_adv(
        batch.returns, s.adv_eps, "std", ddof=s.adv_ddof, singleton=s.adv_singleton
    )
    return broadcast_outcome_adv(adv, batch.valid, batch.act)


@partial(jax.jit, static_argnames=("agent", "policy_logits", "spec"))
def _surrogate(p_new, p_old, batch, *, agent, policy_logits, spec) -> Array:
    """Agent's clipped surrogate of p_new against p_old on ``batch`` (no HAPPO factor, no KL)."""
    logp_i_old = _logp_of(policy_logits(p_old, batch.obs, agent), batch.actions[..., agent])
    logp_old = jnp.broadcast_to(logp_i_old[..., None], batch.act.shape)
    _, metrics = _agent_loss(
        p_new, batch, _advantage(batch, spec), logp_old, None, None, agent, policy_logits, spec
    )
    return metrics["surrogate"]


def _run_epochs(
    p_i,
    batch,
    adv,
    logp_old,
    logp_ref,
    correction,
    agent,
    policy_logits,
    optimizer,
    delta,
    max_epochs,
    s,
):
    """Optimiser steps on one agent until max_epochs or the exact KL exceeds delta."""
    p_start, opt_state = p_i, optimizer.init(p_i)
    kl, epochs, stopped = 0.0, 0, False
    for _ in range(max_epochs):
        candidate, opt_state = _optimiser_step(
            p_i,
            opt_state,
            batch,
            adv,
            logp_old,
            logp_ref,
            correction,
            agent=agent,
            policy_logits=policy_logits,
            optimizer=optimizer,
            spec=_spec(s),
        )
        candidate_kl = float(
            _visited_kl(candidate, p_start, batch, agent=agent, policy_logits=policy_logits)
        )
        if candidate_kl > delta:
            stopped = True
            if s.on_violation == "keep":
                p_i, kl, epochs = candidate, candidate_kl, epochs + 1
            break
        p_i, kl, epochs = candidate, candidate_kl, epochs + 1
    return p_i, kl, epochs, stopped


def _happo(team, done_agents, logp_behaviour, batch, policy_logits, s) -> Array:
    """HAPPO factor of the agents already updated in this stage, on ``batch``."""
    updated = jnp.isin(jnp.arange(len(team)), jnp.asarray(done_agents))
    logp_now = _team_logp(tuple(team), policy_logits, batch)
    return happo_factor(
        logp_now, logp_behaviour, batch.act, batch.valid, updated, s.happo_max_factor
    )


def _stale_surrogates(p_new, p_old, cached, fresh, agent, policy_logits, s):
    """The updated agent's surrogate on the stage-start batch and on a current-team batch."""
    spec = _spec(s, beta=0.0)
    kw = {"agent": agent, "policy_logits": policy_logits, "spec": spec}
    on_cached = float(_surrogate(p_new, p_old, cached, **kw))
    on_fresh = None if fresh is None else float(_surrogate(p_new, p_old, fresh[0], **kw))
    return on_cached, on_fresh


class _Stage(NamedTuple):
    """What stays fixed during one stage."""

    policy_logits: PolicyLogits
    optimizer: optax.GradientTransformation
    delta: float
    max_epochs: int
    settings: SeqTRSettings
    reference: Sequence[Any] | None


def _update_agent(stage: _Stage, team, agent, used, updated, cached, fresh):
    """One sub-step: update ``agent`` on the batch ``used`` = (rollout, its collecting team).

    ``updated`` lists the agents whose HAPPO ratios correct the advantage (empty: no factor);
    ``cached`` and ``fresh`` are the stage-start and current-team batches for the stale gap.
    """
    s, policy_logits = stage.settings, stage.policy_logits
    batch, batch_params = used
    logp_behaviour = _team_logp(tuple(batch_params), policy_logits, batch)
    correction = None
    if len(updated) > 0:
        correction = _happo(team, updated, logp_behaviour, batch, policy_logits, s)
    logp_ref = None
    if s.beta != 0.0:
        logp_ref = _team_logp(tuple(stage.reference), policy_logits, batch)
    new_p, kl, epochs, stopped = _run_epochs(
        team[agent],
        batch,
        _advantage(batch, _spec(s)),
        logp_behaviour,
        logp_ref,
        correction,
        agent,
        policy_logits,
        stage.optimizer,
        stage.delta,
        stage.max_epochs,
        s,
    )
    on_cached, on_fresh = _stale_surrogates(
        new_p, team[agent], cached[0], fresh, agent, policy_logits, s
    )
    entry = AgentUpdateLog(
        agent=agent,
        epochs=epochs,
        early_stopped=stopped,
        kl_exact=kl,
        delta_violated=kl > stage.delta,
        surrogate_cached=on_cached,
        surrogate_fresh=on_fresh,
        stale_gap=None if on_fresh is None else on_cached - on_fresh,
    )
    return new_p, entry


def _check_stage(params, order, delta, max_epochs, settings, reference) -> None:
    n = len(params)
    if sorted(order) != list(range(n)):
        raise ValueError(f"order must be a permutation of range({n}), got {list(order)!r}")
    if not delta > 0:
        raise ValueError(f"delta must be > 0, got {delta!r}")
    if isinstance(max_epochs, bool) or not isinstance(max_epochs, int) or max_epochs < 1:
        raise ValueError(f"max_epochs must be an int >= 1, got {max_epochs!r}")
    if settings.on_violation not in ("keep", "revert"):
        raise ValueError(f"on_violation must be 'keep' or 'revert', got {settings.on_violation!r}")
    if settings.beta != 0.0 and (reference is None or len(reference) != n):
        raise ValueError(f"beta={settings.beta} needs reference params for all {n} agents")


def team_tr_stage_reference(
    params: Sequence[Any],
    order: Sequence[int],
    key: Array,
    *,
    collect: Collect,
    policy_logits: PolicyLogits,
    optimizer: optax.GradientTransformation,
    resample: bool,
    happo_correction: bool,
    delta: float,
    max_epochs: int,
    settings: SeqTRSettings = SeqTRSettings(),  # noqa: B008 (frozen)
    reference: Sequence[Any] | None = None,
) -> tuple[tuple, StageLog]:
    """One sequential stage over agents in ``order`` (see the module docstring for the steps).

    Args:
        params: one parameter pytree per agent; only ``params[order[k]]`` changes at step k.
        order: a permutation of range(n), the update order sigma.
        key: PRNG key; collection k uses the k-th of ``2 n`` split keys.
        collect: makes a Rollout of the given team (called n times per stage with
            ``resample=True``, once otherwise, plus n - 1 probes with ``settings.probe_fresh``).
        policy_logits: one agent's logits at every step of a batch.
        optimizer: an optax transformation, re-initialised for every agent's sub-step.
        resample, happo_correction, delta, max_epochs: as in the module docstring.
        settings: clip, KL weight, aggregation, advantage conventions, violation handling.
        reference: frozen per-agent parameters for the k3 KL term (only when beta != 0).

    Returns:
        The updated team (a tuple) and the stage log.
    """
    _check_stage(params, order, delta, max_epochs, settings, reference)
    team, log = list(params), StageLog()
    keys = jax.random.split(key, 2 * len(team))

    def gather(k: int) -> tuple[Rollout, tuple]:
        log.collections += 1
        snapshot = tuple(team)
        return collect(snapshot, keys[k]), snapshot

    stage = _Stage(policy_logits, optimizer, delta, max_epochs, settings, reference)
    cached = gather(0)
    for k, agent in enumerate(order):
        fresh = cached if k == 0 else None
        if k > 0 and (resample or settings.probe_fresh):
            fresh = gather(k)
        used = fresh if resample else cached
        updated = order[:k] if happo_correction else ()
        team[agent], entry = _update_agent(stage, team, agent, used, updated, cached, fresh)
        log.updates.append(entry)
    return tuple(team), log
