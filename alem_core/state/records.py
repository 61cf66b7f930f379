"""The world state: nested frozen pytrees (``jax.tree_util.register_dataclass``).

Axes: ``L`` floors (``StaticParams.num_levels``), ``H x W`` map, ``P`` players, ``S`` slots of an
entity class on one floor. Only the current floor is simulated, so its maps and its entities are
each kept as a hot copy that the step reads and writes directly (``World``'s maps,
``State.mobs``), beside the stack of every floor (``World.floors``, ``State.mob_floors``) that
is written back and reloaded only when the team changes floor: a read at ``[floor]`` under
``vmap`` is a gather kernel, and the step would pay one per read and a scatter per write.
Use ``dataclasses.replace`` (or ``.replace``) to build updated copies.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp

from alem_core.rules.boss_tables import BOSS_WAVE_TIMER
from alem_core.state.base import Record
from alem_core.state.counters import CoordinationStats, Stats
from alem_core.state.entities import Mobs, MobStack

MAP_DTYPES: dict[str, jnp.dtype] = {
    "block": jnp.uint8,
    "item": jnp.uint8,
    "light": jnp.uint8,
    "coord": jnp.int8,
    "soft": jnp.bool_,
}
"""The per-cell maps and the narrowest dtype that holds each one's values (42 blocks, 5 items,
light in steps of ``1 / LIGHT_SCALE``, coordination values -20..+P). Every map is stored twice:
the current floor as a hot (H, W) copy in ``World`` that the step reads and writes, and the
stack of all floors in ``World.floors``, written back only when the team changes floor."""

LIGHT_SCALE = 250
"""Light is stored as ``round(light * LIGHT_SCALE)``: with 250 steps the observation's
"light > 0.05" test (12.5 steps) falls between two stored values, so it is unchanged."""


def to_light(value: jax.Array) -> jax.Array:
    """Store a light value in [0, 1] (float) as ``MAP_DTYPES["light"]`` steps."""
    return jnp.round(jnp.clip(value, 0.0, 1.0) * LIGHT_SCALE).astype(MAP_DTYPES["light"])


def light_level(stored: jax.Array) -> jax.Array:
    """The float32 light value in [0, 1] of stored light steps."""
    return stored.astype(jnp.float32) / LIGHT_SCALE


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class FloorMaps(Record):
    """The per-cell maps (``MAP_DTYPES``) of every floor, (L, H, W) each. The entry of the
    current floor is stale while the team is on it: the hot copy in ``World`` is the truth."""

    block: jax.Array
    item: jax.Array
    light: jax.Array
    coord: jax.Array
    soft: jax.Array


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class World(Record):
    """The current floor's maps (hot, (H, W)), the floor stack and team-wide world values."""

    block: jax.Array
    """(H, W) uint8 block ids (``Block``) of the current floor."""
    item: jax.Array
    """(H, W) uint8 item ids (``Item``) of the current floor."""
    light: jax.Array
    """(H, W) uint8 light of the current floor, in steps of 1 / ``LIGHT_SCALE``."""
    coord: jax.Array
    """(H, W) int8 coordination value: +N sync task needing N agents, -W handover window."""
    soft: jax.Array
    """(H, W) bool soft-coordination mask of the current floor."""
    floors: FloorMaps
    """(L, H, W) maps of every floor; written back from the hot maps on a floor change."""
    floor: jax.Array
    """() int32 the team's current floor."""
    deepest: jax.Array
    """() int32 the deepest floor the team has reached."""
    ladders: jax.Array
    """(L, 2, P, 2) int32 ladder cells per floor: [:, 0] the P down cells, [:, 1] the P up
    cells (chosen even where a floor shows no ladder item, e.g. the boss floor's arrivals)."""
    kills: jax.Array
    """(L,) int32 monsters killed per floor (floor 0 starts at 10, so its ladder is open)."""
    daylight: jax.Array
    """() float32 day/night light level (docs/rules/engine.md#day-and-night)."""
    potion_effect: jax.Array
    """(6,) int32 per-episode permutation: potion colour -> effect."""
    boss_timer: jax.Array
    """() int32 boss wave timer: counts down on the boss floor, a wave runs while it is > 0,
    reset to ``BOSS_WAVE_TIMER`` by each hit on the boss (``systems/boss.py``)."""
    boss_progress: jax.Array
    """() int32 hits landed on the vulnerable boss; ``BOSS_PROGRESS_TO_WIN`` defeats it."""

    @classmethod
    def on_floor(cls, floors: FloorMaps, floor: int | jax.Array, **values: jax.Array) -> World:
        """A world on ``floor`` of the stack ``floors`` (cast to ``MAP_DTYPES``), with the boss
        fight not started (timer ``BOSS_WAVE_TIMER``, progress 0) unless ``values`` say so."""
        floors = FloorMaps(**{n: getattr(floors, n).astype(t) for n, t in MAP_DTYPES.items()})
        hot = {n: getattr(floors, n)[floor] for n in MAP_DTYPES}
        floor = jnp.asarray(floor, jnp.int32)
        boss = {
            "boss_timer": jnp.asarray(BOSS_WAVE_TIMER, jnp.int32),
            "boss_progress": jnp.zeros((), jnp.int32),
        }
        boss.update(values)
        return cls(**hot, floors=floors, floor=floor, deepest=floor, **boss)

    def stacked(self) -> FloorMaps:
        """Every floor's maps, with the hot copy of the current floor in place."""
        return FloorMaps(
            **{n: getattr(self.floors, n).at[self.floor].set(getattr(self, n)) for n in MAP_DTYPES}
        )

    def change_floor(self, new_floor: jax.Array, moved: jax.Array | bool = True) -> World:
        """Where ``moved``: write the hot maps back to the stack and load ``new_floor``'s (the
        only stack write). Elsewhere nothing changes: the write goes to an index past the stack
        and is dropped, and the hot maps are kept. A step where the team stays thus costs a
        select over the hot maps, not a copy of the stack slice."""
        moved = jnp.asarray(moved)
        levels = self.floors.block.shape[0]
        target = jnp.where(moved, self.floor, levels)

        def write_back(name: str) -> jax.Array:
            return getattr(self.floors, name).at[target].set(getattr(self, name), mode="drop")

        floors = FloorMaps(**{n: write_back(n) for n in MAP_DTYPES})
        hot = {
            n: jnp.where(moved, getattr(floors, n)[new_floor], getattr(self, n)) for n in MAP_DTYPES
        }
        floor = jnp.where(moved, jnp.asarray(new_floor, jnp.int32), self.floor)
        return self.replace(**hot, floors=floors, floor=floor)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Players(Record):
    """Per-player state; the leading axis of every field is the agent index ``P``."""

    pos: jax.Array
    """(P, 2) int32 (row, col)."""
    facing: jax.Array
    """(P,) int32 ``Facing`` code (1 left, 2 right, 3 up, 4 down)."""
    alive: jax.Array
    """(P,) bool."""
    health: jax.Array
    """(P,) float32."""
    food: jax.Array
    """(P,) int32."""
    drink: jax.Array
    """(P,) int32."""
    energy: jax.Array
    """(P,) int32."""
    mana: jax.Array
    """(P,) int32."""
    hunger: jax.Array
    """(P,) float32 hidden counter."""
    thirst: jax.Array
    """(P,) float32 hidden counter."""
    fatigue: jax.Array
    """(P,) float32 hidden counter."""
    recover: jax.Array
    """(P,) float32 hidden counter."""
    mana_recover: jax.Array
    """(P,) float32 hidden counter."""
    xp: jax.Array
    """(P,) int32."""
    dexterity: jax.Array
    """(P,) int32."""
    strength: jax.Array
    """(P,) int32."""
    intelligence: jax.Array
    """(P,) int32."""
    sleeping: jax.Array
    """(P,) bool."""
    resting: jax.Array
    """(P,) bool."""
    inventory: jax.Array
    """(P, NUM_INV) int32, columns ``Inv``."""
    armour: jax.Array
    """(P, 4) int32 slot levels (0 none, 1 iron, 2 diamond)."""
    armour_enchant: jax.Array
    """(P, 4) int32 (0 none, 1 fire, 2 ice)."""
    sword_enchant: jax.Array
    """(P,) int32."""
    bow_enchant: jax.Array
    """(P,) int32."""
    spell_learned: jax.Array
    """(P,) bool."""
    achievements: jax.Array
    """(P, 93) bool, never lost."""
    request: jax.Array
    """(P,) int32 open request (``Request``), -1 none."""
    request_timer: jax.Array
    """(P,) int32 steps the request stays open."""
    message: jax.Array
    """(P, nc) float32 one-hot comm message, visible for one observation."""
    chest_opened: jax.Array
    """(P, L) bool this player opened a chest on that floor (first-chest loot)."""
    death_cause: jax.Array
    """(P,) int32 ``lifecycle.DEATH_CAUSES`` code: 0 alive, 1 starvation, 2 dehydration,
    3 exhaustion, 4 mob combat, 5 friendly fire (the published numbering)."""
    death_floor: jax.Array
    """(P,) int32 floor the player died on (kept while dead, whatever floor the team goes to);
    -1 while alive."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Plants(Record):
    """Growing saplings (global slots; they only grow on the overworld)."""

    pos: jax.Array
    """(N, 2) int32."""
    age: jax.Array
    """(N,) int32 steps since planted or last eaten."""
    alive: jax.Array
    """(N,) bool slot in use."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Handovers(Record):
    """The global pending-handover table (docs/rules/coordination.md)."""

    pos: jax.Array
    """(K, 2) int32 cell."""
    deadline: jax.Array
    """(K,) int32 step by which a teammate must complete."""
    initiator: jax.Array
    """(K,) int32 player who started it."""
    kind: jax.Array
    """(K,) int32 0 mining, 1 shelter, 2 forge, 3 beacon."""
    open: jax.Array
    """(K,) bool row in use."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class State(Record):
    """Everything that evolves during an episode. Keys are arguments, never state."""

    world: World
    players: Players
    mobs: Mobs
    """The current floor's entities (S, ...), the hot copy every system reads and writes."""
    mob_floors: MobStack
    """Every floor's entities, packed one row per floor; the current floor's row is stale while
    the team is on it (``mobs`` is the truth) and is written back on a floor change."""
    plants: Plants
    handovers: Handovers
    stats: Stats
    coordination: CoordinationStats
    timestep: jax.Array
    """() int32 steps taken."""
    alpha: jax.Array
    """() float32 α in force for this episode (sampled when ``randomize_alpha``)."""

    def change_floor(self, new_floor: int | jax.Array, moved: jax.Array | bool = True) -> State:
        """Where ``moved``, the team's maps and entities are ``new_floor``'s (each hot copy
        written back to its stack and the new floor's loaded: ``World.change_floor``,
        ``MobStack.change_floor``); the players stay where they are."""
        moved, new_floor = jnp.asarray(moved), jnp.asarray(new_floor, jnp.int32)
        floor = self.world.floor
        mobs, stack = self.mob_floors.change_floor(self.mobs, floor, new_floor, moved)
        world = self.world.change_floor(new_floor, moved)
        return self.replace(world=world, mobs=mobs, mob_floors=stack)

    def all_mobs(self) -> Mobs:
        """Every floor's entities (L, S, ...) with the current floor's hot slots in place (for
        tests, digests and tools; the step never unpacks the stack)."""
        return self.mob_floors.put(self.mobs, self.world.floor).unpack(self.mobs)

    def unpacked(self) -> State:
        """This state with every floor's entities in ``mobs`` (L, S, ...) and no stack: what
        digests and game records hash, so that they do not depend on how the state keeps the
        team's floor (state layout 1 was this form; no rule reads the stack's stale row)."""
        return self.replace(mobs=self.all_mobs(), mob_floors=None)

    def with_all_mobs(self, mobs: Mobs) -> State:
        """This state with every floor's entities set from ``mobs`` (L, S, ...)."""
        return self.replace(mobs=mobs.on_floor(self.world.floor), mob_floors=MobStack.of(mobs))


__all__ = [
    "LIGHT_SCALE",
    "MAP_DTYPES",
    "FloorMaps",
    "Handovers",
    "Plants",
    "Players",
    "State",
    "World",
    "light_level",
    "to_light",
]
