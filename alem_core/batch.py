"""N worlds x P agents stepped by one jitted call, with auto-reset from a reserve of worlds.

On the device, in one jitted function (e.g. inside ``lax.scan``)::

    batch, out = init(key, num_worlds, params, static)
    batch, out = step(batch, actions, params, static, chunk)   # actions (N, P) int
    batch = refresh_until_ready(batch, params, static, chunk)  # regenerate used reserves

``BatchRunner`` (``batch_runner.py``) runs the same pieces as separate jitted calls and decides
on the host which are needed: ``step_worlds`` every call, ``reset_pending`` only after a world
ended, ``refresh`` (``refresh_plan``/``generate``/``install``) only when reserves are used up.
It reads the few counters it decides on from the previous call, after dispatching the current
``step_worlds``, so the host never waits for the call in flight.

Auto-reset: a per-slot reserve, refreshed between calls. Every world slot keeps, next to its
running world, the pre-generated initial state (and its first observation and action mask) of
its next episode. When a world ends, the next call swaps the reserve in; no world is generated
inside a step. ``refresh`` regenerates up to ``chunk`` used reserves at once, slots about to
reset first. Why this and not Craftax's optimistic reset:
* generating a world costs many steps, so it must stay out of the per-step path, and
  generating in chunks of ``chunk`` worlds amortises the vmapped generator;
* a reserve per slot never runs dry, even when every world is truncated on the same step (all
  worlds start together, so at ``max_timesteps`` they all end at once), whereas a shared pool
  smaller than N would have to hand the same world to several slots, as optimistic reset does;
* the world of episode ``e`` in slot ``i`` is ``reset(fold_in(fold_in(seed, i), e))`` and its
  step keys are ``fold_in`` of that key and the step count, so the same seed (and actions)
  gives the same sequence of episodes whatever the refresh timing, chunk size or sharding.
The cost is memory: two states per slot (plus the reserve's first observation).

Reset timing follows Gymnasium's ``NEXT_STEP`` mode: the call on which a world ends returns its
final observation, rewards, flags, episode statistics and score (``scores``, from its final
state). The next call resets that world: its actions are ignored, it returns the reserve's
first observation with zero reward and ``info["reset"]`` True. The swap copies only the
resetting worlds' rows (``reset_pending``). Measured at N = 64 on this project's loaded 2-core
CPU, a select between whole states on every call made the batched step 2-3x slower than the
bare vmapped step (it defeats XLA's in-place updates of the maps), and even a skipped
``lax.cond`` scoring the states cost about a third; so ``BatchRunner`` scores in its own call
(``BatchRunner.scores()``) after calls where a world ended. A world that must reset while its
reserve is still stale (only if ``refresh`` was skipped) waits instead of replaying an old
world: ``info["waiting"]`` is True, its observation is zero and only NOOP is legal, until a
``refresh`` supplies its world.

Sharding: ``shard`` splits the world axis of every leaf over a 1-D ``jax.sharding.Mesh`` of the
local devices; the jitted functions then run on all devices (see ``batch_runner.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from alem_core.api import reset as core_reset
from alem_core.api import step as core_step
from alem_core.constants import Action
from alem_core.masking import action_mask
from alem_core.params import Params, StaticParams
from alem_core.score import score
from alem_core.state import State


class Batch(NamedTuple):
    """Everything about N world slots (leading axis N on every leaf)."""

    worlds: State
    """The running worlds."""
    reserve: State
    """Each slot's next episode, pre-generated (valid where ``reserve_fresh``)."""
    reserve_obs: jax.Array
    """(N, P, D) float32 first observation of the reserve."""
    reserve_mask: jax.Array
    """(N, P, A) bool first action mask of the reserve."""
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
    """(N,) bool the world ended on an earlier call and ``reset_pending`` has not yet swapped
    its reserve in (the current call's ``step`` leaves it idle)."""


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
    stale: ``refresh`` them first) and ``ended`` () int32 (worlds with ``done``). ``step``
    adds ``score`` {key: (N, P) float32} (``scores``); ``BatchRunner`` leaves it to
    ``BatchRunner.scores()``, called only after calls where a world ended."""


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
    return obs, state, action_mask(state, params, static)


def generate(keys: jax.Array, episodes: jax.Array, params: Params, static: StaticParams):
    """``(obs (C, P, D), states, masks (C, P, A))``: episode ``episodes[c]`` of the slot whose
    key is ``keys[c]``, for C slots at once (the only place worlds are made)."""
    return jax.vmap(_generate, in_axes=(0, 0, None, None))(keys, episodes, params, static)


def _select(which: jax.Array, new, old):
    """Per-slot choice between two pytrees with leading axis N."""

    def pick(a, b):
        return jnp.where(which.reshape(which.shape + (1,) * (a.ndim - 1)), a, b)

    return jax.tree.map(pick, new, old)


def new_batch(keys: jax.Array, first, second, static: StaticParams) -> tuple[Batch, BatchOutput]:
    """Assemble a batch from ``generate``'s output for episodes 0 (``first``) and 1
    (``second``) of every slot; nothing is generated here."""
    n = keys.shape[0]
    obs, worlds, mask = first
    r_obs, reserve, r_mask = second
    p = static.player_count
    no = jnp.zeros((n,), bool)
    batch = Batch(
        worlds, reserve, r_obs, r_mask, ~no, keys, jnp.zeros(n, jnp.int32),
        jnp.zeros(n, jnp.int32), jnp.zeros((n, p), jnp.float32), no, no,
    )  # fmt: skip
    zero = jnp.zeros((n, p), jnp.float32)
    info = _info(batch, mask, worlds.players.alive, ~no, no, no)
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


def _info(batch, mask, alive, reset, waiting, done) -> dict:
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
    }


def _step_worlds(batch: Batch, worlds: State, episode, length, actions, params, static):
    """The core step of every world with its deterministic per-(slot, episode, step) key."""

    def one(slot_key, ep, t, state, acts):
        _, k_steps = _episode_keys(slot_key, ep)
        return core_step(jax.random.fold_in(k_steps, t), state, acts, params, static)

    return jax.vmap(one)(batch.slot_key, episode, length, worlds, actions)


def step_worlds(
    batch: Batch, actions: jax.Array, params: Params, static: StaticParams
) -> tuple[Batch, BatchOutput]:
    """The hot part of a call: every world steps; nothing is reset or scored (``scores``).

    Worlds that ended on an earlier call (``done`` or ``pending``) step too, unseen: their
    rewards and flags are zeroed and ``reset_pending`` then overwrites their state and outputs
    with the reserve. Nothing here selects between whole states, so the core step updates the
    donated worlds in place (a per-world state select cost 2-3x the step itself).
    """
    idle = batch.done | batch.pending
    advance = ~idle
    obs, worlds, reward, term, trunc, info = _step_worlds(
        batch, batch.worlds, batch.episode, batch.length, actions, params, static
    )
    reward = jnp.where(advance[:, None], reward, 0.0)
    term, trunc = term & advance[:, None], trunc & advance[:, None]
    done = (term | trunc).any(axis=1)
    batch = batch._replace(
        worlds=worlds,
        length=batch.length + advance,
        returns=batch.returns + reward,
        done=done,
        pending=idle,
    )
    no = jnp.zeros_like(done)
    info = _info(batch, info["action_mask"], worlds.players.alive, no, no, done)
    return batch, BatchOutput(obs, reward, term, trunc, info)


def reset_pending(batch: Batch, out: BatchOutput, chunk: int) -> tuple[Batch, BatchOutput]:
    """Reset up to ``chunk`` pending worlds: swap their reserve in (rows, not whole states) and
    put its first observation and mask into ``out``; pending worlds whose reserve is stale get
    a zero observation and a NOOP-only mask and stay pending (``info["waiting"]``)."""
    unmarked = batch.pending & ~out.info["waiting"]  # waiting rows already handled are done
    rank = jnp.where(batch.pending & batch.reserve_fresh, 0, jnp.where(unmarked, 1, 2))
    slots = jnp.argsort(rank, stable=True)[:chunk]
    swap, wait = rank[slots] == 0, rank[slots] == 1

    def rows(old, new, which=swap):
        keep = old[slots]
        return old.at[slots].set(
            jnp.where(which.reshape((-1,) + (1,) * (keep.ndim - 1)), new, keep)
        )

    worlds = jax.tree.map(lambda w, r: rows(w, r[slots]), batch.worlds, batch.reserve)
    obs = rows(rows(out.obs, batch.reserve_obs[slots]), jnp.zeros_like(out.obs[slots]), wait)
    noop_only = jnp.arange(out.info["action_mask"].shape[-1]) == Action.NOOP
    mask = rows(out.info["action_mask"], batch.reserve_mask[slots])
    mask = rows(mask, jnp.broadcast_to(noop_only, mask[slots].shape), wait)
    batch = batch._replace(
        worlds=worlds,
        reserve_fresh=batch.reserve_fresh.at[slots].set(batch.reserve_fresh[slots] & ~swap),
        episode=batch.episode.at[slots].add(swap),
        length=rows(batch.length, 0),
        returns=rows(batch.returns, 0.0),
        pending=batch.pending.at[slots].set(batch.pending[slots] & ~swap),
    )
    info = dict(out.info)
    info.update(
        action_mask=mask,
        alive=rows(info["alive"], batch.reserve.players.alive[slots]),
        reset=info["reset"].at[slots].set(info["reset"][slots] | swap),
        waiting=info["waiting"].at[slots].set(info["waiting"][slots] | wait),
        episode=batch.episode,
        stale_reserves=(~batch.reserve_fresh).sum().astype(jnp.int32),
    )
    return batch, out._replace(obs=obs, info=info)


def scores(batch: Batch, static: StaticParams) -> dict[str, jax.Array]:
    """The score keys of every world that ended on this call (zero elsewhere), from its final
    state: call it after ``step_worlds`` and before the next call resets those worlds."""
    return _scores(batch.worlds, batch.done, static)


def step(
    batch: Batch, actions: jax.Array, params: Params, static: StaticParams, chunk: int
) -> tuple[Batch, BatchOutput]:
    """One whole call for on-device loops: ``step_worlds``, ``reset_pending`` until no world
    that can be reset is pending, and ``info["score"]`` (``scores``, under a ``lax.cond`` that
    skips it when no world ended).
    ``BatchRunner`` runs the same pieces as separate calls, deciding on the host.

    Args:
        batch: from ``init`` or a previous ``step``.
        actions: (N, P) int action ids (ignored for worlds that reset or wait this call; ids
            outside the action space act as NOOP, as in ``alem_core.step``).
        params: gameplay parameters, shared by every world.
        static: shapes (static under ``jit``).
        chunk: worlds reset per ``reset_pending`` pass (static).
    """
    batch, out = step_worlds(batch, actions, params, static)

    def resettable(carry) -> jax.Array:
        return (carry[0].pending & carry[0].reserve_fresh).any()

    batch, out = jax.lax.while_loop(
        resettable, lambda c: reset_pending(c[0], c[1], chunk), (batch, out)
    )
    batch, out = reset_pending(batch, out, chunk)  # marks the waiting ones
    done, worlds = batch.done, batch.worlds
    score = jax.lax.cond(
        done.any(),
        lambda: _scores(worlds, done, static),
        lambda: _zero_scores(worlds, done, static),
    )
    return batch, out._replace(info={**out.info, "score": score})


def refresh_plan(batch: Batch, chunk: int) -> tuple[jax.Array, jax.Array]:
    """``(slots (chunk,), take (chunk,) bool)``: the stale reserves to regenerate, slots about
    to reset first, then by index; ``take`` is False for padding (fewer stale than ``chunk``)."""
    stale = ~batch.reserve_fresh
    urgent = stale & (batch.done | batch.pending)  # these worlds reset on the next pass
    rank = jnp.where(urgent, 0, jnp.where(stale, 1, 2))
    slots = jnp.argsort(rank, stable=True)[:chunk]
    return slots, rank[slots] < 2


def install(batch: Batch, slots: jax.Array, take: jax.Array, generated) -> Batch:
    """Put ``generate``'s output for ``slots`` into the reserve where ``take``."""
    obs, state, mask = generated

    def put(old, new):
        chosen = jnp.where(take.reshape(take.shape + (1,) * (new.ndim - 1)), new, old[slots])
        return old.at[slots].set(chosen)

    return batch._replace(
        reserve=jax.tree.map(put, batch.reserve, state),
        reserve_obs=put(batch.reserve_obs, obs),
        reserve_mask=put(batch.reserve_mask, mask),
        reserve_fresh=batch.reserve_fresh.at[slots].set(batch.reserve_fresh[slots] | take),
    )


