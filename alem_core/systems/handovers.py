"""The pending-handover table of handover mining and handover construction
(docs/rules/coordination.md).

Reads and writes ``state.handovers`` (K rows: cell, deadline, initiator, kind, open); on expiry
of a construction entry also world.block (back to CONSTRUCTION_SITE), the initiator's inventory
(full refund) and ``state.coordination`` expiry counters.

An entry made at step t with window W has deadline t + W + 1, so a teammate can complete it at
steps t+1 ... t+W. Entries with deadline <= t are removed: mining ones at the start of the Do
phase, construction ones at the start of the construction stage, where the site's revert joins
that stage's single block write (a separate scatter into the block map early in the step cost
about 10 % of batched throughput). Nothing between the two reads construction entries.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block, Inv
from alem_core.grid import claim_free_slots, write_cells
from alem_core.state import Handovers, State

MINING = 0
"""Entry kinds: 0 mining, then 1 shelter, 2 forge, 3 beacon (structure index + 1)."""

STRUCTURE_COST = np.zeros((3, len(Inv)), np.int32)
STRUCTURE_COST[0, [Inv.WOOD, Inv.STONE]] = [10, 5]  # shelter
STRUCTURE_COST[1, [Inv.STONE, Inv.IRON, Inv.COAL]] = [10, 3, 2]  # forge
STRUCTURE_COST[2, [Inv.IRON, Inv.COAL]] = [3, 2]  # beacon
"""(3, NUM_INV) materials a structure costs (paid once), rows shelter, forge, beacon."""


def open_entry_at(table: Handovers, cells: jax.Array, kind: jax.Array) -> jax.Array:
    """(N, K) bool: row k is open, of ``kind`` ((N,) or scalar; -1 any kind), at ``cells``[n]."""
    same = (cells[:, None, :] == table.pos[None, :, :]).all(-1)
    kind = jnp.broadcast_to(jnp.asarray(kind), cells.shape[:1])
    kind_ok = (kind[:, None] < 0) | (table.kind[None, :] == kind[:, None])
    return same & kind_ok & table.open[None, :]


def add_entries(
    table: Handovers,
    want: jax.Array,
    cells: jax.Array,
    deadline: jax.Array,
    kind: jax.Array,
) -> tuple[Handovers, jax.Array]:
    """Open one row per wanting player (index order) while free rows last.

    Returns the table and (P,) bool: that player's entry was recorded.
    """
    p = want.shape[0]
    target = claim_free_slots(~table.open, want)  # no row left: past the end, dropped
    made = target < table.open.shape[0]
    put = {
        "pos": table.pos.at[target].set(cells, mode="drop"),
        "deadline": table.deadline.at[target].set(deadline, mode="drop"),
        "initiator": table.initiator.at[target].set(jnp.arange(p), mode="drop"),
        "kind": table.kind.at[target].set(kind, mode="drop"),
        "open": table.open.at[target].set(True, mode="drop"),
    }
    return table.replace(**put), made


def close_rows(table: Handovers, rows: jax.Array) -> Handovers:
    """Close every row where ``rows`` (K,) is True."""
    return table.replace(open=table.open & ~rows, initiator=jnp.where(rows, -1, table.initiator))


def expired_rows(state: State) -> jax.Array:
    """(K,) bool: open entries whose deadline has passed (deadline <= t)."""
    table = state.handovers
    return table.open & (table.deadline <= state.timestep)


def expire_mining_handovers(state: State) -> State:
    """Start of the Do phase: remove expired mining entries (the cell keeps its task)."""
    rows = expired_rows(state) & (state.handovers.kind == MINING)
    return state.replace(
        handovers=close_rows(state.handovers, rows),
        coordination=state.coordination.bump(handover_expiries=rows.any()),
    )


def refund_builds(state: State, rows: jax.Array) -> State:
    """Close construction ``rows`` (K,) and give each initiator the full cost back; the caller
    returns their cells to CONSTRUCTION_SITE."""
    table = state.handovers
    cost = jnp.asarray(STRUCTURE_COST)[jnp.clip(table.kind - 1, 0, 2)] * rows[:, None]
    p = state.players.inventory.shape[0]
    payer = (table.initiator[:, None] == jnp.arange(p)[None, :]) & rows[:, None]  # (K, P)
    refund = payer.T.astype(jnp.int32) @ cost
    players = state.players.replace(inventory=state.players.inventory + refund)
    return state.replace(players=players, handovers=close_rows(table, rows))


def revert_builds(state: State, rows: jax.Array) -> State:
    """Undo half-built sites of ``rows`` (K,): back to CONSTRUCTION_SITE, initiators refunded
    (used when the team changes floor, decision 5)."""
    table = state.handovers
    site = jnp.full(rows.shape, Block.CONSTRUCTION_SITE)
    block = write_cells(state.world.block, table.pos, site, rows)
    return refund_builds(state.replace(world=state.world.replace(block=block)), rows)
