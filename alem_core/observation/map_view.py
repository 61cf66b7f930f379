"""The local map view of the symbolic observation (docs/rules/observations.md#symbolic-observation):
a 9 x 11 window per player.

Built for speed: the current floor's compact integer layers (block, item, coordination value, soft
flag) and its light map are padded once, each player's window is cut out with
``lax.dynamic_slice`` and reduced to a few codes per cell (``cell_codes``); the dense channels are
expanded from those codes in one uniform expression (``expand_cells``), and entity-like markers
(mobs, projectiles, teammates, elite flags, handover timers) are scattered into the expanded
cells in place. Nothing of size H x W x channels is ever built.

Per-cell channels, in order (C = P + 94)::

    [0, 42)        block one-hot (``Block``)
    [42, 47)       item one-hot (``Item``)
    [47, 87)       mobs: MobClass x 8 type ids (channel 47 + 8 * class + type)
    [87, 88 + P)   teammates: self, the others in index order, then "an alive player is here"
    88 + P         coordination value: sync N > 0 -> N / P, handover -W < 0 -> -W / 20, else 0
    89 + P         soft flag (soft mask and a sync task on the cell)
    90 + P, 91 + P elite/large mob here; hard elite/large mob here
    92 + P         handover timer: open entry here -> clip((deadline - t) / 15, 0, 1)
    93 + P         light bit: light > 0.05

Every channel but the light bit is zeroed on cells whose light is <= 0.05. Cells outside the map
read as OUT_OF_BOUNDS, no item, light 0, so after that masking they are all zero.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from alem_core.constants import NUM_BLOCKS, NUM_ITEMS, Block, Item, MobClass
from alem_core.params import StaticParams
from alem_core.rules.tables import TASK_BLOCK
from alem_core.state import State, light_level

VIEW_ROWS, VIEW_COLS = 9, 11
VIEW_CENTRE = (4, 5)
"""The viewer's own cell in its window (row, col)."""
LIGHT_THRESHOLD = 0.05
MOB_TYPES = 8
NUM_MOB_CHANNELS = len(MobClass) * MOB_TYPES
HANDOVER_HORIZON = 15.0
HANDOVER_WINDOW_SCALE = 20.0

_CLASS_FIELDS = ("melee", "passive", "ranged", "mob_projectiles", "player_projectiles")
"""``Mobs`` field of each ``MobClass``, in class order."""
_MOB_FIELDS = _CLASS_FIELDS[: MobClass.RANGED + 1]
"""Classes whose slots carry elite/large status (projectile slots never do)."""


def named_slices(sizes: tuple[tuple[str, int], ...], start: int = 0) -> dict[str, slice]:
    """Consecutive named blocks of the given sizes, as slices from ``start``."""
    slices = {}
    for name, size in sizes:
        slices[name] = slice(start, start + size)
        start += size
    return slices


def cell_layout(player_count: int) -> dict[str, slice]:
    """The channels of one view cell (module docstring), by name: the table every reader of
    the map view uses. "teammates" is self, the others in index order, then "a player is here"."""
    return named_slices(
        (
            ("block", NUM_BLOCKS),
            ("item", NUM_ITEMS),
            ("mobs", NUM_MOB_CHANNELS),
            ("teammates", player_count + 1),
            ("coord", 1),
            ("soft", 1),
            ("elite", 1),
            ("hard_elite", 1),
            ("handover_timer", 1),
            ("light", 1),
        )
    )


def cell_channels(player_count: int) -> int:
    """Channels per view cell: 42 + 5 + 40 + (P + 1) + 1 + 1 + 2 + 1 + 1 = P + 94."""
    return cell_layout(player_count)["light"].stop


def view_order(player_count: int) -> np.ndarray:
    """(P, P) int32: row i lists the players as agent i sees them, self first, then the others."""
    return np.array(
        [[i] + [j for j in range(player_count) if j != i] for i in range(player_count)], np.int32
    )


def view_rank(player_count: int) -> np.ndarray:
    """(P, P) int32: entry [i, j] is player j's place in agent i's order (inverse order)."""
    return np.argsort(view_order(player_count), axis=1).astype(np.int32)


def pad_for_view(grid: jax.Array, fill: object) -> jax.Array:
    """Pad a map (H, W, ...) by 4 rows and 5 columns on each side with ``fill``.

    Map cell (r, c) lands at padded (r + 4, c + 5), so the window of a player at (r, c) starts at
    padded (r, c) and is always inside the padded grid.
    """
    pad = [(VIEW_CENTRE[0], VIEW_CENTRE[0]), (VIEW_CENTRE[1], VIEW_CENTRE[1])]
    return jnp.pad(grid, pad + [(0, 0)] * (grid.ndim - 2), constant_values=fill)


