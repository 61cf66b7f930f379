"""The trainers' policy networks behind one interface, chosen by ``PPOConfig.network``.

Every model answers four questions, so the PPO rollout and learning code never asks which one
it runs:

* ``init(key, config)``: fresh parameters, ``{"actor": ..., "critic": ...}``;
* ``memory(params, batch_shape)``: the memory a batch of rows starts with (``{}`` without one);
* ``step(params, memory, obs, mask, central)``: one step of (..., P, ...) rows -> masked
  logits, values and the memory to carry (before the keep rule of ``alem_train.recurrent``);
* ``unroll(params, memory, obs, mask, keep, central)``: logits and values over (T, B, P, ...)
  sequences from ``memory`` (B, P, ...), for the learning epochs.

``central`` says the critic reads the team's global state (MAPPO).

``mlp`` is the feed-forward actor and critic of ``networks``; ``gru`` the paper's recurrent
network (``recurrent``).
"""

from __future__ import annotations

from typing import Any, Protocol

import jax.numpy as jnp
from jax import Array

import alem_core
from alem_train import networks, recurrent


class NetworkConfig(Protocol):
    """What a model reads of the trainer's config (``alem_train.ppo.PPOConfig`` has it all)."""

    players: int
    hidden: int
    gru_size: int
    head: int

    @property
    def central_critic(self) -> bool: ...

    def static(self) -> alem_core.StaticParams: ...


class FeedForward:
    """No memory: a sequence is just rows."""

    @staticmethod
    def init(key: Array, config: NetworkConfig) -> dict[str, Any]:
        static = config.static()
        return networks.init_actor_critic(
            key, alem_core.obs_size(static), config.players, static.num_actions,
            config.hidden, config.central_critic,
        )  # fmt: skip

    @staticmethod
    def memory(params: dict[str, Any], batch_shape: tuple[int, ...]) -> dict[str, Array]:
        return {}

    @staticmethod
    def step(params: dict[str, Any], memory: dict, obs: Array, mask: Array, central: bool):
        logits = networks.masked_logits(params["actor"], obs, mask)
        return logits, networks.values(params["critic"], obs, central), memory

    @staticmethod
    def unroll(
        params: dict[str, Any], memory: dict, obs: Array, mask: Array, keep: Array, central: bool
    ):
        logits, values, _ = FeedForward.step(params, memory, obs, mask, central)
        return logits, values


class Recurrent:
    """The paper's Dense -> GRU -> Dense network (``alem_train.recurrent``)."""

    @staticmethod
    def init(key: Array, config: NetworkConfig) -> dict[str, Any]:
        static = config.static()
        return recurrent.init_actor_critic(
            key, alem_core.obs_size(static), config.players, static.num_actions,
            (config.hidden, config.gru_size, config.head), config.central_critic,
        )  # fmt: skip

    @staticmethod
    def memory(params: dict[str, Any], batch_shape: tuple[int, ...]) -> dict[str, Array]:
        return recurrent.initial_memory(params, batch_shape)

    @staticmethod
    def step(params: dict[str, Any], memory: dict, obs: Array, mask: Array, central: bool):
        """``central`` is read from ``params`` (a critic with its own trunk)."""
        keep = jnp.ones((1, *mask.shape[:-1]), bool)  # one step: only its outputs are returned
        logits, values, outs = recurrent.unroll(params, memory, obs[None], mask[None], keep)
        return logits[0], values[0], {name: out[0] for name, out in outs.items()}

    @staticmethod
    def unroll(
        params: dict[str, Any], memory: dict, obs: Array, mask: Array, keep: Array, central: bool
    ):
        logits, values, _ = recurrent.unroll(params, memory, obs, mask, keep)
        return logits, values


MODELS = {"mlp": FeedForward, "gru": Recurrent}


def model_for(network: str) -> type[FeedForward] | type[Recurrent]:
    if network not in MODELS:
        raise ValueError(f"network must be one of {sorted(MODELS)}, got {network!r}")
    return MODELS[network]


__all__ = ["MODELS", "FeedForward", "NetworkConfig", "Recurrent", "model_for"]
