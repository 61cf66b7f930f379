"""Compile the episode score during the first ``reset``, not on the first episode-end step.

The score (``alem_pz.scoring``) runs once per episode, on its last step; compiled lazily it
stalled that step for 10-13 s in the middle of a rollout. ``warm_score`` compiles it in a
background thread the first time an env with given shapes resets, while the step compiles on
the main thread (XLA releases the GIL, so the two use both cores).
"""

from __future__ import annotations

import threading

import jax
import jax.numpy as jnp

import alem_core
from alem_pz.scoring import compiled_score

_started: set[alem_core.StaticParams] = set()
_lock = threading.Lock()


def warm_score(static: alem_core.StaticParams, state_buffers) -> threading.Thread | None:
    """Start compiling the score for ``static`` (once per process); returns the thread, or
    None if it was already started. ``state_buffers`` is copied: the step donates them."""
    with _lock:
        if static in _started:
            return None
        _started.add(static)
    copies = jax.tree.map(jnp.copy, state_buffers)

    def run() -> None:
        jax.block_until_ready(compiled_score(static)(copies))

    thread = threading.Thread(target=run, name="alem-score-warmup", daemon=True)
    thread.start()
    return thread


__all__ = ["warm_score"]
