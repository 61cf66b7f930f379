"""Plain JAX MLPs for actor-critic trainers: parameters are dicts of arrays (no flax).

The actor reads one agent's observation plus a one-hot of its agent index (parameter sharing
with an agent id, docs/training.md#objectives 5.2). The critic reads the same (IPPO) or the team's
global state, every agent's observation concatenated in agent order as ``AlemParallelEnv.state()``
gives it, plus the agent index (MAPPO's centralised critic).
"""

from __future__ import annotations

from collections.abc import Sequence

import jax
import jax.numpy as jnp
from jax import Array

Params = dict[str, Array]


def init_mlp(key: Array, sizes: Sequence[int], last_scale: float) -> list[Params]:
    """Orthogonal weights (gain sqrt 2, ``last_scale`` on the output layer), zero biases."""
    layers = []
    keys = jax.random.split(key, len(sizes) - 1)
    for i, (k, n_in, n_out) in enumerate(zip(keys, sizes[:-1], sizes[1:], strict=True)):
        gain = last_scale if i == len(sizes) - 2 else jnp.sqrt(2.0)
        w = jax.nn.initializers.orthogonal(gain)(k, (n_in, n_out), jnp.float32)
        layers.append({"w": w, "b": jnp.zeros((n_out,), jnp.float32)})
    return layers


def mlp(layers: list[Params], x: Array) -> Array:
    """tanh hidden layers, linear output."""
    for layer in layers[:-1]:
        x = jnp.tanh(x @ layer["w"] + layer["b"])
    return x @ layers[-1]["w"] + layers[-1]["b"]


def with_agent_id(x: Array, players: int) -> Array:
    """Append a one-hot agent index to ``x`` (..., P, F) -> (..., P, F + P)."""
    eye = jnp.broadcast_to(jnp.eye(players, dtype=x.dtype), (*x.shape[:-2], players, players))
    return jnp.concatenate([x, eye], axis=-1)


def critic_input(obs: Array, central: bool) -> Array:
    """(..., P, D) observations -> the critic's (..., P, F) input, agent id included."""
    players = obs.shape[-2]
    if central:
        team = obs.reshape(*obs.shape[:-2], 1, players * obs.shape[-1])
        obs = jnp.broadcast_to(team, (*obs.shape[:-2], players, team.shape[-1]))
    return with_agent_id(obs, players)


def first_layer(layer: Params, obs: Array, central: bool) -> Array:
    """``critic_input(obs, central) @ w + b`` (..., P, H), without building that input for a
    centralised critic: the team's state is the same row for every agent, so its product is
    taken once per world and each agent's id row is added (P times fewer multiply-adds, the
    largest matrix product of MAPPO). Rounding differs from the built input's product in the
    last place; a local critic's or actor's input is multiplied as it is."""
    players = obs.shape[-2]
    if not central:
        return with_agent_id(obs, players) @ layer["w"] + layer["b"]
    team = obs.reshape(*obs.shape[:-2], 1, players * obs.shape[-1])
    w_team, w_id = layer["w"][:-players], layer["w"][-players:]
    return team @ w_team + w_id + layer["b"]


def init_actor_critic(
    key: Array, obs_size: int, players: int, actions: int, hidden: int, central: bool
) -> dict[str, list[Params]]:
    """``{"actor": ..., "critic": ...}``, two 2-hidden-layer MLPs."""
    k_actor, k_critic = jax.random.split(key)
    critic_in = (players * obs_size if central else obs_size) + players
    return {
        "actor": init_mlp(k_actor, [obs_size + players, hidden, hidden, actions], 0.01),
        "critic": init_mlp(k_critic, [critic_in, hidden, hidden, 1], 1.0),
    }


def masked_logits(actor: list[Params], obs: Array, mask: Array) -> Array:
    """(..., P, A) logits with illegal actions at -inf (probability exactly 0)."""
    logits = mlp(actor, with_agent_id(obs, obs.shape[-2]))
    return jnp.where(mask, logits, -jnp.inf)


def values(critic: list[Params], obs: Array, central: bool) -> Array:
    """(..., P) state values."""
    return mlp(critic[1:], jnp.tanh(first_layer(critic[0], obs, central)))[..., 0]


__all__ = [
    "critic_input",
    "first_layer",
    "init_actor_critic",
    "init_mlp",
    "masked_logits",
    "mlp",
    "values",
]
