"""N worlds x P agents stepped by one jitted call, with auto-reset from a reserve of worlds.

On the device, in one jitted function (e.g. inside ``lax.scan``)::

    batch, out = init(key, num_worlds, params, static)
    batch, out = step(batch, actions, params, static, chunk)   # actions (N, P) int

``BatchRunner`` (``batch_runner.py``) calls the same ``step`` from Python, one jitted call per
step, and hands the outputs to the Gymnasium vector env.

Auto-reset: a per-slot reserve, refreshed between steps. Every world slot keeps, next to its
running world, the pre-generated initial state of its next episode. When a world ends, the
next call swaps the reserve in; no world is generated on the hot path. ``refresh`` regenerates
up to ``chunk`` used reserves at once, slots about to reset first. Why this and not Craftax's
optimistic reset:
* generating a world costs many steps, so it must stay out of the per-step path, and
  generating in chunks of ``chunk`` worlds amortises the vmapped generator;
* a reserve per slot never runs dry, even when every world is truncated on the same step (all
  worlds start together, so at ``max_timesteps`` they all end at once), whereas a shared pool
  smaller than N would have to hand the same world to several slots, as optimistic reset does;
* the world of episode ``e`` in slot ``i`` is ``reset(fold_in(fold_in(seed, i), e))`` and its
  step keys are ``fold_in`` of that key and the step count, so the same seed (and actions)
  gives the same sequence of episodes whatever the refresh timing, chunk size or sharding.
The cost is memory: two states per slot.

Reset timing follows Gymnasium's ``NEXT_STEP`` mode: the call on which a world ends returns its
final observation, rewards, flags, episode statistics and score (``info["score"]``, from its
final state). The next call resets that world: its actions are ignored, it returns the
reserve's first observation with zero reward and ``info["reset"]`` True.

The shape of ``step`` is set by what XLA:CPU does with big buffers (measured at N = 64):
* every world steps, the ones that ended too (unseen, their outputs zeroed): selecting between
  whole states per world defeats XLA's in-place updates of the maps (2-3x the step);
* the rare work (swapping reserves in, regenerating reserves, scoring) runs under one
  ``lax.cond`` that is skipped on most calls; only states pass through it, never the
  observation, which costs a copy of its 116 KB per world when it crosses a ``cond``;
* so the observation and the action mask are computed once, after the swap, from the states:
  a reset world's first observation is its reserve's, with nothing stored for it.
With ``refresh=False`` no reserve is regenerated: a world that must reset while its reserve is
stale waits instead of replaying an old world (``info["waiting"]`` True, zero observation,
NOOP-only mask) until a ``refresh`` supplies its world.

Sharding: ``BatchRunner`` splits the world axis of every leaf over a 1-D ``jax.sharding.Mesh``
of the local devices; the jitted functions then run on all devices (see ``batch_runner.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from alem_core.api import reset as core_reset
from alem_core.api import step as core_step
from alem_core.constants import Action
from alem_core.difficulty import episode_params
from alem_core.masking import action_mask
from alem_core.observation import observe
from alem_core.params import Params, StaticParams
from alem_core.score import score
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


class BatchOutput(NamedTuple):
    """What one call returns (leading axis N)."""

    obs: jax.Array
    """(N, P, D) float32."""
    reward: jax.Array
    """(N, P) float32."""
    terminated: jax.Array
    """(N, P) bool."""
    truncated: jax.Array
    """(N, P) bool."""
    info: dict
    """``action_mask`` (N, P, A) bool, ``alive`` (N, P) bool, ``reset`` / ``waiting`` /
    ``done`` (N,) bool, ``episode`` (N,) int32, ``episode_return`` (N, P) and
    ``episode_length`` (N,) (non-zero where ``done``), ``stale_reserves`` () int32,
    ``reserve_needed`` () int32 (worlds that reset on the next call but whose reserve is
    stale), ``ended`` () int32 (worlds with ``done``) and ``score`` {key: (N, P) float32}
    (``alem_core.score`` of the worlds with ``done``, zero elsewhere)."""


def slot_keys(key: jax.Array, num_worlds: int) -> jax.Array:
    """(N, 2) uint32 per-slot keys from one raw (2,) uint32 key."""
    return jax.vmap(lambda i: jax.random.fold_in(key, i))(jnp.arange(num_worlds))


def _episode_keys(slot_key: jax.Array, episode: jax.Array) -> tuple[jax.Array, jax.Array]:
    """(world key, step-key root) of one slot's episode."""
    k_world, k_steps = jax.random.split(jax.random.fold_in(slot_key, episode))
    return k_world, k_steps


