"""JAX's persistent compilation cache, on by default, so a second run skips most compiling.

Importing alem changes no JAX setting. Building the first env or ``BatchRunner`` (and the
command-line tools) calls ``enable_default_cache()``: compiled programs are then kept under
``$XDG_CACHE_HOME/alem/jax`` (``~/.cache/alem/jax`` by default) and a later process loads them
instead of compiling again (compiling the step takes tens of seconds on a 2-core CPU). Code
that only uses the functional API decides for itself (``jax.config`` or this function).

The environment variable ``ALEM_COMPILATION_CACHE`` controls it:
* unset: the default directory above;
* ``0``, ``off``, ``false`` or ``no``: leave JAX's cache settings alone (off unless you set them);
* anything else: used as the cache directory.
A cache directory the user already chose (``JAX_COMPILATION_CACHE_DIR`` or
``jax.config.update("jax_compilation_cache_dir", ...)``) is always kept.
"""

from __future__ import annotations

import os
from pathlib import Path

import jax
from jax.experimental.compilation_cache.compilation_cache import reset_cache

ENV_VAR = "ALEM_COMPILATION_CACHE"
OFF_VALUES = {"0", "off", "false", "no"}
MIN_COMPILE_SECONDS = 1.0
"""Programs that compile faster than this are not written to the cache."""


def default_cache_dir() -> Path:
    """``$XDG_CACHE_HOME/alem/jax``, or ``~/.cache/alem/jax``."""
    base = os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache"
    return Path(base) / "alem" / "jax"


def enable_default_cache() -> Path | None:
    """Turn the persistent cache on (see the module docstring); returns the directory in use,
    or None when it stays off."""
    chosen = os.environ.get(ENV_VAR, "").strip()
    current = jax.config.jax_compilation_cache_dir  # type: ignore[attr-defined]  # a flag
    if current:
        return Path(current)
    if chosen.lower() in OFF_VALUES:
        return None
    directory = Path(chosen).expanduser() if chosen else default_cache_dir()
    jax.config.update("jax_compilation_cache_dir", str(directory))
    jax.config.update("jax_persistent_cache_min_compile_time_secs", MIN_COMPILE_SECONDS)
    # JAX decides once per process, at its first compile, whether a cache is in use: start
    # that decision over, or a process that compiled anything before would never use it.
    reset_cache()
    return directory


__all__ = ["ENV_VAR", "default_cache_dir", "enable_default_cache"]
