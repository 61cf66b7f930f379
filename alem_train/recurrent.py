"""The paper's recurrent actor-critic in plain JAX: Dense -> GRU -> Dense heads (no flax).

Layout, for a team of P agents sharing parameters (each row reads its own observation plus a
one-hot agent id, as ``networks.with_agent_id``):

* IPPO: one trunk, ``embed`` (Dense ``hidden`` + tanh) then a GRU of ``gru_size``; the actor head
  is Dense ``head`` + tanh -> logits, the critic head Dense ``hidden`` + tanh -> 1, both on the
  trunk's output.
* MAPPO: the same actor; a separate recurrent critic on the team's global state (every agent's
  observation concatenated, ``networks.critic_input``): its own embed and GRU, then Dense
  ``head`` + tanh -> 1.

Memory is a dict of (..., P, gru_size) arrays, one per trunk (``actor``; ``critic`` for MAPPO).
The one rule for it, the same in training and in every face that plays a policy: a row's memory
after a step is the GRU's output where the row carried a decision and its chain goes on
(``keep``: alive, the world not resetting, no episode end or death in that step), zero otherwise.
So memory starts at zero for every episode and after every death.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
from jax import Array

from alem_train import networks

Memory = dict[str, Array]


def init_gru(key: Array, inputs: int, size: int) -> dict[str, Array]:
    """Input and recurrent weights for the reset, update and candidate gates side by side:
    orthogonal, as every layer here (flax's GRU cell draws its input weights lecun-normal), and
    zero biases on both sides (the reset and update gates' two biases add up to one)."""
    k_in, k_rec = jax.random.split(key)
    orthogonal = jax.nn.initializers.orthogonal()
    return {
        "wi": orthogonal(k_in, (inputs, 3 * size), jnp.float32),
        "wh": jnp.concatenate(
            [orthogonal(k, (size, size), jnp.float32) for k in jax.random.split(k_rec, 3)], axis=1
        ),
        "bi": jnp.zeros((3 * size,), jnp.float32),
        "bh": jnp.zeros((3 * size,), jnp.float32),
    }


def gru_cell(gru: dict[str, Array], h: Array, x_proj: Array) -> Array:
    """One GRU step on ``x_proj``, the input already projected (``x @ wi + bi``): the input
    projection of a whole sequence is one GEMM outside the time loop."""
    r_in, z_in, n_in = jnp.split(x_proj, 3, axis=-1)
    r_h, z_h, n_h = jnp.split(h @ gru["wh"] + gru["bh"], 3, axis=-1)
    reset = jax.nn.sigmoid(r_in + r_h)
    update = jax.nn.sigmoid(z_in + z_h)
    candidate = jnp.tanh(n_in + reset * n_h)
    return (1.0 - update) * candidate + update * h


def carry(memory: Any, keep: Array) -> Any:
    """The memory rule (module docstring), the one place it is written: each row of ``memory``
    (any pytree of (..., P, H) arrays) goes on where ``keep`` (..., P) holds, else zero."""
    return jax.tree.map(lambda h: jnp.where(keep[..., None], h, 0.0), memory)


def init_trunk(key: Array, inputs: int, hidden: int, gru_size: int) -> dict[str, Any]:
    """One trunk's parameters: the embedding layer and the GRU."""
    k_embed, k_gru = jax.random.split(key)
    (embed,) = networks.init_mlp(k_embed, [inputs, hidden], jnp.sqrt(2.0))
    return {"embed": embed, "gru": init_gru(k_gru, hidden, gru_size)}


def unroll_trunk(trunk: dict[str, Any], h0: Array, obs: Array, keep: Array, central: bool) -> Array:
    """(T, B, P, D) observations -> (T, B, P, gru_size) outputs from memory ``h0``
    (B, P, gru_size), the embedding reading each agent's own observation or (``central``) the
    team's state, with the agent id either way; ``keep`` (T, B, P) carries each step's output
    on to the next step (module docstring)."""
    embedded = jnp.tanh(networks.first_layer(trunk["embed"], obs, central))
    projected = embedded @ trunk["gru"]["wi"] + trunk["gru"]["bi"]

    def step(h, inputs):
        x_t, keep_t = inputs
        out = gru_cell(trunk["gru"], h, x_t)
        return carry(out, keep_t), out

    _, outs = jax.lax.scan(step, h0, (projected, keep))
    return outs


def init_actor_critic(
    key: Array, obs_size: int, players: int, actions: int, sizes: tuple[int, int, int],
    central: bool,
) -> dict[str, Any]:  # fmt: skip
    """``{"actor": {embed, gru, head}, "critic": {head} or {embed, gru, head}}``; ``sizes`` is
    (hidden, gru_size, head) as in the module docstring."""
    hidden, gru_size, head = sizes
    k_trunk, k_pi, k_critic, k_v = jax.random.split(key, 4)
    actor = init_trunk(k_trunk, obs_size + players, hidden, gru_size)
    actor["head"] = networks.init_mlp(k_pi, [gru_size, head, actions], 0.01)
    if not central:
        return {
            "actor": actor,
            "critic": {"head": networks.init_mlp(k_v, [gru_size, hidden, 1], 1.0)},
        }
    critic = init_trunk(k_critic, players * obs_size + players, hidden, gru_size)
    critic["head"] = networks.init_mlp(k_v, [gru_size, head, 1], 1.0)
    return {"actor": actor, "critic": critic}


def initial_memory(params: dict[str, Any], batch_shape: tuple[int, ...]) -> Memory:
    """Zero memory for every trunk in ``params``, of shape (*batch_shape, gru_size)."""
    return {
        name: jnp.zeros((*batch_shape, part["gru"]["wh"].shape[0]), jnp.float32)
        for name, part in params.items()
        if "gru" in part
    }


def actor_logits(actor: dict[str, Any], h0: Array, obs: Array, mask: Array, keep: Array):
    """Masked logits (T, B, P, A) and the trunk's outputs, from observations (T, B, P, D)."""
    outs = unroll_trunk(actor, h0, obs, keep, central=False)
    return jnp.where(mask, networks.mlp(actor["head"], outs), -jnp.inf), outs


def unroll(params: dict[str, Any], memory: Memory, obs: Array, mask: Array, keep: Array):
    """Logits (T, B, P, A), values (T, B, P) and each trunk's outputs over a sequence."""
    logits, actor_outs = actor_logits(params["actor"], memory["actor"], obs, mask, keep)
    outs = {"actor": actor_outs}
    critic = params["critic"]
    if "gru" in critic:  # MAPPO: the critic's own trunk over the global state
        outs["critic"] = unroll_trunk(critic, memory["critic"], obs, keep, central=True)
    values = networks.mlp(critic["head"], outs.get("critic", actor_outs))[..., 0]
    return logits, values, outs


__all__ = [
    "Memory",
    "actor_logits",
    "gru_cell",
    "init_actor_critic",
    "init_gru",
    "initial_memory",
    "unroll",
    "unroll_trunk",
]
