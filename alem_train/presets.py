"""The paper's baselines as ``PPOConfig`` presets: ``python -m alem_train.run_ppo --preset NAME``.

The published reference agents were trained with these settings (IPPO with shared parameters;
MAPPO with the same actor and a recurrent centralised critic):

* network: Dense 128 + tanh, GRU 512, actor head Dense 512 + tanh (both);
* critic: IPPO a Dense 128 + tanh head on the actor's GRU; MAPPO its own Dense 128, GRU 512 and
  Dense 512 on the global state;
* 1,024 worlds (MAPPO 512) x 64-step rollouts; 8 minibatches (whole worlds) x 4 epochs;
* Adam 2e-4 annealed linearly to 0, gradient norm 1.0;
* gamma 0.99, GAE lambda 0.8, clip 0.2 (the value clipped too), entropy 0.01, value 0.5;
* trained on easy.

Two differences, both deliberate: the paper's trainer overrode the efficiency of a non-specialist
to 0.2; alem keeps 1 - alpha everywhere (``docs/decisions.md``, decision 1), so these presets
train on the same rules every face plays. And ``total_env_steps`` is the paper's 1e9, which
also sets the learning-rate schedule: a shorter run should pass ``--total-env-steps`` so the
rate anneals over the steps it will take. Every other flag overrides a preset's value
(``--num-worlds 64`` for a CPU).
"""

from __future__ import annotations

import dataclasses
from typing import Any

from alem_train.ppo import PPOConfig

_PAPER: dict[str, Any] = dict(
    network="gru", hidden=128, gru_size=512, head=512, difficulty="easy", num_steps=64,
    num_minibatches=8, update_epochs=4, learning_rate=2e-4, anneal_lr=True, gamma=0.99,
    gae_lambda=0.8, clip_eps=0.2, value_clip=0.2, ent_coef=0.01, vf_coef=0.5,
    max_grad_norm=1.0, total_env_steps=1_000_000_000,
)  # fmt: skip

PRESETS: dict[str, dict[str, Any]] = {
    "paper-ippo": {**_PAPER, "algo": "ippo", "num_worlds": 1024},
    "paper-mappo": {**_PAPER, "algo": "mappo", "num_worlds": 512},
}


def preset_config(name: str, **overrides: Any) -> PPOConfig:
    """The preset ``name`` with ``overrides`` on top (any ``PPOConfig`` field).

    Raises:
        ValueError: naming ``name`` when it is no preset, or a field that ``PPOConfig`` lacks.
    """
    if name not in PRESETS:
        raise ValueError(f"preset must be one of {sorted(PRESETS)}, got {name!r}")
    fields = {f.name for f in dataclasses.fields(PPOConfig)}
    unknown = sorted(set(overrides) - fields)
    if unknown:
        raise ValueError(f"PPOConfig has no field {unknown[0]!r}")
    return PPOConfig(**{**PRESETS[name], **overrides})


__all__ = ["PRESETS", "preset_config"]
