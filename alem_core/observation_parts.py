"""The local map view of the symbolic observation (GAME.md §8.1): a 9 x 11 window per player.

Built for speed: the current floor's compact integer layers (block, item, coordination value, soft
flag) and its light map are padded once, each player's window is cut out with
``lax.dynamic_slice``, and the one-hot channels are expanded only inside the 99 window cells.
Entity-like markers (mobs, projectiles, teammates, elite flags, handover timers) are scattered
straight into each window, so nothing of size H x W x channels is ever built.

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

import jax
import jax.numpy as jnp
import numpy as np
from jax import lax

from alem_core.constants import NUM_BLOCKS, NUM_ITEMS, Block, Item, MobClass
from alem_core.params import StaticParams
from alem_core.state import State, light_level
from alem_core.tables import TASK_BLOCK

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


def _sparse_layout(player_count: int) -> tuple[int, int, int, int]:
    """Offsets inside the scattered-marker window: mobs, teammates, mob coordination, handover."""
    team = NUM_MOB_CHANNELS
    mob_coord = team + player_count + 1
    return 0, team, mob_coord, mob_coord + 2


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
    """Viewer-independent markers to scatter into every window.

    Covers the mob channels (every entity class), the elite/large flags, the handover timers and
    the "an alive player is here" channel. Channels are offsets in the scattered-marker window.

    Returns:
        pos: (N, 2) int32 map cells; channel: (N,) int32; value: (N,) float32 (0 = no marker).
    """
    _, team, mob_coord, handover = _sparse_layout(static.player_count)
    mobs, floor = state.mobs, state.world.floor
    pos, channel, value = [], [], []
    for cls, name in enumerate(_CLASS_FIELDS):
        ents = getattr(mobs, name)
        alive = ents.alive[floor]
        pos.append(ents.pos[floor])
        channel.append(cls * MOB_TYPES + jnp.clip(ents.kind[floor], 0, MOB_TYPES - 1))
        value.append(alive)
        if name in _MOB_FIELDS:
            elite = alive & ents.elite[floor]
            pos += [ents.pos[floor]] * 2
            channel += [jnp.full(alive.shape, mob_coord), jnp.full(alive.shape, mob_coord + 1)]
            value += [elite, elite & ents.hard[floor]]
    players, handovers = state.players, state.handovers
    pos.append(players.pos)
    channel.append(jnp.full(players.alive.shape, team + static.player_count))
    value.append(players.alive)
    timer = jnp.clip((handovers.deadline - state.timestep) / HANDOVER_HORIZON, 0.0, 1.0)
    pos.append(handovers.pos)
    channel.append(jnp.full(handovers.open.shape, handover))
    value.append(jnp.where(handovers.open, timer, 0.0))
    return (
        jnp.concatenate(pos).astype(jnp.int32),
        jnp.concatenate(channel).astype(jnp.int32),
        jnp.concatenate([v.astype(jnp.float32) for v in value]),
    )


def scatter_window(
    rel: jax.Array, channel: jax.Array, value: jax.Array, num_channels: int
) -> jax.Array:
    """(9, 11, num_channels) window holding the max ``value`` (>= 0) per cell and channel.

    ``rel`` (N, 2) are window coordinates; markers outside the window are dropped (their value is
    zeroed and their index clamped, which leaves the zero-initialised window unchanged).
    """
    inside = (rel[:, 0] >= 0) & (rel[:, 0] < VIEW_ROWS) & (rel[:, 1] >= 0) & (rel[:, 1] < VIEW_COLS)
    rows = jnp.clip(rel[:, 0], 0, VIEW_ROWS - 1)
    cols = jnp.clip(rel[:, 1], 0, VIEW_COLS - 1)
    window = jnp.zeros((VIEW_ROWS, VIEW_COLS, num_channels), jnp.float32)
    return window.at[rows, cols, channel].max(jnp.where(inside, value, 0.0))


def cell_window(
    window: jax.Array,
    light: jax.Array,
    markers: tuple[jax.Array, jax.Array, jax.Array],
    viewer_pos: jax.Array,
    rank: jax.Array,
    players_pos: jax.Array,
    static: StaticParams,
    apply_light: bool = True,
) -> jax.Array:
    """(9, 11, P + 94) channels of one player's view (layout in the module docstring).

    Args:
        window: (9, 11, 4) int32 [block, item, coord, soft] around the viewer (``view_window``).
        light: (9, 11) float32 light around the viewer.
        markers: the output of ``world_markers``.
        viewer_pos: (2,) the viewer's cell.
        rank: (P,) each player's place in the viewer's order (row of ``view_rank``).
        players_pos: (P, 2) every player's cell.
        static: shapes.
        apply_light: zero every channel but the light bit on dark cells (False only for tests).
    """
    p = static.player_count
    _, team, mob_coord, _ = _sparse_layout(p)
    lit = light > LIGHT_THRESHOLD
    pos, channel, value = markers
    pos = jnp.concatenate([pos, players_pos])
    channel = jnp.concatenate([channel, team + rank])
    value = jnp.concatenate([value, jnp.ones((p,), jnp.float32)])
    rel = pos - viewer_pos + jnp.asarray(VIEW_CENTRE, jnp.int32)
    sparse = scatter_window(rel, channel, value, mob_coord + 3)
    coord = window[..., 2]
    coord_value = jnp.where(
        coord > 0, coord / p, jnp.where(coord < 0, coord / HANDOVER_WINDOW_SCALE, 0.0)
    )
    soft = (window[..., 3] > 0) & (coord > 0)
    cells = jnp.concatenate(
        [
            jax.nn.one_hot(window[..., 0], NUM_BLOCKS, dtype=jnp.float32),
            jax.nn.one_hot(window[..., 1], NUM_ITEMS, dtype=jnp.float32),
            sparse[..., :mob_coord],
            coord_value[..., None].astype(jnp.float32),
            soft[..., None].astype(jnp.float32),
            sparse[..., mob_coord:],
        ],
        axis=-1,
    )
    if apply_light:
        cells = cells * lit[..., None]
    return jnp.concatenate([cells, lit[..., None].astype(jnp.float32)], axis=-1)


def map_view(state: State, static: StaticParams, apply_light: bool = True) -> jax.Array:
    """(P, 9, 11, P + 94) float32 view of every player, unflattened (see ``cell_window``)."""
    ints, light = padded_floor(state)
    players_pos = state.players.pos
    windows = jax.vmap(view_window, in_axes=(None, 0))(ints, players_pos)
    lights = jax.vmap(view_window, in_axes=(None, 0))(light, players_pos)
    markers = world_markers(state, static)

    def one(window: jax.Array, lit: jax.Array, pos: jax.Array, rank: jax.Array) -> jax.Array:
        return cell_window(window, lit, markers, pos, rank, players_pos, static, apply_light)

    rank = jnp.asarray(view_rank(static.player_count))
    return jax.vmap(one)(windows, lights, players_pos, rank)
