"""Train one (task, method, hyper-parameters, seed) run to an env-step budget and score it.

Every method is charged for the env steps of the batches it trains on; the sequential methods'
diagnostic probe batches are counted apart (``probe_env_steps``). Optimiser steps are
reported too (docs/training.md#objectives 5.3: equal env steps, gradient steps reported). The curve
has one row per update (a simultaneous update or a sequential stage) with the on-policy success
rate of the batch it trained on; the final score is a separate evaluation on fresh worlds.
"""

from __future__ import annotations

import time

import jax

from alem_train.experiment.envs import TaskEnv
from alem_train.experiment.methods import (
    SEQUENTIAL,
    MethodConfig,
    evaluate,
    init_params,
    make_simultaneous_update,
)
from alem_train.experiment.sequential import SequentialTrainer, split_team, stack_team

EVAL_EPISODES = 512
EVAL_KEY_OFFSET = 1_000_003  # evaluation worlds never share a key with training worlds


def _simultaneous(env: TaskEnv, cfg: MethodConfig, key, budget: int, curve: list) -> dict:
    update, optimizer = make_simultaneous_update(env, cfg)
    k_init, key = jax.random.split(key)
    params = init_params(k_init, env, cfg)
    ref, opt_state = params["actor"], optimizer.init(params)
    steps = grad = 0
    while steps < budget:
        key, k = jax.random.split(key)
        params, opt_state, batch, metrics = update(params, opt_state, ref, k)
        steps += int(batch.valid.sum())
        grad += cfg.epochs
        success = float((batch.returns >= env.success_return - 1e-6).mean())
        row = {k: float(v) for k, v in metrics.items()}
        row.update(env_steps=steps, grad_steps=grad, train_success=success)
        row["train_return"] = float(batch.returns.mean())
        curve.append(row)
    return params["actor"]


def _sequential(env: TaskEnv, cfg: MethodConfig, key, budget: int, curve: list) -> dict:
    trainer = SequentialTrainer(env, cfg)
    k_init, key = jax.random.split(key)
    team = split_team(init_params(k_init, env, cfg)["actor"])
    reference = team
    steps = grad = probes = 0
    while steps < budget:
        key, k = jax.random.split(key)
        team, metrics = trainer.stage(team, k, reference)
        steps += metrics.pop("env_steps")
        grad += metrics.pop("grad_steps")
        probes += metrics.pop("probe_env_steps")
        curve.append({**metrics, "env_steps": steps, "grad_steps": grad, "probe_env_steps": probes})
    return stack_team(team)


def train_run(env: TaskEnv, cfg: MethodConfig, seed: int, budget: int) -> tuple[list, dict]:
    """``(curve rows, final)`` of one run; ``final`` has the evaluation and the totals."""
    key = jax.random.PRNGKey(seed)
    curve: list[dict] = []
    start = time.perf_counter()
    run = _sequential if cfg.method in SEQUENTIAL else _simultaneous
    actors = run(env, cfg, key, budget, curve)
    seconds = time.perf_counter() - start
    eval_key = jax.random.PRNGKey(seed + EVAL_KEY_OFFSET)
    shared = cfg.shared and cfg.method not in SEQUENTIAL
    scores = evaluate(env, actors, shared, eval_key, EVAL_EPISODES)
    last = curve[-1]
    final = {
        "eval_success": float(scores["success"]),
        "eval_return": float(scores["return"]),
        "env_steps": last["env_steps"],
        "grad_steps": last["grad_steps"],
        "probe_env_steps": last.get("probe_env_steps", 0),
        "updates": len(curve),
        "seconds": seconds,
        "env_steps_per_s": last["env_steps"] / seconds,
    }
    return curve, final


__all__ = ["EVAL_EPISODES", "train_run"]
