"""Room dungeons, floors 1, 3, 4 (docs/rules/world.md#room-dungeons): census over 20 seeds and the
rooms' own rules.

The worlds come from ``deep_worlds.py`` (one compile per test process). Each band is derived in a
comment from the spec's rules and numbers; per-cell shares are binomials pooled over 20 worlds.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from scipy import ndimage

from alem_core.constants import Item
from alem_core.worldgen.dungeon import (
    DUNGEON_CONFIGS,
    DUNGEON_FLOORS,
    ROOM_LAYOUT,
    axis_geometry,
    dungeon_floor,
    room_layout,
)

from .deep_worlds import CLOSED, N_SEEDS, STATIC, B, binomial_ok, count, deep_floors

ROOM_FLOORS = DUNGEON_FLOORS  # 1, 3, 4


@pytest.fixture(scope="module")
def floors():
    return deep_floors()


@pytest.fixture(scope="module")
def dungeons():
    """Twenty sets of the three dungeons built by the public ``dungeon_floor`` from keys of our
    own, with the ``room_layout`` it documents reading from the same key:
    ``(blocks (N, 3, H, W), items (N, 3, H, W), (corners, sizes, sinks) (N, 3, ...))``."""
    configs = jax.tree.map(lambda *v: jnp.asarray(v), *DUNGEON_CONFIGS)

    def one(key, config):
        block, item, _, _ = dungeon_floor(key, config, STATIC)
        return block, item, room_layout(key, STATIC)

    per_world = jax.vmap(one)  # the three dungeon configs of one world
    keys = jax.random.split(jax.random.key(2), (N_SEEDS, len(ROOM_FLOORS)))
    built = jax.jit(jax.vmap(per_world, in_axes=(0, None)))(keys, configs)
    return jax.tree.map(np.asarray, built)


@pytest.fixture(scope="module")
def layouts(dungeons):
    """(corners, sizes, sinks) of the three dungeons of every world, (N, 3, ...)."""
    return dungeons[2]


# --- dungeons: census ----------------------------------------------------------------------------

# Chests: 8 rooms x P = 24 chests, less (per floor, expectations): two chests of a room on one
# cell, 3 x E[1 / interior area] = 3 x (mean of 1/3 .. 1/7)^2 ≈ 0.155 per room → 1.2; the
# fountain (p 0.5) on a chest ≈ 0.5 x 3 x 0.052 per room → 0.6; chests past the map edge (a room in
# the last chunk row or column with a large offset) ≈ 0.2; the special block on a chest ≈ 0.15.
# So ≈ 21.9 per floor (the spec's "≈ 22-24"), per-floor sd ≈ 1.3, standard error of 20 ≈ 0.3.
CHEST_BAND = (20.6, 23.2)
# Torches: 4 per room = 32, less the corners past the map edge: a room in the last chunk row
# loses its bottom corners when offset + height >= 17 (6 of the 55 (offset, height) pairs), and
# 8/3 rooms lie in the last row (and as many in the last column): 32 - 2 x 8/3 x 2 x 6/55 ≈ 30.8.
# Ladders stand on any PATH cell, torch or not: 6 ladder cells, each a torch corner with a
# chance of about 31 / 520 (torches among the PATH cells), take ≈ 0.4 more: ≈ 30.4 (sd ≈ 1.6,
# se of 20 ≈ 0.36).
TORCH_BAND = (29.2, 31.6)
# Fountains: each room w.p. 0.5 → 4 per floor (sd 1.4, se 0.32); floors 1 and 4 (on floor 3
# they are water).
FOUNTAIN_BAND = (2.6, 5.4)
# Open cells: 8 rooms of E[h] E[w] = 49 cells ≈ 390, less overlaps and clipping (≈ 20), plus 8
# L-shaped corridors of about 2 x 16 x 0.9 + 5 ≈ 34 cells, a third of them inside rooms or
# earlier corridors → ≈ 180: ≈ 550 ± 60 per world; the 20-world mean within ±90.
OPEN_BAND = (460, 640)


@pytest.mark.parametrize("floor", ROOM_FLOORS)
def test_dungeon_census(floors, floor):
    block, item = floors.block[:, floor], floors.item[:, floor]
    chests = count(block, [B.CHEST]).mean()
    assert CHEST_BAND[0] <= chests <= CHEST_BAND[1], chests
    torches = (item == Item.TORCH).sum(axis=(1, 2)).mean()
    assert TORCH_BAND[0] <= torches <= TORCH_BAND[1], torches
    if floor != 3:
        fountains = count(block, [B.FOUNTAIN]).mean()
        assert FOUNTAIN_BAND[0] <= fountains <= FOUNTAIN_BAND[1], fountains
    opened = (~np.isin(block, CLOSED)).sum(axis=(1, 2)).mean()
    assert OPEN_BAND[0] <= opened <= OPEN_BAND[1], opened
    # 10 % of the walls next to open space are moss.
    walls = int(np.isin(block, [B.WALL, B.WALL_MOSS]).sum())
    assert binomial_ok(int((block == B.WALL_MOSS).sum()), walls, 0.10)


def test_sewer_puddles_are_a_tenth_of_the_plain_path(floors):
    # Rare path: 10 % of the PATH cells without an item turn to WATER. The other water is the
    # fountains (4 per world expected, sd 1.4), taken off at their mean.
    block, item = floors.block[:, 3], floors.item[:, 3]
    puddles = int((block == B.WATER).sum()) - 4 * N_SEEDS
    plain = int(((block == B.PATH) & (item != Item.TORCH)).sum())
    assert binomial_ok(puddles, plain + puddles, 0.10)


def test_darkness_is_exactly_the_cells_away_from_open_space(floors):
    for floor in ROOM_FLOORS:
        block = floors.block[:, floor]
        opened = np.pad(~np.isin(block, CLOSED), ((0, 0), (1, 1), (1, 1)))
        near = (
            opened[:, :-2, 1:-1] | opened[:, 2:, 1:-1] | opened[:, 1:-1, :-2] | opened[:, 1:-1, 2:]
        )
        walls = np.isin(block, [B.WALL, B.WALL_MOSS])
        assert (near[walls]).all(), floor  # every wall borders open space
        assert not near[block == B.DARKNESS].any(), floor


# --- dungeons: the rooms themselves --------------------------------------------------------------


def test_rooms_lie_in_distinct_chunks(layouts):
    corners, sizes, _ = layouts
    geometry = axis_geometry(48)
    assert dataclasses.astuple(geometry) == (16, 5, 9, 10)  # the spec's numbers
    chunk = corners // 16
    offset = corners - chunk * 16
    assert (offset >= 0).all() and (offset <= 10).all()
    assert ((sizes >= 5) & (sizes <= 9)).all()
    ids = chunk[..., 0] * 3 + chunk[..., 1]
    assert all(len(set(row)) == ROOM_LAYOUT.rooms for row in ids.reshape(-1, ROOM_LAYOUT.rooms))
    # All sizes and offsets occur (uniform draws over the whole ranges).
    assert set(sizes.ravel()) == set(range(5, 10)) and set(offset.ravel()) == set(range(11))


def test_rooms_are_open_with_torches_at_their_corners(dungeons, layouts):
    corners, sizes, _ = layouts
    for i in range(N_SEEDS):
        for k, floor in enumerate(ROOM_FLOORS):
            block, item = dungeons[0][i, k], dungeons[1][i, k]
            for (r, c), (h, w) in zip(corners[i, k], sizes[i, k], strict=True):
                room = block[r : r + h, c : c + w]
                assert not np.isin(room, CLOSED).any(), (i, floor)
                for rr, cc in ((r, c), (r, c + w - 1), (r + h - 1, c), (r + h - 1, c + w - 1)):
                    if rr < 48 and cc < 48:
                        assert item[rr, cc] in (Item.TORCH, Item.LADDER_DOWN, Item.LADDER_UP)
            # Chests lie in room interiors (rooms may overlap, so in some room's interior).
            interior = np.zeros(STATIC.map_size, bool)
            for (r, c), (h, w) in zip(corners[i, k], sizes[i, k], strict=True):
                interior[r + 1 : r + h - 1, c + 1 : c + w - 1] = True
            assert interior[block == B.CHEST].all(), (i, floor)
            if floor in (3, 4):
                r, c = corners[i, k, 0] + 2
                assert block[r, c] in (B.ENCHANTMENT_TABLE_ICE, B.ENCHANTMENT_TABLE_FIRE)


def test_corridors_connect_every_room(dungeons, layouts):
    # Flood fill over the opened cells (anything but wall, moss, darkness) from room 7's corner.
    corners = layouts[0]
    for i in range(N_SEEDS):
        for k, floor in enumerate(ROOM_FLOORS):
            labels, _ = ndimage.label(~np.isin(dungeons[0][i, k], CLOSED))
            reach = labels[tuple(corners[i, k, ROOM_LAYOUT.rooms - 1])]
            assert reach > 0
            assert (labels[corners[i, k, :, 0], corners[i, k, :, 1]] == reach).all(), (i, floor)


def test_corridor_sinks_come_from_the_connected_set(layouts):
    # Room i joins a room of {last room, 0, ..., i - 1}; each choice of that set occurs.
    sinks = layouts[2].reshape(-1, ROOM_LAYOUT.rooms)
    last = ROOM_LAYOUT.rooms - 1
    for i in range(ROOM_LAYOUT.rooms):
        allowed = {last, *range(i)}
        assert set(sinks[:, i]) <= allowed
        assert set(sinks[:, i]) == allowed  # 60 draws over at most 8 choices
