"""``BatchRunner``: drives ``alem_core.batch.auto_reset`` from Python (jit, sharding, warm-up).

    runner = BatchRunner(num_worlds=256, params=make_params("medium"), static=StaticParams())
    out = runner.reset(seed=0)                 # BatchOutput of jax arrays, leading axis N
    out = runner.step(actions)                 # (N, P) int actions
    if out.info["ended"]:                      # some world ended on this call
        table = runner.score_table()           # (N, P, K), before the next step

Each ``step`` is one jitted ``batch.step`` (reserves regenerated and swapped in on the device
when needed); the score of the worlds that ended is computed on demand by ``score_table()``
(``scores()`` names its columns). The
upkeep is chosen on the device, not by the host: reading the previous call's counters to choose
would stall the pipeline of asynchronous dispatches.
The worlds are split over all local devices (``jax.sharding``, a 1-D mesh over the world axis)
when there are several and ``shard`` is True. ``reset_timing="same_step"`` (Gymnasium's
``SAME_STEP`` mode, the SB3 vector env's convention) starts the worlds that ended in the same
``step`` (``auto_reset.start_ended``, one more jitted call on the calls where a world ends,
which the host waits for): their rows then hold the next episode's first observation, and
``info["final_obs"]`` / ``info["final_action_mask"]`` the last ones.

Constructing a runner does no JAX work: compilation and device set-up happen in the first
``reset`` (so a process can fork workers after building one).
"""

from __future__ import annotations

import functools
import math
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax.sharding import Mesh, NamedSharding, PartitionSpec

from alem_core.api import seed_key
from alem_core.batch import auto_reset as core_batch
from alem_core.compilation_cache import enable_default_cache
from alem_core.executables import per_shape
from alem_core.params import Params, StaticParams
from alem_core.scoring.score import score_columns


class Compiled(NamedTuple):
    """Jitted pieces for one ``StaticParams``; worlds are made only inside ``step``."""

    blank: Callable
    step: Callable
    """``batch.step`` without the score (``score_table`` computes it on demand)."""
    score_table: Callable
    """(N, P, K) score of the worlds that ended on the last call (``ended_score_table``)."""


WORLD_AXIS = "worlds"


def world_sharding(num_worlds: int, devices=None) -> NamedSharding | None:
    """A sharding of the world axis over ``devices`` (default: all local devices).

    Returns None for one device. Raises ValueError if ``num_worlds`` does not divide evenly.
    """
    devices = list(jax.local_devices() if devices is None else devices)
    if len(devices) == 1:
        return None
    if num_worlds % len(devices):
        raise ValueError(
            f"num_worlds={num_worlds} must be a multiple of the {len(devices)} local devices "
            "to shard the worlds over them"
        )
    mesh = Mesh(np.asarray(devices), (WORLD_AXIS,))
    return NamedSharding(mesh, PartitionSpec(WORLD_AXIS))


def _step(batch, actions, params, static, chunk):
    return core_batch.step(batch, actions, params, static, chunk, score=False)


@per_shape
def compiled_batch(static: StaticParams, chunk: int) -> Compiled:
    """The jitted batch functions for one ``StaticParams`` and refresh chunk size."""
    return Compiled(
        blank=jax.jit(lambda keys, params: core_batch.blank_batch(keys, params, static)),
        step=jax.jit(functools.partial(_step, static=static, chunk=chunk), donate_argnums=0),
        score_table=jax.jit(lambda batch: core_batch.ended_score_table(batch, static, chunk)),
    )


@per_shape
def compiled_start(static: StaticParams, chunk: int, refresh: bool) -> Callable:
    """Jitted ``(batch, params, obs, mask) -> (batch, obs, mask, alive)``: ``start_ended``, with
    the rows of the worlds that ended replaced by their next episode's first observation and
    mask. ``refresh=False`` only swaps (every ended world has a fresh reserve, the usual case):
    it compiles in a fraction of the time of the variant that may regenerate reserves, which is
    compiled only when a stale reserve needs it."""

    def run(batch, params, obs, mask):
        ended = batch.done[:, None, None]
        batch = core_batch.start_ended(batch, params, static, chunk, refresh)
        new_obs, new_mask = core_batch.observe_worlds(batch.worlds, params, static)
        obs, mask = jnp.where(ended, new_obs, obs), jnp.where(ended, new_mask, mask)
        return batch, obs, mask, batch.worlds.players.alive

    return jax.jit(run, donate_argnums=0)


RESET_TIMINGS = ("next_step", "same_step")
"""``BatchRunner``'s reset timings (Gymnasium's ``NEXT_STEP`` and ``SAME_STEP`` modes)."""


def default_chunk(num_worlds: int) -> int:
    """Reserve refresh chunk: an eighth of the batch (at least 1)."""
    return max(1, math.ceil(num_worlds / 8))


