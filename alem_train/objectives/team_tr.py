"""TeamTR-style sequential trust-region stage driver (docs/training.md#objectives 1.5 and 4.2, item
9).

This is **our re-implementation of the algorithm described in the TeamTR paper** (arXiv
2605.15207): agents are updated one after another in an order sigma, each on rollouts of the
*current* (partly updated) team, under a per-agent KL bound delta. TeamTR's released code does
not implement this loop (no delta constraint, no early stop, no shared-context training; see
docs/training.md#objectives 1.4), so nothing here is taken from it and results must not be labelled
as theirs.

One stage, for k = 1..n with agent i = sigma_k:

1. the batch: fresh rollouts of the current team if ``resample`` (n collections per stage), else
   the batch collected once at the stage start (the stale-occupancy pattern);
2. group-normalised outcome advantages (``group_norm_adv`` on the team return);
3. optionally (``happo_correction``) the advantage times HAPPO's factor, the product of the
   already-updated agents' ratios on that batch (stop-grad, clipped). With ``resample=True``
   those agents' ratios are 1 on a fresh batch, so the factor is 1 (and is not computed);
4. up to ``max_epochs`` full-batch optimiser steps on agent i's parameters only; after each, the
   exact mean KL(pi_new || pi_old) over agent i's visited states (active rows) is computed from
   the logits, and the loop stops once it exceeds ``delta``;
5. agent i is frozen for the rest of the stage.

Logged per update (``AgentUpdateLog``): epochs run, whether the early stop fired, the exact KL
and whether it exceeds delta, and the **stale gap**: agent i's (clipped, uncorrected) surrogate
after its update on the stage-start batch minus the same on a batch of the current team. With
``resample=False`` the fresh side needs an extra collection per k > 0, made only when
``settings.probe_fresh`` (those env steps are counted in ``StageLog.collections``).

Steps 2-5 run as one compiled function per agent (``team_tr_step.agent_substep``, the epoch
loop and its early stop in a ``lax.while_loop``); a stage reads nothing back from the device
but what ``collect`` reads and, once at its end, the stage log.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass, field
from typing import Any, Literal

import jax
import numpy as np
import optax
from jax import Array

from alem_train.objectives.team_tr_step import (
    LossSpec,
    SubStepSpec,
    agent_substep,
    kl_threshold,
    team_logp,
)
from alem_train.objectives.team_tr_types import Collect, PolicyLogits, Rollout


@dataclass(frozen=True)
class SeqTRSettings:
    """Everything of a stage besides order, resample, happo_correction, delta and max_epochs."""

    eps_lo: float = 0.2
    eps_hi: float = 0.2
    beta: float = 0.0  # k3 KL weight toward ``reference`` (needs reference params)
    agg: Literal["token", "agent-seq", "event"] = "token"
    adv_eps: float = 1e-6
    adv_ddof: int = 1
    adv_singleton: Literal["zero", "raw"] = "zero"
    happo_max_factor: float = 10.0
    on_violation: Literal["keep", "revert"] = "keep"  # keep or undo the step that crossed delta
    probe_fresh: bool = False  # resample=False only: collect a fresh batch to log the stale gap


@dataclass
class AgentUpdateLog:
    agent: int
    epochs: int  # optimiser steps kept
    early_stopped: bool
    kl_exact: float  # mean KL(pi_new || pi_old) over the agent's visited states of its batch
    delta_violated: bool
    surrogate_cached: float
    surrogate_fresh: float | None  # None when no fresh batch exists (resample=False, no probe)
    stale_gap: float | None


@dataclass
class StageLog:
    collections: int = 0  # rollout collections made, diagnostics included
    updates: list[AgentUpdateLog] = field(default_factory=list)


def _substep_spec(policy_logits, optimizer, s: SeqTRSettings, agent: int) -> SubStepSpec:
    loss = LossSpec(s.eps_lo, s.eps_hi, s.beta, s.agg, s.adv_eps, s.adv_ddof, s.adv_singleton)
    keep = s.on_violation == "keep"
    return SubStepSpec(agent, policy_logits, optimizer, loss, keep, s.happo_max_factor)


def _update_log(k: int, agent: int, out: dict, resample: bool, delta: float) -> AgentUpdateLog:
    """One sub-step's log from its (host) outputs: which surrogate is the cached and which the
    fresh side depends on which batch the agent trained on."""
    on_used = float(out["surrogate_used"])
    on_other = float(out["surrogate_other"]) if "surrogate_other" in out and k > 0 else None
    if resample:  # trained on a fresh batch; the other is the stage-start batch (k > 0)
        on_cached, on_fresh = (on_used if on_other is None else on_other), on_used
    else:  # trained on the stage-start batch; the other is a fresh probe, if any
        on_cached, on_fresh = on_used, (on_used if k == 0 else on_other)
    kl = float(out["kl"])
    return AgentUpdateLog(
        agent=agent,
        epochs=int(out["epochs"]),
        early_stopped=bool(out["stopped"]),
        kl_exact=kl,
        delta_violated=kl > delta,
        surrogate_cached=on_cached,
        surrogate_fresh=on_fresh,
        stale_gap=None if on_fresh is None else on_cached - on_fresh,
    )


def _other_batch(k, resample, probe_fresh, cached, fresh) -> Rollout | None:
    """The second batch of sub-step k for the stale gap: the stage-start batch when training on
    fresh batches, the probe when training on the cached one, None when no fresh batch exists.
    At k = 0 both sides are the stage-start batch; passing it anyway keeps one compiled variant
    per agent (its second surrogate is not logged)."""
    if not (resample or probe_fresh):
        return None
    return cached if resample or k == 0 else fresh


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


def team_tr_stage(
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
    settings: SeqTRSettings = SeqTRSettings(),
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

    def gather(k: int) -> Rollout:
        log.collections += 1
        return collect(tuple(team), keys[k])

    cached, threshold, outputs = gather(0), kl_threshold(delta), []
    happo = None  # (current team's, collecting team's log-probs on the cached batch)
    if happo_correction and not resample:
        behaviour = team_logp(tuple(team), policy_logits, cached)
        happo = (behaviour, behaviour)
    for k, agent in enumerate(order):
        fresh = gather(k) if k > 0 and (resample or settings.probe_fresh) else None
        used = fresh if resample and k > 0 else cached
        other = _other_batch(k, resample, settings.probe_fresh, cached, fresh)
        happo_in = None if happo is None else (*happo, np.isin(np.arange(len(team)), order[:k]))
        team[agent], logp_now, out = agent_substep(
            team[agent],
            used,
            other,
            happo_in,
            reference[agent] if settings.beta != 0.0 else None,
            threshold,
            max_epochs,
            spec=_substep_spec(policy_logits, optimizer, settings, agent),
        )
        happo = None if happo is None else (logp_now, happo[1])
        outputs.append(out)
    outputs = jax.device_get(outputs)  # the stage's one read-back
    log.updates = [
        _update_log(k, agent, out, resample, delta)
        for k, (agent, out) in enumerate(zip(order, outputs, strict=True))
    ]
    return tuple(team), log
