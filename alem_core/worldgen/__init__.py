"""World generation: every floor of an episode, built at reset (docs/rules/world.md,
docs/rules/engine.md#keys-and-structure).

The noise floors (0, 2, 5, 6, 7, 8) come from ``smooth.py`` with their biome tables, the room
dungeons (1, 3, 4) from ``dungeon.py``; each kind is one vmapped call over its floors. The
coordination map, soft mask and construction sites come from ``coordination.py``. With fewer
than nine floors (``StaticParams.num_levels``) the first ``num_levels`` floors are generated,
each from the same key it gets in the full world.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.draws import DrawBlock, Draws, draw_blocks, merge_blocks
from alem_core.params import Params, StaticParams
from alem_core.rules import difficulty, tables
from alem_core.state import FloorMaps, World, to_light
from alem_core.worldgen import coordination, initial
from alem_core.worldgen.biomes import NOISE_BIOMES, NOISE_FLOORS
from alem_core.worldgen.coordination import coordination_layers
from alem_core.worldgen.dungeon import DUNGEON_CONFIGS, DUNGEON_FLOORS, dungeon_floor
from alem_core.worldgen.initial import potion_permutation, spawn_positions
from alem_core.worldgen.smooth import smooth_floor

KEY_SLOTS = ("draws", "noise_floors", "room_floors", "spare_3", "spare_4", "spare_5")
"""Fixed order of the world key's split (docs/rules/engine.md#keys-and-structure): one key per
floor generator, and the key of the rolls (``RESET_DRAW_BLOCKS``) of a world generated alone
(``reset`` draws them from a key of its own, so it splits the world key once). The three spare
slots are still split, so each floor keeps the key it had when α, the potions, the
coordination maps and the sites drew from slots of their own: a seed's terrain is unchanged."""

RESET_DRAW_BLOCKS: dict[str, DrawBlock] = merge_blocks(
    difficulty.DRAWS, initial.DRAWS, coordination.DRAWS
)
"""Every block of the reset's one draw (``alem_core/draws.py``): what a new episode rolls
besides its terrain, gathered from the modules that read them."""

INITIAL_DAYLIGHT = 1.0 - abs(math.cos(math.pi * 0.3)) ** 3
"""Day curve ``1 - |cos(pi (t / 300 + 0.3))|^3`` at t = 0 (about 0.80,
docs/rules/engine.md#day-and-night)."""


def split_reset_key(key: jax.Array) -> dict[str, jax.Array]:
    """One subkey per entry of ``KEY_SLOTS``."""
    return dict(zip(KEY_SLOTS, jax.random.split(key, len(KEY_SLOTS)), strict=True))


def reset_draws(key: jax.Array, static: StaticParams) -> Draws:
    """The reset's one draw from ``key``, cut into ``RESET_DRAW_BLOCKS``. ``reset`` draws it
    from the second half of its first split; a world generated alone (``draws=None``) from
    the ``"draws"`` slot of its own key."""
    return draw_blocks(key, RESET_DRAW_BLOCKS, static)


def _own_draws(key: jax.Array, static: StaticParams) -> Draws:
    """The rolls of a world generated alone from ``key``."""
    return reset_draws(split_reset_key(key)["draws"], static)


class Floors(NamedTuple):
    """The stacked per-floor maps of a new world, plus where its ladders are."""

    block: jax.Array
    """(L, H, W) int32 blocks, construction sites included."""
    item: jax.Array
    """(L, H, W) int32 items: torches, ladders."""
    light: jax.Array
    """(L, H, W) float32 light in [0, 1]."""
    coord: jax.Array
    """(L, H, W) int32 coordination values."""
    soft: jax.Array
    """(L, H, W) bool soft-coordination mask."""
    ladders: jax.Array
    """(L, 2, P, 2) int32 ladder cells: [floor, 0] the P down cells, [floor, 1] the P up cells
    (player i arrives on the i-th). Every floor has both sets, marked by items or not (the boss
    floor's up cells and the overworld's up cells carry none)."""


def _by_floor(kind_floors: tuple[int, ...], levels: int) -> list[int]:
    """Positions in ``kind_floors`` of the floors below ``levels``."""
    return [i for i, floor in enumerate(kind_floors) if floor < levels]


def _generate_kind(
    generate: Callable,
    key: jax.Array,
    configs: tuple,
    floors: tuple[int, ...],
    static: StaticParams,
) -> tuple[jax.Array, ...] | None:
    """Maps of one generator's floors below ``static.num_levels``, vmapped over their configs.

    Each floor's key is its slot of ``split(key, len(configs))`` whatever the number of levels,
    so a shallower world has the same floors as the full one. A single floor is generated with
    its config as a constant (folded into the compile), as the overworld-only worlds used to be.
    """
    chosen = _by_floor(floors, static.num_levels)
    if not chosen:
        return None
    keys = jax.random.split(key, len(configs))[np.array(chosen)]
    if len(chosen) == 1:
        return jax.tree.map(lambda x: x[None], generate(keys[0], configs[chosen[0]], static))
    stacked = jax.tree.map(lambda *values: jnp.asarray(values), *(configs[i] for i in chosen))
    return jax.vmap(lambda k, c: generate(k, c, static))(keys, stacked)


