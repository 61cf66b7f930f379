"""The symbolic observation (docs/rules/observations.md#symbolic-observation): one flat float32
vector per agent.

Layout of agent i's vector, in order (P players, nc comm channels, C = P + 94):

1. Map view, 9 * 11 * C values: the (9, 11, C) window of ``map_view.map_view`` flattened
   row-major, channels fastest: value (r, c, k) sits at index ``(r * 11 + c) * C + k``. View row 0
   is the northernmost row, column 0 the westernmost; the agent is at (4, 5).
2. Teammate dashboard, P * (14 + nc): one row per player, self first, then the others in index
   order: health / 10, alive, role one-hot (forager, warrior, miner), open request one-hot over
   the 9 ``Request`` resources (zeros when none is open), comm message (nc). Row-major.
3. Teammate directions, P * 8: same player order; the off-screen sector (see ``direction_sectors``).
4. Own state, 49: inventory 16, potions 6, intrinsics 8, facing 4, armour 4, armour enchantments 4,
   flags 3, floor info 4 (see ``own_features``).

Size = 99 * (P + 94) + P * (22 + nc) + 49: 9718 for P = 3, nc = 0.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_REQUESTS, Inv, Role
from alem_core.observation.map_view import (
    VIEW_CENTRE,
    VIEW_COLS,
    VIEW_ROWS,
    cell_channels,
    map_view,
    named_slices,
    view_order,
)
from alem_core.params import Params, StaticParams
from alem_core.rules.specialisation import roles
from alem_core.rules.tables import MONSTERS_TO_CLEAR_FLOOR
from alem_core.state import Players, State
from alem_core.systems.boss import boss_vulnerable

NUM_SECTORS = 8

OWN_ENTRIES: dict[str, tuple[str, ...]] = {
    "inventory": (
        "wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "sapling", "torch",
        "arrow", "book", "pickaxe", "sword", "sword_enchant", "bow_enchant", "bow",
    ),
    "potions": ("red", "green", "blue", "pink", "cyan", "yellow"),
    "intrinsics": (
        "food", "drink", "energy", "mana", "xp", "dexterity", "strength", "intelligence",
    ),
    "facing": ("west", "east", "north", "south"),
    "armour": ("slot0", "slot1", "slot2", "slot3"),
    "armour_enchant": ("slot0", "slot1", "slot2", "slot3"),
    "flags": ("sleeping", "resting", "spell_learned"),
    "floor_info": ("daylight", "depth", "cleared", "boss_vulnerable"),
}  # fmt: skip
"""The own-state block (docs/rules/observations.md#symbolic-observation), block by block and entry
by entry, in vector order."""
OWN_FEATURES = sum(len(entries) for entries in OWN_ENTRIES.values())
DASHBOARD_ENTRIES = (("health", 1), ("alive", 1), ("role", 3), ("request", NUM_REQUESTS))
"""One dashboard row, before its ``nc`` message values."""

ROLE_OBS_INDEX = np.zeros(len(Role), np.int32)
ROLE_OBS_INDEX[[Role.FORAGER, Role.WARRIOR, Role.MINER]] = [0, 1, 2]
"""Position of each ``Role`` in the observation's role one-hot (forager, warrior, miner)."""

_COUNTED = list(range(Inv.WOOD, Inv.ARROW + 1))
"""Inventory columns observed as sqrt(count) / 10: wood ... arrows (``Inv`` 0-9)."""
_POTIONS = list(range(Inv.POTION_RED, Inv.POTION_YELLOW + 1))


def dashboard_layout(static: StaticParams) -> dict[str, slice]:
    """The entries of one dashboard row: health, alive, role, request, message (nc)."""
    return named_slices((*DASHBOARD_ENTRIES, ("message", static.num_comm_channels)))


def dashboard_size(static: StaticParams) -> int:
    """Values per dashboard row: 1 + 1 + 3 + 9 + nc = 14 + nc."""
    return dashboard_layout(static)["message"].stop


def obs_layout(static: StaticParams) -> dict[str, slice]:
    """Named slices of one agent's vector: "map", "dashboard", "directions", "own" and each
    block of the own state ("inventory" ... "floor_info"): the one table every reader of the
    observation uses (baselines, policies, bounds)."""
    p = static.player_count
    top = named_slices(
        (
            ("map", VIEW_ROWS * VIEW_COLS * cell_channels(p)),
            ("dashboard", p * dashboard_size(static)),
            ("directions", p * NUM_SECTORS),
            ("own", OWN_FEATURES),
        )
    )
    sizes = tuple((name, len(entries)) for name, entries in OWN_ENTRIES.items())
    return top | named_slices(sizes, top["own"].start)


def obs_index(static: StaticParams, block: str, entry: str) -> int:
    """Index of one own-state entry, e.g. ``obs_index(static, "intrinsics", "food")``."""
    return obs_layout(static)[block].start + OWN_ENTRIES[block].index(entry)


def obs_size(static: StaticParams) -> int:
    """Length of one agent's observation: 99 * (P + 94) + P * (22 + nc) + 49."""
    return obs_layout(static)["own"].stop


def dashboard_rows(players: Players, static: StaticParams) -> jax.Array:
    """(P, 14 + nc) dashboard row of every player, in index order."""
    role = jax.nn.one_hot(jnp.asarray(ROLE_OBS_INDEX)[roles(static)], 3, dtype=jnp.float32)
    is_open = (players.request >= 0) & (players.request_timer > 0)
    request = jax.nn.one_hot(
        jnp.where(is_open, players.request, -1), NUM_REQUESTS, dtype=jnp.float32
    )
    return jnp.concatenate(
        [
            (players.health / 10.0)[:, None],
            players.alive[:, None].astype(jnp.float32),
            role,
            request,
            players.message.astype(jnp.float32),
        ],
        axis=1,
    )


def direction_sectors(delta: jax.Array) -> jax.Array:
    """(..., 8) one-hot sector of an off-screen player; all zero when it is in the view.

    ``delta`` (..., 2) is (row, col) of the player minus the viewer's. The player is off-screen
    when |drow| > 4 or |dcol| > 5 (outside the 9 x 11 view). Name the column band "left"
    (dcol < -5), "right" (dcol > 5) or "middle", and the row band "up" (drow < -4, north),
    "down" (drow > 4) or "middle". Sectors, in order: W = left & row middle, E = right & row
    middle, N = up & column middle, NW = up & left, NE = up & right, S = down & column middle,
    SW = down & left, SE = down & right.
    """
    up = delta[..., 0] < -VIEW_CENTRE[0]
    down = delta[..., 0] > VIEW_CENTRE[0]
    left = delta[..., 1] < -VIEW_CENTRE[1]
    right = delta[..., 1] > VIEW_CENTRE[1]
    row_mid, col_mid = ~up & ~down, ~left & ~right
    sectors = [
        left & row_mid, right & row_mid, up & col_mid, up & left,
        up & right, down & col_mid, down & left, down & right,
    ]  # fmt: skip
    return jnp.stack(sectors, axis=-1).astype(jnp.float32)


def floor_info(state: State, static: StaticParams) -> jax.Array:
    """(4,) daylight, floor / (num_levels - 1) (0 with one floor), cleared, boss vulnerable."""
    world = state.world
    depth = world.floor / max(static.num_levels - 1, 1)
    cleared = world.kills[world.floor] >= MONSTERS_TO_CLEAR_FLOOR
    values = [world.daylight, depth, cleared, boss_vulnerable(state)]
    return jnp.stack([jnp.asarray(v, jnp.float32) for v in values])


def own_features(state: State, static: StaticParams) -> jax.Array:
    """(P, 49) every player's own-state block.

    Inventory 16: sqrt(count) / 10 for wood, stone, coal, iron, diamond, sapphire, ruby, sapling,
    torches, arrows; books raw; pickaxe / 4; sword / 4; sword enchant raw; bow enchant raw; bow
    (0/1). Potions 6: sqrt(count) / 10 per colour. Intrinsics 8: food, drink, energy, mana, xp,
    dexterity, strength, intelligence, each / 10. Facing 4: one-hot west, east, north, south.
    Armour 4: level / 2. Armour enchantments 4: raw. Flags 3: sleeping, resting, spell learned.
    Floor info 4: see ``floor_info`` (shared by all players).
    """
    pl = state.players
    inv = pl.inventory.astype(jnp.float32)
    f32 = lambda x: jnp.asarray(x, jnp.float32)  # noqa: E731
    column = lambda x: f32(x)[:, None]  # noqa: E731
    intrinsics = [pl.food, pl.drink, pl.energy, pl.mana]
    intrinsics += [pl.xp, pl.dexterity, pl.strength, pl.intelligence]
    floor = jnp.broadcast_to(floor_info(state, static), (static.player_count, 4))
    parts = [
        jnp.sqrt(inv[:, _COUNTED]) / 10.0,
        column(inv[:, Inv.BOOK]),
        column(inv[:, Inv.PICKAXE] / 4.0),
        column(inv[:, Inv.SWORD] / 4.0),
        column(pl.sword_enchant),
        column(pl.bow_enchant),
        column(inv[:, Inv.BOW] > 0),
        jnp.sqrt(inv[:, _POTIONS]) / 10.0,
        jnp.stack([f32(x) for x in intrinsics], axis=1) / 10.0,
        jax.nn.one_hot(pl.facing - 1, 4, dtype=jnp.float32),
        f32(pl.armour) / 2.0,
        f32(pl.armour_enchant),
        jnp.stack([f32(pl.sleeping), f32(pl.resting), f32(pl.spell_learned)], axis=1),
        floor,
    ]
    return jnp.concatenate(parts, axis=1)


def observation(state: State, params: Params, static: StaticParams) -> jax.Array:
    """(P, obs_size(static)) float32 symbolic observation of every agent (layout: module doc).

    Args:
        state: the world state (one world; vmap for batches).
        params: gameplay params (unused today; part of the contract for future values).
        static: shapes; pass as a static argument under ``jit``.
    """
    del params
    p = static.player_count
    views = map_view(state, static).reshape(p, -1)
    order = jnp.asarray(view_order(p))
    pos = state.players.pos
    dashboard = dashboard_rows(state.players, static)[order].reshape(p, -1)
    delta = pos[order] - pos[:, None, :]
    sectors = direction_sectors(delta).at[:, 0].set(0.0)  # self is never off-screen
    own = own_features(state, static)
    return jnp.concatenate([views, dashboard, sectors.reshape(p, -1), own], axis=1)
