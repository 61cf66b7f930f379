"""Small shared helpers on grids, positions and occupancy.

Every system uses these so that a rule (what blocks a move, what is adjacent) is stated once;
role gates live in ``specialisation.py``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block
from alem_core.params import StaticParams
from alem_core.state import LIGHT_SCALE, MAP_DTYPES, Entities, Mobs, Players

DIRECTIONS = np.array([[0, 0], [0, -1], [0, 1], [-1, 0], [1, 0]], np.int32)
"""(5, 2) step by facing/move code: 0 none, 1 left (west), 2 right, 3 up (north), 4 down."""

NEIGHBOURS_8 = np.array(
    [[-1, -1], [-1, 0], [-1, 1], [0, -1], [0, 1], [1, -1], [1, 0], [1, 1]], np.int32
)
"""(8, 2) offsets of the 8 surrounding cells ("adjacent" everywhere in alem)."""


def in_bounds(pos: jax.Array, static: StaticParams) -> jax.Array:
    """(...,) bool: ``pos`` (..., 2) lies inside the map."""
    rows, cols = static.map_size
    return (pos[..., 0] >= 0) & (pos[..., 0] < rows) & (pos[..., 1] >= 0) & (pos[..., 1] < cols)


def clip_pos(pos: jax.Array, static: StaticParams) -> jax.Array:
    """Clamp positions into the map; only used for safe gathers whose result is masked after."""
    rows, cols = static.map_size
    return jnp.stack([jnp.clip(pos[..., 0], 0, rows - 1), jnp.clip(pos[..., 1], 0, cols - 1)], -1)


def faced_cell(players: Players) -> jax.Array:
    """(P, 2) the cell each player faces (may be out of bounds)."""
    return players.pos + jnp.asarray(DIRECTIONS)[players.facing]


def cell_values(
    layer: jax.Array, pos: jax.Array, static: StaticParams, fill: object = 0
) -> jax.Array:
    """Gather ``layer[pos]`` for positions (..., 2) of a current-floor map (H, W);
    out-of-bounds positions give ``fill``. Integer maps read as int32 (they are stored narrow)."""
    safe = clip_pos(pos, static)
    values = layer[safe[..., 0], safe[..., 1]]
    if jnp.issubdtype(layer.dtype, jnp.integer):
        values = values.astype(jnp.int32)
    return jnp.where(in_bounds(pos, static), values, fill)


def player_at(players: Players, cells: jax.Array, only_alive: bool = False) -> jax.Array:
    """(N,) bool: a player (dead ones too unless ``only_alive``) stands on each of ``cells`` (N, 2).

    Pairwise comparison with the P positions: far cheaper than building a map-sized grid.
    """
    same = (cells[:, None, :] == players.pos[None, :, :]).all(-1)
    present = players.alive if only_alive else jnp.ones_like(players.alive)
    return (same & present[None, :]).any(axis=1)


def entity_at(entities: Entities, cells: jax.Array) -> jax.Array:
    """(N,) bool: a live entity of this class (current floor) occupies each of ``cells`` (N, 2)."""
    same = (cells[:, None, :] == entities.pos[None, :, :]).all(-1)
    return (same & entities.alive[None, :]).any(axis=1)


def mob_at(mobs: Mobs, cells: jax.Array) -> jax.Array:
    """(N,) bool: a live melee, passive or ranged mob of the current floor occupies each of
    ``cells``."""
    return (
        entity_at(mobs.melee, cells)
        | entity_at(mobs.passive, cells)
        | entity_at(mobs.ranged, cells)
    )


def adjacent_block(layer: jax.Array, pos: jax.Array, block: int, static: StaticParams) -> jax.Array:
    """(P,) bool: one of the 8 cells around each position on the current floor holds ``block``."""
    cells = pos[:, None, :] + jnp.asarray(NEIGHBOURS_8)[None]
    return (cell_values(layer, cells, static, Block.INVALID) == block).any(axis=1)


def write_cells(
    layer: jax.Array, cells: jax.Array, values: jax.Array, write: jax.Array
) -> jax.Array:
    """Write ``values`` (N,) at ``cells`` (N, 2) of a current-floor map ``layer`` (H, W).

    Only rows with ``write`` land: the others are sent out of bounds and dropped, so a player
    who changes nothing never overwrites a teammate's write to the same cell (scatter order is
    unspecified), and out-of-map cells are ignored. A point scatter: no map-sized copy.
    """
    rows = jnp.where(write, cells[:, 0], layer.shape[0])
    return layer.at[rows, cells[:, 1]].set(values.astype(layer.dtype), mode="drop")


def add_light_patches(
    light: jax.Array, centres: jax.Array, lit: jax.Array, radius: int, falloff: float
) -> jax.Array:
    """Add a (2r+1)^2 patch ``1 - d / falloff`` (d Euclidean, clipped at 0) around each lit
    centre (N, 2) to the current floor's stored light (H, W), clipped at full light.

    Dense over the small hot map: one map write for all sources instead of 81 point writes
    per source; each patch is rounded to light steps before the sum.
    """
    rows = jnp.arange(light.shape[0])[None, :, None] - centres[:, 0, None, None]
    cols = jnp.arange(light.shape[1])[None, None, :] - centres[:, 1, None, None]
    inside = (jnp.abs(rows) <= radius) & (jnp.abs(cols) <= radius) & lit[:, None, None]
    value = jnp.clip(1.0 - jnp.sqrt((rows**2 + cols**2).astype(jnp.float32)) / falloff, 0.0, 1.0)
    steps = jnp.where(inside, jnp.round(value * LIGHT_SCALE), 0.0).sum(axis=0)
    total = jnp.minimum(light.astype(jnp.int32) + steps.astype(jnp.int32), LIGHT_SCALE)
    return total.astype(MAP_DTYPES["light"])


def lower_index_claims(cells: jax.Array, who: jax.Array) -> jax.Array:
    """(P,) bool: some lower-index player in ``who`` (P,) has the same target row (``cells``
    (P, 2), or (P, k) to compare more than the cell, e.g. cell and structure type).

    The one tie-break of docs/rules/step.md#shared-targets: on a shared target the lowest index goes
    first.
    """
    p = who.shape[0]
    same = (cells[:, None, :] == cells[None, :, :]).all(-1)
    lower = jnp.arange(p)[None, :] < jnp.arange(p)[:, None]
    return (same & lower & who[None, :]).any(axis=1)


def claim_free_slots(free: jax.Array, want: jax.Array) -> jax.Array:
    """(P,) slot index for each wanting player, the first free slots (``free`` (S,)) in player
    order; ``S`` (one past the end, so a ``mode="drop"`` write skips it) when none is left."""
    p, slots = want.shape[0], free.shape[0]
    free_slots = jnp.nonzero(free, size=p, fill_value=slots)[0]
    rank = jnp.clip(jnp.cumsum(want) - 1, 0, p - 1)
    return jnp.where(want, free_slots[rank], slots)
