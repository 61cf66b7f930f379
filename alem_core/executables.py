"""Compiled functions kept per world shape, within the process's budget of memory mappings.

Why this exists: XLA:CPU maps every compiled kernel's code and data into memory regions of
their own, so one compiled full-world step holds about 2,500 of the process's memory mappings
for as long as it lives, and Linux allows a process ``vm.max_map_count`` of them (65,530 by
default). A process that keeps compiling new shapes (a notebook, a sweep, a test suite) runs
out, and XLA:CPU then segfaults inside a compile or while serialising an executable for the
persistent cache: there is no error to catch. Freeing the functions that own the executables
returns the mappings.

So every alem function compiled per shape is cached with ``per_shape``: at most
``SHAPES_KEPT`` shapes are kept (least recently used first out), and before anything new is
compiled, ``make_room`` frees alem's cached functions when the mappings in use pass
``PRESSURE`` of the limit. If the process is still short after that (the caller's own jitted
functions hold the rest), it raises a ``RuntimeError`` that says so instead of letting XLA
crash.
"""

from __future__ import annotations

import functools
import gc
from collections.abc import Callable
from typing import Any

import jax

SHAPES_KEPT = 4
"""Shapes whose compiled functions each alem cache keeps."""
PRESSURE = 0.6
"""Fraction of ``vm.max_map_count`` past which alem frees its cached compiled functions."""
REFUSE = 0.9
"""Fraction past which a new compile is refused with an error rather than a crash."""

_CACHES: list[Any] = []

QUICK_COMPILE_CPU: dict[str, dict[str, Any]] = {
    "every_step": {"xla_cpu_use_fusion_emitters": False, "xla_backend_optimization_level": 1},
    "per_episode": {"xla_cpu_use_fusion_emitters": False, "xla_backend_optimization_level": 0},
}
"""XLA options for programs called one world at a time from Python (the PettingZoo env's step,
reset, score and pictures), where a person waits for the compile.

* ``every_step`` (the step, pixel views, team frames): XLA:CPU's older fusion emitters (the
  default ones generate each kernel through MLIR) with LLVM at level 1 compile the step in
  about half the time, bit-identical. The price is a slower step: about 30 % from Python, more
  in batched and scanned programs, which therefore keep XLA's defaults. The PettingZoo env
  pays it only until its step has been called 200 times, when a helper process compiles the
  default tier (``alem_pz.envs.kernels.Tiered``); pixel views and team frames keep paying it.
* ``per_episode`` (the reset, the score, the state packed and unpacked for Python): called
  about once an episode, so their compile counts for more than their run time (a reset takes
  about 20 ms instead of 3 ms): the older emitters with LLVM at level 0. Level 0 is not used
  for the step: it rounds some floats in the last place differently from higher levels, and
  the env's step must give the same episode whichever tier serves it.

Measured in bench/records/HISTORY.md, "Compile options for one world". Passed per executable:
no process-wide flag is set."""


def quick_compile_options(kind: str) -> dict[str, Any]:
    """``QUICK_COMPILE_CPU[kind]`` on the CPU backend, nothing elsewhere (XLA:CPU options),
    less any option the installed XLA does not know (jaxlib 0.11 dropped the fusion-emitter
    switch; an unknown option fails every compile that passes it)."""
    if jax.default_backend() != "cpu":
        return {}
    return {k: v for k, v in QUICK_COMPILE_CPU[kind].items() if known_compile_option(k, v)}


@functools.cache
def known_compile_option(name: str, value: Any) -> bool:
    """Whether this XLA accepts the compile option (one tiny compile per option and process)."""
    try:
        jax.jit(lambda x: x + 1, compiler_options={name: value}).lower(1.0).compile()
    except jax.errors.JaxRuntimeError:
        return False
    return True


def maps_in_use() -> int | None:
    """Memory mappings of this process (Linux; None where ``/proc`` does not say)."""
    try:
        with open("/proc/self/maps", "rb") as maps:
            return sum(1 for _ in maps)
    except OSError:
        return None


def map_limit() -> int | None:
    """``vm.max_map_count`` (Linux; None elsewhere)."""
    try:
        with open("/proc/sys/vm/max_map_count") as limit:
            return int(limit.read())
    except (OSError, ValueError):
        return None


def release() -> None:
    """Free every compiled function alem caches (they recompile, or load from the persistent
    cache, when next needed)."""
    for cache in _CACHES:
        cache.cache_clear()
    gc.collect()


def make_room() -> None:
    """Before compiling: free alem's cached functions under pressure; refuse when that is not
    enough.

    Raises:
        RuntimeError: the mappings in use stay above ``REFUSE`` of the limit.
    """
    used, limit = maps_in_use(), map_limit()
    if used is None or limit is None or used < PRESSURE * limit:
        return
    release()
    used = maps_in_use() or 0
    if used >= REFUSE * limit:
        raise RuntimeError(
            f"this process holds {used} of its {limit} memory mappings (vm.max_map_count), "
            "mostly compiled XLA programs; compiling more would crash XLA:CPU. Drop references "
            "to jitted functions you no longer use and call jax.clear_caches(), split the work "
            "over processes, or raise the limit (sysctl vm.max_map_count)."
        )


def per_shape(build: Callable) -> Callable:
    """``build`` cached for the last ``SHAPES_KEPT`` argument tuples, with ``make_room`` run
    before each new build."""

    @functools.wraps(build)
    def guarded(*args: Any, **kwargs: Any) -> Any:
        make_room()
        return build(*args, **kwargs)

    cached = functools.lru_cache(maxsize=SHAPES_KEPT)(guarded)
    _CACHES.append(cached)
    return cached


__all__ = [
    "PRESSURE",
    "QUICK_COMPILE_CPU",
    "REFUSE",
    "SHAPES_KEPT",
    "make_room",
    "map_limit",
    "maps_in_use",
    "per_shape",
    "quick_compile_options",
    "release",
]
