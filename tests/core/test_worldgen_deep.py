"""Floors 1-8 at reset (docs/rules/world.md, docs/rules/coordination.md#synchronous-mining to
docs/rules/coordination.md#construction-sites): statistics over 20 seeds and exact rules.

Noise floors, ladders, light, sites and coordination maps of every floor; the room dungeons' own
rules are in ``test_worldgen_rooms.py``. The 20 worlds come from ``deep_worlds.py`` (one compile
per test process). Every band is derived in a comment from the spec's rules and numbers. Shares
the spec fixes per cell (ore chances, moss, graves) are binomials pooled over the 20 worlds,
within 4.5 standard deviations; counts with a spatial spread (terrain) get wider bands.
"""

from __future__ import annotations

import dataclasses

import jax
import numpy as np
import pytest
from scipy import ndimage

from alem_core.constants import Item
from alem_core.rules.tables import COORD_ELIGIBLE
from alem_core.testing import small
from alem_core.worldgen import generate_world
from alem_core.worldgen.dungeon import DUNGEON_FLOORS, axis_geometry
from alem_core.worldgen.initial import spawn_positions
from alem_core.worldgen.smooth import spawn_distance

from .deep_worlds import CLOSED, N_SEEDS, PARAMS, STATIC, B, P, binomial_ok, count, deep_floors

ROOM_FLOORS = DUNGEON_FLOORS  # 1, 3, 4
LIT = (0, 1, 3, 4, 6)
DARK = (2, 5, 7, 8)
STONE_LIKE = (B.STONE, B.COAL, B.IRON, B.DIAMOND, B.SAPPHIRE, B.RUBY)


@pytest.fixture(scope="module")
def floors():
    return deep_floors()


# --- which blocks each floor may hold ------------------------------------------------------------

ALLOWED = {
    # Mines: coast and default are PATH, mountain, path streaks and caves STONE, trees are
    # stalagmites, five ores, lava pockets; sites on PATH (floors 2 and 5).
    2: {B.PATH, B.WATER, B.STALAGMITE, B.LAVA, B.CONSTRUCTION_SITE, *STONE_LIKE},
    5: {B.PATH, B.WATER, B.STALAGMITE, B.LAVA, B.CONSTRUCTION_SITE, *STONE_LIKE},
    # Fire: the sea is lava, no iron/diamond/sapphire (chance 0). The sand threshold 0.6 lies above
    # the sea threshold 0.5, so every cell over 0.6 is already sea: no coast sand at all.
    6: {B.FIRE_GRASS, B.LAVA, B.STONE, B.FIRE_TREE, B.COAL, B.RUBY},
    # Ice: no coal/iron/ruby (chance 0), the "lava" pockets are water, no GRASS/PATH so no sites.
    7: {B.ICE_GRASS, B.WATER, B.STONE, B.ICE_SHRUB, B.DIAMOND, B.SAPPHIRE},
    # Graveyard: walls, moss on walls, three grave kinds, one necromancer per player.
    8: {B.PATH, B.WALL, B.WALL_MOSS, B.GRAVE, B.GRAVE2, B.GRAVE3, B.NECROMANCER},
    # Dungeons: rooms, corridors and their furniture (docs/rules/world.md#room-dungeons table).
    1: {B.PATH, B.WALL, B.WALL_MOSS, B.DARKNESS, B.CHEST, B.FOUNTAIN},
    3: {B.PATH, B.WALL, B.WALL_MOSS, B.DARKNESS, B.CHEST, B.WATER, B.ENCHANTMENT_TABLE_ICE},
    4: {B.PATH, B.WALL, B.WALL_MOSS, B.DARKNESS, B.CHEST, B.FOUNTAIN, B.ENCHANTMENT_TABLE_FIRE},
}


@pytest.mark.parametrize("floor", sorted(ALLOWED))
def test_each_floor_holds_only_its_blocks(floors, floor):
    present = set(np.unique(floors.block[:, floor]).tolist())
    assert present <= {int(b) for b in ALLOWED[floor]}, sorted(present - set(ALLOWED[floor]))


def test_floor_signatures(floors):
    block = floors.block
    assert (count(block[:, 3], [B.ENCHANTMENT_TABLE_ICE]) == 1).all()
    assert (count(block[:, 4], [B.ENCHANTMENT_TABLE_FIRE]) == 1).all()
    assert (count(block[:, 6], [B.FIRE_GRASS]) > 0).all()
    assert (count(block[:, 7], [B.ICE_GRASS]) > 0).all()
    assert (count(block[:, 2], [B.STALAGMITE]) > 0).all()
    for floor in (1, 3, 4):
        assert (count(block[:, floor], [B.DARKNESS]) > 0).all()


