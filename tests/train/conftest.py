"""Objective tests compile many small programs (eager ops on tiny shapes, each well under the
suite's 0.5 s persistent-cache threshold); caching them all makes warm reruns several times
faster. The threshold is restored after each module, so other test directories are unaffected."""

from __future__ import annotations

import jax
import pytest


@pytest.fixture(autouse=True, scope="module")
def _cache_every_compilation():
    previous = jax.config.jax_persistent_cache_min_compile_time_secs
    jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.0)
    yield
    jax.config.update("jax_persistent_cache_min_compile_time_secs", previous)
