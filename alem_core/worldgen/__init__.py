"""World generation: every floor of an episode, built at reset (GAME.md §1.4-§1.8, §10.1).

So far only the overworld (floor 0) is generated; deeper floors are solid WALL placeholders until
their generators land (they hold no eligible blocks or site tiles, so no tasks either). The
coordination map, soft mask and construction sites come from ``coordination.py``.
"""

from __future__ import annotations

import math

import jax
import jax.numpy as jnp

from alem_core import tables
from alem_core.constants import Block
from alem_core.initial import potion_permutation
from alem_core.params import Params, StaticParams
from alem_core.state import FloorMaps, World, to_light
from alem_core.worldgen.biomes import NOISE_BIOMES, OVERWORLD
from alem_core.worldgen.coordination import coordination_layers
from alem_core.worldgen.smooth import generate_smooth_floor

KEY_SLOTS = ("alpha", "noise_floors", "room_floors", "potions", "coordination", "sites")
"""Fixed order of the reset key split (GAME.md §10.1). Slots not used yet are still drawn, so
adding a later stage never changes the worlds that existing seeds produce."""

INITIAL_DAYLIGHT = 1.0 - abs(math.cos(math.pi * 0.3)) ** 3
"""Day curve ``1 - |cos(pi (t / 300 + 0.3))|^3`` at t = 0 (about 0.80, GAME.md §10.3)."""


def split_reset_key(key: jax.Array) -> dict[str, jax.Array]:
    """One subkey per entry of ``KEY_SLOTS``."""
    return dict(zip(KEY_SLOTS, jax.random.split(key, len(KEY_SLOTS)), strict=True))


def generate_world(key: jax.Array, params: Params, static: StaticParams) -> World:
    """Generate all ``static.num_levels`` floors and the team-wide world values of step 0.

    Floor 0 is the overworld noise floor; floors 1..L-1 are WALL with no items and no light
    until their generators exist. Jit with ``static`` static; vmap over ``key``.

    Args:
        key: PRNG key of the episode.
        params: gameplay parameters, with the episode's α-derived values already applied
            (``difficulty.episode_params``).
        static: shapes (map size, floors, players).

    Returns:
        The step-0 ``World``: floor 0, kills[0] = 10 so the overworld ladder is open, daylight of
        t = 0 and a random potion permutation.
    """
    keys = split_reset_key(key)
    noise_keys = jax.random.split(keys["noise_floors"], len(NOISE_BIOMES))
    block0, item0, light0, ladders0 = generate_smooth_floor(
        noise_keys[0], OVERWORLD, static, with_ladders=True
    )
    ladders = jnp.zeros((static.num_levels, *ladders0.shape), jnp.int32).at[0].set(ladders0)
    deeper = (static.num_levels - 1, *static.map_size)
    kills = jnp.zeros((static.num_levels,), jnp.int32)
    block = jnp.concatenate([block0[None], jnp.full(deeper, Block.WALL, jnp.int32)])
    block, coord, soft = coordination_layers(
        keys["coordination"], block, params, static, keys["sites"]
    )
    floors = FloorMaps(
        block=block,
        item=jnp.concatenate([item0[None], jnp.zeros(deeper, jnp.int32)]),
        light=to_light(jnp.concatenate([light0[None], jnp.zeros(deeper, jnp.float32)])),
        coord=coord,
        soft=soft,
    )
    return World.on_floor(
        floors,
        0,
        ladders=ladders,
        kills=kills.at[0].set(tables.OVERWORLD_INITIAL_KILLS),
        daylight=jnp.asarray(INITIAL_DAYLIGHT, jnp.float32),
        potion_effect=potion_permutation(keys["potions"]),
    )


__all__ = ["KEY_SLOTS", "generate_world", "split_reset_key"]