# --- light ---------------------------------------------------------------------------------------


def test_light_on_lit_and_dark_floors(floors):
    light = floors.light
    for floor in LIT:
        assert (light[:, floor] == 1.0).all(), floor
    for floor in DARK:
        assert light[:, floor].min() == 0.0, floor
        # Every ladder cell sits at the peak of its torch-shaped patch.
        cells = floors.ladders[:, floor].reshape(N_SEEDS, -1, 2)
        lit = np.take_along_axis(
            light[:, floor].reshape(N_SEEDS, -1), cells[..., 0] * 48 + cells[..., 1], axis=1
        )
        assert (lit == 1.0).all(), floor
    # Away from ladders (Chebyshev distance > 4) and lava (> 1), dark floors stay at 0.
    for floor in DARK:
        for i in range(N_SEEDS):
            near = np.zeros(STATIC.map_size, bool)
            for r, c in floors.ladders[i, floor].reshape(-1, 2):
                near[max(r - 4, 0) : r + 5, max(c - 4, 0) : c + 5] = True
            lava = ndimage.binary_dilation(
                floors.block[i, floor] == B.LAVA, structure=np.ones((3, 3))
            )
            assert (floors.light[i, floor][~near & ~lava] == 0).all(), (floor, i)


# --- ladders (docs/rules/world.md#ladders-and-floor-changes)
# ----------------------------------------------------------------------

LADDER_TILE = {0: B.PATH, 1: B.PATH, 2: B.PATH, 3: B.PATH, 4: B.PATH, 5: B.PATH}
LADDER_TILE |= {6: B.FIRE_GRASS, 7: B.ICE_GRASS, 8: B.PATH}
MARKED = {f: (True, f > 0) for f in range(8)} | {8: (False, False)}
"""(down items written, up items written) per floor: the biome table, and both on dungeons."""


def _run_of_p(cells: np.ndarray) -> bool:
    """P cells on one row at columns c, c+2, ..., in player order."""
    return bool((cells[:, 0] == cells[0, 0]).all() and (np.diff(cells[:, 1]) == 2).all())


@pytest.mark.parametrize("floor", range(9))
def test_ladders(floors, floor):
    down_marked, up_marked = MARKED[floor]
    for i in range(N_SEEDS):
        item, block = floors.item[i, floor], floors.block[i, floor]
        down, up = floors.ladders[i, floor]
        assert _run_of_p(down) and _run_of_p(up), f"seed {i}"
        assert not {tuple(c) for c in down} & {tuple(c) for c in up}, f"seed {i}"
        for cells, marked, kind in (
            (down, down_marked, Item.LADDER_DOWN),
            (up, up_marked, Item.LADDER_UP),
        ):
            # Players land on every set but the overworld's up cells (nothing lies above), so
            # those alone may later hold a construction site.
            if kind == Item.LADDER_DOWN or floor > 0:
                assert (block[cells[:, 0], cells[:, 1]] == LADDER_TILE[floor]).all(), f"seed {i}"
            expected = cells if marked else np.zeros((0, 2), int)
            found = np.argwhere(item == kind)
            np.testing.assert_array_equal(found, expected[np.lexsort(expected.T[::-1])])


def test_necromancers_on_the_boss_floor(floors):
    spawn = np.asarray(spawn_positions(STATIC))
    boss = floors.block[:, 8]
    assert (count(boss, [B.NECROMANCER]) == P).all()
    assert (boss[:, spawn[:, 0], spawn[:, 1]] == B.NECROMANCER).all()
    # The team arrives on the unmarked up cells: none of them is a necromancer (they are PATH).
    assert not (floors.ladders[:, 8, 1] == spawn[None]).all(axis=-1).any()


# --- construction sites and coordination maps (docs/rules/coordination.md#synchronous-mining,
# docs/rules/coordination.md#construction-sites) -------------------------------


def test_sites_per_floor(floors):
    # "medium": 8 sites on floor 0, 4 on floors 2 and 5, none elsewhere; floor 7 would get 4 but
    # has no GRASS or PATH tile. Floors 0, 2, 5 always have far more candidates than sites.
    expected = np.array([8, 0, 4, 0, 0, 4, 0, 0, 0])
    sites = (floors.block == B.CONSTRUCTION_SITE).sum(axis=(2, 3))
    np.testing.assert_array_equal(sites, np.broadcast_to(expected, sites.shape))
    on_site = floors.block == B.CONSTRUCTION_SITE
    assert (floors.coord[on_site] != 0).all()
    assert (floors.item[on_site] == Item.NONE).all()  # never on a ladder
    rows, cols = np.nonzero(on_site.any(axis=(0, 1)))
    assert rows.min() >= 5 and cols.min() >= 5 and rows.max() <= 42 and cols.max() <= 42


