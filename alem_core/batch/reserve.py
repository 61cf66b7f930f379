"""The reserve of pre-generated worlds behind ``batch.step``'s auto-reset (see ``batch.py``):
the ``Batch`` record, the per-slot keys, world generation, refreshing stale reserves and
swapping fresh ones into the worlds that ended.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from alem_core.api import reset as core_reset
from alem_core.observation.masking import action_mask
from alem_core.params import Params, StaticParams
from alem_core.rules.difficulty import episode_params
from alem_core.state import State


class Batch(NamedTuple):
    """Everything about N world slots (leading axis N on every leaf)."""

    worlds: State
    """The running worlds."""
    reserve: State
    """Each slot's next episode, pre-generated (valid where ``reserve_fresh``)."""
    reserve_fresh: jax.Array
    """(N,) bool the reserve holds the next episode (False once swapped in)."""
    slot_key: jax.Array
    """(N, 2) uint32 per-slot key: ``fold_in(seed key, slot)``."""
    episode: jax.Array
    """(N,) int32 index of the running episode in its slot (0 for the first)."""
    length: jax.Array
    """(N,) int32 steps taken in the running episode."""
    returns: jax.Array
    """(N, P) float32 undiscounted return of the running episode."""
    done: jax.Array
    """(N,) bool the world ended on the last call (it resets on the next one)."""
    pending: jax.Array
    """(N,) bool the world ended on an earlier call and its reserve is not yet swapped in."""


def slot_keys(key: jax.Array, num_worlds: int) -> jax.Array:
    """(N, 2) uint32 per-slot keys from one raw (2,) uint32 key."""
    return jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(num_worlds))


def episode_keys(slot_key: jax.Array, episode: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(world key, step-key root) of one slot's episode."""
    k_world, k_steps = jax.random.split(jax.random.fold_in(slot_key, episode))
    return k_world, k_steps


def _generate(slot_key, episode, params: Params, static: StaticParams):
    """(obs, state, mask) of one slot's episode ``episode``."""
    k_world, _ = episode_keys(slot_key, episode)
    obs, state = core_reset(k_world, params, static)
    return obs, state, action_mask(state, episode_params(params, state.alpha), static)


def generate(keys: jax.Array, episodes: jax.Array, params: Params, static: StaticParams):
    """``(obs (C, P, D), states, masks (C, P, A))``: episode ``episodes[c]`` of the slot whose
    key is ``keys[c]``, for C slots at once (the only place worlds are made)."""
    return jax.vmap(_generate, in_axes=(0, 0, None, None))(keys, episodes, params, static)


def swap_pending(batch: Batch, chunk: int) -> Batch:
    """Swap the reserve in for up to ``chunk`` pending worlds whose reserve is fresh (the
    rows of those worlds only; nothing else is touched)."""
    ready = batch.pending & batch.reserve_fresh
    slots = jnp.argsort(~ready, stable=True)[:chunk]
    swap = ready[slots]

    def rows(old, new):
        keep = old[slots]
        return old.at[slots].set(jnp.where(swap.reshape((-1,) + (1,) * (keep.ndim - 1)), new, keep))

    return batch._replace(
        worlds=jax.tree.map(lambda w, r: rows(w, r[slots]), batch.worlds, batch.reserve),
        reserve_fresh=batch.reserve_fresh.at[slots].set(batch.reserve_fresh[slots] & ~swap),
        episode=batch.episode.at[slots].add(swap),
        length=rows(batch.length, 0),
        returns=rows(batch.returns, 0.0),
        pending=batch.pending.at[slots].set(batch.pending[slots] & ~swap),
    )


def blank_batch(keys: jax.Array, params: Params, static: StaticParams) -> Batch:
    """A batch whose every slot waits for episode 0: zero worlds and reserves, all stale and
    pending. The first ``batch.step`` on it (actions ignored) generates episode 0 of every
    slot and returns its first observation, so world generation is compiled once, inside the
    step, instead of also in a separate reset (``BatchRunner.reset`` does this)."""
    n = keys.shape[0]
    shapes = jax.eval_shape(lambda k: core_reset(k, params, static)[1], jax.random.key(0))
    zeros = jax.tree.map(lambda s: jnp.zeros((n, *s.shape), s.dtype), shapes)
    no = jnp.zeros((n,), bool)
    return Batch(
        zeros, zeros, no, keys, jnp.full((n,), -1, jnp.int32), jnp.zeros(n, jnp.int32),
        jnp.zeros((n, static.player_count), jnp.float32), no, ~no,
    )  # fmt: skip


def refresh_plan(batch: Batch, chunk: int) -> tuple[jax.Array, jax.Array]:
    """``(slots (chunk,), take (chunk,) bool)``: the stale reserves to regenerate, slots about
    to reset first, then by index; ``take`` is False for padding (fewer stale than ``chunk``)."""
    stale = ~batch.reserve_fresh
    urgent = stale & (batch.done | batch.pending)  # these worlds reset on the next pass
    rank = jnp.where(urgent, 0, jnp.where(stale, 1, 2))
    slots = jnp.argsort(rank, stable=True)[:chunk]
    return slots, rank[slots] < 2


def install(batch: Batch, slots: jax.Array, take: jax.Array, states: State) -> Batch:
    """Put generated ``states`` for ``slots`` into the reserve where ``take``."""

    def put(old, new):
        chosen = jnp.where(take.reshape(take.shape + (1,) * (new.ndim - 1)), new, old[slots])
        return old.at[slots].set(chosen)

    return batch._replace(
        reserve=jax.tree.map(put, batch.reserve, states),
        reserve_fresh=batch.reserve_fresh.at[slots].set(batch.reserve_fresh[slots] | take),
    )


def refresh(batch: Batch, params: Params, static: StaticParams, chunk: int) -> Batch:
    """Regenerate up to ``chunk`` stale reserves (``refresh_plan``, ``generate``, ``install``).

    ``chunk`` is static (one compiled generator of ``chunk`` worlds). Slots beyond the stale
    ones are generated and discarded.
    """
    slots, take = refresh_plan(batch, chunk)
    _, states, _ = generate(batch.slot_key[slots], batch.episode[slots] + 1, params, static)
    return install(batch, slots, take, states)


def refresh_until_ready(batch: Batch, params: Params, static: StaticParams, chunk: int) -> Batch:
    """Refresh while a world that resets next lacks its reserve, or while at least ``chunk``
    reserves are stale (``step`` runs it inside its ``upkeep``). The loop carries the reserve
    alone: carried through it, the running worlds were copied in and out on every call."""
    resetting = batch.done | batch.pending

    def pending(carry: tuple[State, jax.Array]) -> jax.Array:
        stale = ~carry[1]
        return (resetting & stale).any() | (stale.sum() >= chunk)

    def once(carry: tuple[State, jax.Array]) -> tuple[State, jax.Array]:
        b = refresh(batch._replace(reserve=carry[0], reserve_fresh=carry[1]), params, static, chunk)
        return b.reserve, b.reserve_fresh

    reserve, fresh = jax.lax.while_loop(pending, once, (batch.reserve, batch.reserve_fresh))
    return batch._replace(reserve=reserve, reserve_fresh=fresh)


__all__ = [
    "Batch",
    "blank_batch",
    "episode_keys",
    "generate",
    "install",
    "refresh",
    "refresh_plan",
    "refresh_until_ready",
    "slot_keys",
    "swap_pending",
]
