"""Jitted core entry points shared by every ``AlemParallelEnv`` with the same shapes.

State and params cross the host boundary as a few packed buffers (``alem_pz.packing``):
dispatching the state's ~100 leaves one by one cost more than the step itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

import alem_core
from alem_core.scoring.metrics import cooperation_metrics
from alem_pz.packing import PyTreePacker


def _pack(obs: jax.Array, mask: jax.Array, reward, terminated, truncated, state) -> jax.Array:
    """(P, D + A + 4 + K) float32: [obs | mask | reward | terminated | truncated | alive |
    the K cooperation metrics in ``COOPERATION_METRICS`` order]."""
    flags = (reward, terminated, truncated, state.players.alive)
    metrics = cooperation_metrics(state)
    columns = [c.astype(jnp.float32)[:, None] for c in (*flags, *metrics.values())]
    return jnp.concatenate([obs.astype(jnp.float32), mask.astype(jnp.float32), *columns], axis=1)


class CompiledCore(NamedTuple):
    """Jitted entry points for one ``StaticParams``. State and params cross the host boundary
    as a few packed buffers (``alem_pz.packing``): ~100 separate leaves cost more dispatch
    time than the step itself."""

    reset: Callable
    step: Callable
    pack_state: Callable
    unpack_state: Callable
    pack_params: Callable


@functools.cache
def compiled_core(static: alem_core.StaticParams) -> CompiledCore:
    """The jitted functions for one ``StaticParams``, shared by all envs.

    ``reset`` and ``step`` split the env's key inside the jitted call (an eager split is a
    dispatch of its own) and return ``(next_key, state buffers, packed)`` with ``packed`` as
    in ``_pack``.
    """
    params_example = alem_core.make_params("medium").as_arrays()
    params_packer = PyTreePacker(params_example)
    state_shape = jax.eval_shape(
        lambda k: alem_core.reset(k, params_example, static)[1], jax.random.key(0)
    )
    state_packer = PyTreePacker(state_shape)

    def reset(key: jax.Array, params_buffers):
        params = params_packer.unpack(params_buffers)
        key, sub = jax.random.split(key)
        obs, state = alem_core.reset(sub, params, static)
        mask = alem_core.action_mask(state, params, static)
        p = static.player_count
        no = jnp.zeros((p,), bool)
        packed = _pack(obs, mask, jnp.zeros((p,), jnp.float32), no, no, state)
        return key, state_packer.pack(state), packed

    def step(key: jax.Array, state_buffers, actions: jax.Array, params_buffers):
        params = params_packer.unpack(params_buffers)
        state = state_packer.unpack(state_buffers)
        key, sub = jax.random.split(key)
        obs, state, reward, terminated, truncated, info = alem_core.step(
            sub, state, actions, params, static
        )
        packed = _pack(obs, info["action_mask"], reward, terminated, truncated, state)
        return key, state_packer.pack(state), packed

    return CompiledCore(
        reset=jax.jit(reset),
        step=jax.jit(step, donate_argnums=1),
        pack_state=jax.jit(state_packer.pack),
        unpack_state=jax.jit(state_packer.unpack),
        pack_params=lambda params: tuple(
            jnp.asarray(b) for b in params_packer.pack(params.as_arrays())
        ),
    )
