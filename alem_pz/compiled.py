"""Jitted core entry points shared by every ``AlemParallelEnv`` with the same shapes.

State and params cross the host boundary as a few packed buffers (``alem_pz.packing``):
dispatching the state's ~100 leaves one by one cost more than the step itself.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import alem_core
from alem_core.compilation_cache import enable_default_cache
from alem_core.executables import per_shape, quick_compile_options
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
    """Compiled entry points for one ``StaticParams``. State and params cross the host
    boundary as a few packed buffers (``alem_pz.packing``): ~100 separate leaves cost more
    dispatch time than the step itself. ``pack_state`` and ``unpack_state`` are compiled for
    calls from Python; ``unpack`` is the traceable function, for use inside other jitted code
    (a jitted function with its own XLA options cannot be nested)."""

    reset: AheadOfTime
    step: AheadOfTime
    pack_state: Callable
    unpack_state: Callable
    unpack: Callable
    pack_params: Callable


class AheadOfTime:
    """A jitted function compiled once for the argument types the env always passes, its
    compile started in a worker thread as soon as it is lowered.

    The env lowers reset and step together at its first reset and compiles step while reset
    compiles on the calling thread, so the two use both cores and the first step waits only
    for what is left. The worker is a ``concurrent.futures`` thread, which Python joins before
    the interpreter shuts down: a script that exits mid-compile waits for it instead of
    tearing XLA down under a running compile (a daemon compile thread alive at exit crashed
    such scripts). The persistent compilation cache serves these compiles like any other.
    ``compiler_options`` are XLA options for this executable alone.
    """

    def __init__(
        self, jitted: Any, *example_args: Any, compiler_options: dict | None = None
    ) -> None:
        self.lowered = jitted.lower(*example_args)
        self._options = compiler_options or None
        self._future: Future | None = None
        self._compiled: Any = None

    def start(self) -> AheadOfTime:
        """Begin compiling in the worker thread (no-op once started)."""
        if self._future is None and self._compiled is None:
            self._future = _compile_pool().submit(self.lowered.compile, self._options)
        return self

    @property
    def compiled(self) -> Any:
        """The executable (waits for the worker, or compiles here if never started)."""
        if self._compiled is None:
            if self._future is not None:
                self._compiled = self._future.result()
            else:
                self._compiled = self.lowered.compile(self._options)
            self._future = None
        return self._compiled

    def wait(self) -> None:
        """Block until compiled (before opening a window, say, so the first call is quick)."""
        _ = self.compiled

    def __call__(self, *args: Any) -> Any:
        return self.compiled(*args)


@functools.cache
def _compile_pool() -> ThreadPoolExecutor:
    return ThreadPoolExecutor(max_workers=1, thread_name_prefix="alem-compile")


def _host_packer(packer: PyTreePacker) -> Callable:
    """``packer.pack`` in numpy (params are host values: no device op, nothing to compile)."""

    def pack(tree: Any) -> tuple[np.ndarray, ...]:
        parts: list[list[np.ndarray]] = [[] for _ in packer.dtypes]
        for leaf, (buffer, _, _) in zip(jax.tree.leaves(tree), packer.slots, strict=True):
            parts[buffer].append(np.ravel(np.asarray(leaf, packer.dtypes[buffer])))
        return tuple(
            np.concatenate(group) if group else np.zeros((0,), name)
            for group, name in zip(parts, packer.dtypes, strict=True)
        )

    return pack


@per_shape
def compiled_core(static: alem_core.StaticParams) -> CompiledCore:
    """The compiled functions for one ``StaticParams``, shared by all envs.

    ``reset`` and ``step`` split the env's key inside the compiled call (an eager split is a
    dispatch of its own) and return ``(next_key, state buffers, packed)`` with ``packed`` as
    in ``_pack``. Both are lowered here and step's compile starts at once in the worker
    thread (``AheadOfTime``); the caller's first ``reset`` compiles reset meanwhile. Both
    compile with ``QUICK_COMPILE_CPU``'s options: one world per call, a person waiting.
    """
    enable_default_cache()  # the first env turns the on-disk cache on (not the import)
    params_example = alem_core.make_params("medium").as_arrays()
    params_packer = PyTreePacker(params_example)
    pack_params = _host_packer(params_packer)
    # Traced once: the reset program below calls the same jitted core reset with the same
    # argument types (a raw uint32 key, as the env's keys are), so JAX reuses this trace.
    core_reset = jax.jit(alem_core.reset, static_argnums=2)
    key = np.zeros((2,), np.uint32)
    state_shape = jax.eval_shape(core_reset, key, params_example, static)[1]
    state_packer = PyTreePacker(state_shape)

    def reset(key: jax.Array, params_buffers):
        params = params_packer.unpack(params_buffers)
        key, sub = jax.random.split(key)
        _, state = core_reset(sub, params, static)
        obs, mask = alem_core.observe(state, params, static)
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

    params_buffers = pack_params(params_example)
    state_buffers = jax.eval_shape(state_packer.pack, state_shape)
    actions = np.zeros((static.player_count,), np.int32)
    step_fn = AheadOfTime(
        jax.jit(step, donate_argnums=1),
        key,
        state_buffers,
        actions,
        params_buffers,
        compiler_options=quick_compile_options("every_step"),
    )
    per_episode = quick_compile_options("per_episode")
    return CompiledCore(
        reset=AheadOfTime(jax.jit(reset), key, params_buffers, compiler_options=per_episode),
        step=step_fn.start(),
        pack_state=jax.jit(state_packer.pack, compiler_options=per_episode),
        unpack_state=jax.jit(state_packer.unpack, compiler_options=per_episode),
        unpack=state_packer.unpack,
        pack_params=lambda params: tuple(jnp.asarray(b) for b in pack_params(params.as_arrays())),
    )
