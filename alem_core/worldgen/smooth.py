"""The noise ("smooth") floor generator, docs/rules/world.md#noise-floors steps 1-9 and the ladders
of docs/rules/world.md#ladders-and-floor-changes.

One function, ``generate_smooth_floor``, builds one floor from a ``Biome``. Every biome field is
consumed by array operations (never a Python ``if``), so the biome may be a constant (folded in at
compile time) or a traced, stacked batch of biomes under ``vmap``.

Noise resolutions are given by the spec for a 48 x 48 map; other sizes scale them in proportion to
the side length (rounded, at least 1), so features keep their size in cells.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Block, Item
from alem_core.draws import draw_uniforms
from alem_core.params import StaticParams
from alem_core.worldgen.biomes import Biome
from alem_core.worldgen.initial import spawn_positions
from alem_core.worldgen.noise import perlin_from_angles

REFERENCE_SIDE = 48
"""Map side the spec's noise resolutions are given for."""

WATER_RES = (3, 3)
"""Lattice periods of the water and the mountain noise on a 48 x 48 map."""
PATH_RES = (6, 24)
"""Lattice periods of the path noise (its transpose is the second path field)."""
TREE_RES = (12, 12)
"""Lattice periods of the tree noise (also used by the lava pockets)."""

ORE_PASSES = 5
MOUNTAIN_THRESHOLD = 0.7
PATH_THRESHOLD = 0.8
CAVE_MOUNTAIN_THRESHOLD = 0.85
CAVE_WATER_THRESHOLD = 0.4
LAVA_MOUNTAIN_THRESHOLD = 0.85
LAVA_TREE_THRESHOLD = 0.7
MOUNTAIN_OFFSET = 0.05

LIGHT_PATCH_RADIUS = 4
"""Ladder light patches are 9 x 9: Chebyshev radius 4 around the ladder cell."""
TORCH_FALLOFF = 5.0
"""Dark-floor patch value is ``1 - d / 5`` at Euclidean distance ``d``."""
LAVA_GLOW = np.array([[0.2, 0.7, 0.2], [0.7, 1.0, 0.7], [0.2, 0.7, 0.2]], np.float32)
"""Light added around each real lava cell (centre, edges, corners)."""


def scaled_res(base: tuple[int, int], shape: tuple[int, int]) -> tuple[int, int]:
    """Noise resolution for ``shape``: ``base`` (given for 48 x 48) scaled per axis, at least 1."""
    scaled = (
        max(1, math.floor(b * n / REFERENCE_SIDE + 0.5)) for b, n in zip(base, shape, strict=True)
    )
    return tuple(scaled)


def spawn_distance(static: StaticParams) -> jax.Array:
    """(H, W) float32 Euclidean distance from each cell to the nearest player spawn cell."""
    rows, cols = static.map_size
    spawn = spawn_positions(static).astype(jnp.float32)
    r = jnp.arange(rows, dtype=jnp.float32)[None, :, None] - spawn[:, 0, None, None]
    c = jnp.arange(cols, dtype=jnp.float32)[None, None, :] - spawn[:, 1, None, None]
    return jnp.sqrt(r * r + c * c).min(axis=0)


def draw_shapes(static: StaticParams) -> dict[str, tuple[int, ...]]:
    """Shapes of every random array one floor needs, in draw order.

    Perlin angle lattices (water, mountain, path, tree), then uniform planes: one for trees, one
    per ore pass, one per ladder set (down, up).
    """
    shape = static.map_size
    side = max(shape)
    lattice = lambda res: (res[0] + 1, res[1] + 1)  # noqa: E731
    return {
        "water_angles": lattice(scaled_res(WATER_RES, shape)),
        "mountain_angles": lattice(scaled_res(WATER_RES, shape)),
        "path_angles": lattice(scaled_res(PATH_RES, (side, side))),
        "tree_angles": lattice(scaled_res(TREE_RES, shape)),
        "tree": shape,
        "ores": (ORE_PASSES, *shape),
        "ladders": (2, *shape),
    }


def floor_draws(key: jax.Array, static: StaticParams) -> dict[str, jax.Array]:
    """All uniform [0, 1) numbers of one noise floor (``draw_shapes``), from one PRNG call."""
    return draw_uniforms(key, draw_shapes(static))


def noise_fields(
    draws: dict[str, jax.Array], biome: Biome, static: StaticParams
) -> dict[str, jax.Array]:
    """The five scalar fields of steps 1-7: water, mountain, two path fields and tree noise.

    The water and mountain fields include the spawn-proximity term ``clip(d / strength, 0, max)
    - 1``: -1 at a spawn cell, rising with the distance ``d`` (0 from ``strength`` cells on when
    ``max`` is 1), so neither sea nor rock forms next to the team.
    """
    shape = static.map_size
    noise = lambda name, size: perlin_from_angles(2.0 * np.pi * draws[name], size)  # noqa: E731
    dist = spawn_distance(static)
    water_near = jnp.clip(dist / biome.water_strength, 0.0, biome.water_max)
    mountain_near = jnp.clip(dist / biome.mountain_strength, 0.0, biome.mountain_max)
    # The second path field is the transpose of the first; on a non-square map both are crops of
    # one square field so that the transpose has the map's shape.
    side = max(shape)
    square = noise("path_angles", (side, side))
    return {
        "water": noise("water_angles", shape) + water_near - 1.0,
        "mountain": noise("mountain_angles", shape) + MOUNTAIN_OFFSET + mountain_near - 1.0,
        "path_x": square[: shape[0], : shape[1]],
        "path_y": square.T[: shape[0], : shape[1]],
        "tree": noise("tree_angles", shape),
    }