def test_mining_tasks_on_every_floor(floors):
    # Only eligible blocks carry tasks (plus sites); dungeons and the graveyard have none. On the
    # noise floors a quarter of the eligible cells are tasked (medium: probability 0.25).
    eligible = COORD_ELIGIBLE[floors.block]
    tasked = floors.coord != 0
    assert not (tasked & ~eligible & (floors.block != B.CONSTRUCTION_SITE)).any()
    for floor in (1, 3, 4, 8):
        assert not tasked[:, floor].any(), floor
    for floor in (2, 5, 6, 7):
        n = int(eligible[:, floor].sum())
        assert binomial_ok(int((tasked & eligible)[:, floor].sum()), n, 0.25), floor


# --- noise floors: census bands ------------------------------------------------------------------

# Ore passes run in order on their requirement block, so (docs/rules/world.md#noise-floors table)
# the share of ore k among the requirement-like cells is chance_k x prod_{j<k} (1 - chance_j); lava,
# sites and ladders replace cells whatever their ore, so the shares are unbiased.
ORE_SHARES = {
    2: {B.COAL: 0.04, B.IRON: 0.02 * 0.96, B.DIAMOND: 0.005 * 0.96 * 0.98},
    5: {B.COAL: 0.04, B.IRON: 0.03 * 0.96, B.DIAMOND: 0.01 * 0.96 * 0.97},
    6: {B.COAL: 0.05, B.RUBY: 0.025 * 0.95},
    7: {B.DIAMOND: 0.005, B.SAPPHIRE: 0.02 * 0.995},
}


@pytest.mark.parametrize("floor", sorted(ORE_SHARES))
def test_ore_shares(floors, floor):
    block = floors.block[:, floor]
    trials = int(np.isin(block, STONE_LIKE).sum())
    for ore, share in ORE_SHARES[floor].items():
        hits = int((block == ore).sum())
        assert binomial_ok(hits, trials, share), (ore.name, hits, trials * share)
    # Pass 4 and 5 on the mines: 0.25 % (gnomish) or 1 % (troll) of what is left.
    if floor in (2, 5):
        assert (block == B.SAPPHIRE).sum() + (block == B.RUBY).sum() > 0


# Trees: a cell of the requirement block becomes a tree when the tree noise (12 x 12 lattice)
# exceeds 0.5, about half the map by the symmetry of Perlin noise, and a uniform exceeds the
# uniform threshold: 0.5 x 0.2 = 0.10 (threshold 0.8), 0.5 x 0.6 = 0.30 on ice (0.4). The noise
# half varies by about 0.05 per world, so the pooled share of 20 worlds sits within ±0.03 (±0.06
# on ice) of its expectation with a wide margin.
TREE_SHARES = {
    2: (B.STALAGMITE, B.PATH, 0.07, 0.13),
    5: (B.STALAGMITE, B.PATH, 0.07, 0.13),
    6: (B.FIRE_TREE, B.FIRE_GRASS, 0.07, 0.13),
    7: (B.ICE_SHRUB, B.ICE_GRASS, 0.24, 0.36),
}


@pytest.mark.parametrize("floor", sorted(TREE_SHARES))
def test_tree_shares(floors, floor):
    tree, ground, low, high = TREE_SHARES[floor]
    block = floors.block[:, floor]
    share = (block == tree).sum() / np.isin(block, [tree, ground]).sum()
    assert low <= share <= high, share


def test_graveyard_shares(floors):
    boss = floors.block[:, 8]
    # Graves: the perlin threshold -1 lets every PATH cell through, so exactly a uniform > 0.95:
    # 5 % of the PATH cells before the passes (PATH now, graves, necromancers).
    graves = np.isin(boss, [B.GRAVE, B.GRAVE2, B.GRAVE3])
    ground = int((graves | np.isin(boss, [B.PATH, B.NECROMANCER])).sum())
    assert binomial_ok(int(graves.sum()), ground, 0.05)
    # Pass 2 turns a third of the graves into GRAVE2, pass 3 half of the rest into GRAVE3.
    n = int(graves.sum())
    assert binomial_ok(int((boss == B.GRAVE2).sum()), n, 0.333)
    assert binomial_ok(int((boss == B.GRAVE3).sum()), n, 0.667 * 0.5)
    # Pass 1 turns 10 % of the walls into moss, but the later lava pockets (mountain > 0.85 and
    # tree noise > 0.7; the graveyard's "lava" is WALL) wall over moss and wall alike. Beyond
    # distance 18 from the spawn every cell has mountain > 0.85 (strength 10), so the pockets
    # cover the tree-noise share above 0.7, about 15 % (12 x 12 lattice, ±0.03 per world) of the
    # walls: moss ≈ 0.10 x 0.85 = 0.085 of them.
    walls = np.isin(boss, [B.WALL, B.WALL_MOSS]).sum()
    assert 0.075 <= (boss == B.WALL_MOSS).sum() / walls <= 0.095


