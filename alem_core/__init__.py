"""alem core: a jitted, vmappable multi-agent Craftax-like world in pure JAX.

Public API (everything else is internal)::

    obs, state = alem_core.reset(key, params, static)
    obs, state, reward, terminated, truncated, info = alem_core.step(
        key, state, actions, params, static
    )

``static`` (``StaticParams``) is hashable and static under ``jit``; ``params`` (``Params``) is a
pytree of scalars; ``actions`` is an int array of shape (P,). Per-agent arrays come out.
The functions are imported on first use, so ``import alem_core`` stays cheap.
"""

from __future__ import annotations

import importlib
from typing import Any

from alem_core.constants import Achievement, Action, Block, Inv, Item, Role
from alem_core.params import Params, StaticParams, make_params
from alem_core.state import State

_LAZY = {
    "reset": "alem_core.api",
    "step": "alem_core.step",
    "action_mask": "alem_core.action_mask",
    "obs_size": "alem_core.observation",
    "observe": "alem_core.observation",
}

__all__ = [
    "Achievement",
    "Action",
    "Block",
    "Inv",
    "Item",
    "Params",
    "Role",
    "State",
    "StaticParams",
    "action_mask",
    "make_params",
    "obs_size",
    "observe",
    "reset",
    "step",
]


def __getattr__(name: str) -> Any:
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'alem_core' has no attribute {name!r}")
