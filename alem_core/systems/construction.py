"""Joint construction: BUILD_SHELTER / FORGE / BEACON on construction sites (GAME.md §6.3).

Reads: actions, players (pos, facing, alive, inventory), world (block, coord, soft, light),
handovers, timestep. Writes: world (block, coord, soft, light for beacons), inventory (costs),
achievements (COORD_BUILD_*, HANDOVER_COMPLETE), handovers, coordination counters.

* Sync site (+N): the players facing it with the same BUILD_X form a group; it succeeds when a
  member can pay and (k >= N or the site is soft). The lowest-index member who can pay pays
  once; every member gets COORD_BUILD_X only when k >= N.
* Handover site (-W): a player who can pay, with no lower-index player facing the same cell,
  pays and starts it (CONSTRUCTION_IN_PROGRESS, an entry with deadline t + W + 1). A different
  player issuing the same BUILD_X before the deadline finishes it for free: COORD_BUILD_X to
  the completer, HANDOVER_COMPLETE to both. Expiry (refund) is ``handovers.expire_handovers``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Achievement, Action, Block
from alem_core.grid import NEIGHBOURS_8, cell_values, faced_cell, write_cells
from alem_core.params import StaticParams
from alem_core.state import State
from alem_core.systems.handovers import STRUCTURE_COST, add_entries, close_rows, open_entry_at

STRUCTURES = (
    # action, block built, achievement
    (Action.BUILD_SHELTER, Block.EPIC_SHELTER, Achievement.COORD_BUILD_SHELTER),
    (Action.BUILD_FORGE, Block.EPIC_FORGE, Achievement.COORD_BUILD_FORGE),
    (Action.BUILD_BEACON, Block.EPIC_BEACON, Achievement.COORD_BUILD_BEACON),
)
BEACON_RADIUS = 4
_r = np.arange(-BEACON_RADIUS, BEACON_RADIUS + 1)
BEACON_OFFSETS = np.stack(np.meshgrid(_r, _r, indexing="ij"), -1).reshape(-1, 2)
BEACON_LIGHT = np.clip(1.0 - np.hypot(*BEACON_OFFSETS.T) / BEACON_RADIUS, 0.0, 1.0)
"""A beacon adds 1 - d/4 (clipped at 0) to the light of the 9 x 9 cells around it."""


def _lower_facing_same(cell: jax.Array, who: jax.Array) -> jax.Array:
    """(P,) bool: a lower-index player in ``who`` faces the same cell."""
    p = who.shape[0]
    same = (cell[:, None, :] == cell[None, :, :]).all(-1)
    lower = jnp.arange(p)[None, :] < jnp.arange(p)[:, None]
    return (same & lower & who[None, :]).any(axis=1)


def _can_pay(inventory: jax.Array, s: int) -> jax.Array:
    return (inventory >= jnp.asarray(STRUCTURE_COST[s])[None, :]).all(axis=1)


def _finish(state: State, cell: jax.Array, built: jax.Array, s: int) -> State:
    """Turn the cells of ``built`` players into structure ``s``; clear their tasks."""
    floor, world = state.world.floor, state.world
    block = write_cells(world.block, floor, cell, jnp.full(built.shape, STRUCTURES[s][1]), built)
    coord = write_cells(world.coord, floor, cell, jnp.zeros(built.shape, jnp.int32), built)
    soft = write_cells(world.soft, floor, cell, jnp.zeros(built.shape, bool), built)
    light = world.light
    if STRUCTURES[s][1] == Block.EPIC_BEACON:
        cells = (cell[:, None, :] + jnp.asarray(BEACON_OFFSETS)[None]).reshape(-1, 2)
        add = (built[:, None] * jnp.asarray(BEACON_LIGHT, jnp.float32)[None]).reshape(-1)
        inside = (cells >= 0).all(-1) & (cells[:, 0] < light.shape[1])
        inside &= cells[:, 1] < light.shape[2]
        rows = jnp.where(inside, cells[:, 0], light.shape[1])  # outside the map: dropped
        light = light.at[floor, rows, cells[:, 1]].add(add, mode="drop")
        light = light.at[floor].set(jnp.clip(light[floor], 0.0, 1.0))
    world = world.replace(block=block, coord=coord, soft=soft, light=light)
    return state.replace(world=world)


def _sync_builds(state: State, actions: jax.Array, s: int, static: StaticParams) -> State:
    """Sync-site groups for structure ``s``."""
    players, floor = state.players, state.world.floor
    cell = faced_cell(players)
    block = cell_values(state.world.block, floor, cell, static, Block.OUT_OF_BOUNDS)
    value = cell_values(state.world.coord, floor, cell, static, 0)
    soft = cell_values(state.world.soft, floor, cell, static, False)
    member = (actions == STRUCTURES[s][0]) & (block == Block.CONSTRUCTION_SITE) & (value > 0)
    same = (cell[:, None, :] == cell[None, :, :]).all(-1) & member[None, :]
    k = same.sum(axis=1)
    payers = member & _can_pay(players.inventory, s)
    funded = member & (same & payers[None, :]).any(axis=1)
    built = funded & ((k >= value) | soft)
    pays = payers & built & ~_lower_facing_same(cell, payers)
    cost = jnp.asarray(STRUCTURE_COST[s])[None, :] * pays[:, None]
    achievements = players.achievements.at[:, STRUCTURES[s][2]].max(built & (k >= value))
    players = players.replace(inventory=players.inventory - cost, achievements=achievements)
    counters = state.coordination.bump(
        build_sync_attempts=member.any(),
        build_sync_successes=built.any(),
        build_unfunded=(member & ~funded).any(),
        builds=jnp.zeros(3, jnp.int32).at[s].set(pays.sum()),
    )
    state = state.replace(players=players, coordination=counters)
    return _finish(state, cell, pays, s)


def _complete_handovers(state: State, actions: jax.Array, s: int) -> State:
    """A different player's BUILD_X on an open in-progress site of that type finishes it."""
    players, table, p = state.players, state.handovers, actions.shape[0]
    cell = faced_cell(players)
    entry = open_entry_at(table, cell, s + 1) & (table.deadline > state.timestep)[None, :]
    initiator = jnp.where(entry, table.initiator[None, :], -1).max(axis=1)
    candidate = (actions == STRUCTURES[s][0]) & entry.any(axis=1) & (initiator != jnp.arange(p))
    completes = candidate & ~_lower_facing_same(cell, candidate)
    starters = (initiator[:, None] == jnp.arange(p)[None, :]) & completes[:, None]
    credited = completes | starters.any(axis=0)
    achievements = players.achievements.at[:, STRUCTURES[s][2]].max(completes)
    achievements = achievements.at[:, Achievement.HANDOVER_COMPLETE].max(credited)
    state = state.replace(
        players=players.replace(achievements=achievements),
        handovers=close_rows(table, (entry & completes[:, None]).any(axis=0)),
        coordination=state.coordination.bump(
            build_handover_successes=completes.any(),
            builds=jnp.zeros(3, jnp.int32).at[s].set(completes.sum()),
        ),
    )
    return _finish(state, cell, completes, s)