def test_spawn_proximity_on_deep_noise_floors(floors):
    # mountain = noise + 0.05 + min(d / strength, max) - 1 with noise <= 1 exceeds 0.7 only for
    # d > 0.65 x strength: no rock within 11 cells on the mines and the ice (strength 17) or
    # within 6.5 on the graveyard (strength 10). Lava pockets need mountain > 0.85, so none either.
    dist = np.asarray(spawn_distance(STATIC))
    rock = (*STONE_LIKE, B.LAVA)
    for floor, radius, blocks in (
        (2, 11, rock),
        (5, 11, rock),
        (7, 11, STONE_LIKE),
        (8, 6.5, (B.WALL, B.WALL_MOSS)),
    ):
        assert not np.isin(floors.block[:, floor][:, dist <= radius], blocks).any(), floor
    # Far out (d > 26) the term is capped at 1.5 on the mines: rock wherever noise > 0.15, i.e.
    # about 94 % of the cells (P(noise < 0.15) ≈ P(noise > 0.85) ≈ 6 % for a 3 x 3 lattice).
    for floor in (2, 5):
        far = floors.block[:, floor][:, dist > 26]
        assert np.isin(far, rock).mean() > 0.85, floor


def test_fire_sea_is_lava(floors):
    # Sea where the water noise exceeds 0.5 (about half the far cells), less the mountains
    # (noise > 0.65, about 26 %) painted over it: about 0.5 x 0.74 ≈ 37 % lava. The 3 x 3 fields
    # hold only a few blobs (per-world sd ≈ 0.12), so the 20-world mean gets ±0.12.
    dist = np.asarray(spawn_distance(STATIC))
    fire = floors.block[:, 6][:, dist > 6]
    assert 0.25 <= (fire == B.LAVA).mean() <= 0.50


# --- other sizes and level counts ----------------------------------------------------------------


def test_small_full_world():
    # A 16 x 16 map scales the dungeon chunks to 5 cells (5 x 5 rooms at offsets 0-3); every floor
    # has its ladders, on the floor's ladder tile (a 5 x 5 room holds a run of 2P - 1 PATH cells).
    geometry = axis_geometry(16)
    assert dataclasses.astuple(geometry) == (5, 5, 5, 3)  # chunk, sizes 5-5, offsets 0-3
    small_world = small(num_levels=9, player_count=P)
    world = jax.jit(generate_world, static_argnums=2)(KEY, PARAMS, small_world).floors
    world = jax.tree.map(np.asarray, world)
    assert (world.block[1] == B.CHEST).sum() >= 1
    assert (world.block[8] == B.NECROMANCER).sum() == P
    for floor in range(9):
        down, up = MARKED[floor]
        assert (world.item[floor] == Item.LADDER_DOWN).sum() == P * down, floor
        assert (world.item[floor] == Item.LADDER_UP).sum() == P * up, floor
    for floor in ROOM_FLOORS:  # not the fallback (lone cells in the dark): next to open space
        opened = np.pad(~np.isin(world.block[floor], CLOSED), 1)
        for r, c in np.argwhere(world.item[floor] >= Item.LADDER_DOWN) + 1:
            assert opened[r - 1, c] | opened[r + 1, c] | opened[r, c - 1] | opened[r, c + 1]


@pytest.mark.slow
def test_fewer_levels_give_the_same_first_floors():
    # Each floor draws from its own key slot: a 2-floor world is the first two of the full one.
    # (Slow only because of its two extra compiles.)
    generate = jax.jit(generate_world, static_argnums=2)
    full = generate(KEY, PARAMS, small(num_levels=9, player_count=P))
    two = generate(KEY, PARAMS, small(num_levels=2, player_count=P))
    for name in ("block", "item", "light", "coord", "soft"):
        mine, whole = getattr(two.floors, name), getattr(full.floors, name)
        np.testing.assert_array_equal(mine, whole[:2], err_msg=name)


KEY = jax.random.key(3)
