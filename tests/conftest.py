"""Suite-wide settings: CPU JAX, the persistent compilation cache, headless SDL."""

from __future__ import annotations

import os
from pathlib import Path

os.environ.setdefault("JAX_PLATFORMS", "cpu")
os.environ.setdefault("SDL_VIDEODRIVER", "dummy")
os.environ.setdefault("SDL_AUDIODRIVER", "dummy")

import jax

# Compiling the step takes tens of seconds on 2 cores; the cache makes reruns cheap.
_CACHE = Path(
    os.environ.get("ALEM_JAX_CACHE", Path(__file__).resolve().parent.parent / ".jax_cache")
)
jax.config.update("jax_compilation_cache_dir", str(_CACHE))
jax.config.update("jax_persistent_cache_min_compile_time_secs", 0.5)