def _start_handovers(state: State, actions: jax.Array, s: int, static: StaticParams) -> State:
    """Pay and start handover sites (no lower-index player may face the same cell)."""
    players, floor, p = state.players, state.world.floor, actions.shape[0]
    cell = faced_cell(players)
    block = cell_values(state.world.block, floor, cell, static, Block.OUT_OF_BOUNDS)
    value = cell_values(state.world.coord, floor, cell, static, 0)
    no_entry = ~open_entry_at(state.handovers, cell, -1).any(axis=1)
    want = (actions == STRUCTURES[s][0]) & (block == Block.CONSTRUCTION_SITE) & (value < 0)
    want &= no_entry & _can_pay(players.inventory, s)
    want &= ~_lower_facing_same(cell, players.alive)
    deadline = state.timestep - value + 1
    table, made = add_entries(state.handovers, want, cell, deadline, jnp.full(p, s + 1))
    cost = jnp.asarray(STRUCTURE_COST[s])[None, :] * made[:, None]
    in_progress = jnp.full(p, Block.CONSTRUCTION_IN_PROGRESS)
    world = state.world.replace(
        block=write_cells(state.world.block, floor, cell, in_progress, made)
    )
    return state.replace(
        world=world,
        players=players.replace(inventory=players.inventory - cost),
        handovers=table,
        coordination=state.coordination.bump(build_handover_setups=made.any()),
    )


def build(state: State, actions: jax.Array, static: StaticParams) -> State:
    """GAME.md §5.1 step 7: every BUILD_* of this step, structure by structure."""
    for s in range(len(STRUCTURES)):
        state = _sync_builds(state, actions, s, static)
        state = _complete_handovers(state, actions, s)
        state = _start_handovers(state, actions, s, static)
    return state


def build_mask(state: State, static: StaticParams) -> jax.Array:
    """(P, 3) bool: BUILD_X is offered (adjacent to a site and any teammate can pay, or adjacent
    to an open in-progress site of that type started by someone else)."""
    players, floor, p = state.players, state.world.floor, state.players.alive.shape[0]
    around = players.pos[:, None, :] + jnp.asarray(NEIGHBOURS_8)[None]  # (P, 8, 2)
    block = cell_values(state.world.block, floor, around, static, Block.OUT_OF_BOUNDS)
    near_site = (block == Block.CONSTRUCTION_SITE).any(axis=1)
    table = state.handovers
    entry = open_entry_at(table, around.reshape(-1, 2), -1).reshape(p, 8, -1)
    by_other = entry & (table.initiator[None, None, :] != jnp.arange(p)[:, None, None])
    columns = []
    for s in range(len(STRUCTURES)):
        team_can_pay = _can_pay(players.inventory, s).any()
        resumable = (by_other & (table.kind == s + 1)[None, None, :]).any(axis=(1, 2))
        columns.append((near_site & team_can_pay) | resumable)
    return jnp.stack(columns, axis=1)
