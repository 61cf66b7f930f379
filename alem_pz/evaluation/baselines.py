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

Reading the observation and walking on the view (a breadth-first search over its walkable
cells) live in ``symbolic_view``; this module holds the choices. The scripted team
coordinates only by converging on what all of its members see; it uses no communication.
"""

from __future__ import annotations

import numpy as np

from alem_core.constants import GIVE_BASE, Action, Block, Item, Request
from alem_core.observation.map_view import VIEW_CENTRE
from alem_core.rules.tables import MINE_ITEM
from alem_pz.evaluation.symbolic_view import (
    MOVES,
    View,
    adjacent_cells,
    approach,
    decode,
    mineable_cells,
)

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
            v.energy == 0 and not adjacent_cells(hostile).any()
        ):
            return Action.SLEEP
        if v.health <= 3 and not hostile.any():
            return Action.REST
        return None

    def _fight(self, v: View, mask: np.ndarray) -> int | None:
        adjacent = adjacent_cells(v.mobs[..., [0, 2], :].any((-1, -2)))
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
        mineable = mineable_cells(v)
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
        usable = mineable_cells(v) & ~((v.coord > 0) & ~v.soft & ~v.teammate.any()) & (v.coord >= 0)
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


def _next_tool_affordable(v: View) -> bool:
    """The agent holds the materials of its next stone or iron tier (pickaxe or sword)."""
    wood, stone, coal, iron = v.inv[0], v.inv[1], v.inv[2], v.inv[3]
    level = min(v.pickaxe, v.sword)
    if level == 0:
        return wood >= 1
    if level == 1:
        return wood >= 1 and stone >= 1
    return level == 2 and wood >= 1 and stone >= 1 and iron >= 1 and coal >= 1
