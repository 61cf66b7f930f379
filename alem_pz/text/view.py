"""The one place the text track reads the world state (a host copy, never on the hot path).

Every text module reads the state only through these accessors on ``snapshot(state)``, a
``jax.device_get`` of an ``alem_core.State``. When the state's layout changes (narrower map
dtypes, the current floor held apart from the floor stack), only this module changes.
"""

from __future__ import annotations

import threading
from collections.abc import Callable
from dataclasses import dataclass

import jax
import numpy as np

import alem_core
from alem_core.constants import MobClass
from alem_core.rules.tables import TASK_BLOCK
from alem_core.state import light_level
from alem_core.systems.boss import boss_vulnerable as _boss_vulnerable

_MOB_FIELDS = {
    MobClass.MELEE: "melee",
    MobClass.PASSIVE: "passive",
    MobClass.RANGED: "ranged",
    MobClass.MOB_PROJECTILE: "mob_projectiles",
    MobClass.PLAYER_PROJECTILE: "player_projectiles",
}


def snapshot(state: alem_core.State) -> alem_core.State:
    """A host (numpy) copy of ``state``: one transfer, then plain indexing."""
    return jax.device_get(state)


_memo = threading.local()


def _memoised(s, key: tuple, build: Callable[[], object]):
    """``build()`` once per snapshot and key: every agent's text reads the same entities and
    players. Holding the snapshot itself (not its id) means a stale entry can never match."""
    held = getattr(_memo, "entry", None)
    if held is None or held[0] is not s:
        held = _memo.entry = (s, {})
    if key not in held[1]:
        held[1][key] = build()
    return held[1][key]


def current_floor(s) -> int:
    """The team's floor."""
    return int(s.world.floor)


def _floor_map(s, name: str) -> np.ndarray:
    """The current floor's hot map ``name`` (the state carries it as an (H, W) array)."""
    return np.asarray(getattr(s.world, name))


def current_floor_blocks(s) -> np.ndarray:
    """(H, W) int block ids of the current floor."""
    return _memoised(s, ("block",), lambda: _floor_map(s, "block").astype(np.int32))


def current_floor_items(s) -> np.ndarray:
    """(H, W) int item ids of the current floor."""
    return _memoised(s, ("item",), lambda: _floor_map(s, "item").astype(np.int32))


def current_floor_light(s) -> np.ndarray:
    """(H, W) float light map of the current floor."""
    return _memoised(s, ("light",), lambda: np.asarray(light_level(s.world.light)))


def current_floor_tasks(s) -> tuple[np.ndarray, np.ndarray]:
    """(H, W) coordination value and soft flag, only where a task block still stands (as the
    symbolic observation shows them: a mined or built cell's task no longer counts)."""
    return _memoised(s, ("tasks",), lambda: _tasks(s))


def _tasks(s) -> tuple[np.ndarray, np.ndarray]:
    blocks = current_floor_blocks(s)
    tasked = TASK_BLOCK[blocks]
    coord = np.where(tasked, _floor_map(s, "coord"), 0).astype(np.int32)
    return coord, tasked & _floor_map(s, "soft").astype(bool)


def floor_kills(s) -> int:
    """Monsters killed on the current floor."""
    return int(np.asarray(s.world.kills)[current_floor(s)])


def daylight(s) -> float:
    """The day/night light level."""
    return float(s.world.daylight)


def timestep(s) -> int:
    """Steps taken so far."""
    return int(s.timestep)


def boss_vulnerable(s, static: alem_core.StaticParams) -> bool:
    """The boss is in a vulnerable window (the symbolic observation's floor-info value)."""
    return bool(_boss_vulnerable(s))


@dataclass(frozen=True)
class Entity:
    """One live mob or projectile on the current floor."""

    cls: MobClass
    kind: int
    row: int
    col: int
    elite: bool
    hard: bool
    owner: int


def entities(s, cls: MobClass) -> list[Entity]:
    """The live entities of class ``cls`` on the current floor, in slot order."""
    return _memoised(s, ("entities", int(cls)), lambda: _entities(s, cls))


def _entities(s, cls: MobClass) -> list[Entity]:
    ents = getattr(s.mobs, _MOB_FIELDS[cls])  # the current floor's slots
    live = np.flatnonzero(np.asarray(ents.alive))
    rows = zip(
        np.asarray(ents.pos)[live].tolist(),
        np.asarray(ents.kind)[live].tolist(),
        np.asarray(ents.elite)[live].tolist(),
        np.asarray(ents.hard)[live].tolist(),
        np.asarray(ents.owner)[live].tolist(),
        strict=True,
    )
    return [
        Entity(cls, kind, pos[0], pos[1], bool(elite), bool(hard), owner)
        for pos, kind, elite, hard, owner in rows
    ]


@dataclass(frozen=True)
class PlayerView:
    """One player's observable values as plain Python numbers."""

    index: int
    row: int
    col: int
    facing: int
    alive: bool
    sleeping: bool
    resting: bool
    health: float
    food: int
    drink: int
    energy: int
    mana: int
    xp: int
    dexterity: int
    strength: int
    intelligence: int
    inventory: tuple[int, ...]
    armour: tuple[int, ...]
    armour_enchant: tuple[int, ...]
    sword_enchant: int
    bow_enchant: int
    spell_learned: bool
    request: int
    achievements: np.ndarray


def player(s, i: int) -> PlayerView:
    """Player ``i``'s values."""
    return _memoised(s, ("player", i), lambda: _player(s, i))


def _player(s, i: int) -> PlayerView:
    p = s.players
    timer = int(p.request_timer[i])
    return PlayerView(
        index=i,
        row=int(p.pos[i][0]),
        col=int(p.pos[i][1]),
        facing=int(p.facing[i]),
        alive=bool(p.alive[i]),
        sleeping=bool(p.sleeping[i]),
        resting=bool(p.resting[i]),
        health=float(p.health[i]),
        food=int(p.food[i]),
        drink=int(p.drink[i]),
        energy=int(p.energy[i]),
        mana=int(p.mana[i]),
        xp=int(p.xp[i]),
        dexterity=int(p.dexterity[i]),
        strength=int(p.strength[i]),
        intelligence=int(p.intelligence[i]),
        inventory=tuple(int(v) for v in p.inventory[i]),
        armour=tuple(int(v) for v in p.armour[i]),
        armour_enchant=tuple(int(v) for v in p.armour_enchant[i]),
        sword_enchant=int(p.sword_enchant[i]),
        bow_enchant=int(p.bow_enchant[i]),
        spell_learned=bool(p.spell_learned[i]),
        request=int(p.request[i]) if timer > 0 else -1,
        achievements=np.asarray(p.achievements[i], bool),
    )


def player_count(s) -> int:
    """Number of players P."""
    return int(np.asarray(s.players.alive).shape[0])


@dataclass(frozen=True)
class OpenHandover:
    """An open handover on the current floor's cell (row, col) and its deadline step."""

    row: int
    col: int
    deadline: int


def open_handovers(s) -> list[OpenHandover]:
    """Open pending handovers (the table is global; cells are on the current floor)."""
    h = s.handovers
    return [
        OpenHandover(int(h.pos[k][0]), int(h.pos[k][1]), int(h.deadline[k]))
        for k in np.flatnonzero(np.asarray(h.open))
    ]