def terrain(fields: dict[str, jax.Array], biome: Biome) -> jax.Array:
    """Steps 1-4: sea, coast, mountains, paths through mountains, caves. (H, W) int32."""
    water, mountain = fields["water"], fields["mountain"]
    sea = water > biome.water_threshold
    block = jnp.where(sea, biome.sea_block, biome.default_block).astype(jnp.int32)
    block = jnp.where(~sea & (water > biome.sand_threshold), biome.coast_block, block)
    rock = mountain > MOUNTAIN_THRESHOLD
    block = jnp.where(rock, biome.mountain_block, block)
    paths = rock & ((fields["path_x"] > PATH_THRESHOLD) | (fields["path_y"] > PATH_THRESHOLD))
    block = jnp.where(paths, biome.path_block, block)
    caves = (mountain > CAVE_MOUNTAIN_THRESHOLD) & (water > CAVE_WATER_THRESHOLD)
    return jnp.where(caves, biome.cave_block, block)


def trees_ores_lava(
    draws: dict[str, jax.Array], block: jax.Array, fields: dict[str, jax.Array], biome: Biome
) -> jax.Array:
    """Steps 5-7: trees on their requirement block, five ore passes in order, lava pockets."""
    noise_ok = (fields["tree"] > biome.tree_perlin_threshold).astype(jnp.float32)
    tree = noise_ok * draws["tree"] > biome.tree_uniform_threshold
    block = jnp.where(tree & (block == biome.tree_requirement), biome.tree_block, block)
    # Passes run in order, so a cell turned into ore by an earlier pass no longer matches the
    # requirement of a later one (each ore's share is of what is left).
    for u, need, ore, chance in zip(
        draws["ores"], biome.ore_requirements, biome.ore_blocks, biome.ore_chances, strict=True
    ):
        hit = (block == need) & (u < chance)
        block = jnp.where(hit, ore, block)
    lava = (fields["mountain"] > LAVA_MOUNTAIN_THRESHOLD) & (fields["tree"] > LAVA_TREE_THRESHOLD)
    return jnp.where(lava, biome.lava_block, block)


