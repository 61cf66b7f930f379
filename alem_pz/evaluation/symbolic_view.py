"""One agent's symbolic observation read back as named grids and counts, and walking on it.

The scripted team of ``baselines`` sees only what an agent sees: ``decode`` turns the flat
vector (docs/rules/observations.md#symbolic-observation) into a ``View`` (the 9 x 11 map's
blocks, items, mobs and teammates, its own status block and the teammate dashboard), and
``approach`` finds the next action towards a set of cells by a breadth-first search over the
walkable cells of that view. Kept apart from the rules that choose what to approach, so those
read as a list of decisions and this as the one place that knows the observation's layout.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from alem_core.constants import Action
from alem_core.grid import DIRECTIONS
from alem_core.observation.map_view import VIEW_CENTRE, VIEW_COLS, VIEW_ROWS, cell_layout
from alem_core.observation.vector import OWN_ENTRIES, dashboard_layout, obs_layout
from alem_core.params import StaticParams
from alem_core.rules.tables import MINE_ITEM, MINE_TIER, WALKABLE

MOVES = {Action(a): tuple(d) for a, d in enumerate(DIRECTIONS.tolist()) if a}  # row 0: no move


@dataclass
class View:
    """What one agent's symbolic observation says, decoded
    (docs/rules/observations.md#symbolic-observation)."""

    block: np.ndarray  # (9, 11) block id, -1 on dark cells
    item: np.ndarray  # (9, 11) item id
    mobs: np.ndarray  # (9, 11, 5, 8) entity class x type
    teammate: np.ndarray  # (9, 11) another player stands here
    fallen: np.ndarray  # (9, 11) a dead teammate lies here
    coord: np.ndarray  # (9, 11) coordination value (> 0 sync, < 0 handover)
    soft: np.ndarray  # (9, 11) soft sync cell
    elite: np.ndarray  # (9, 11) elite / large mob here
    handover_open: np.ndarray  # (9, 11) open handover entry here
    inv: np.ndarray  # (10,) counts: wood, stone, coal, iron, diamond, sapphire, ruby, sapling,
    # torches, arrows
    pickaxe: int
    sword: int
    armour: np.ndarray  # (4,) slot levels
    food: int
    drink: int
    energy: int
    health: float
    facing: int  # the move action that faces that way
    requests: np.ndarray  # (P, 9) open request one-hot, self first
    cleared: bool
    walkable: np.ndarray  # (9, 11)


def decode(obs: np.ndarray, players: int, comm_channels: int = 0) -> View:
    """Decode agent observation ``obs`` (D,) for a team of ``players``."""
    static = StaticParams(player_count=players, num_comm_channels=comm_channels)
    layout, cell, row = obs_layout(static), cell_layout(players), dashboard_layout(static)
    view = obs[layout["map"]].reshape(VIEW_ROWS, VIEW_COLS, -1)
    lit = view[..., cell["light"]][..., 0] > 0
    block = np.where(lit, view[..., cell["block"]].argmax(-1), -1)
    team = view[..., cell["teammates"]]
    mobs = view[..., cell["mobs"]].reshape(VIEW_ROWS, VIEW_COLS, 5, 8) > 0
    teammate = team[..., 1:players].any(-1)
    dash = obs[layout["dashboard"]].reshape(players, -1)
    own = {name: obs[layout[name]] for name in OWN_ENTRIES}
    intrinsics = dict(zip(OWN_ENTRIES["intrinsics"], own["intrinsics"], strict=True))
    inventory = dict(zip(OWN_ENTRIES["inventory"], own["inventory"], strict=True))
    occupied = mobs[..., :3].any((-1, -2)) | teammate
    return View(
        block=block,
        item=view[..., cell["item"]].argmax(-1),
        mobs=mobs,
        teammate=teammate,
        fallen=teammate & (team[..., players] == 0),
        coord=view[..., cell["coord"]][..., 0],
        soft=view[..., cell["soft"]][..., 0] > 0,
        elite=view[..., cell["elite"]][..., 0] > 0,
        handover_open=view[..., cell["handover_timer"]][..., 0] > 0,
        inv=np.rint((own["inventory"][:10] * 10.0) ** 2).astype(int),
        pickaxe=round(inventory["pickaxe"] * 4),
        sword=round(inventory["sword"] * 4),
        armour=np.rint(own["armour"] * 2).astype(int),
        food=round(intrinsics["food"] * 10),
        drink=round(intrinsics["drink"] * 10),
        energy=round(intrinsics["energy"] * 10),
        health=float(dash[0, row["health"]][0] * 10),
        facing=int(own["facing"].argmax()) + 1,
        requests=dash[:, row["request"]],
        cleared=bool(own["floor_info"][OWN_ENTRIES["floor_info"].index("cleared")] > 0),
        walkable=(block >= 0) & WALKABLE[np.maximum(block, 0)] & ~occupied,
    )


def _near(cells: np.ndarray) -> np.ndarray:
    """Cells with a 4-neighbour in ``cells``."""
    out = np.zeros_like(cells)
    out[1:] |= cells[:-1]
    out[:-1] |= cells[1:]
    out[:, 1:] |= cells[:, :-1]
    out[:, :-1] |= cells[:, 1:]
    return out


def approach(view: View, targets: np.ndarray, onto: bool = False) -> int | None:
    """The action that brings the agent to the nearest of ``targets`` ((9, 11) bool).

    Returns DO when facing an adjacent target, the move that turns to an adjacent target, else
    the first move of a shortest walkable path to a cell next to (``onto``: on) a target; None
    when no target is reachable within the view.
    """
    r0, c0 = VIEW_CENTRE
    if onto and targets[r0, c0]:
        return Action.NOOP
    goal = targets if onto else _near(targets)
    if not onto:
        for action, (dr, dc) in MOVES.items():
            if targets[r0 + dr, c0 + dc]:
                return Action.DO if view.facing == action else action
    first: dict[tuple[int, int], int] = {}
    queue: deque[tuple[int, int]] = deque()
    for action, (dr, dc) in MOVES.items():
        cell = (r0 + dr, c0 + dc)
        if view.walkable[cell]:
            first[cell] = action
            queue.append(cell)
    while queue:
        r, c = queue.popleft()
        if goal[r, c]:
            return first[(r, c)]
        for dr, dc in MOVES.values():
            cell = (r + dr, c + dc)
            inside = 0 <= cell[0] < VIEW_ROWS and 0 <= cell[1] < VIEW_COLS
            if inside and cell not in first and view.walkable[cell]:
                first[cell] = first[(r, c)]
                queue.append(cell)
    return None


def adjacent_cells(cells: np.ndarray) -> np.ndarray:
    """``cells`` restricted to the agent's four neighbours."""
    out = np.zeros_like(cells)
    r0, c0 = VIEW_CENTRE
    for dr, dc in MOVES.values():
        out[r0 + dr, c0 + dc] = cells[r0 + dr, c0 + dc]
    return out


def mineable_cells(v: View) -> np.ndarray:
    """(9, 11) cells holding a block the agent's pickaxe can mine."""
    block = np.maximum(v.block, 0)
    return (v.block >= 0) & (MINE_ITEM[block] >= 0) & (MINE_TIER[block] <= v.pickaxe)
