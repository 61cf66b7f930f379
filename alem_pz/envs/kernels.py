"""Jitted core entry points shared by every ``AlemParallelEnv`` with the same shapes.

State and params cross the host boundary as a few packed buffers (``alem_pz.envs.packing``):
dispatching the state's ~100 leaves one by one cost more than the step itself.

The step and the reset are compiled in two tiers (``Tiered``). A new user waits for the first
tier, compiled with ``QUICK_COMPILE_CPU``'s options (about half the compile, a slower program).
Once a world shape has stepped ``TIER_UP_AFTER`` times, a helper process compiles the same
programs with XLA's defaults into the persistent compilation cache; this process then loads
them from the cache on its compile thread and swaps them in. A helper process, not a thread:
an XLA compile cannot be stopped, and Python joins threads at exit, so a short script would
wait for a compile it no longer needs; the helper is simply stopped at exit.
One helper per world shape and cache runs at a time (a lock file in the cache).
``ALEM_FASTER_STEP=0`` (or ``off``) keeps the first tier; so does a process without the
persistent cache, where the helper's work could not reach it. Run as ``python -m
alem_pz.envs.kernels STATIC LOCK`` this module is that helper.
"""

from __future__ import annotations

import atexit
import base64
import functools
import hashlib
import os
import pickle
import subprocess
import sys
import time
import warnings
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from pathlib import Path
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

import alem_core
from alem_core.compilation_cache import OFF_VALUES, enable_default_cache
from alem_core.executables import per_shape, quick_compile_options
from alem_core.scoring.metrics import cooperation_metrics
from alem_pz.envs.packing import PyTreePacker


def _pack(obs: jax.Array, mask: jax.Array, reward, terminated, truncated, state) -> jax.Array:
    """(P, D + A + 4 + K) float32: [obs | mask | reward | terminated | truncated | alive |
    the K cooperation metrics in ``COOPERATION_METRICS`` order]."""
    flags = (reward, terminated, truncated, state.players.alive)
    metrics = cooperation_metrics(state)
    columns = [c.astype(jnp.float32)[:, None] for c in (*flags, *metrics.values())]
    return jnp.concatenate([obs.astype(jnp.float32), mask.astype(jnp.float32), *columns], axis=1)


class CompiledCore(NamedTuple):
    """Compiled entry points for one ``StaticParams``. State and params cross the host
    boundary as a few packed buffers (``alem_pz.envs.packing``): ~100 separate leaves cost more
    dispatch time than the step itself. ``pack_state`` and ``unpack_state`` are compiled for
    calls from Python; ``unpack`` is the traceable function, for use inside other jitted code
    (a jitted function with its own XLA options cannot be nested)."""

    reset: Tiered
    step: Tiered
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
        self,
        jitted: Any,
        *example_args: Any,
        compiler_options: dict | None = None,
        lowered: Any = None,
    ) -> None:
        """Lower ``jitted`` for ``example_args`` (or take an already ``lowered`` program)."""
        self.lowered = jitted.lower(*example_args) if lowered is None else lowered
        self._options = compiler_options or None
        self._future: Future | None = None
        self._compiled: Any = None

    @classmethod
    def of_lowered(cls, lowered: Any, compiler_options: dict | None = None) -> AheadOfTime:
        """The same lowered program, compiled with other options."""
        return cls(None, compiler_options=compiler_options, lowered=lowered)

    @property
    def ready(self) -> bool:
        """Compiled (or failed to compile): a call would not wait."""
        return self._compiled is not None or (self._future is not None and self._future.done())

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


TIER_UP_AFTER = 200
"""Steps of one world shape in this process after which its default-compiled programs are
prepared: enough that a demo, a person's first moves or a short script never start the helper,
few enough that a training loop gets the faster step within seconds of its start."""
ENV_VAR = "ALEM_FASTER_STEP"


