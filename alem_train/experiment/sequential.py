"""The sequential methods of docs/training.md#objectives 5.2 on a ``TaskEnv``, driven by
``team_tr_stage``.

- ``seqtr_stale``: agents updated one by one in a random order, all on the batch collected at
  the stage start (the stale-occupancy pattern), each under the same exact-KL early stop;
- ``seqtr_happo``: the same cached batch, advantage times the already-updated agents' ratios;
- ``seqtr_fresh``: our re-implementation of the TeamTR paper's algorithm (not TeamTR's released
  code): a fresh batch of the current team for every agent (n collections per stage) and an
  exact-KL early stop at delta.

Every stage of the stale variants also collects a fresh probe batch per agent after the first
(``probe_fresh``) so the stale gap can be measured; those probe env steps are diagnostics and
are reported apart from the training budget.
"""

from __future__ import annotations

from functools import partial

import jax
import jax.numpy as jnp
from jax import Array

from alem_train.experiment.envs import TaskEnv
from alem_train.experiment.methods import ADV_DDOF, ADV_EPS, ADV_SINGLETON, MethodConfig
from alem_train.experiment.rollouts import collect
from alem_train.networks import mlp
from alem_train.objectives import Rollout, SeqTRSettings, team_tr_stage


def agent_logits(agent_actor, obs_and_mask, agent: int) -> Array:
    """[B,G,T,A] masked logits of ``agent`` under its own actor (``team_tr_stage``'s hook)."""
    obs, mask = obs_and_mask
    own = obs[..., agent, :]  # sliced first: an id on every agent's row would copy them all
    agent_id = jax.nn.one_hot(agent, obs.shape[-2], dtype=obs.dtype)
    x = jnp.concatenate([own, jnp.broadcast_to(agent_id, (*own.shape[:-1], obs.shape[-2]))], -1)
    return jnp.where(mask[..., agent, :], mlp(agent_actor, x), -jnp.inf)


def split_team(stacked_actors) -> tuple:
    n = jax.tree.leaves(stacked_actors)[0].shape[0]
    return tuple(jax.tree.map(lambda x, i=i: x[i], stacked_actors) for i in range(n))


def stack_team(team) -> list:
    return jax.tree.map(lambda *xs: jnp.stack(xs), *team)


@partial(jax.jit, static_argnames=("env", "groups", "group_size"))
def _collect_separate(env: TaskEnv, actors, key, groups: int, group_size: int):
    return collect(env, actors, False, key, groups, group_size)


class SequentialTrainer:
    """One ``stage`` call = one sequential pass over all agents; counts env and grad steps."""

    def __init__(self, env: TaskEnv, cfg: MethodConfig) -> None:
        self.env, self.cfg = env, cfg
        self.collected: list = []  # per collection (env steps, success, return), on device
        self.settings = SeqTRSettings(
            eps_lo=cfg.eps,
            eps_hi=cfg.eps,
            beta=cfg.beta,
            agg="token",
            adv_eps=ADV_EPS,
            adv_ddof=ADV_DDOF,
            adv_singleton=ADV_SINGLETON,
            probe_fresh=cfg.method != "seqtr_fresh",
        )

    def _collect(self, team, key) -> Rollout:
        cfg, env = self.cfg, self.env
        batch = _collect_separate(env, stack_team(team), key, cfg.groups, cfg.group_size)
        success = (batch.returns >= env.success_return - 1e-6).mean()
        # kept on the device: reading them here would stall the stage at every collection
        self.collected.append((batch.valid.sum(), success, batch.returns.mean()))
        return Rollout(
            (batch.obs, batch.mask), batch.actions, batch.act, batch.valid, batch.returns
        )

    def stage(self, team: tuple, key: Array, reference: tuple | None):
        """``(team, metrics)`` after one stage; metrics hold the training env steps (probes
        excluded), optimiser steps and the stage log's KL and stale-gap figures."""
        cfg, n = self.cfg, len(team)
        k_order, k_stage = jax.random.split(key)
        order = [int(i) for i in jax.random.permutation(k_order, n)]
        self.collected.clear()
        fresh = cfg.method == "seqtr_fresh"
        team, log = team_tr_stage(
            team,
            order,
            k_stage,
            collect=self._collect,
            policy_logits=agent_logits,
            optimizer=cfg.optimizer(),
            resample=fresh,
            happo_correction=cfg.method == "seqtr_happo",
            delta=cfg.delta,
            max_epochs=cfg.epochs,
            settings=self.settings,
            reference=reference if cfg.beta != 0.0 else None,
        )
        collected = [(int(s), float(w), float(r)) for s, w, r in jax.device_get(self.collected)]
        training = collected[: n if fresh else 1]
        gaps = [u.stale_gap for u in log.updates if u.stale_gap is not None and u.agent != order[0]]
        metrics = {
            "env_steps": sum(c[0] for c in training),
            "probe_env_steps": sum(c[0] for c in collected[len(training) :]),
            "grad_steps": sum(u.epochs for u in log.updates),
            "train_success": sum(c[1] for c in training) / len(training),
            "train_return": sum(c[2] for c in training) / len(training),
            "kl_exact_max": max(u.kl_exact for u in log.updates),
            "delta_violations": sum(u.delta_violated for u in log.updates),
            "early_stops": sum(u.early_stopped for u in log.updates),
            "stale_gap_abs": sum(abs(g) for g in gaps) / len(gaps) if gaps else float("nan"),
        }
        return team, metrics


__all__ = ["SequentialTrainer", "agent_logits", "split_team", "stack_team"]