def _generate(slot_key, episode, params: Params, static: StaticParams):
    """(obs, state, mask) of one slot's episode ``episode``."""
    k_world, _ = _episode_keys(slot_key, episode)
    obs, state = core_reset(k_world, params, static)
    return obs, state, action_mask(state, episode_params(params, state.alpha), static)


def generate(keys: jax.Array, episodes: jax.Array, params: Params, static: StaticParams):
    """``(obs (C, P, D), states, masks (C, P, A))``: episode ``episodes[c]`` of the slot whose
    key is ``keys[c]``, for C slots at once (the only place worlds are made)."""
    return jax.vmap(_generate, in_axes=(0, 0, None, None))(keys, episodes, params, static)


def _observe(worlds: State, params: Params, static: StaticParams):
    """(obs (N, P, D), mask (N, P, A)) of every world, as the core step returns them."""

    def one(state):
        return observe(state, params, static), action_mask(
            state, episode_params(params, state.alpha), static
        )

    return jax.vmap(one)(worlds)


def _info(batch, mask, alive, reset, waiting, done, score) -> dict:
    stale = ~batch.reserve_fresh
    return {
        "action_mask": mask,
        "alive": alive,
        "reset": reset,
        "waiting": waiting,
        "done": done,
        "episode": batch.episode,
        "episode_return": jnp.where(done[:, None], batch.returns, 0.0),
        "episode_length": jnp.where(done, batch.length, 0),
        "stale_reserves": stale.sum().astype(jnp.int32),
        "reserve_needed": (done & stale).sum().astype(jnp.int32),
        "ended": done.sum().astype(jnp.int32),
        "score": score,
    }


def _output(batch, flows, reset, params, static, score) -> BatchOutput:
    """The call's outputs from the states after any swap; waiting worlds see zeros and may
    only NOOP."""
    reward, term, trunc = flows
    waiting = batch.pending
    obs, mask = _observe(batch.worlds, params, static)
    obs = jnp.where(waiting[:, None, None], 0.0, obs)
    noop_only = jnp.arange(mask.shape[-1]) == Action.NOOP
    mask = jnp.where(waiting[:, None, None], noop_only, mask)
    alive = batch.worlds.players.alive
    info = _info(batch, mask, alive, reset, waiting, batch.done, score)
    return BatchOutput(obs, reward, term, trunc, info)


def new_batch(keys: jax.Array, first, second, static: StaticParams) -> tuple[Batch, BatchOutput]:
    """Assemble a batch from ``generate``'s output for episodes 0 (``first``) and 1
    (``second``) of every slot; nothing is generated here."""
    n = keys.shape[0]
    obs, worlds, mask = first
    reserve = second[1]
    p = static.player_count
    no = jnp.zeros((n,), bool)
    batch = Batch(
        worlds, reserve, ~no, keys, jnp.zeros(n, jnp.int32), jnp.zeros(n, jnp.int32),
        jnp.zeros((n, p), jnp.float32), no, no,
    )  # fmt: skip
    zero = jnp.zeros((n, p), jnp.float32)
    score = _zero_scores(worlds, no, static)
    info = _info(batch, mask, worlds.players.alive, ~no, no, no, score)
    return batch, BatchOutput(obs, zero, zero > 0, zero > 0, info)


def init_from_keys(
    keys: jax.Array, params: Params, static: StaticParams
) -> tuple[Batch, BatchOutput]:
    """Generate every slot's episode 0 (running) and episode 1 (reserve).

    Args:
        keys: (N, 2) uint32 per-slot keys (``slot_keys``).
    """
    n = keys.shape[0]
    first = generate(keys, jnp.zeros(n, jnp.int32), params, static)
    second = generate(keys, jnp.ones(n, jnp.int32), params, static)
    return new_batch(keys, first, second, static)


def init(
    key: jax.Array, num_worlds: int, params: Params, static: StaticParams
) -> tuple[Batch, BatchOutput]:
    """A batch of ``num_worlds`` slots from one raw (2,) uint32 key (see ``init_from_keys``)."""
    return init_from_keys(slot_keys(key, num_worlds), params, static)


def _scores(worlds: State, done: jax.Array, static: StaticParams) -> dict[str, jax.Array]:
    """Every world's score keys, each (N, P), zero where not ``done``."""
    return jax.vmap(lambda s, d: score(s, static, d))(worlds, done)