def ladder_fallback(static: StaticParams, row_offset: int) -> np.ndarray:
    """(P, 2) deterministic ladder cells used when no valid run exists on the floor.

    The run is centred on the map's middle column, ``row_offset`` rows above the centre row.
    Spawn cells lie on or below the centre row, so the run never covers a spawn and stays a few
    steps from the team. Only if ``2P - 1`` exceeds the width does it wrap onto the next row.
    """
    rows, cols = static.map_size
    p = static.player_count
    start = min(max(cols // 2 - (p - 1), 0), max(cols - (2 * p - 1), 0))
    col = start + 2 * np.arange(p)
    row = np.clip(rows // 2 - row_offset + col // cols, 0, rows - 1)
    return np.stack([row, col % cols], axis=-1).astype(np.int32)


def ladder_cells(u: jax.Array, tile_ok: jax.Array, fallback: np.ndarray) -> jax.Array:
    """(P, 2) int32 ladder cells on one row at columns c, c+2, ..., c+2(P-1)
    (docs/rules/world.md#ladders-and-floor-changes).

    The start c is uniform among cells whose run of ``2P - 1`` cells (itself and the ``2P - 2``
    to its right) all satisfy ``tile_ok``: it is the argmax of the iid uniforms ``u`` (H, W) over
    the valid starts. Without any valid start the ``fallback`` cells are returned.
    """
    cols = tile_ok.shape[1]
    count = fallback.shape[0]
    span = 2 * count - 1
    padded = jnp.pad(tile_ok, ((0, 0), (0, span - 1)))  # cells past the right edge are invalid
    start_ok = tile_ok
    for offset in range(1, span):
        start_ok = start_ok & padded[:, offset : offset + cols]
    score = jnp.where(start_ok, u, -1.0)
    flat = jnp.argmax(score)
    row, col = flat // cols, flat % cols
    cells = jnp.stack([jnp.full((count,), row), col + 2 * jnp.arange(count)], axis=-1)
    return jnp.where(start_ok.any(), cells, jnp.asarray(fallback)).astype(jnp.int32)


def write_ladders(
    u: jax.Array,
    block: jax.Array,
    item: jax.Array,
    tile_ok: jax.Array,
    rule: tuple[jax.Array, jax.Array, jax.Array],
    static: StaticParams,
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Choose the down and up ladder cells on ``tile_ok`` runs and write the enabled items.

    ``u`` (2, H, W) holds the uniforms of the down and the up draw; ``rule`` is
    ``(ladder_tile, ladder_up, ladder_down)`` (constants or traced scalars). Up-ladder runs avoid
    the down-ladder cells so the two sets never share a cell. Ladder cells are set to the ladder
    tile, which only changes anything on the fallback path.

    Returns:
        ``(block, item, cells)`` with ``cells`` (2P, 2): the P down cells, then the P up cells
        (chosen even when no item is written for them).
    """
    ladder_tile, ladder_up, ladder_down = rule
    down = ladder_cells(u[0], tile_ok, ladder_fallback(static, 2))
    is_down = jnp.zeros(block.shape, bool).at[down[:, 0], down[:, 1]].set(True)
    up = ladder_cells(u[1], tile_ok & ~is_down, ladder_fallback(static, 4))
    cells = jnp.concatenate([down, up])
    block = block.at[cells[:, 0], cells[:, 1]].set(jnp.asarray(ladder_tile, block.dtype))
    kept_up = item[up[:, 0], up[:, 1]]
    up_item = jnp.where(ladder_up, Item.LADDER_UP, kept_up).astype(item.dtype)
    item = item.at[up[:, 0], up[:, 1]].set(up_item)
    # Written last so that, on the wrapped fallback of an over-narrow map, down ladders win.
    kept = item[down[:, 0], down[:, 1]]
    down_item = jnp.where(ladder_down, Item.LADDER_DOWN, kept).astype(item.dtype)
    item = item.at[down[:, 0], down[:, 1]].set(down_item)
    return block, item, cells


def place_ladders(
    u: jax.Array, block: jax.Array, biome: Biome, static: StaticParams
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Step 9 (placement) on a noise floor: ladders on runs of the biome's ladder tile.

    Returns ``(block, item, cells)`` as ``write_ladders`` (the floor had no items before).
    """
    rule = (biome.ladder_tile, biome.ladder_up, biome.ladder_down)
    item = jnp.zeros(block.shape, jnp.int32)
    return write_ladders(u, block, item, block == biome.ladder_tile, rule, static)


def floor_light(block: jax.Array, cells: jax.Array, biome: Biome) -> jax.Array:
    """Steps 8-9 (light): ambient light, 9 x 9 patches at ladder cells, glow of real lava.

    Patches combine by maximum: ladders two cells apart overlap, and writing them one after the
    other would darken the earlier ladders.
    """
    rows, cols = block.shape
    dr = jnp.arange(rows)[None, :, None] - cells[:, 0, None, None]
    dc = jnp.arange(cols)[None, None, :] - cells[:, 1, None, None]
    inside = (jnp.abs(dr) <= LIGHT_PATCH_RADIUS) & (jnp.abs(dc) <= LIGHT_PATCH_RADIUS)
    torch = jnp.clip(1.0 - jnp.sqrt((dr * dr + dc * dc).astype(jnp.float32)) / TORCH_FALLOFF, 0, 1)
    patch_value = jnp.where(biome.default_light > 0, 1.0, torch)
    patches = jnp.where(inside, patch_value, 0.0).max(axis=0)
    light = jnp.maximum(jnp.full(block.shape, biome.default_light, jnp.float32), patches)
    lava = jnp.pad((block == Block.LAVA).astype(jnp.float32), 1)
    glow = sum(
        LAVA_GLOW[i, j] * lava[i : i + rows, j : j + cols] for i in range(3) for j in range(3)
    )
    glow = jnp.where(biome.lava_block == Block.LAVA, glow, 0.0)
    return jnp.clip(light + glow, 0.0, 1.0).astype(jnp.float32)


def smooth_floor(
    key: jax.Array, biome: Biome, static: StaticParams
) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array]:
    """``generate_smooth_floor`` plus the (2P, 2) ladder cells: P down, then P up.

    The cells matter where no item marks them: the boss floor's up-ladder cells are where the
    team arrives.
    """
    draws = floor_draws(key, static)
    fields = noise_fields(draws, biome, static)
    block = terrain(fields, biome)
    block = trees_ores_lava(draws, block, fields, biome)
    spawn = spawn_positions(static)
    block = block.at[spawn[:, 0], spawn[:, 1]].set(jnp.asarray(biome.spawn_block, jnp.int32))
    block, item, cells = place_ladders(draws["ladders"], block, biome, static)
    return block, item, floor_light(block, cells, biome), cells


def generate_smooth_floor(
    key: jax.Array, biome: Biome, static: StaticParams
) -> tuple[jax.Array, jax.Array, jax.Array]:
    """Generate one noise floor (docs/rules/world.md#noise-floors steps 1-9).

    Args:
        key: PRNG key of this floor.
        biome: the floor's settings (a constant or a traced batch member).
        static: map size and player count (static).

    Returns:
        ``(block, item, light)``: (H, W) int32 blocks, (H, W) int32 items (ladders),
        (H, W) float32 light in [0, 1].
    """
    return smooth_floor(key, biome, static)[:3]