def view_window(padded: jax.Array, pos: jax.Array) -> jax.Array:
    """The (9, 11, ...) window of a ``pad_for_view`` grid centred on map cell ``pos`` (2,)."""
    start = (pos[0], pos[1]) + (0,) * (padded.ndim - 2)
    return lax.dynamic_slice(padded, start, (VIEW_ROWS, VIEW_COLS, *padded.shape[2:]))


def padded_floor(state: State) -> tuple[jax.Array, jax.Array]:
    """The current floor, padded for ``view_window``.

    Returns:
        ints: (H + 8, W + 10, 4) int32 [block, item, coord, soft], padded with
            OUT_OF_BOUNDS, NONE, 0, 0; coord and soft only where ``TASK_BLOCK`` holds.
        light: (H + 8, W + 10) float32 light map; padding 0.
    """
    world = state.world
    block = world.block.astype(jnp.int32)
    tasked = jnp.asarray(TASK_BLOCK)[block]  # a completed task's block no longer counts
    ints = jnp.stack(
        [
            pad_for_view(block, int(Block.OUT_OF_BOUNDS)),
            pad_for_view(world.item.astype(jnp.int32), int(Item.NONE)),
            pad_for_view(jnp.where(tasked, world.coord.astype(jnp.int32), 0), 0),
            pad_for_view((tasked & world.soft).astype(jnp.int32), 0),
        ],
        axis=-1,
    )
    return ints, pad_for_view(light_level(world.light), 0.0)


def world_markers(state: State, static: StaticParams) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Viewer-independent markers to put into every window, at their cell channels.

    Covers the mob channels (every entity class), the elite/large flags, the handover timers and
    the "an alive player is here" channel.

    Returns:
        pos: (N, 2) int32 map cells; channel: (N,) int32 cell channel (``cell_layout``);
        value: (N,) float32 (0 = no marker).
    """
    layout = cell_layout(static.player_count)
    mobs = state.mobs
    pos, channel, value = [], [], []
    for cls, name in enumerate(_CLASS_FIELDS):
        ents = getattr(mobs, name)
        alive = ents.alive
        kind = jnp.clip(ents.kind, 0, MOB_TYPES - 1)
        pos.append(ents.pos)
        channel.append(layout["mobs"].start + cls * MOB_TYPES + kind)
        value.append(alive)
        if name in _MOB_FIELDS:
            elite = alive & ents.elite
            pos += [ents.pos] * 2
            flags = (layout["elite"].start, layout["hard_elite"].start)
            channel += [jnp.full(alive.shape, flag) for flag in flags]
            value += [elite, elite & ents.hard]
    players, handovers = state.players, state.handovers
    pos.append(players.pos)
    channel.append(jnp.full(players.alive.shape, layout["teammates"].stop - 1))
    value.append(players.alive)
    timer = jnp.clip((handovers.deadline - state.timestep) / HANDOVER_HORIZON, 0.0, 1.0)
    pos.append(handovers.pos)
    channel.append(jnp.full(handovers.open.shape, layout["handover_timer"].start))
    value.append(jnp.where(handovers.open, timer, 0.0))
    return (
        jnp.concatenate(pos).astype(jnp.int32),
        jnp.concatenate(channel).astype(jnp.int32),
        jnp.concatenate([v.astype(jnp.float32) for v in value]),
    )


class CellCodes(NamedTuple):
    """The dense part of every view cell as a few numbers per cell, (P, 99) each (row-major
    window cells); dark cells carry no block, item, coordination or soft flag when the light
    is applied."""

    block: jax.Array
    """int32 ``Block`` id, -1 for none."""
    item: jax.Array
    """int32 item channel (``cell_layout()["item"]`` start + ``Item`` id), -1 for none."""
    coord: jax.Array
    """float32 coordination value: sync N > 0 -> N / P, handover -W < 0 -> -W / 20, else 0."""
    soft: jax.Array
    """bool soft flag (soft mask and a sync task on the cell)."""
    lit: jax.Array
    """bool light > 0.05."""


def cell_codes(state: State, static: StaticParams, apply_light: bool = True) -> CellCodes:
    """Every player's window cut from the padded floor and reduced to ``CellCodes``."""
    p = static.player_count
    ints, light = padded_floor(state)
    players_pos = state.players.pos
    window = jax.vmap(view_window, in_axes=(None, 0))(ints, players_pos).reshape(p, -1, 4)
    lit = jax.vmap(view_window, in_axes=(None, 0))(light, players_pos).reshape(p, -1)
    lit = lit > LIGHT_THRESHOLD
    shown = lit if apply_light else jnp.ones_like(lit)
    block, item, coord, soft = (window[..., k] for k in range(4))
    coord_value = jnp.where(
        coord > 0, coord / p, jnp.where(coord < 0, coord / HANDOVER_WINDOW_SCALE, 0.0)
    )
    return CellCodes(
        block=jnp.where(shown, block, -1),
        item=jnp.where(shown, item + cell_layout(p)["item"].start, -1),
        coord=jnp.where(shown, coord_value, 0.0).astype(jnp.float32),
        soft=shown & (soft > 0) & (coord > 0),
        lit=lit,
    )


