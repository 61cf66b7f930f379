"""Pixel observations (docs/rules/observations.md#pixel-observation): each agent's egocentric image,
drawn in JAX.

    image = pixel_observation(state, params, static, tile_px=10)   # (P, H, W, 3) float32 in [0, 1]

Layout, top to bottom, 11 tiles wide: the teammate strip (ceil(P / 2) rows of tiles), the
9 x 11-tile map around the agent, the 4-row status panel (``hud``). For P = 3 at 10 px per tile
that is 150 x 110 x 3 (height x width x 3). Pure ``jnp`` on the state: it jits, vmaps over
worlds, and never changes the episode. Textures are built by code once per tile size
(``textures.atlas``) and enter the compiled function as constants; ``tile_px`` must be static
under ``jit``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.observation.map_view import VIEW_COLS, VIEW_ROWS
from alem_core.params import Params, StaticParams
from alem_core.pixels.hud import panel_tiles, strip_tiles
from alem_core.pixels.textures import atlas
from alem_core.pixels.view import map_tiles, tiles_to_image
from alem_core.state import State

PANEL_ROWS = 4
AGENT_TILE_PX = 10


def strip_rows(player_count: int) -> int:
    """Tile rows of the teammate strip: ceil(P / 2)."""
    return -(-player_count // 2)


def pixel_shape(static: StaticParams, tile_px: int = AGENT_TILE_PX) -> tuple[int, int, int]:
    """(H, W, 3) of one agent's image: ((ceil(P / 2) + 9 + 4) * t, 11 * t, 3)."""
    rows = strip_rows(static.player_count) + VIEW_ROWS + PANEL_ROWS
    return rows * tile_px, VIEW_COLS * tile_px, 3


def pixel_observation(
    state: State, params: Params | None, static: StaticParams, tile_px: int = AGENT_TILE_PX
) -> jax.Array:
    """(P, H, W, 3) float32 image of every agent, values in [0, 1] (layout: module docstring).

    Args:
        state: one world (vmap for batches).
        params: gameplay params; unused today (daylight lives in the state), kept so pixel and
            symbolic observations share one signature. May be None.
        static: shapes; static under ``jit``.
        tile_px: pixels per tile (10 for agents; 16-64 for people); static under ``jit``.
    """
    del params
    at = jax.tree.map(jnp.asarray, atlas(tile_px))
    view, cues = map_tiles(state, static, at)
    tiles = jnp.concatenate(
        [strip_tiles(state, static, at), view, panel_tiles(state, static, at, cues)], axis=1
    )
    return jnp.clip(tiles_to_image(tiles), 0.0, 1.0)


__all__ = ["AGENT_TILE_PX", "pixel_observation", "pixel_shape", "strip_rows"]
