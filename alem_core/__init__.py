"""alem core: a jitted, vmappable multi-agent Craftax-like world in pure JAX.

Public API (everything else is internal)::

    obs, state = alem_core.reset(key, params, static)
    obs, state, reward, terminated, truncated, info = alem_core.step(
        key, state, actions, params, static
    )

``static`` (``StaticParams``) is hashable and static under ``jit``; ``params`` (``Params``) is a
pytree of scalars; ``actions`` is an int array of shape (P,). Per-agent arrays come out.
"""

from alem_core.api import reset, step
from alem_core.constants import Achievement, Action, Block, Inv, Item, Role
from alem_core.masking import action_mask
from alem_core.observation import obs_size, observe
from alem_core.params import Params, StaticParams, make_params
from alem_core.state import State

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