def expand_cells(codes: CellCodes, static: StaticParams) -> jax.Array:
    """(P, 99, C) float32 dense channels of every cell: block and item one-hots, coordination,
    soft and light; the marker channels are zero.

    One uniform expression over the channel axis, on codes already materialised: XLA:CPU runs
    it at memory speed, whereas a concatenation of per-part arrays (or cutting the window inside
    the same loop) costs a branch or a gather per output value.
    """
    layout = cell_layout(static.player_count)
    shape = (*codes.block.shape, cell_channels(static.player_count))
    channel = lax.broadcasted_iota(jnp.int32, shape, 2)
    at = lambda name: channel == layout[name].start  # noqa: E731
    hot = (channel == codes.block[..., None]) | (channel == codes.item[..., None])
    hot |= (at("soft") & codes.soft[..., None]) | (at("light") & codes.lit[..., None])
    return jnp.where(at("coord"), codes.coord[..., None], hot.astype(jnp.float32))


def marker_updates(
    markers: tuple[jax.Array, jax.Array, jax.Array],
    lit: jax.Array,
    static: StaticParams,
    players_pos: jax.Array,
    apply_light: bool = True,
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """(viewer, cell, channel, value), each (P, M + P): every marker as each player sees it.

    Adds the per-viewer teammate markers (self first, then the others in index order) to
    ``markers``; a marker outside the window or on a dark cell gets value 0.
    """
    p = static.player_count
    pos, channel, value = markers
    rank = jnp.asarray(view_rank(p))
    team = cell_layout(p)["teammates"].start

    def one(viewer_pos, viewer_rank, viewer_lit):
        rel = jnp.concatenate([pos, players_pos]) - viewer_pos + jnp.asarray(VIEW_CENTRE)
        inside = (rel[:, 0] >= 0) & (rel[:, 0] < VIEW_ROWS)
        inside &= (rel[:, 1] >= 0) & (rel[:, 1] < VIEW_COLS)
        cell = jnp.clip(rel[:, 0], 0, VIEW_ROWS - 1) * VIEW_COLS
        cell += jnp.clip(rel[:, 1], 0, VIEW_COLS - 1)
        seen = inside & (viewer_lit[cell] if apply_light else True)
        values = jnp.concatenate([value, jnp.ones((p,), jnp.float32)])
        return cell, jnp.concatenate([channel, team + viewer_rank]), jnp.where(seen, values, 0.0)

    cell, channel, value = jax.vmap(one)(players_pos, rank, lit)
    viewer = jnp.broadcast_to(jnp.arange(p)[:, None], cell.shape)
    return viewer, cell, channel, value


def map_view(state: State, static: StaticParams, apply_light: bool = True) -> jax.Array:
    """(P, 9, 11, P + 94) float32 view of every player (layout in the module docstring).

    Args:
        state: the world state (one world).
        static: shapes.
        apply_light: zero every channel but the light bit on dark cells (False only for tests).
    """
    p = static.player_count
    codes = cell_codes(state, static, apply_light)
    cells = expand_cells(codes, static)
    markers = world_markers(state, static)
    viewer, cell, channel, value = marker_updates(
        markers, codes.lit, static, state.players.pos, apply_light
    )
    # Markers only land on channels the dense part leaves at zero, and are >= 0: max in place.
    cells = cells.at[viewer, cell, channel].max(value)
    return cells.reshape(p, VIEW_ROWS, VIEW_COLS, -1)
