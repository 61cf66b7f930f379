"""Per-biome settings of the noise ("smooth") world generator, as data
(docs/rules/world.md#noise-floors table).

A ``Biome`` is a frozen dataclass registered as a pytree whose every field is a leaf. Used as a
module constant it folds into the compiled generator; stacked with ``stack_biomes`` it becomes a
batch of arrays, so one compiled generator can be vmapped over several floors' settings.
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp

from alem_core.constants import Block

B = Block


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Biome:
    """Settings of one noise floor; step numbers refer to docs/rules/world.md#noise-floors.

    Attributes:
        default_block: block where nothing else applies (step 1).
        sea_block: block where the water field exceeds ``water_threshold`` (step 1).
        coast_block: non-sea block where the water field exceeds ``sand_threshold`` (step 1).
        mountain_block: block where the mountain field exceeds 0.7 (step 2).
        path_block: block of the path streaks through mountains (step 3).
        cave_block: inner-mountain block (step 4).
        tree_block: block of trees (step 5).
        tree_requirement: only cells currently of this block can become trees (step 5).
        tree_uniform_threshold: a tree needs a uniform draw above this (step 5).
        tree_perlin_threshold: ...and the tree noise above this (step 5).
        ore_requirements: per ore pass, the block that may turn into ore (step 6).
        ore_blocks: per ore pass, the ore block (step 6).
        ore_chances: per ore pass, the per-cell probability (step 6).
        lava_block: block of the lava pockets (step 7); only real LAVA glows (step 9).
        spawn_block: block written on every player spawn cell (step 8).
        ladder_tile: ladders are placed only on runs of this block (step 9,
        docs/rules/world.md#ladders-and-floor-changes). ladder_up: write LADDER_UP items (the cells
        are chosen either way). ladder_down: write LADDER_DOWN items.
        water_strength: distance scale of the spawn-proximity term of the water field.
        water_max: cap of that term.
        mountain_strength: distance scale of the spawn-proximity term of the mountain field.
        mountain_max: cap of that term.
        default_light: ambient light (1.0 lit floor, 0 dark floor).
        water_threshold: sea threshold of the water field.
        sand_threshold: coast threshold of the water field.
    """

    default_block: int
    sea_block: int
    coast_block: int
    mountain_block: int
    path_block: int
    cave_block: int
    tree_block: int
    tree_requirement: int
    tree_uniform_threshold: float
    tree_perlin_threshold: float
    ore_requirements: tuple[int, int, int, int, int]
    ore_blocks: tuple[int, int, int, int, int]
    ore_chances: tuple[float, float, float, float, float]
    lava_block: int
    spawn_block: int
    ladder_tile: int
    ladder_up: bool
    ladder_down: bool
    water_strength: float
    water_max: float
    mountain_strength: float
    mountain_max: float
    default_light: float
    water_threshold: float
    sand_threshold: float


_STONE_ORES = (B.COAL, B.IRON, B.DIAMOND, B.SAPPHIRE, B.RUBY)
_STONE_X5 = (B.STONE,) * 5

OVERWORLD = Biome(
    default_block=B.GRASS,
    sea_block=B.WATER,
    coast_block=B.SAND,
    mountain_block=B.STONE,
    path_block=B.PATH,
    cave_block=B.PATH,
    tree_block=B.TREE,
    tree_requirement=B.GRASS,
    tree_uniform_threshold=0.8,
    tree_perlin_threshold=0.5,
    # The overworld has only three ores; passes 4-5 exist with chance 0 so every biome has the
    # same structure (and can be stacked).
    ore_requirements=_STONE_X5,
    ore_blocks=_STONE_ORES,
    ore_chances=(0.03, 0.02, 0.001, 0.0, 0.0),
    lava_block=B.LAVA,
    spawn_block=B.GRASS,
    ladder_tile=B.PATH,
    ladder_up=False,
    ladder_down=True,
    water_strength=5.0,
    water_max=1.0,
    mountain_strength=5.0,
    mountain_max=1.0,
    default_light=1.0,
    water_threshold=0.7,
    sand_threshold=0.6,
)
"""Floor 0."""

GNOMISH_MINES = Biome(
    default_block=B.PATH,
    sea_block=B.WATER,
    coast_block=B.PATH,
    mountain_block=B.STONE,
    path_block=B.STONE,
    cave_block=B.STONE,
    tree_block=B.STALAGMITE,
    tree_requirement=B.PATH,
    tree_uniform_threshold=0.8,
    tree_perlin_threshold=0.5,
    ore_requirements=_STONE_X5,
    ore_blocks=_STONE_ORES,
    ore_chances=(0.04, 0.02, 0.005, 0.0025, 0.0025),
    lava_block=B.LAVA,
    spawn_block=B.PATH,
    ladder_tile=B.PATH,
    ladder_up=True,
    ladder_down=True,
    water_strength=5.0,
    water_max=1.0,
    mountain_strength=17.0,
    mountain_max=1.5,
    default_light=0.0,
    water_threshold=0.7,
    sand_threshold=0.6,
)
"""Floor 2."""

TROLL_MINES = Biome(
    default_block=B.PATH,
    sea_block=B.WATER,
    coast_block=B.PATH,
    mountain_block=B.STONE,
    path_block=B.STONE,
    cave_block=B.STONE,
    tree_block=B.STALAGMITE,
    tree_requirement=B.PATH,
    tree_uniform_threshold=0.8,
    tree_perlin_threshold=0.5,
    ore_requirements=_STONE_X5,
    ore_blocks=_STONE_ORES,
    ore_chances=(0.04, 0.03, 0.01, 0.01, 0.01),
    lava_block=B.LAVA,
    spawn_block=B.PATH,
    ladder_tile=B.PATH,
    ladder_up=True,
    ladder_down=True,
    water_strength=5.0,
    water_max=1.0,
    mountain_strength=17.0,
    mountain_max=1.5,
    default_light=0.0,
    water_threshold=0.7,
    sand_threshold=0.6,
)
"""Floor 5."""

FIRE = Biome(
    default_block=B.FIRE_GRASS,
    sea_block=B.LAVA,
    coast_block=B.SAND,
    mountain_block=B.STONE,
    path_block=B.STONE,
    cave_block=B.STONE,
    tree_block=B.FIRE_TREE,
    tree_requirement=B.FIRE_GRASS,
    tree_uniform_threshold=0.8,
    tree_perlin_threshold=0.5,
    ore_requirements=_STONE_X5,
    ore_blocks=_STONE_ORES,
    ore_chances=(0.05, 0.0, 0.0, 0.0, 0.025),
    lava_block=B.LAVA,
    spawn_block=B.FIRE_GRASS,
    ladder_tile=B.FIRE_GRASS,
    ladder_up=True,
    ladder_down=True,
    water_strength=5.0,
    water_max=1.0,
    mountain_strength=5.0,
    mountain_max=1.0,
    default_light=1.0,
    water_threshold=0.5,
    sand_threshold=0.6,
)
"""Floor 6 (its sea is lava)."""

ICE = Biome(
    default_block=B.ICE_GRASS,
    sea_block=B.WATER,
    coast_block=B.ICE_GRASS,
    mountain_block=B.STONE,
    path_block=B.STONE,
    cave_block=B.STONE,
    tree_block=B.ICE_SHRUB,
    tree_requirement=B.ICE_GRASS,
    tree_uniform_threshold=0.4,
    tree_perlin_threshold=0.5,
    ore_requirements=_STONE_X5,
    ore_blocks=_STONE_ORES,
    ore_chances=(0.0, 0.0, 0.005, 0.02, 0.0),
    # The ice realm's "lava" pockets are water, so they do not glow.
    lava_block=B.WATER,
    spawn_block=B.ICE_GRASS,
    ladder_tile=B.ICE_GRASS,
    ladder_up=True,
    ladder_down=True,
    water_strength=5.0,
    water_max=1.0,
    mountain_strength=17.0,
    mountain_max=1.5,
    default_light=0.0,
    water_threshold=0.5,
    sand_threshold=0.6,
)
"""Floor 7."""

BOSS = Biome(
    default_block=B.PATH,
    sea_block=B.PATH,
    coast_block=B.PATH,
    mountain_block=B.WALL,
    path_block=B.WALL,
    cave_block=B.WALL,
    tree_block=B.GRAVE,
    tree_requirement=B.PATH,
    # Perlin threshold -1: every cell passes the noise test, graves are uniform at 5 %.
    tree_uniform_threshold=0.95,
    tree_perlin_threshold=-1.0,
    ore_requirements=(B.WALL, B.GRAVE, B.GRAVE, B.WALL, B.WALL),
    ore_blocks=(B.WALL_MOSS, B.GRAVE2, B.GRAVE3, B.SAPPHIRE, B.RUBY),
    ore_chances=(0.10, 0.333, 0.5, 0.0, 0.0),
    lava_block=B.WALL,
    spawn_block=B.NECROMANCER,
    ladder_tile=B.PATH,
    ladder_up=False,
    ladder_down=False,
    water_strength=5.0,
    water_max=1.0,
    mountain_strength=10.0,
    mountain_max=10.0,
    default_light=0.0,
    water_threshold=0.7,
    sand_threshold=0.6,
)
"""Floor 8, the graveyard: one NECROMANCER block per player spawn; unmarked up-ladder cells."""

NOISE_BIOMES: tuple[Biome, ...] = (OVERWORLD, GNOMISH_MINES, TROLL_MINES, FIRE, ICE, BOSS)
"""The six noise floors' settings, in floor order."""

NOISE_FLOORS: tuple[int, ...] = (0, 2, 5, 6, 7, 8)
"""Floor index of each entry of ``NOISE_BIOMES``."""


def stack_biomes(biomes: tuple[Biome, ...]) -> Biome:
    """One ``Biome`` whose leaves are arrays with a leading axis over ``biomes`` (for ``vmap``)."""
    return jax.tree.map(lambda *values: jnp.asarray(values), *biomes)
