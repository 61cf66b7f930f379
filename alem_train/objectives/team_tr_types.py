"""The types the team trust-region update and its per-agent step share: a rollout batch and
the policy's logit function (apart, so neither module imports the other for them)."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, NamedTuple

from jax import Array


class Rollout(NamedTuple):
    """A batch in the docs/training.md#objectives 4.1 layout, plus what the policy reads."""

    obs: Any  # pytree; only ``policy_logits`` reads it
    actions: Array  # [B,G,T,N] int, the sampled actions
    act: Array  # [B,G,T,N] bool, active members
    valid: Array  # [B,G,T] bool, existing steps
    returns: Array  # [B,G] team episode return


PolicyLogits = Callable[[Any, Any, int], Array]
"""(agent_params, obs, agent) -> [B,G,T,A] logits of that agent at every step."""
Collect = Callable[[tuple, Array], Rollout]
"""(team params, PRNG key) -> a Rollout of that team."""


__all__ = ["Collect", "PolicyLogits", "Rollout"]
