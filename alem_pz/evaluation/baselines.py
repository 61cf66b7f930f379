"""Two reference policies for ``alem_pz.evaluation.cli``: masked random and a scripted greedy team.

Both are ``policy(observation, action_mask) -> int`` on symbolic observations
(docs/rules/observations.md#symbolic-observation), with ``reset(seed)``, called by the evaluator at
every episode start (reproducible runs).

``MaskedRandom``: a uniform draw among the legal actions.

``GreedyCoordinator``: a hand-written rule list, no learning, reading only what an agent sees
(its 9 x 11 view, its own status block and the teammate dashboard). The first rule that
yields a legal action wins:

1. give: answer a teammate's open request through a legal GIVE slot, unless it is food or
   drink and the giver is low on it itself;
2. survive: drink / eat (cows, ripe plants) when low, or REQUEST_* the missing one when no
   source is in view; revive a fallen teammate in view; sleep when energy is low and no enemy
   is in view (or at energy 0 with none adjacent); rest when hurt with no enemy in view;
3. fight a hostile mob on an adjacent cell;
4. craft: the next pickaxe and sword tier, armour, a table / furnace when none is in view
   (walking to a table in view when it holds the next tier's materials), then the one-off
   achievements (torch, arrow, plant, stone, level-ups, books, potions);
5. coordinate: complete an open handover in view; with a teammate in view, join a sync cell it
   can mine, attack an elite mob, or start a handover;
6. build: walk to a construction site when it can pay for a structure (or one is half-built)
   and issue the legal BUILD_*;
7. gather the rarest block it can mine and still wants (hard sync cells excluded when alone);
8. descend a ladder once the floor is cleared and it holds stone tools;
9. wander, mostly straight on.

Navigation is a breadth-first search over the walkable cells of the view. The scripted team
coordinates only by converging on what all of its members see; it uses no communication.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass

import numpy as np

from alem_core.constants import GIVE_BASE, Action, Block, Item, Request
from alem_core.grid import DIRECTIONS
from alem_core.observation.map_view import VIEW_CENTRE, VIEW_COLS, VIEW_ROWS, cell_layout
from alem_core.observation.vector import OWN_ENTRIES, dashboard_layout, obs_layout
from alem_core.params import StaticParams
from alem_core.rules.tables import MINE_ITEM, MINE_TIER, WALKABLE

MOVES = {Action(a): tuple(d) for a, d in enumerate(DIRECTIONS.tolist()) if a}  # row 0: no move
_COW = 0  # passive type 0 on the overworld


class MaskedRandom:
    """Uniformly random legal actions from a seeded numpy generator."""

    def __init__(self, seed: int = 0) -> None:
        self.seed = int(seed)
        self.rng = np.random.default_rng(self.seed)

    def reset(self, seed: int) -> None:
        """Reseed from (policy seed, episode seed)."""
        self.rng = np.random.default_rng([self.seed, int(seed)])

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """A uniform draw among the actions with ``action_mask`` > 0 (NOOP when none)."""
        legal = np.flatnonzero(action_mask)
        return int(self.rng.choice(legal)) if legal.size else 0

    def actions(self, masks: np.ndarray) -> np.ndarray:
        """A uniform legal action for every row of a (..., A) mask in one vectorised draw (a
        vector env's or a batch's masks): the argmax of uniform noise over the legal entries,
        NOOP where none is legal."""
        masks = np.asarray(masks)
        return np.argmax(self.rng.random(masks.shape) * (masks > 0), axis=-1)


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


_TOOLS = (
    (Action.MAKE_WOOD_PICKAXE, "pickaxe", 1),
    (Action.MAKE_WOOD_SWORD, "sword", 1),
    (Action.MAKE_STONE_PICKAXE, "pickaxe", 2),
    (Action.MAKE_STONE_SWORD, "sword", 2),
    (Action.MAKE_IRON_PICKAXE, "pickaxe", 3),
    (Action.MAKE_IRON_SWORD, "sword", 3),
    (Action.MAKE_DIAMOND_PICKAXE, "pickaxe", 4),
    (Action.MAKE_DIAMOND_SWORD, "sword", 4),
)
_ONE_OFFS = (
    Action.READ_BOOK,
    Action.ENCHANT_SWORD,
    Action.ENCHANT_ARMOUR,
    Action.ENCHANT_BOW,
    *range(Action.DRINK_POTION_RED, Action.DRINK_POTION_YELLOW + 1),
    *range(Action.LEVEL_UP_DEXTERITY, Action.LEVEL_UP_INTELLIGENCE + 1),
)
_RARITY = (Block.DIAMOND, Block.SAPPHIRE, Block.RUBY, Block.IRON, Block.COAL, Block.STONE)
_BUILDS = (Action.BUILD_FORGE, Action.BUILD_SHELTER, Action.BUILD_BEACON)


class GreedyCoordinator:
    """The scripted team member of the module docstring (one instance serves every agent)."""

    def __init__(self, players: int = 3, comm_channels: int = 0, seed: int = 0) -> None:
        self.players, self.comm_channels, self.seed = players, comm_channels, int(seed)
        self.rng = np.random.default_rng(self.seed)

    def reset(self, seed: int) -> None:
        """Reseed from (policy seed, episode seed)."""
        self.rng = np.random.default_rng([self.seed, int(seed)])

    def __call__(self, observation: np.ndarray, action_mask: np.ndarray) -> int:
        """One agent's action: the first rule (module docstring) with a legal answer."""
        legal = np.flatnonzero(action_mask)
        if legal.size <= 1:
            return int(legal[0]) if legal.size else 0
        view = decode(np.asarray(observation), self.players, self.comm_channels)
        rules = (self._give, self._survive, self._fight, self._craft, self._coordinate)
        rules += (self._build, self._gather, self._descend)
        for rule in rules:
            action = rule(view, action_mask)
            if action is not None and action_mask[action]:
                return int(action)
        return self._wander(view, action_mask)

    def _give(self, v: View, mask: np.ndarray) -> int | None:
        for slot in range(self.players - 1):
            action = GIVE_BASE + slot
            wanted = v.requests[slot + 1]
            if not mask[action] or not wanted.any():
                continue
            resource = int(wanted.argmax())
            if (resource == Request.FOOD and v.food <= 5) or (
                resource == Request.DRINK and v.drink <= 5
            ):
                continue
            return action
        return None

    def _survive(self, v: View, mask: np.ndarray) -> int | None:
        own_request = v.requests[0].any()
        if v.drink <= 3:
            action = approach(v, v.block == Block.WATER)
            if action is not None:
                return action
            if not own_request:
                return Action.REQUEST_DRINK
        if v.food <= 3:
            food = v.mobs[..., 1, _COW] | (v.block == Block.RIPE_PLANT)
            action = approach(v, food)
            if action is not None:
                return action
            if not own_request:
                return Action.REQUEST_FOOD
        if v.fallen.any():
            action = approach(v, v.fallen)
            if action is not None:
                return action
        hostile = v.mobs[..., [0, 2], :].any((-1, -2))
        # Sleepers take x3.5 melee damage: sleep with no enemy in view, or when out of energy
        # (energy 0 stops health regeneration) and none is next to us.
        if (v.energy <= 2 and not hostile.any()) or (
            v.energy == 0 and not _adjacent(hostile).any()
        ):
            return Action.SLEEP
        if v.health <= 3 and not hostile.any():
            return Action.REST
        return None

    def _fight(self, v: View, mask: np.ndarray) -> int | None:
        adjacent = _adjacent(v.mobs[..., [0, 2], :].any((-1, -2)))
        return approach(v, adjacent) if adjacent.any() else None

    def _craft(self, v: View, mask: np.ndarray) -> int | None:
        for action, tool, level in _TOOLS:
            if mask[action] and getattr(v, tool) < level:
                return action
        if mask[Action.MAKE_IRON_ARMOUR] and (v.armour < 1).any():
            return Action.MAKE_IRON_ARMOUR
        if mask[Action.MAKE_DIAMOND_ARMOUR] and (v.armour < 2).any():
            return Action.MAKE_DIAMOND_ARMOUR
        if mask[Action.PLACE_TABLE] and not (v.block == Block.CRAFTING_TABLE).any():
            return Action.PLACE_TABLE
        table = (v.block == Block.CRAFTING_TABLE).any()
        if mask[Action.PLACE_FURNACE] and table and not (v.block == Block.FURNACE).any():
            return Action.PLACE_FURNACE
        if table and _next_tool_affordable(v):  # walk to the table seen to craft the next tool
            action = approach(v, v.block == Block.CRAFTING_TABLE)
            if action is not None and action != Action.DO:
                return action
        if mask[Action.MAKE_TORCH] and v.inv[8] == 0 and v.inv[2] >= 2:
            return Action.MAKE_TORCH
        if mask[Action.MAKE_ARROW] and v.inv[9] == 0 and v.inv[1] >= 3:
            return Action.MAKE_ARROW
        chance = {
            Action.PLACE_PLANT: 0.2,
            Action.PLACE_TORCH: 0.05,
            Action.PLACE_STONE: 0.05,
            Action.SHOOT_ARROW: 0.05,
            Action.CAST_SPELL: 0.05,
        }
        for action, p in chance.items():
            if mask[action] and self.rng.random() < p:
                return action
        for action in _ONE_OFFS:
            if mask[action]:
                return action
        return None

    def _coordinate(self, v: View, mask: np.ndarray) -> int | None:
        if v.handover_open.any():
            return approach(v, v.handover_open)
        if not v.teammate.any():
            return None
        mineable = _mineable(v)
        for targets in (
            (v.coord > 0) & mineable,
            v.elite,
            (v.coord < 0) & (MINE_ITEM[np.maximum(v.block, 0)] >= 0) & (v.block >= 0),
        ):
            if targets.any():
                action = approach(v, targets)
                if action is not None:
                    return action
        return None

    def _build(self, v: View, mask: np.ndarray) -> int | None:
        wood, stone, coal, iron = v.inv[0], v.inv[1], v.inv[2], v.inv[3]
        can_pay = (wood >= 10 and stone >= 5) or (iron >= 3 and coal >= 2)
        sites = v.block == Block.CONSTRUCTION_IN_PROGRESS
        if can_pay:
            sites = sites | (v.block == Block.CONSTRUCTION_SITE)
        action = approach(v, sites) if sites.any() else None
        if action == Action.DO:
            legal = [a for a in _BUILDS if mask[a]]
            return legal[0] if legal else None
        return action

    def _gather(self, v: View, mask: np.ndarray) -> int | None:
        wood, stone, coal, iron = v.inv[0], v.inv[1], v.inv[2], v.inv[3]
        usable = _mineable(v) & ~((v.coord > 0) & ~v.soft & ~v.teammate.any()) & (v.coord >= 0)
        wants = {Block.DIAMOND: True, Block.SAPPHIRE: True, Block.RUBY: True}
        wants.update({Block.IRON: iron < 4, Block.COAL: coal < 4, Block.STONE: stone < 8})
        for block in _RARITY:
            targets = usable & (v.block == block)
            if wants[block] and targets.any():
                action = approach(v, targets)
                if action is not None:
                    return action
        if v.food <= 6 and v.mobs[..., 1, _COW].any():
            return approach(v, v.mobs[..., 1, _COW])
        if v.drink <= 6 and (v.block == Block.WATER).any():
            return approach(v, v.block == Block.WATER)
        if wood < 12 or v.pickaxe == 0:
            return approach(v, usable & (v.block == Block.TREE))
        return None

    def _descend(self, v: View, mask: np.ndarray) -> int | None:
        if not (v.cleared and v.pickaxe >= 2 and v.sword >= 2):
            return None
        if mask[Action.DESCEND]:
            return Action.DESCEND
        ladder = v.item == Item.LADDER_DOWN
        return approach(v, ladder & v.walkable, onto=True) if ladder.any() else None

    def _wander(self, v: View, mask: np.ndarray) -> int:
        r0, c0 = VIEW_CENTRE
        free = [a for a, (dr, dc) in MOVES.items() if v.walkable[r0 + dr, c0 + dc]]
        if v.facing in free and self.rng.random() < 0.8:
            return int(v.facing)
        if free:
            return int(self.rng.choice(free))
        return int(self.rng.choice(np.flatnonzero(mask)))


def _adjacent(cells: np.ndarray) -> np.ndarray:
    """``cells`` restricted to the agent's four neighbours."""
    out = np.zeros_like(cells)
    r0, c0 = VIEW_CENTRE
    for dr, dc in MOVES.values():
        out[r0 + dr, c0 + dc] = cells[r0 + dr, c0 + dc]
    return out


def _next_tool_affordable(v: View) -> bool:
    """The agent holds the materials of its next stone or iron tier (pickaxe or sword)."""
    wood, stone, coal, iron = v.inv[0], v.inv[1], v.inv[2], v.inv[3]
    level = min(v.pickaxe, v.sword)
    if level == 0:
        return wood >= 1
    if level == 1:
        return wood >= 1 and stone >= 1
    return level == 2 and wood >= 1 and stone >= 1 and iron >= 1 and coal >= 1


def _mineable(v: View) -> np.ndarray:
    """(9, 11) cells holding a block the agent's pickaxe can mine."""
    block = np.maximum(v.block, 0)
    return (v.block >= 0) & (MINE_ITEM[block] >= 0) & (MINE_TIER[block] <= v.pickaxe)
