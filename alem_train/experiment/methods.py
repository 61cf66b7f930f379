"""The compared methods of docs/training.md#objectives 5.2, each one update over freshly collected
groups.

Every method uses the same actor (2 x ``hidden`` tanh MLP over obs + agent id), Adam with the
same global-norm clip, the same B x G rollouts per collection and the same number of epochs of
full-batch gradient steps per batch. What differs is only the objective and, for the
sequential methods, the order of updates and which data each agent's update sees.

Conventions fixed here (docs/training.md#objectives 5.6 asks that they be reported):

- outcome advantage: ``group_norm_adv`` over the G rollouts of a world, ``ddof=1`` (as torch
  and verl), group size 1 gives 0 (``singleton="zero"``), ``eps=1e-6``;
- IGRPO aggregation ``"token"`` (mean over active (t, i) rows); SRPO one clip per event
  (b, g, t) with K_e > 0; the KL term (``beta``) is k3 toward the initial actor;
- MAPPO: one value per world step (the team shares one reward), from a critic over every
  agent's observation concatenated (the ``env.state()`` view), GAE gamma 0.99 lambda 0.95,
  advantages normalised over the batch's active rows, value clip 0.2.
"""

from __future__ import annotations

from dataclasses import dataclass, replace
from functools import cache, partial

import jax
import jax.numpy as jnp
import optax
from jax import Array

from alem_train.experiment.envs import TaskEnv
from alem_train.experiment.rollouts import Batch, collect, init_actors, team_logits
from alem_train.networks import init_mlp, mlp
from alem_train.objectives import (
    broadcast_outcome_adv,
    gae,
    group_norm_adv,
    igrpo_loss,
    ppo_actor_loss,
    srpo_loss,
    value_loss,
)
from alem_train.objectives.actor_critic import log_prob

SIMULTANEOUS = ("igrpo_shared", "igrpo_separate", "srpo_sqrt", "srpo_sum", "srpo_mean", "mappo")
SEQUENTIAL = ("seqtr_stale", "seqtr_happo", "seqtr_fresh")
METHODS = SIMULTANEOUS + SEQUENTIAL
ADV_EPS, ADV_DDOF, ADV_SINGLETON = 1e-6, 1, "zero"