def _in_floor_order(stacks: list[jax.Array], kinds: tuple, levels: int) -> jax.Array:
    """Splice the per-kind floor stacks (in ``kinds`` order) into one stack in floor order."""
    floors = [f for *_, kind_floors in kinds for f in kind_floors if f < levels]
    joined = jnp.concatenate(stacks) if len(stacks) > 1 else stacks[0]
    order = np.argsort(floors)
    return joined if (order == np.arange(levels)).all() else joined[order]


def generate_floors(
    key: jax.Array, params: Params, static: StaticParams, draws: Draws | None = None
) -> Floors:
    """All floors' maps (docs/rules/world.md, docs/rules/coordination.md#synchronous-mining to
    docs/rules/coordination.md#construction-sites) from the reset key's slots.

    Noise floors and room dungeons are each generated in one vmapped call and spliced into
    floor order; then the coordination tasks and construction sites are drawn on every floor.
    Sites never cover a cell where players stand on arrival (``_arrival_cells``): a solid site
    there would trap them. ``draws`` are the reset's one draw (``reset_draws``); without them
    the world rolls its own from ``key``.
    """
    keys = split_reset_key(key)
    draws = reset_draws(keys["draws"], static) if draws is None else draws
    kinds = (
        (smooth_floor, keys["noise_floors"], NOISE_BIOMES, NOISE_FLOORS),
        (dungeon_floor, keys["room_floors"], DUNGEON_CONFIGS, DUNGEON_FLOORS),
    )
    made = [_generate_kind(*kind, static) for kind in kinds]
    block, item, light, cells = (
        _in_floor_order([m[i] for m in made if m is not None], kinds, static.num_levels)
        for i in range(4)
    )
    block, coord, soft = coordination_layers(
        draws, block, params, static, _arrival_cells(cells, static)
    )
    ladders = cells.reshape(static.num_levels, 2, static.player_count, 2)
    return Floors(block, item, light, coord, soft, ladders)


def _arrival_cells(cells: jax.Array, static: StaticParams) -> jax.Array:
    """(L, H, W) bool: the cells where players stand on arriving on each floor.

    The spawn cells of floor 0, every floor's down-ladder cells (ascending lands there) and the
    up-ladder cells of floors 1 and deeper (descending lands there, marked or not).
    """
    levels, p = static.num_levels, static.player_count
    spawn = jnp.broadcast_to(spawn_positions(static), (levels, p, 2))
    points = jnp.concatenate([cells, spawn], axis=1)  # (L, 3P, 2): down, up, spawn
    floor = np.arange(levels)[:, None]
    used = np.concatenate(
        [
            np.ones((levels, p), bool),
            np.repeat(floor > 0, p, axis=1),
            np.repeat(floor == 0, p, axis=1),
        ],
        axis=1,
    )
    rows = jnp.where(used, points[..., 0], static.map_size[0])  # unused: dropped
    index = (jnp.broadcast_to(floor, used.shape), rows, points[..., 1])
    return jnp.zeros((levels, *static.map_size), bool).at[index].set(True, mode="drop")


def generate_world(
    key: jax.Array, params: Params, static: StaticParams, draws: Draws | None = None
) -> World:
    """Generate all ``static.num_levels`` floors and the team-wide world values of step 0.

    Jit with ``static`` static; vmap over ``key``.

    Args:
        key: PRNG key of the episode.
        params: gameplay parameters, with the episode's α-derived values already applied
            (``difficulty.episode_params``).
        static: shapes (map size, floors, players).
        draws: the reset's one draw (``reset_draws``); without them the world rolls its own
            from ``key``.

    Returns:
        The step-0 ``World``: floor 0, kills[0] = 10 so the overworld ladder is open, daylight of
        t = 0 and a random potion permutation.
    """
    draws = _own_draws(key, static) if draws is None else draws
    floors = generate_floors(key, params, static, draws)
    kills = jnp.zeros((static.num_levels,), jnp.int32)
    maps = FloorMaps(
        block=floors.block,
        item=floors.item,
        light=to_light(floors.light),
        coord=floors.coord,
        soft=floors.soft,
    )
    return World.on_floor(
        maps,
        0,
        ladders=floors.ladders,
        kills=kills.at[0].set(tables.OVERWORLD_INITIAL_KILLS),
        daylight=jnp.asarray(INITIAL_DAYLIGHT, jnp.float32),
        potion_effect=potion_permutation(draws["potions"]),
    )


__all__ = [
    "KEY_SLOTS",
    "RESET_DRAW_BLOCKS",
    "Floors",
    "generate_floors",
    "generate_world",
    "reset_draws",
    "split_reset_key",
]
