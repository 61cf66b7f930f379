"""AI teammates for ``alem_pz.play`` and recordings: ``policy(observation, action_mask) -> action``.

* ``random``: a uniformly random legal action.
* ``scripted``: a small hand-written forager-of-everything: craft what it can, act on useful
  blocks and animals it faces, otherwise walk toward the nearest one in view (symbolic
  observations only).
* ``module:function``: any importable callable with the same signature.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable

import numpy as np

from alem_core.constants import NUM_BLOCKS, Action, Block
from alem_core.observation import obs_layout, obs_size
from alem_core.observation_parts import VIEW_CENTRE, VIEW_COLS, VIEW_ROWS, cell_layout
from alem_core.params import StaticParams

Policy = Callable[[np.ndarray, np.ndarray], int]
CRAFT_FIRST = (
    Action.MAKE_WOOD_PICKAXE, Action.MAKE_WOOD_SWORD, Action.MAKE_STONE_PICKAXE,
    Action.MAKE_STONE_SWORD, Action.MAKE_IRON_PICKAXE, Action.MAKE_IRON_SWORD,
    Action.MAKE_DIAMOND_PICKAXE, Action.MAKE_DIAMOND_SWORD, Action.MAKE_IRON_ARMOUR,
)  # fmt: skip
TARGETS = np.zeros(NUM_BLOCKS, bool)
TARGETS[[Block.TREE, Block.STONE, Block.COAL, Block.IRON, Block.DIAMOND, Block.WATER]] = True
TARGETS[[Block.RIPE_PLANT, Block.SAPPHIRE, Block.RUBY, Block.CHEST]] = True
MOVES = {(0, -1): Action.LEFT, (0, 1): Action.RIGHT, (-1, 0): Action.UP, (1, 0): Action.DOWN}
FACING_OFFSETS = ((0, -1), (0, 1), (-1, 0), (1, 0))
"""Cell offset of facing west, east, north, south (the observation's facing one-hot order)."""


def random_policy(seed: int = 0) -> Policy:
    """A masked uniform random policy with its own generator."""
    rng = np.random.default_rng(seed)

    def act(observation: np.ndarray, action_mask: np.ndarray) -> int:
        del observation
        return int(rng.choice(np.flatnonzero(action_mask)))

    return act


def scripted_policy(seed: int = 0) -> Policy:
    """The scripted teammate (module docstring); needs the symbolic observation."""
    rng = np.random.default_rng(seed)

    def act(observation: np.ndarray, action_mask: np.ndarray) -> int:
        legal = np.asarray(action_mask, bool)
        if legal.sum() <= 1:
            return int(np.flatnonzero(legal)[0]) if legal.any() else 0
        for action in CRAFT_FIRST:
            if legal[action]:
                return int(action)
        static = _static_of(observation)
        layout, cell = obs_layout(static), cell_layout(static.player_count)
        cells = observation[layout["map"]].reshape(VIEW_ROWS, VIEW_COLS, -1)
        wanted = TARGETS[cells[..., cell["block"]].argmax(-1)]
        wanted |= cells[..., cell["mobs"]].max(-1) > 0
        facing = int(observation[layout["facing"]].argmax())
        fr, fc = np.add(VIEW_CENTRE, FACING_OFFSETS[facing])
        if wanted[fr, fc] and rng.random() < 0.9:
            return int(Action.DO)
        if legal[Action.PLACE_TABLE] and rng.random() < 0.2:
            return int(Action.PLACE_TABLE)
        return _walk(wanted, rng)

    return act


def _static_of(observation: np.ndarray) -> StaticParams:
    """The team size and comm channels of a symbolic observation, solved from its length (the
    policy is not told them); only the observation layout of the result is used."""
    size = observation.size
    for p in range(1, 17):
        for nc in range(0, 33):
            static = StaticParams(player_count=p, num_comm_channels=nc)
            if obs_size(static) == size:
                return static
    raise ValueError(f"not a symbolic alem observation of length {size}")


def _walk(wanted: np.ndarray, rng: np.random.Generator) -> int:
    """A step toward the nearest wanted cell (random when none is in view or 25% of steps)."""
    rows, cols = np.nonzero(wanted)
    if rows.size == 0 or rng.random() < 0.25:
        return int(rng.choice(list(MOVES.values())))
    d = np.abs(rows - VIEW_CENTRE[0]) + np.abs(cols - VIEW_CENTRE[1])
    k = int(np.argmin(d))
    dr, dc = rows[k] - VIEW_CENTRE[0], cols[k] - VIEW_CENTRE[1]
    step = (int(np.sign(dr)), 0) if abs(dr) > abs(dc) else (0, int(np.sign(dc)))
    return int(MOVES.get(step, Action.NOOP))


def load_policy(spec: str, seed: int = 0) -> Policy:
    """ "random", "scripted", or "package.module:function" (imported and returned as is)."""
    if spec == "random":
        return random_policy(seed)
    if spec == "scripted":
        return scripted_policy(seed)
    if ":" not in spec:
        raise ValueError(f"policy must be random, scripted or module:function, got {spec!r}")
    module, _, name = spec.partition(":")
    policy = getattr(importlib.import_module(module), name)
    if not callable(policy):
        raise ValueError(f"{spec!r} is not callable")
    return policy
