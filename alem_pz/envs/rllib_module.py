"""An action-masking PPO module for RLlib's current API, on alem's ``rllib_env`` observations.

RLlib's example masking module (``ray.rllib.examples...action_masking_rlm``) is built on
``PPOTorchRLModule``, which RLlib 2.60 deprecates ("will raise an error in the future") along
with the ``RLModule(config=...)`` constructor it reaches. This module builds on
``DefaultPPOTorchRLModule``, the class RLlib names as the replacement, and on the keyword
constructor, so training prints no deprecation.

What it does: the catalog builds PPO's default encoder, policy and value heads for the
observation part (``obs["observations"]``) only; every forward pass and value estimate strips
the mask off the batch first, and the policy's logits of illegal actions are pushed to the
lowest float, so they are never sampled and carry no probability in the loss.

Importing this module imports Ray and torch (``pip install -e ".[rllib]"``);
``alem_pz.envs.rllib`` does not.
"""

from __future__ import annotations

from typing import Any

import torch
from gymnasium import spaces
from ray.rllib.algorithms.ppo.torch.default_ppo_torch_rl_module import DefaultPPOTorchRLModule
from ray.rllib.core.columns import Columns

from alem_pz.envs.rllib import MASK_KEY, OBS_KEY


class MaskedPPOTorchModule(DefaultPPOTorchRLModule):
    """PPO's default torch module over ``{"observations", "action_mask"}`` observations."""

    def __init__(self, *, observation_space: spaces.Dict | None = None, **kwargs: Any) -> None:
        # RLlib builds the catalog (encoder, heads) inside RLModule.__init__ from the space it is
        # given, and it has no encoder for a Dict: hand it the observation part, keep the Dict.
        inner = observation_space[OBS_KEY] if observation_space is not None else None
        super().__init__(observation_space=inner, **kwargs)
        self.observation_space = observation_space

    def _forward(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        batch, mask = _split(batch)
        return _masked(super()._forward(batch, **kwargs), mask)

    def _forward_train(self, batch: dict[str, Any], **kwargs: Any) -> dict[str, Any]:
        batch, mask = _split(batch)
        return _masked(super()._forward_train(batch, **kwargs), mask)

    def compute_values(self, batch: dict[str, Any], embeddings: Any = None) -> torch.Tensor:
        if embeddings is None:
            batch, _ = _split(batch)
        return super().compute_values(batch, embeddings)


def _split(batch: dict[str, Any]) -> tuple[dict[str, Any], torch.Tensor]:
    """The batch with its observation part alone, and the mask (the input is not changed)."""
    obs = batch[Columns.OBS]
    return {**batch, Columns.OBS: obs[OBS_KEY]}, obs[MASK_KEY]


def _masked(out: dict[str, Any], mask: torch.Tensor) -> dict[str, Any]:
    """Illegal actions' logits set to the lowest float: probability 0, no NaN in entropies."""
    logits = out[Columns.ACTION_DIST_INPUTS]
    lowest = torch.finfo(logits.dtype).min
    out[Columns.ACTION_DIST_INPUTS] = torch.where(mask.bool(), logits, lowest)
    return out


__all__ = ["MaskedPPOTorchModule"]