def _zero_scores(worlds: State, done: jax.Array, static: StaticParams) -> dict[str, jax.Array]:
    """Zeros shaped like ``_scores`` (nothing is computed)."""
    shapes = jax.eval_shape(lambda: _scores(worlds, done, static))
    return jax.tree.map(lambda s: jnp.zeros(s.shape, s.dtype), shapes)


def advance(batch: Batch, actions: jax.Array, params: Params, static: StaticParams):
    """Every world steps with its deterministic per-(slot, episode, step) key; worlds that
    ended on an earlier call (``done`` or ``pending``) step too, unseen: their rewards and
    flags are zeroed, they become ``pending`` and ``swap_pending`` overwrites them.

    Returns ``(batch, (reward, terminated, truncated))``; the observation is not computed here.
    """

    def one(slot_key, ep, t, state, acts):
        _, k_steps = _episode_keys(slot_key, ep)
        return core_step(jax.random.fold_in(k_steps, t), state, acts, params, static)

    idle = batch.done | batch.pending
    moving = ~idle
    _, worlds, reward, term, trunc, _ = jax.vmap(one)(
        batch.slot_key, batch.episode, batch.length, batch.worlds, actions
    )
    reward = jnp.where(moving[:, None], reward, 0.0)
    term, trunc = term & moving[:, None], trunc & moving[:, None]
    done = (term | trunc).any(axis=1)
    batch = batch._replace(
        worlds=worlds,
        length=batch.length + moving,
        returns=batch.returns + reward,
        done=done,
        pending=idle,
    )
    return batch, (reward, term, trunc)


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


def _upkeep_needed(batch: Batch, chunk: int, refresh: bool) -> jax.Array:
    """() bool: a world ended (score it), one must reset, or ``chunk`` reserves are stale."""
    needed = batch.done.any() | batch.pending.any()
    return needed | (refresh & ((~batch.reserve_fresh).sum() >= chunk))


def upkeep(batch: Batch, params: Params, static: StaticParams, chunk: int, refresh: bool):
    """The rare part of a call: regenerate reserves (``refresh_until_ready``, if ``refresh``),
    swap them into the pending worlds, score the worlds that ended. Returns (batch, score)."""
    if refresh:
        batch = refresh_until_ready(batch, params, static, chunk)

    def resettable(b: Batch) -> jax.Array:
        return (b.pending & b.reserve_fresh).any()

    batch = jax.lax.while_loop(resettable, lambda b: swap_pending(b, chunk), batch)
    done, worlds = batch.done, batch.worlds
    score = jax.lax.cond(
        done.any(),
        lambda: _scores(worlds, done, static),
        lambda: _zero_scores(worlds, done, static),
    )
    return batch, score


def step(
    batch: Batch,
    actions: jax.Array,
    params: Params,
    static: StaticParams,
    chunk: int,
    refresh: bool = True,
) -> tuple[Batch, BatchOutput]:
    """One whole call: ``advance``, then ``upkeep`` under a ``lax.cond`` (skipped on calls where
    no world ended or resets and fewer than ``chunk`` reserves are stale), then the outputs.

    Args:
        batch: from ``init`` or a previous ``step``.
        actions: (N, P) int action ids (ignored for worlds that reset or wait this call; ids
            outside the action space act as NOOP, as in ``alem_core.step``).
        params: gameplay parameters, shared by every world.
        static: shapes (static under ``jit``).
        chunk: worlds swapped in or regenerated per pass (static).
        refresh: regenerate stale reserves inside the call (static); False leaves that to
            ``refresh`` calls, and worlds without a fresh reserve wait.
    """
    batch, flows = advance(batch, actions, params, static)
    resetting = batch.pending
    batch, score = jax.lax.cond(
        _upkeep_needed(batch, chunk, refresh),
        lambda b: upkeep(b, params, static, chunk, refresh),
        lambda b: (b, _zero_scores(b.worlds, b.done, static)),
        batch,
    )
    return batch, _output(batch, flows, resetting & ~batch.pending, params, static, score)


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
    reserves are stale (``step`` runs it inside its ``upkeep``)."""

    def pending(b: Batch) -> jax.Array:
        stale = ~b.reserve_fresh
        return ((b.done | b.pending) & stale).any() | (stale.sum() >= chunk)

    return jax.lax.while_loop(pending, lambda b: refresh(b, params, static, chunk), batch)


__all__ = [
    "Batch",
    "BatchOutput",
    "advance",
    "generate",
    "init",
    "init_from_keys",
    "install",
    "new_batch",
    "refresh",
    "refresh_plan",
    "refresh_until_ready",
    "slot_keys",
    "step",
    "swap_pending",
]
