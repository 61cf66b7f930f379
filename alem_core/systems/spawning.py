"""Mob spawning on the current floor, after the mob update (docs/rules/mobs.md#behaviour
"Spawning").

Reads: ``world.{floor, block, kills, daylight}``, ``players.{pos, alive}``, ``mobs.{melee,
passive, ranged}`` (the current floor's hot copy). Writes: ``mobs.{melee, passive,
ranged}.{pos, alive, health, kind, cooldown}`` of at most one slot per class; the slot's
pre-rolled ``elite``/``hard``/``required`` fields are kept.

Classes spawn in the order passive, melee, ranged; each sees the cells taken by the earlier ones.
The cell is drawn uniformly among eligible cells by inverting the cumulative count of the
eligibility map (one uniform per class, no per-cell noise; see ``_sample_cell``).

The boss floor (the boss fight) has its own rule: no passive mobs; melee and ranged mobs only
while a boss wave is in progress, with the chance x1000 (certain), only on grave tiles within
Euclidean distance 6 of an alive player, and of the types of the floor-mapping row indexed by
the boss progress. When a wave runs is the boss system's (``boss.py``).
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block, MobClass
from alem_core.dense import take_row
from alem_core.draws import DrawBlock, Draws
from alem_core.params import Params, StaticParams
from alem_core.rules.boss_tables import BOSS_WAVE_CHANCE_MULTIPLIER
from alem_core.rules.tables import (
    FLOOR_IS_DUNGEON,
    FLOOR_MELEE_CHANCE,
    FLOOR_MELEE_TYPE,
    FLOOR_PASSIVE_CHANCE,
    FLOOR_PASSIVE_TYPE,
    FLOOR_RANGED_CHANCE,
    FLOOR_RANGED_TYPE,
    MOB_HEALTH,
    MOB_MOVES_ON,
    MOB_SPAWN_TILE,
    MONSTERS_TO_CLEAR_FLOOR,
)
from alem_core.state import Entities, State
from alem_core.systems.boss import on_boss_floor, wave_cells, wave_in_progress, wave_types

DRAWS = {"spawning": DrawBlock(lambda s: (3, 2), "spawning: per class, the roll and the cell")}
"""The step's uniforms this system reads (``alem_core/draws.py``)."""

PASSIVE_MIN_DISTANCE = 3
"""Passive mobs spawn at Euclidean distance 3 < d < mob_despawn_distance."""
HOSTILE_MIN_DISTANCE = 9
"""Melee and ranged mobs spawn at 9 < d < mob_despawn_distance."""
DUNGEON_MELEE_CAP = 3
DUNGEON_RANGED_CAP = 2
UNCLEARED_MULTIPLIER = 3.0
"""Melee/ranged chances x3 while the floor has fewer than 8 kills."""
NIGHT_MELEE_CHANCE = 0.1
"""Overworld zombies: + 0.1 (1 - daylight)^2."""

NO_CAP = 1 << 20
"""Cap off the dungeon floors: only the slot count (3P, 3P, 2P) limits the class."""
_NAMES = {MobClass.MELEE: "melee", MobClass.PASSIVE: "passive", MobClass.RANGED: "ranged"}

_AQUATIC = ~MOB_MOVES_ON[:, :, 0] & MOB_MOVES_ON[:, :, 1]
"""(3, 8) bool: mobs that live in water only (deep things) spawn on WATER."""


class _Plan(NamedTuple):
    """What may spawn for one class this step."""

    mob_class: int
    kind: jax.Array
    """() int32 type id spawned on this floor."""
    chance: jax.Array
    """() float32 probability of a spawn this step."""
    cap: jax.Array | int
    """live mobs of the class allowed on this floor."""
    min_distance: int


def _plans(state: State, static: StaticParams) -> tuple[_Plan, _Plan, _Plan]:
    """The passive, melee and ranged spawn rules for the current floor (docs/rules/mobs.md#behaviour
    table)."""
    world = state.world
    floor = world.floor
    p = static.player_count
    cleared = take_row(world.kills, floor) >= MONSTERS_TO_CLEAR_FLOOR
    uncleared = jnp.where(cleared, 1.0, UNCLEARED_MULTIPLIER)
    night = jnp.where(floor == 0, NIGHT_MELEE_CHANCE * (1.0 - world.daylight) ** 2, 0.0)
    dungeon = take_row(FLOOR_IS_DUNGEON, floor)
    passive = _Plan(
        MobClass.PASSIVE,
        take_row(FLOOR_PASSIVE_TYPE, floor),
        take_row(FLOOR_PASSIVE_CHANCE, floor) * p,
        NO_CAP,
        PASSIVE_MIN_DISTANCE,
    )
    melee = _Plan(
        MobClass.MELEE,
        take_row(FLOOR_MELEE_TYPE, floor),
        (take_row(FLOOR_MELEE_CHANCE, floor) + night) * p * uncleared,
        jnp.where(dungeon, DUNGEON_MELEE_CAP, NO_CAP),
        HOSTILE_MIN_DISTANCE,
    )
    ranged = _Plan(
        MobClass.RANGED,
        take_row(FLOOR_RANGED_TYPE, floor),
        take_row(FLOOR_RANGED_CHANCE, floor) * p * uncleared,
        jnp.where(dungeon, DUNGEON_RANGED_CAP, NO_CAP),
        HOSTILE_MIN_DISTANCE,
    )
    return _boss_plans(state, passive, melee, ranged)