@dataclass(frozen=True)
class MethodConfig:
    """One method and its hyper-parameters (the tuning grid varies lr, eps, beta, delta)."""

    method: str
    lr: float = 3e-4
    eps: float = 0.2
    beta: float = 0.0
    delta: float = 0.02
    epochs: int = 4
    groups: int = 8
    group_size: int = 8
    hidden: int = 64
    max_grad_norm: float = 1.0
    gamma: float = 0.99
    lam: float = 0.95
    value_clip: float = 0.2
    value_coef: float = 0.5

    def __post_init__(self) -> None:
        if self.method not in METHODS:
            raise ValueError(f"method must be one of {METHODS}, got {self.method!r}")
        for name in ("lr", "eps", "delta"):
            if not getattr(self, name) > 0:
                raise ValueError(f"{name} must be > 0, got {getattr(self, name)!r}")
        for name in ("epochs", "groups", "group_size", "hidden"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be an int >= 1, got {value!r}")

    @property
    def shared(self) -> bool:
        return self.method in ("igrpo_shared", "srpo_sqrt", "srpo_sum", "srpo_mean", "mappo")

    def optimizer(self) -> optax.GradientTransformation:
        return _optimizer(self.lr, self.max_grad_norm)


@cache
def _optimizer(lr: float, max_grad_norm: float) -> optax.GradientTransformation:
    """One object per setting: jitted steps take the optimiser as a static argument, so a
    fresh object per stage would recompile them every stage."""
    return optax.chain(optax.clip_by_global_norm(max_grad_norm), optax.adam(lr))


def outcome_advantage(returns: Array) -> Array:
    """[B,G] group-normalised team returns with this module's fixed conventions."""
    return group_norm_adv(returns, ADV_EPS, "std", ddof=ADV_DDOF, singleton=ADV_SINGLETON)


def _logp(actors, batch: Batch, shared: bool) -> Array:
    return log_prob(team_logits(actors, batch.obs, batch.mask, shared), batch.actions)


def _grpo_loss(actors, ref, batch: Batch, cfg: MethodConfig):
    logp_new = _logp(actors, batch, cfg.shared)
    logp_ref = None if cfg.beta == 0.0 else jax.lax.stop_gradient(_logp(ref, batch, cfg.shared))
    adv = outcome_advantage(batch.returns)
    if cfg.method.startswith("srpo"):
        reduction = cfg.method.split("_")[1]
        return srpo_loss(
            logp_new,
            batch.logp,
            adv,
            batch.act,
            batch.valid,
            cfg.eps,
            reduction,
            cfg.beta,
            logp_ref,
        )
    rows = broadcast_outcome_adv(adv, batch.valid, batch.act)
    return igrpo_loss(
        logp_new, batch.logp, rows, batch.act, batch.valid, cfg.eps, cfg.eps, cfg.beta, logp_ref
    )


def team_value_input(obs: Array) -> Array:
    """[..., N, D] -> [..., N * D]: every agent's observation, concatenated in agent order."""
    return obs.reshape(*obs.shape[:-2], obs.shape[-2] * obs.shape[-1])


def _mappo_targets(critic, batch: Batch, cfg: MethodConfig):
    v = mlp(critic, team_value_input(batch.obs))[..., 0]  # [B,G,T]
    v_next = jnp.concatenate([v, jnp.zeros_like(v[..., :1])], axis=-1)
    adv, ret = gae(batch.rewards, v_next, batch.done | ~batch.valid, cfg.gamma, cfg.lam)
    return v, adv, ret


def _mappo_loss(params, batch: Batch, targets, cfg: MethodConfig):
    v_old, adv, ret = targets
    logp_new = _logp(params["actor"], batch, True)
    rows = jnp.broadcast_to(adv[..., None], batch.act.shape)
    actor_loss, metrics = ppo_actor_loss(
        logp_new, batch.logp, rows, batch.act, batch.valid, cfg.eps
    )
    v = mlp(params["critic"], team_value_input(batch.obs))[..., 0]
    critic_loss = value_loss(v, v_old, ret, cfg.value_clip, batch.valid)
    return actor_loss + cfg.value_coef * critic_loss, {**metrics, "value_loss": critic_loss}


def init_params(key: Array, env: TaskEnv, cfg: MethodConfig):
    """``{"actor": ..., "critic": ...}`` (MAPPO) or ``{"actor": ...}``."""
    k_actor, k_critic = jax.random.split(key)
    params = {"actor": init_actors(k_actor, env, cfg.hidden, cfg.shared)}
    if cfg.method == "mappo":
        sizes = [env.num_agents * env.obs_size, cfg.hidden, cfg.hidden, 1]
        params["critic"] = init_mlp(k_critic, sizes, 1.0)
    return params


def simultaneous_optimizer(cfg: MethodConfig) -> optax.GradientTransformation:
    """Adam whose learning rate lives in the optimiser state (``inject_hyperparams``), so one
    compiled update serves every learning rate of the tuning grid."""
    adam = optax.inject_hyperparams(optax.adam)(learning_rate=cfg.lr)
    return optax.chain(optax.clip_by_global_norm(cfg.max_grad_norm), adam)


def make_simultaneous_update(env: TaskEnv, cfg: MethodConfig):
    """``(update, optimizer)``: a jitted ``update(params, opt_state, ref_actor, key) ->
    (params, opt_state, batch, metrics)`` that collects B x G rollouts and takes ``epochs``
    full-batch Adam steps, and the optimiser whose ``init`` starts it at ``cfg.lr``. The update
    is compiled once per (env, cfg without lr) and shared by every seed and learning rate."""
    return _compiled_update(env, replace(cfg, lr=1.0)), simultaneous_optimizer(cfg)


@cache
def _compiled_update(env: TaskEnv, cfg: MethodConfig):
    optimizer = simultaneous_optimizer(cfg)  # only its update runs here; the lr is in the state

    def loss(params, ref, batch, targets):
        if cfg.method == "mappo":
            return _mappo_loss(params, batch, targets, cfg)
        return _grpo_loss(params["actor"], ref, batch, cfg)

    @jax.jit
    def update(params, opt_state, ref_actor, key):
        batch = collect(env, params["actor"], cfg.shared, key, cfg.groups, cfg.group_size)
        targets = _mappo_targets(params["critic"], batch, cfg) if cfg.method == "mappo" else None

        def epoch(carry, _):
            params, opt_state = carry
            (_, metrics), grads = jax.value_and_grad(loss, has_aux=True)(
                params, ref_actor, batch, targets
            )
            updates, opt_state = optimizer.update(grads, opt_state, params)
            metrics = {**metrics, "grad_norm": optax.tree.norm(grads)}
            return (optax.apply_updates(params, updates), opt_state), metrics

        (params, opt_state), metrics = jax.lax.scan(epoch, (params, opt_state), None, cfg.epochs)
        return params, opt_state, batch, jax.tree.map(jnp.mean, metrics)

    return update


@partial(jax.jit, static_argnames=("env", "shared", "groups"))
def evaluate(env: TaskEnv, actors, shared: bool, key: Array, groups: int) -> dict[str, Array]:
    """Success rate and mean team return of ``groups`` sampled episodes on fresh worlds."""
    batch = collect(env, actors, shared, key, groups, 1)
    success = batch.returns[:, 0] >= env.success_return - 1e-6
    return {"success": success.mean(), "return": batch.returns.mean()}


__all__ = [
    "METHODS",
    "SEQUENTIAL",
    "SIMULTANEOUS",
    "MethodConfig",
    "evaluate",
    "init_params",
    "make_simultaneous_update",
    "outcome_advantage",
    "team_value_input",
]
