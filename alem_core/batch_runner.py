"""``BatchRunner``: drives ``alem_core.batch`` from Python (jit, sharding, reserve refreshes).

    runner = BatchRunner(num_worlds=256, params=make_params("medium"), static=StaticParams())
    out = runner.reset(seed=0)                 # BatchOutput of jax arrays, leading axis N
    out = runner.step(actions)                 # (N, P) int actions
    if out.info["ended"]:                      # some world ended on this call
        scores = runner.scores()               # {key: (N, P)}, before the next step

After every call it refreshes the reserves that the next call may need, in chunks of ``chunk``
worlds, so no world ever waits (``batch.py``). The worlds are split over all local devices
(``jax.sharding``, a 1-D mesh over the world axis) when there are several and ``shard`` is
True. Constructing a runner does no JAX work: compilation and device set-up happen in the
first ``reset`` (so a process can fork workers after building one).
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

from alem_core import batch as core_batch
from alem_core.params import Params, StaticParams


class Compiled(NamedTuple):
    """Jitted pieces for one ``StaticParams``; ``generate`` is the only one that makes worlds,
    so init and refresh share its one compilation (per chunk size)."""

    generate: Callable
    new_batch: Callable
    concat: Callable
    step_worlds: Callable
    reset_pending: Callable
    scores: Callable
    plan: Callable
    install: Callable


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


def _plan(batch: core_batch.Batch, chunk: int):
    """``refresh_plan`` plus the keys and episode numbers to generate."""
    slots, take = core_batch.refresh_plan(batch, chunk)
    return slots, take, batch.slot_key[slots], batch.episode[slots] + 1


@functools.cache
def compiled_batch(static: StaticParams, chunk: int) -> Compiled:
    """The jitted batch functions for one ``StaticParams`` and refresh chunk size."""
    return Compiled(
        generate=jax.jit(lambda k, e, params: core_batch.generate(k, e, params, static)),
        new_batch=jax.jit(lambda k, a, b: core_batch.new_batch(k, a, b, static)),
        concat=jax.jit(
            lambda parts, n: jax.tree.map(lambda *x: jnp.concatenate(x)[:n], *parts),
            static_argnums=1,
        ),
        step_worlds=jax.jit(
            lambda batch, actions, params: core_batch.step_worlds(batch, actions, params, static),
            donate_argnums=0,
        ),
        reset_pending=jax.jit(
            lambda batch, out: core_batch.reset_pending(batch, out, chunk), donate_argnums=0
        ),
        scores=jax.jit(lambda batch: core_batch.scores(batch, static)),
        plan=jax.jit(lambda batch: _plan(batch, chunk)),
        install=jax.jit(core_batch.install, donate_argnums=0),
    )


def default_chunk(num_worlds: int) -> int:
    """Reserve refresh chunk: an eighth of the batch (at least 1)."""
    return max(1, math.ceil(num_worlds / 8))


def seed_key(seed: int) -> np.ndarray:
    """A raw (2,) uint32 key from any non-negative int (``SeedSequence`` hashes it)."""
    if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
        raise ValueError(f"seed must be a non-negative int, got {seed!r}")
    return np.random.SeedSequence(int(seed)).generate_state(2, dtype=np.uint32)


class BatchRunner:
    """N worlds with auto-reset; see the module docstring."""

    def __init__(
        self,
        num_worlds: int,
        params: Params,
        static: StaticParams,
        chunk: int | None = None,
        shard: bool = True,
    ) -> None:
        if isinstance(num_worlds, bool) or not isinstance(num_worlds, (int, np.integer)):
            raise ValueError(f"num_worlds must be a positive int, got {num_worlds!r}")
        if num_worlds < 1:
            raise ValueError(f"num_worlds must be a positive int, got {num_worlds!r}")
        chunk = default_chunk(int(num_worlds)) if chunk is None else chunk
        if isinstance(chunk, bool) or not isinstance(chunk, int) or not 1 <= chunk <= num_worlds:
            raise ValueError(f"chunk must be an int in [1, num_worlds={num_worlds}], got {chunk!r}")
        self.num_worlds = int(num_worlds)
        self.params = params
        self.static = static
        self.chunk = chunk
        self.shard = shard
        self.batch: core_batch.Batch | None = None
        self.refreshes = 0
        """Reserve refresh calls made so far (each generates ``chunk`` worlds)."""
        self._counts = None  # the last call's (stale, needed, ended, waiting) counters
        self._warm = False

    @property
    def sharding(self):
        """The world-axis ``NamedSharding`` in use, or None (one device or ``shard=False``)."""
        return world_sharding(self.num_worlds) if self.shard else None

    def reset(self, seed: int) -> core_batch.BatchOutput:
        """Start every slot's episode 0 from ``seed``; the same seed gives the same episodes.

        The first call also compiles (or loads from the persistent cache) everything a
        rollout uses, the score and the reset passes included, so no call compiles mid-way.
        """
        fns = compiled_batch(self.static, self.chunk)
        self._params = self.params.as_arrays()
        keys = core_batch.slot_keys(jnp.asarray(seed_key(seed)), self.num_worlds)
        first, second = (self._generate_all(keys, episode) for episode in (0, 1))
        self.batch, out = fns.new_batch(keys, first, second)
        sharding = self.sharding
        if sharding is not None:
            self.batch = jax.device_put(self.batch, sharding)
        self._counts = None
        if not self._warm:
            self._warm_up(out)
        return out

    def _warm_up(self, out: core_batch.BatchOutput) -> None:
        """Compile the calls that otherwise compile on the first episode end (no effect on the
        batch: nothing is pending or stale yet)."""
        fns = compiled_batch(self.static, self.chunk)
        self.batch, out = fns.reset_pending(self.batch, out)
        jax.block_until_ready((out.obs, fns.scores(self.batch)))
        self.refresh()
        self.refreshes = 0
        self._warm = True

    def _generate_all(self, keys: jax.Array, episode: int):
        """``generate`` for every slot, ``chunk`` slots per call (padding discarded)."""
        fns = compiled_batch(self.static, self.chunk)
        n, c = self.num_worlds, self.chunk
        padded = jnp.concatenate([keys, jnp.zeros((-n % c, 2), keys.dtype)])
        episodes = jnp.full((c,), episode, jnp.int32)
        parts = [fns.generate(padded[i : i + c], episodes, self._params) for i in range(0, n, c)]
        return fns.concat(parts, n)

    def step(self, actions) -> core_batch.BatchOutput:
        """One call with (N, P) int actions: step (scoring the worlds that end now), then
        refresh the reserves and reset the worlds that ended on the previous call."""
        if self.batch is None:
            raise RuntimeError("step() called before reset(); call reset(seed) first")
        fns = compiled_batch(self.static, self.chunk)
        sharding = self.sharding
        if sharding is not None:
            actions = jax.device_put(actions, sharding)
        self.batch, out = fns.step_worlds(self.batch, actions, self._params)
        if self._counts is not None:  # the previous call's, read while this one runs
            stale, needed, ended, waiting = (int(v) for v in jax.device_get(self._counts))
            for _ in range(max(math.ceil(needed / self.chunk), stale // self.chunk)):
                self.refresh()
            for _ in range(math.ceil((ended + waiting) / self.chunk)):
                self.batch, out = fns.reset_pending(self.batch, out)
        info = out.info
        waiting = info["waiting"].sum()
        self._counts = (info["stale_reserves"], info["reserve_needed"], info["ended"], waiting)
        return out

    def scores(self) -> dict[str, jax.Array]:
        """Score keys ({key: (N, P) float32}, ``alem_core.score``) of the worlds that ended on
        the last ``step`` (``info["done"]``; zero elsewhere), from their final states. Call it
        before the next ``step``, which resets them."""
        if self.batch is None:
            raise RuntimeError("scores() called before reset(); call reset(seed) first")
        return compiled_batch(self.static, self.chunk).scores(self.batch)

    def refresh(self) -> None:
        """Regenerate up to ``chunk`` stale reserves now (``batch.refresh``, in pieces)."""
        fns = compiled_batch(self.static, self.chunk)
        slots, take, keys, episodes = fns.plan(self.batch)
        generated = fns.generate(keys, episodes, self._params)
        self.batch = fns.install(self.batch, slots, take, generated)
        self.refreshes += 1


__all__ = [
    "BatchRunner",
    "Compiled",
    "compiled_batch",
    "default_chunk",
    "seed_key",
    "world_sharding",
]