def _boss_plans(
    state: State, passive: _Plan, melee: _Plan, ranged: _Plan
) -> tuple[_Plan, _Plan, _Plan]:
    """On the boss floor: no passive spawns, hostile ones only in a wave, of the wave's types."""
    boss = on_boss_floor(state)
    in_wave = jnp.where(wave_in_progress(state), BOSS_WAVE_CHANCE_MULTIPLIER, 0.0)
    boss_melee, boss_ranged = wave_types(state)
    passive = passive._replace(chance=jnp.where(boss, 0.0, passive.chance))
    melee = melee._replace(
        kind=jnp.where(boss, boss_melee, melee.kind),
        chance=jnp.where(boss, melee.chance * in_wave, melee.chance),
    )
    ranged = ranged._replace(
        kind=jnp.where(boss, boss_ranged, ranged.kind),
        chance=jnp.where(boss, ranged.chance * in_wave, ranged.chance),
    )
    return passive, melee, ranged


def spawn_mobs(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Maybe add one passive, one melee and one ranged mob on the team's floor.

    Args:
        draws: the step's uniforms; reads the ``spawning`` block.
        state: the state after the mob update.
        params: gameplay params (``mob_despawn_distance``, ``mob_health_multiplier``).
        static: shapes.

    Returns:
        The state with at most one new mob per class.
    """
    u = draws["spawning"]  # per class: spawn roll, cell draw
    plans = _plans(state, static)
    base = _eligible_cells(state, plans, params, static)
    # One reduction counts every class's eligible cells per row (one pass over the map instead
    # of one per class); each class then subtracts the cells the earlier classes spawned on.
    row_counts = base.sum(axis=2, dtype=jnp.int32)
    row_ids = jnp.arange(static.map_size[0])[:, None]
    col_ids = jnp.arange(static.map_size[1])[None, :]
    mobs, taken = state.mobs, []
    for row, plan in enumerate(plans):
        ents = getattr(mobs, _NAMES[plan.mob_class])
        if ents.alive.shape[0] == 0:  # a class with no slots (StaticParams allows 0)
            continue
        cells, counts = base[row], row_counts[row]
        for cell in taken:  # later classes avoid the cells of the earlier ones' new mobs
            in_row = row_ids[:, 0] == cell[0]  # no row at all for the off-map "no spawn" cell
            was_eligible = cells[jnp.minimum(cell[0], cells.shape[0] - 1), cell[1]]
            counts = counts - (in_row & was_eligible)
            cells = cells & ((row_ids != cell[0]) | (col_ids != cell[1]))
        go = u[row, 0] < plan.chance
        ents, cell = _spawn_one(ents, cells, counts, u[row, 1], go, plan, params)
        taken.append(cell)
        mobs = mobs.replace(**{_NAMES[plan.mob_class]: ents})
    return state.replace(mobs=mobs)


def _eligible_cells(
    state: State, plans: tuple[_Plan, ...], params: Params, static: StaticParams
) -> jax.Array:
    """(3, H, W) bool cells each class (``plans`` order) may spawn on, before avoiding the
    cells of this step's earlier spawns: the right tile in the distance band and free, or on
    the boss floor the wave's grave tiles."""
    block = state.world.block
    dist2 = _nearest_player_distance2(state, static)
    free = ~_occupied(state, static)
    # Tile tests by comparison (fuses with the rest) rather than a per-cell table gather.
    ground = jnp.isin(block, jnp.asarray(np.flatnonzero(MOB_SPAWN_TILE)))
    water = block == Block.WATER
    graves = wave_cells(block, dist2)
    boss = on_boss_floor(state)
    cells = []
    for plan in plans:
        tile = jnp.where(jnp.asarray(_AQUATIC)[plan.mob_class, plan.kind], water, ground)
        lo = plan.min_distance
        band = (dist2 > lo * lo) & (dist2 < params.mob_despawn_distance**2)
        cells.append(jnp.where(boss, graves, tile & band) & free)
    return jnp.stack(cells)


def _nearest_player_distance2(state: State, static: StaticParams) -> jax.Array:
    """(H, W) int32 squared Euclidean distance to the nearest alive player (huge if none)."""
    rows, cols = static.map_size
    pos = state.players.pos
    dr = jnp.arange(rows)[None, :, None] - pos[:, 0, None, None]
    dc = jnp.arange(cols)[None, None, :] - pos[:, 1, None, None]
    d2 = dr * dr + dc * dc
    return jnp.where(state.players.alive[:, None, None], d2, 1 << 30).min(axis=0)


def _occupied(state: State, static: StaticParams) -> jax.Array:
    """(H, W) bool: cells holding a player (alive or dead) or a live mob on the current floor."""
    classes = (state.mobs.melee, state.mobs.passive, state.mobs.ranged)
    pos = jnp.concatenate([state.players.pos] + [e.pos for e in classes])
    present = jnp.concatenate(
        [jnp.ones(state.players.alive.shape, bool)] + [e.alive for e in classes]
    )
    rows = jnp.where(present, pos[:, 0], static.map_size[0])  # absent -> dropped
    return jnp.zeros(static.map_size, bool).at[rows, pos[:, 1]].set(True, mode="drop")


def _spawn_one(
    ents: Entities,
    eligible: jax.Array,
    row_counts: jax.Array,
    u: jax.Array,
    go: jax.Array,
    plan: _Plan,
    params: Params,
) -> tuple[Entities, jax.Array]:
    """Put one mob of ``plan.kind`` on a uniformly drawn eligible cell in the first free slot.

    Args:
        ents: the class's slots on the current floor.
        eligible: (H, W) bool cells the mob may appear on.
        row_counts: (H,) int32 eligible cells per row.
        u: () uniform for the cell draw.
        go: () bool the spawn roll succeeded.
        plan: the class's spawn rule.
        params: gameplay params (``mob_health_multiplier``).

    Returns:
        The updated entities and the (2,) cell used (off the map when nothing spawned).
    """
    alive = ents.alive
    cell, count = _sample_cell(eligible, row_counts, u)
    room = (alive.sum() < plan.cap) & ~alive.all()
    spawn = go & room & (count > 0)
    slot = jnp.argmin(alive)  # first free slot (room guarantees one exists)
    health = jnp.asarray(MOB_HEALTH)[plan.mob_class, plan.kind] * params.mob_health_multiplier

    # Masked selects over the small (S,) slot arrays instead of scatters (cheaper under vmap).
    target = (jnp.arange(alive.shape[0]) == slot) & spawn

    def put(field: jax.Array, value: object) -> jax.Array:
        mask = target.reshape(target.shape + (1,) * (field.ndim - 1))
        return jnp.where(mask, jnp.asarray(value, field.dtype), field)

    ents = ents.replace(
        pos=put(ents.pos, cell),
        alive=put(ents.alive, True),
        health=put(ents.health, health),
        kind=put(ents.kind, plan.kind),
        cooldown=put(ents.cooldown, 0),
    )
    off_map = jnp.array([eligible.shape[0], 0], jnp.int32)  # matches no cell of the map
    return ents, jnp.where(spawn, cell, off_map)


def _sample_cell(
    eligible: jax.Array, row_counts: jax.Array, u: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Draw a cell uniformly among the True cells of ``eligible`` (H, W) with one uniform ``u``;
    ``row_counts`` (H,) int32 are its True cells per row.

    The k-th True cell (row-major, k = floor(u * count)) is found in two levels: the row from
    the cumulative row counts, then the column within that row. Two short cumulative sums
    (H and W long) replace one over H * W cells, which XLA on CPU computes in quadratic time.

    Returns:
        The (2,) int32 cell and the () number of eligible cells (no valid cell when 0).
    """
    count = row_counts.sum()
    k = jnp.minimum((u * count).astype(jnp.int32), count - 1)
    through_row = jnp.cumsum(row_counts)
    row = jnp.minimum((through_row <= k).sum(), eligible.shape[0] - 1)
    k_in_row = k - (through_row[row] - row_counts[row])
    through_col = jnp.cumsum(eligible[row].astype(jnp.int32))
    col = jnp.minimum((through_col <= k_in_row).sum(), eligible.shape[1] - 1)
    return jnp.stack([row, col]).astype(jnp.int32), count
