"""alem core: a jitted, vmappable multi-agent Craftax-like world in pure JAX.

Public API (everything else is internal)::

    obs, state = alem_core.reset(key, params, static)
    obs, state, reward, terminated, truncated, info = alem_core.step(
        key, state, actions, params, static
    )

Batched, with auto-reset (``batch.py``; ``BatchRunner`` drives it from Python)::

    runner = alem_core.BatchRunner(num_worlds, params, static)
    out = runner.reset(seed)          # BatchOutput, leading axis N
    out = runner.step(actions)        # (N, P) int actions

Coordination drills (small worlds, same step): ``alem_core.drills.drill_setup(name, players)``
returns their ``(static, params)``. ``acting(state)`` (P,) says whose action the next step
consumes (alive, not asleep, not resting).

``static`` (``StaticParams``) is hashable and static under ``jit``; ``params`` (``Params``) is a
pytree of scalars; ``actions`` is an int array of shape (P,). Per-agent arrays come out.
"""

from importlib.metadata import PackageNotFoundError
from importlib.metadata import version as _distribution_version

from alem_core import drills
from alem_core.api import (
    STATE_LAYOUT,
    WORLD_VERSION,
    observe,
    reset,
    seed_key,
    state_layout_mismatch,
    step,
    transition,
    world_version_mismatch,
)
from alem_core.batch.auto_reset import Batch, BatchOutput
from alem_core.batch.runner import BatchRunner
from alem_core.constants import Achievement, Action, Block, Inv, Item, Role
from alem_core.observation.masking import acting, action_mask
from alem_core.observation.vector import obs_size
from alem_core.params import Params, StaticParams, make_params
from alem_core.state import State

try:  # One version for the three packages: the installed distribution's (pyproject.toml).
    __version__ = _distribution_version("alem-pz")
except PackageNotFoundError:  # a source tree used without installing it
    __version__ = "0+unknown"

__all__ = [
    "STATE_LAYOUT",
    "WORLD_VERSION",
    "Achievement",
    "Action",
    "Batch",
    "BatchOutput",
    "BatchRunner",
    "Block",
    "Inv",
    "Item",
    "Params",
    "Role",
    "State",
    "StaticParams",
    "__version__",
    "acting",
    "action_mask",
    "drills",
    "make_params",
    "obs_size",
    "observe",
    "reset",
    "seed_key",
    "state_layout_mismatch",
    "step",
    "transition",
    "world_version_mismatch",
]