class Tiered:
    """One program served by its quick compile (``quick``) until XLA's default compile of the
    same lowering (``faster``) is ready, then by that. With XLA's default flags the two give
    bit-identical results (``python -m bench.cold_start --tiers`` checks it)."""

    def __init__(self, quick: AheadOfTime, tier_up: TierUp | None = None) -> None:
        self.quick = quick
        self.faster = AheadOfTime.of_lowered(quick.lowered)
        self.tier_up = tier_up
        self._current = quick

    @property
    def tier(self) -> str:
        """``"quick"`` or ``"default"``: which compile serves the calls now."""
        return "quick" if self._current is self.quick else "default"

    def start(self) -> Tiered:
        """Begin the quick compile in the worker thread."""
        self.quick.start()
        return self

    def wait(self) -> None:
        """Block until the quick compile is done."""
        self.quick.wait()

    def __call__(self, *args: Any) -> Any:
        if self.tier_up is not None:
            self.tier_up.count()
        if self._current is self.quick and self.faster.ready:
            try:
                self.faster.wait()
                self._current = self.faster
            except Exception as error:  # keep serving the quick compile, which works
                warnings.warn(f"alem kept the quick compile: {error}", stacklevel=2)
                self.faster = self.quick
        return self._current(*args)


class TierUp:
    """Counts a core's steps and, at ``TIER_UP_AFTER``, starts the helper process that puts
    the default compiles of ``programs`` in the persistent cache; when it has finished, each
    program's default compile is loaded on the compile thread (a cache hit)."""

    POLL_EVERY = 32  # steps between checks on the helper (a wait on a process is a syscall)

    def __init__(self, static: alem_core.StaticParams, programs: tuple[Tiered, ...] = ()) -> None:
        self.static, self.programs, self.calls = static, programs, 0
        self.helper: subprocess.Popen | None = None
        self.waiting = False  # another process's helper holds this shape's lock

    def count(self) -> None:
        self.calls += 1
        if self.calls == TIER_UP_AFTER:
            self.begin()
        elif self.calls % self.POLL_EVERY == 0:
            if self.helper is not None:
                self.poll()
            elif self.waiting:
                self.begin()

    def begin(self) -> None:
        """Start the helper now, where tiering up can work (module docstring). Where another
        process's helper holds the shape's lock (worker processes of a vector env), wait for
        it, then start one that finds the programs in the cache."""
        if self.helper is not None or not _tier_up_possible():
            return
        lock = _lock_path(self.static)
        self.waiting = not _take(lock)
        if not self.waiting:
            self.helper = _start_helper(self.static, lock)

    def poll(self) -> bool:
        """True once the helper has finished (and the loads have been started if it worked)."""
        if self.helper is None or self.helper.poll() is None:
            return self.helper is None
        if self.helper.returncode == 0:
            for program in self.programs:
                program.faster.start()
        self.helper = None
        return True


def _tier_up_possible() -> bool:
    chosen = os.environ.get(ENV_VAR, "").strip().lower()
    return (
        chosen not in OFF_VALUES
        and bool(quick_compile_options("every_step"))  # XLA:CPU; elsewhere one tier already
        and bool(jax.config.jax_compilation_cache_dir)
        and jax.config.jax_enable_compilation_cache
    )


STALE_LOCK_S = 900.0
"""A helper's lock older than this is taken to be left by a process that was killed."""


def _lock_path(static: alem_core.StaticParams) -> Path:
    """The lock of one world shape's helper, in the cache it fills."""
    key = pickle.dumps((static, jax.__version__, os.environ.get("XLA_FLAGS", "")))
    name = hashlib.sha256(key).hexdigest()[:20]
    return Path(jax.config.jax_compilation_cache_dir) / "alem-tier-up" / f"{name}.lock"


def _take(lock: Path) -> bool:
    """Create ``lock`` unless another process holds it (a stale lock is taken over)."""
    lock.parent.mkdir(parents=True, exist_ok=True)
    try:
        if time.time() - lock.stat().st_mtime > STALE_LOCK_S:
            lock.unlink(missing_ok=True)
    except FileNotFoundError:
        pass
    try:
        os.close(os.open(lock, os.O_CREAT | os.O_EXCL | os.O_WRONLY))
    except FileExistsError:
        return False
    return True


_HELPERS: list[tuple[subprocess.Popen, Path]] = []


