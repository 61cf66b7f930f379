"""Suite-wide settings: CPU JAX, the persistent compilation cache, headless SDL."""

from __future__ import annotations

import os
from importlib.metadata import version
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")
# By default JAX also points XLA's GPU autotuning cache into the compilation cache's directory,
# and that path then enters every program's cache key: a copy of the cache under another path
# (another checkout's) missed every entry (the suite compiled 2,022 programs again on a copy;
# bench/records/ci_run_2026-12-05_python313_leg.txt). The tests run on the CPU, where that cache
# does nothing. Set in the environment before JAX starts, so that the subprocesses sharing the
# cache (notebooks, bench scripts, the env's tier-up helper) key their programs the same way.
os.environ.setdefault("JAX_PERSISTENT_CACHE_ENABLE_XLA_CACHES", "")


# Tests check behaviour, not speed, so they compile with XLA's LLVM backend at optimisation level
# 0 and XLA:CPU's older fusion emitters, which compile each kernel in about half the time (the
# PettingZoo env uses them for one world: alem_core.executables.QUICK_COMPILE_CPU); level 0 may
# round a float in the last place differently, so tests compare runs made under these flags.
# Level 0 halved the cold compiles on 2 cores (the CI suites 936 s -> 624 s and 262 s -> 142 s);
# the emitters took the full step from 10.5 s to 6.1 s. Appended to any flags the caller set,
# before JAX starts; subprocesses (notebook kernels, the sharding test) inherit them.
# ALEM_TEST_XLA_OPT=1 runs the suite with XLA's defaults instead.
# jaxlib 0.11 dropped the emitters' switch, and XLA aborts the process on an unknown flag.
# Each flag is added once: a subprocess that imports this module again (the sharding test) must
# hash the same XLA_FLAGS as its parent, or none of the parent's cached programs is its own.
_JAXLIB = tuple(int(part) for part in version("jaxlib").split(".")[:2])
if os.environ.get("ALEM_TEST_XLA_OPT") != "1":
    flags = os.environ.get("XLA_FLAGS", "").split()
    wanted = ["--xla_backend_optimization_level=0"]
    if _JAXLIB < (0, 11):
        wanted.append("--xla_cpu_use_fusion_emitters=false")
    os.environ["XLA_FLAGS"] = " ".join(flags + [flag for flag in wanted if flag not in flags])

# The PettingZoo env's default-compiled step (alem_pz/envs/kernels.py) comes from a helper process
# after 200 steps of a shape; here it would only add compiles. Its own test turns it on.
os.environ.setdefault("ALEM_FASTER_STEP", "0")

import jax  # noqa: E402  (after the environment it reads)

# Compiling the step takes tens of seconds on 2 cores; the cache makes reruns cheap. Every
# program is written, however quick: the suite compiles some 2,700 small ones (eager ops, tiny
# helpers) that together cost a warm run over a minute when left out; the cache grows ~25 %.
_CACHE = Path(
    os.environ.get("ALEM_JAX_CACHE", Path(__file__).resolve().parent.parent / ".jax_cache")
)
jax.config.update("jax_compilation_cache_dir", str(_CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0)

import gc  # noqa: E402
import shutil  # noqa: E402

import pytest  # noqa: E402

from alem_core import executables  # noqa: E402

pytest_plugins = ["tests.compile_report"]  # pytest --compile-report: what the suite compiles

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
"""Debian's headless Chromium, for the tests marked ``browser`` (skipped where it is missing)."""


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """The ``browser`` marker carries its own skip: one rule for every test that needs Chromium."""
    if CHROMIUM is not None:
        return
    skip = pytest.mark.skip(
        reason="headless Chromium is not installed (Debian: apt-get install chromium); "
        "CI installs it in .ci/run"
    )
    for item in items:
        if "browser" in item.keywords:
            item.add_marker(skip)


@pytest.fixture(autouse=True, scope="module")
def _free_compiled_programs():
    """After a module whose compiled programs fill a third of the process's memory mappings,
    free them (alem's caches and JAX's): one pytest process then runs the whole suite without
    XLA:CPU running out of mappings (alem_core/executables.py says why that crashes)."""
    yield
    used, limit = executables.maps_in_use(), executables.map_limit()
    if used is not None and limit is not None and used > limit / 3:
        executables.release()
        jax.clear_caches()
        gc.collect()
