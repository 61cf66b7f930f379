"""N worlds x P agents stepped by one jitted call, with auto-reset from a reserve of worlds.

On the device, in one jitted function (e.g. inside ``lax.scan``)::

    batch, out = init(key, num_worlds, params, static)
    batch, out = step(batch, actions, params, static, chunk)   # actions (N, P) int

``BatchRunner`` (``runner.py``) calls the same ``step`` from Python, one jitted call per
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

Reset timing is ``step``'s caller's choice, with one upkeep behind both. ``step`` alone follows
Gymnasium's ``NEXT_STEP`` mode: the call on which a world ends returns its final observation,
rewards, flags, episode statistics and score (``info["score"]``, from its final state). The
next call resets that world: its actions are ignored, it returns the reserve's first
observation with zero reward and ``info["reset"]`` True. ``start_ended`` after ``step`` gives
the ``SAME_STEP`` mode (``BatchRunner(reset_timing="same_step")``, the SB3 vector env, the
JaxMARL env's auto-reset): the worlds that ended start their next episode in the same call.

The shape of ``step`` follows from how XLA:CPU treats big buffers (figures in ``bench/records/``):
* every world steps, the ones that ended too (unseen, their outputs zeroed): selecting between
  whole states per world defeats XLA's in-place updates of the maps;
* the rare work (swapping reserves in, regenerating reserves, scoring) runs under one
  ``lax.cond`` that is skipped on most calls; only states pass through it, never the
  observation, which costs a copy of its 116 KB per world when it crosses a ``cond``;
* so the observation and the action mask are computed once, after the swap, from the states:
  a reset world's first observation is its reserve's, with nothing stored for it.
With ``refresh=False`` no reserve is regenerated: a world that must reset while its reserve is
stale waits instead of replaying an old world (``info["waiting"]`` True, zero observation,
NOOP-only mask) until a ``refresh`` supplies its world.

Sharding: ``BatchRunner`` splits the world axis of every leaf over a 1-D ``jax.sharding.Mesh``
of the local devices; the jitted functions then run on all devices (see ``runner.py``).
"""

from __future__ import annotations

import functools
from typing import NamedTuple

import jax
import jax.numpy as jnp

from alem_core.api import observe, transition
from alem_core.batch.reserve import (
    Batch,
    blank_batch,
    episode_keys,
    generate,
    install,
    refresh,
    refresh_plan,
    refresh_until_ready,
    slot_keys,
    swap_pending,
)
from alem_core.constants import Action
from alem_core.params import Params, StaticParams
from alem_core.scoring.score import score_columns, score_keys, score_table
from alem_core.state import State


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
    stale), ``ended`` () int32 (worlds with ``done``) and, unless ``step(score=False)``,
    ``score`` (N, P, K) float32: ``alem_core.scoring.score`` of the worlds with ``done``
    (zero elsewhere), key ``k`` of ``alem_core.scoring.score.score_keys(static)`` in column
    ``k``. One table, not a dict of K ~ 460 arrays: a scan that carries the output would copy each
    of them on every call. ``alem_core.scoring.score.score_columns`` gives the named view."""


def observe_worlds(worlds: State, params: Params, static: StaticParams):
    """(obs (N, P, D), mask (N, P, A)) of every world, as the core step returns them."""

    return jax.vmap(lambda state: observe(state, params, static))(worlds)


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
    } | ({} if score is None else {"score": score})


def _output(batch, flows, reset, params, static, score, may_wait: bool) -> BatchOutput:
    """The call's outputs from the states after any swap; waiting worlds see zeros and may
    only NOOP. Only a call without ``refresh`` can leave a world waiting (``upkeep`` swaps in
    every pending world otherwise), so only such a call pays for the zeroing, a full pass over
    the observation."""
    reward, term, trunc = flows
    waiting = batch.pending
    obs, mask = observe_worlds(batch.worlds, params, static)
    if may_wait:
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
    score = _zero_score_table(worlds, static)
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


@functools.partial(jax.jit, static_argnums=(1, 3))
def init(
    key: jax.Array, num_worlds: int, params: Params, static: StaticParams
) -> tuple[Batch, BatchOutput]:
    """A batch of ``num_worlds`` slots from one raw (2,) uint32 key (see ``init_from_keys``).

    Jitted here (``num_worlds`` and ``static`` static): run eagerly, world generation is
    dispatched op by op, which on 2 CPU cores took 11 s where the compiled call takes 0.1 s."""
    return init_from_keys(slot_keys(key, num_worlds), params, static)


def ended_score_table(batch: Batch, static: StaticParams, chunk: int) -> jax.Array:
    """(N, P, K) float32 score of every world that ended on the last call (``done``; zero
    elsewhere), from its final state: call it before the next call resets those worlds."""
    return _score_table_of_ended(batch.worlds, batch.done, static, chunk)


def scores(batch: Batch, static: StaticParams, chunk: int) -> dict[str, jax.Array]:
    """``score_table`` as named columns ({key: (N, P) float32})."""
    return score_columns(ended_score_table(batch, static, chunk), static)


def _score_table_of_ended(worlds: State, done: jax.Array, static: StaticParams, chunk: int):
    """(N, P, K) every score key (``score_keys`` order) of the ``done`` worlds, zero elsewhere,
    computed only for those worlds, ``chunk`` at a time (scoring all N worlds because one ended
    costs about as much as a whole step). One stacked array rather than a dict of
    ~460 (N, P) arrays: each array passing through ``step``'s ``cond`` costs a copy per call."""

    def next_chunk(carry):
        table, left = carry
        slots = jnp.argsort(~left, stable=True)[:chunk]
        take = left[slots]
        ended = jax.tree.map(lambda leaf: leaf[slots], worlds)
        rows = jax.vmap(lambda s, d: score_table(s, static, d))(ended, take)
        table = table.at[slots].add(rows)
        return table, left.at[slots].set(False)

    table, _ = jax.lax.while_loop(
        lambda c: c[1].any(), next_chunk, (_zero_score_table(worlds, static), done)
    )
    return table


