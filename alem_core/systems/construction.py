"""Joint construction: BUILD_SHELTER / FORGE / BEACON on construction sites
(docs/rules/coordination.md#construction-sites).

Reads: actions, players (pos, facing, alive, inventory), world (block, coord, soft, light),
handovers, timestep. Writes: world (block, coord, soft, light for beacons), inventory (costs),
achievements (COORD_BUILD_*, HANDOVER_COMPLETE), handovers, coordination counters.

* Sync site (+N): the players facing it with the same BUILD_X form a group; it succeeds when a
  member can pay and (k >= N or the site is soft). The lowest-index member who can pay pays
  once; every member gets COORD_BUILD_X only when k >= N.
* Handover site (-W): a player who can pay, with no lower-index player facing the same cell,
  pays and starts it (CONSTRUCTION_IN_PROGRESS, an entry with deadline t + W + 1). A different
  player issuing the same BUILD_X before the deadline finishes it for free: COORD_BUILD_X to
  the completer, HANDOVER_COMPLETE to both. At the start of the stage, expired in-progress
  sites return to plain sites and their initiators are refunded.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_ACHIEVEMENTS, Achievement, Action, Block
from alem_core.dense import raise_flags
from alem_core.draws import Draws
from alem_core.grid import (
    NEIGHBOURS_8,
    add_light_patches,
    cell_values,
    faced_cell,
    lower_index_claims,
    write_cells,
)
from alem_core.params import Params, StaticParams
from alem_core.state import State
from alem_core.systems.handovers import (
    MINING,
    STRUCTURE_COST,
    add_entries,
    close_rows,
    expired_rows,
    open_entry_at,
    refund_builds,
)

STRUCTURES = (
    # action, block built, achievement
    (Action.BUILD_SHELTER, Block.EPIC_SHELTER, Achievement.COORD_BUILD_SHELTER),
    (Action.BUILD_FORGE, Block.EPIC_FORGE, Achievement.COORD_BUILD_FORGE),
    (Action.BUILD_BEACON, Block.EPIC_BEACON, Achievement.COORD_BUILD_BEACON),
)
BEACON_RADIUS = 4
BEACON_FALLOFF = 4.0
"""A beacon adds 1 - d/4 (clipped at 0) to the light of the 9 x 9 cells around it."""


STRUCTURE_BLOCK = np.array([row[1] for row in STRUCTURES], np.int32)
STRUCTURE_ACHIEVEMENT = np.array([row[2] for row in STRUCTURES], np.int32)


class _Facts(NamedTuple):
    """What each player faces and asks for this step (all (P,) unless stated)."""

    cell: jax.Array  # (P, 2)
    block: jax.Array
    value: jax.Array
    soft: jax.Array
    kind: jax.Array  # structure index 0-2 (clipped; see ``building``)
    building: jax.Array
    can_pay: jax.Array  # can pay the structure it asks for
    same_cell: jax.Array  # (P, P)


def _facts(state: State, actions: jax.Array, static: StaticParams) -> _Facts:
    players, world = state.players, state.world
    cell = faced_cell(players)
    kind = actions - Action.BUILD_SHELTER
    building = (kind >= 0) & (kind < len(STRUCTURES))
    kind = jnp.clip(kind, 0, len(STRUCTURES) - 1)
    return _Facts(
        cell=cell,
        block=cell_values(world.block, cell, static, Block.OUT_OF_BOUNDS),
        value=cell_values(world.coord, cell, static, 0),
        soft=cell_values(world.soft, cell, static, False),
        kind=kind,
        building=building,
        can_pay=can_pay(players.inventory, kind),
        same_cell=(cell[:, None, :] == cell[None, :, :]).all(-1),
    )


def _sync_groups(f: _Facts) -> tuple[jax.Array, ...]:
    """(funded, built, credited, pays, any group unfunded): sync-site groups, one per cell and
    structure type; ``funded`` marks members of a group in which someone can pay."""
    member = f.building & (f.block == Block.CONSTRUCTION_SITE) & (f.value > 0)
    group = f.same_cell & (f.kind[:, None] == f.kind[None, :]) & member[None, :]
    k = group.sum(axis=1)
    payers = member & f.can_pay
    funded = member & (group & payers[None, :]).any(axis=1)
    built = funded & ((k >= f.value) | f.soft)
    # Two structure types on one site in one step: the lower structure index takes it.
    beaten = (f.same_cell & built[None, :] & (f.kind[None, :] < f.kind[:, None])).any(axis=1)
    built &= ~beaten
    # The lowest-index member able to pay pays (groups differ by cell and structure type).
    group_key = jnp.concatenate([f.cell, f.kind[:, None]], axis=1)
    pays = payers & built & ~lower_index_claims(group_key, payers)
    # A sync attempt is a funded group; BUILD_* with nobody able to pay counts only as an
    # unfunded attempt, as in the published benchmark (docs/decisions.md).
    return funded, built, built & (k >= f.value), pays, (member & ~funded).any()


def _handovers(state: State, f: _Facts):
    """(table, completes, starters credited, made): finish open sites, then start new ones."""
    table, p = state.handovers, f.kind.shape[0]
    entry = open_entry_at(table, f.cell, f.kind + 1) & (table.deadline > state.timestep)[None, :]
    initiator = jnp.where(entry, table.initiator[None, :], -1).max(axis=1)
    candidate = f.building & entry.any(axis=1) & (initiator != jnp.arange(p))
    completes = candidate & ~lower_index_claims(f.cell, candidate)
    initiators = ((initiator[:, None] == jnp.arange(p)[None, :]) & completes[:, None]).any(0)
    table = close_rows(table, (entry & completes[:, None]).any(axis=0))
    no_entry = ~open_entry_at(table, f.cell, -1).any(axis=1)
    want = f.building & (f.block == Block.CONSTRUCTION_SITE) & (f.value < 0) & no_entry
    want &= f.can_pay & ~lower_index_claims(f.cell, state.players.alive)
    deadline = state.timestep - f.value + 1
    table, made = add_entries(table, want, f.cell, deadline, f.kind + 1)
    return table, completes, initiators, made


def build(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """docs/rules/step.md#the-pipeline step 7: expiries, then every BUILD_* of this step, all types
    at once."""
    reverting = expired_rows(state) & (state.handovers.kind > MINING)
    revert_cells = state.handovers.pos
    state = refund_builds(state, reverting)
    state = state.replace(
        coordination=state.coordination.bump(build_handover_expiries=reverting.any())
    )
    f = _facts(state, actions, static)
    reverted = ((f.cell[:, None, :] == revert_cells[None]).all(-1) & reverting[None]).any(1)
    f = f._replace(block=jnp.where(reverted, Block.CONSTRUCTION_SITE, f.block))
    funded, built, credited, pays, unfunded = _sync_groups(f)
    table, completes, initiators, made = _handovers(state, f)
    finished = pays | completes
    world, players = state.world, state.players
    new_block = jnp.where(
        finished, jnp.asarray(STRUCTURE_BLOCK)[f.kind], Block.CONSTRUCTION_IN_PROGRESS
    )
    # One block write for the step: this step's builds, then the expired sites' reverts.
    cells = jnp.concatenate([f.cell, revert_cells])
    values = jnp.concatenate([new_block, jnp.full(reverting.shape, Block.CONSTRUCTION_SITE)])
    world = world.replace(
        block=write_cells(
            world.block, cells, values, jnp.concatenate([finished | made, reverting])
        ),
        light=add_light_patches(
            world.light, f.cell, finished & (f.kind == 2), BEACON_RADIUS, BEACON_FALLOFF
        ),
    )
    spent = jnp.asarray(STRUCTURE_COST)[f.kind] * (pays | made)[:, None]
    coord_build = jnp.asarray(STRUCTURE_ACHIEVEMENT)[f.kind]
    won = (credited | completes)[:, None] & (coord_build[:, None] == jnp.arange(NUM_ACHIEVEMENTS))
    achievements = raise_flags(
        players.achievements | won, Achievement.HANDOVER_COMPLETE, completes | initiators
    )
    per_type = jax.nn.one_hot(f.kind, len(STRUCTURES), dtype=jnp.int32)
    counters = state.coordination.bump(
        build_sync_attempts=funded.any(),
        build_sync_successes=built.any(),
        build_unfunded=unfunded,
        build_handover_setups=made.any(),
        build_handover_successes=completes.any(),
        builds=(per_type * finished[:, None]).sum(axis=0),
    )
    players = players.replace(inventory=players.inventory - spent, achievements=achievements)
    return state.replace(world=world, players=players, handovers=table, coordination=counters)


def can_pay(inventory: jax.Array, structure: jax.Array | int) -> jax.Array:
    """(P,) bool: each player's inventory (P, NUM_INV) covers structure ``structure`` ((P,) or
    one index: 0 shelter, 1 forge, 2 beacon)."""
    return (inventory >= jnp.asarray(STRUCTURE_COST)[structure]).all(axis=-1)


def build_mask(state: State, static: StaticParams) -> jax.Array:
    """(P, 3) bool: BUILD_X is offered (adjacent to a site and any teammate can pay, or adjacent
    to an open in-progress site of that type started by someone else)."""
    players, p = state.players, state.players.alive.shape[0]
    around = players.pos[:, None, :] + jnp.asarray(NEIGHBOURS_8)[None]  # (P, 8, 2)
    block = cell_values(state.world.block, around, static, Block.OUT_OF_BOUNDS)
    near_site = (block == Block.CONSTRUCTION_SITE).any(axis=1)
    table = state.handovers
    entry = open_entry_at(table, around.reshape(-1, 2), -1).reshape(p, 8, -1)
    by_other = entry & (table.initiator[None, None, :] != jnp.arange(p)[:, None, None])
    columns = []
    for s in range(len(STRUCTURES)):
        team_can_pay = can_pay(players.inventory, s).any()
        resumable = (by_other & (table.kind == s + 1)[None, None, :]).any(axis=(1, 2))
        columns.append((near_site & team_can_pay) | resumable)
    return jnp.stack(columns, axis=1)
