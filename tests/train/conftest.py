"""Trainer tests write nothing to the persistent compilation cache.

In a full-suite run (2026-11-30) XLA aborted the process while serializing the PPO trainer's
compiled step for the cache, late in the run (the same tests pass alone, warm or cold). The
trainers' programs are compiled fresh in every CI run anyway, so skipping the cache writes here
costs only local warm reruns. The threshold is restored after each module, so other test
directories are unaffected."""

from __future__ import annotations

import jax
import pytest

NEVER = 1e9  # seconds: no compilation is slow enough to be written


@pytest.fixture(autouse=True, scope="module")
def _no_cache_writes():
    previous = jax.config.jax_persistent_cache_min_compile_time_secs
    jax.config.update("jax_persistent_cache_min_compile_time_secs", NEVER)
    yield
    jax.config.update("jax_persistent_cache_min_compile_time_secs", previous)