def _zero_score_table(worlds: State, static: StaticParams) -> jax.Array:
    """Zeros shaped like ``_score_table_of_ended``'s result."""
    return jnp.zeros((*worlds.players.alive.shape, len(score_keys(static))), jnp.float32)


def advance(batch: Batch, actions: jax.Array, params: Params, static: StaticParams):
    """Every world steps with its deterministic per-(slot, episode, step) key; worlds that
    ended on an earlier call (``done`` or ``pending``) step too, unseen: their rewards and
    flags are zeroed, they become ``pending`` and ``swap_pending`` overwrites them.

    Returns ``(batch, (reward, terminated, truncated))``: the transition only; ``step``
    observes every world once, after the worlds that reset are swapped in.
    """

    def one(slot_key, ep, t, state, acts):
        _, k_steps = episode_keys(slot_key, ep)
        return transition(jax.random.fold_in(k_steps, t), state, acts, params, static)

    idle = batch.done | batch.pending
    moving = ~idle
    worlds, reward, term, trunc, _ = jax.vmap(one)(
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


def _upkeep_needed(batch: Batch, chunk: int, refresh: bool, score: bool) -> jax.Array:
    """() bool: a world must reset, ``chunk`` reserves are stale, or one ended (to score)."""
    stale = (~batch.reserve_fresh).sum() >= chunk
    return batch.pending.any() | (refresh & stale) | (score & batch.done.any())


def upkeep(batch: Batch, params, static: StaticParams, chunk: int, refresh: bool, score: bool):
    """The rare part of a call: regenerate reserves (``refresh_until_ready``, if ``refresh``),
    swap them into the pending worlds, score the worlds that ended. Returns (batch, table): the
    (N, P, K) score table (``_score_table_of_ended``), None unless ``score``."""
    if refresh:
        batch = refresh_until_ready(batch, params, static, chunk)

    def resettable(b: Batch) -> jax.Array:
        return (b.pending & b.reserve_fresh).any()

    batch = jax.lax.while_loop(resettable, lambda b: swap_pending(b, chunk), batch)
    table = _score_table_of_ended(batch.worlds, batch.done, static, chunk) if score else None
    return batch, table


def start_ended(
    batch: Batch, params: Params, static: StaticParams, chunk: int, refresh: bool = True
) -> Batch:
    """Same-step reset timing: the worlds that ended on the last call (``done``) start their
    next episode now rather than on the next call, and no other world moves. The same
    ``upkeep`` as ``step``'s (reserves regenerated if ``refresh`` and needed, then swapped in),
    so episode ``e`` of a slot is the same world under either timing. Score the ended worlds
    first (``ended_score_table``): their final states are gone afterwards."""
    batch = batch._replace(pending=batch.pending | batch.done, done=jnp.zeros_like(batch.done))
    return upkeep(batch, params, static, chunk, refresh=refresh, score=False)[0]


def step(
    batch: Batch,
    actions: jax.Array,
    params: Params,
    static: StaticParams,
    chunk: int,
    refresh: bool = True,
    score: bool = True,
) -> tuple[Batch, BatchOutput]:
    """One whole call: ``advance``, then ``upkeep`` under a ``lax.cond`` (skipped on calls where
    no world resets, fewer than ``chunk`` reserves are stale and, with ``score``, none ended),
    then the outputs.

    Args:
        batch: from ``init`` or a previous ``step``.
        actions: (N, P) int action ids (ignored for worlds that reset or wait this call; ids
            outside the action space act as NOOP, as in ``alem_core.step``).
        params: gameplay parameters, shared by every world.
        static: shapes (static under ``jit``).
        chunk: worlds swapped in, regenerated or scored per pass (static).
        refresh: regenerate stale reserves inside the call (static); False leaves that to
            ``refresh`` calls, and worlds without a fresh reserve wait.
        score: put ``info["score"]`` in the output (static). ``BatchRunner`` leaves it out and
            scores on demand (``scores``), so no call returns a zero table it never reads.
    """
    with jax.named_scope("advance"):  # scopes name the parts in profiles
        batch, flows = advance(batch, actions, params, static)
    resetting = batch.pending

    def skip(b: Batch):
        return b, _zero_score_table(b.worlds, static) if score else None

    with jax.named_scope("upkeep"):
        batch, table = jax.lax.cond(
            _upkeep_needed(batch, chunk, refresh, score),
            functools.partial(
                upkeep, params=params, static=static, chunk=chunk, refresh=refresh, score=score
            ),
            skip,
            batch,
        )
    with jax.named_scope("output"):
        reset = resetting & ~batch.pending
        return batch, _output(batch, flows, reset, params, static, table, may_wait=not refresh)


__all__ = [
    "Batch",
    "BatchOutput",
    "advance",
    "blank_batch",
    "ended_score_table",
    "episode_keys",
    "generate",
    "init",
    "init_from_keys",
    "install",
    "new_batch",
    "observe_worlds",
    "refresh",
    "refresh_plan",
    "refresh_until_ready",
    "scores",
    "slot_keys",
    "start_ended",
    "step",
    "swap_pending",
    "upkeep",
]