def refresh(batch: Batch, params: Params, static: StaticParams, chunk: int) -> Batch:
    """Regenerate up to ``chunk`` stale reserves (``refresh_plan``, ``generate``, ``install``).

    ``chunk`` is static (one compiled generator of ``chunk`` worlds). Slots beyond the stale
    ones are generated and discarded, so call it when at least ``chunk`` are stale or a world
    needs its reserve (``info["reserve_needed"]``).
    """
    slots, take = refresh_plan(batch, chunk)
    generated = generate(batch.slot_key[slots], batch.episode[slots] + 1, params, static)
    return install(batch, slots, take, generated)


def refresh_until_ready(batch: Batch, params: Params, static: StaticParams, chunk: int) -> Batch:
    """Jittable version of ``BatchRunner``'s policy, for loops that stay on the device
    (``lax.scan``): refresh while a world that resets next call lacks its reserve, or while at
    least ``chunk`` reserves are stale. Costs nothing on calls where neither holds."""

    def pending(b: Batch) -> jax.Array:
        stale = ~b.reserve_fresh
        return ((b.done | b.pending) & stale).any() | (stale.sum() >= chunk)

    return jax.lax.while_loop(pending, lambda b: refresh(b, params, static, chunk), batch)


__all__ = [
    "Batch",
    "BatchOutput",
    "generate",
    "init",
    "init_from_keys",
    "install",
    "new_batch",
    "refresh",
    "refresh_plan",
    "refresh_until_ready",
    "reset_pending",
    "scores",
    "slot_keys",
    "step",
    "step_worlds",
]