class BatchRunner:
    """N worlds with auto-reset; see the module docstring."""

    def __init__(
        self,
        num_worlds: int,
        params: Params,
        static: StaticParams,
        chunk: int | None = None,
        shard: bool = True,
        reset_timing: str = "next_step",
    ) -> None:
        if isinstance(num_worlds, bool) or not isinstance(num_worlds, (int, np.integer)):
            raise ValueError(f"num_worlds must be a positive int, got {num_worlds!r}")
        if num_worlds < 1:
            raise ValueError(f"num_worlds must be a positive int, got {num_worlds!r}")
        chunk = default_chunk(int(num_worlds)) if chunk is None else chunk
        if isinstance(chunk, bool) or not isinstance(chunk, int) or not 1 <= chunk <= num_worlds:
            raise ValueError(f"chunk must be an int in [1, num_worlds={num_worlds}], got {chunk!r}")
        if reset_timing not in RESET_TIMINGS:
            raise ValueError(f"reset_timing must be one of {RESET_TIMINGS}, got {reset_timing!r}")
        self.reset_timing = reset_timing
        self.num_worlds = int(num_worlds)
        self.params = params
        self.static = static
        self.chunk = chunk
        self.shard = shard
        self.batch: core_batch.Batch | None = None
        self._warm = False
        self._ended_table: jax.Array | None = None  # same-step timing: scored before the start

    @property
    def sharding(self):
        """The world-axis ``NamedSharding`` in use, or None (one device or ``shard=False``)."""
        return world_sharding(self.num_worlds) if self.shard else None

    def reset(self, seed: int) -> core_batch.BatchOutput:
        """Start every slot's episode 0 from ``seed``; the same seed gives the same episodes.

        The first call also compiles (or loads from the persistent cache) everything a
        rollout uses (the step with its upkeep branch, which also makes the worlds, and the
        score), so no call compiles mid-way.
        """
        enable_default_cache()  # the first runner turns the on-disk cache on (not the import)
        fns = compiled_batch(self.static, self.chunk)
        # On the device once: host arrays would be copied over on every call.
        self._params = jax.device_put(self.params.as_arrays())
        keys = core_batch.slot_keys(jnp.asarray(seed_key(seed)), self.num_worlds)
        self.batch = fns.blank(keys, self._params)
        sharding = self.sharding
        if sharding is not None:
            self.batch = jax.device_put(self.batch, sharding)
        # Every slot is pending with a stale reserve: this call generates episode 0 of each
        # (``batch.blank_batch``) and returns its first observation; the actions are ignored.
        # It also compiles the step with its upkeep branch, so the rollout never compiles.
        out = self.step(jnp.zeros((self.num_worlds, self.static.player_count), jnp.int32))
        if not self._warm:  # compile the score now too (it runs only after episode ends)
            jax.block_until_ready(fns.score_table(self.batch))
            self._warm = True
        return out

    def step(self, actions) -> core_batch.BatchOutput:
        """One call with (N, P) int actions (``batch.step``): worlds that ended on the previous
        call reset, the others step. Call ``scores()`` after a call where a world ended.

        The upkeep (reserves regenerated and swapped in) runs inside the call, under a
        ``lax.cond``, so the host reads nothing back and never waits for the call in flight.
        """
        if self.batch is None:
            raise RuntimeError("step() called before reset(); call reset(seed) first")
        fns = compiled_batch(self.static, self.chunk)
        sharding = self.sharding
        if sharding is not None:
            actions = jax.device_put(actions, sharding)
        self.batch, out = fns.step(self.batch, actions, self._params)
        self._ended_table = None
        if self.reset_timing == "same_step" and int(out.info["ended"]):
            out = self._start_ended(out)
        return out

    def _start_ended(self, out: core_batch.BatchOutput) -> core_batch.BatchOutput:
        """Same-step timing: score the worlds that just ended, then start their next episode
        (``compiled_start``). The output keeps their final observation as
        ``info["final_obs"]`` and their final mask as ``info["final_action_mask"]``."""
        self._ended_table = self.score_table()
        assert self.batch is not None  # step() checked it
        stale = self.batch.done & ~self.batch.reserve_fresh
        start = compiled_start(self.static, self.chunk, bool(stale.any()))
        info = out.info
        self.batch, obs, mask, alive = start(self.batch, self._params, out.obs, info["action_mask"])
        final = {"final_obs": out.obs, "final_action_mask": info["action_mask"]}
        info = info | final | {"action_mask": mask, "alive": alive, "reset": out.info["done"]}
        return out._replace(obs=obs, info=info)

    def score_table(self) -> jax.Array:
        """(N, P, K) float32 score (``alem_core.scoring.score``; column ``k`` is key ``k`` of
        ``score_keys(static)``) of the worlds that ended on the last ``step`` (``info["done"]``;
        zero elsewhere), from their final states. Call it before the next ``step``, which resets
        them."""
        if self.batch is None:
            raise RuntimeError("score_table() called before reset(); call reset(seed) first")
        if self._ended_table is not None:  # same-step timing: the ended worlds restarted
            return self._ended_table
        return compiled_batch(self.static, self.chunk).score_table(self.batch)

    def scores(self) -> dict[str, jax.Array]:
        """``score_table()`` as named columns ({key: (N, P) float32})."""
        return score_columns(self.score_table(), self.static)


__all__ = [
    "RESET_TIMINGS",
    "BatchRunner",
    "Compiled",
    "compiled_batch",
    "compiled_start",
    "default_chunk",
    "world_sharding",
]