def _start_helper(static: alem_core.StaticParams, lock: Path) -> subprocess.Popen:
    """``python -m alem_pz.envs.kernels STATIC LOCK`` with this process's cache settings and
    path; the helper removes ``lock`` when it ends."""
    if not _HELPERS:
        atexit.register(_stop_helpers)
    env = dict(os.environ)
    env["JAX_COMPILATION_CACHE_DIR"] = str(jax.config.jax_compilation_cache_dir)
    env["JAX_PERSISTENT_CACHE_MIN_COMPILE_TIME_SECS"] = str(
        jax.config.jax_persistent_cache_min_compile_time_secs
    )
    env["PYTHONPATH"] = os.pathsep.join(path for path in sys.path if path)
    encoded = base64.b64encode(pickle.dumps(static)).decode()
    helper = subprocess.Popen(
        [sys.executable, "-m", "alem_pz.envs.kernels", encoded, str(lock)],
        env=env,
        stdin=subprocess.DEVNULL,
        stdout=subprocess.DEVNULL,
        stderr=subprocess.DEVNULL,
    )
    _HELPERS.append((helper, lock))
    return helper


def _stop_helpers() -> None:
    """At exit: a helper's work is of no use to a process that is ending."""
    for helper, lock in _HELPERS:
        if helper.poll() is None:
            helper.kill()
            helper.wait()
            lock.unlink(missing_ok=True)


@per_shape
def compiled_core(static: alem_core.StaticParams) -> CompiledCore:
    """The compiled functions for one ``StaticParams``, shared by all envs.

    ``reset`` and ``step`` split the env's key inside the compiled call (an eager split is a
    dispatch of its own) and return ``(next_key, state buffers, packed)`` with ``packed`` as
    in ``_pack``. Both are lowered here and step's quick compile starts at once in the worker
    thread (``AheadOfTime``); the caller's first ``reset`` compiles reset meanwhile. Both are
    ``Tiered``: ``QUICK_COMPILE_CPU``'s options first (one world per call, a person waiting),
    XLA's defaults once the shape is in steady use.
    """
    return _lowered_core(static, start_quick_step=True)


def _lowered_core(static: alem_core.StaticParams, start_quick_step: bool) -> CompiledCore:
    """``compiled_core``'s functions, lowered; the step's quick compile starts as soon as the
    step is lowered where ``start_quick_step`` (the reset is lowered meanwhile: the compile
    releases the interpreter), and nothing is compiled otherwise (the helper process compiles
    the default tier from here)."""
    enable_default_cache()  # the first env turns the on-disk cache on (not the import)
    params_example = alem_core.make_params("medium").as_arrays()
    params_packer = PyTreePacker(params_example)
    pack_params = params_packer.pack_host
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
    if start_quick_step:
        step_fn.start()
    per_episode = quick_compile_options("per_episode")
    reset_fn = AheadOfTime(jax.jit(reset), key, params_buffers, compiler_options=per_episode)
    step_tiers, reset_tiers = _tiered(step_fn, reset_fn, static)
    return CompiledCore(
        reset=reset_tiers,
        step=step_tiers,
        pack_state=jax.jit(state_packer.pack, compiler_options=per_episode),
        unpack_state=jax.jit(state_packer.unpack, compiler_options=per_episode),
        unpack=state_packer.unpack,
        pack_params=lambda params: tuple(jnp.asarray(b) for b in pack_params(params.as_arrays())),
    )


def _tiered(
    step: AheadOfTime, reset: AheadOfTime, static: alem_core.StaticParams
) -> tuple[Tiered, Tiered]:
    """Step and reset in two tiers; the step's calls count toward the shape's tier-up."""
    tier_up = TierUp(static)
    tiers = Tiered(step, tier_up), Tiered(reset)
    tier_up.programs = tiers
    return tiers


def _compile_default_tier(encoded_static: str, lock: str) -> None:
    """The helper: compile the step and the reset of a ``StaticParams`` (pickled, base64) with
    XLA's defaults, which writes them to the persistent cache the parent set; then remove the
    lock that kept other processes from starting the same work."""
    try:
        static = pickle.loads(base64.b64decode(encoded_static))
        core = _lowered_core(static, start_quick_step=False)
        core.step.faster.wait()
        core.reset.faster.wait()
    finally:
        Path(lock).unlink(missing_ok=True)


if __name__ == "__main__":
    _compile_default_tier(sys.argv[1], sys.argv[2])
