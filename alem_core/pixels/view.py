"""The 9 x 11 map part of the pixel observation (docs/rules/observations.md#pixel-observation),
drawn in JAX from the atlas.

Each agent's window comes from the same helpers as the symbolic view
(``alem_core.observation.map_view``):
the padded current floor and ``view_window``. Entities are scattered into small per-window
layers (one id per cell and layer), then every layer is looked up in the atlas and composited
tile by tile: block, item, coordination mark, handover clock, mob (+ elite frame and required
count), projectile, player (+ sleep and message badges). Light is applied last, so whatever
stands in a dark cell is dark too.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import ROLE_OF_INDEX, Block
from alem_core.observation.map_view import (
    HANDOVER_HORIZON,
    LIGHT_THRESHOLD,
    VIEW_CENTRE,
    VIEW_COLS,
    VIEW_ROWS,
    padded_floor,
    view_window,
)
from alem_core.params import StaticParams
from alem_core.pixels.textures import ACCENTS, Atlas
from alem_core.pixels.textures_ui import Icon
from alem_core.state import State
from alem_core.systems.boss import boss_vulnerable

MOB_FIELDS = ("melee", "passive", "ranged")
PROJECTILE_FIELDS = ("mob_projectiles", "player_projectiles")
SYNC_2, SYNC_N = (1.0, 0.82, 0.2), (1.0, 0.5, 0.1)
HANDOVER_COLOUR, ELITE_HARD, ELITE_SOFT = (0.78, 0.32, 0.96), (1.0, 0.1, 0.1), (1.0, 0.45, 0.35)
NIGHT_TINT = np.array([0.75, 0.85, 1.0], np.float32)
"""Night shifts colours toward blue: the red and green channels lose more."""


def over(base: jax.Array, rgba: jax.Array, alpha: jax.Array | float = 1.0) -> jax.Array:
    """``rgba`` (..., 4) composited over ``base`` (..., 3), its alpha scaled by ``alpha``."""
    a = rgba[..., 3:] * alpha
    return base * (1.0 - a) + rgba[..., :3] * a


def paint(base: jax.Array, mask: jax.Array, colour: object, alpha: jax.Array | float = 1.0):
    """Paint ``colour`` (3,) where ``mask`` (..., t, t) covers, scaled by ``alpha``."""
    a = (mask * alpha)[..., None]
    return base * (1.0 - a) + jnp.asarray(colour, jnp.float32) * a


def scatter_ids(rel: jax.Array, value: jax.Array) -> jax.Array:
    """(9, 11) int32 layer holding the largest ``value`` whose window cell ``rel`` (N, 2) is
    inside the view; 0 elsewhere. Markers outside are sent past the end and dropped."""
    inside = (rel[:, 0] >= 0) & (rel[:, 0] < VIEW_ROWS) & (rel[:, 1] >= 0) & (rel[:, 1] < VIEW_COLS)
    rows = jnp.where(inside, rel[:, 0], VIEW_ROWS)
    layer = jnp.zeros((VIEW_ROWS, VIEW_COLS), value.dtype)
    return layer.at[rows, rel[:, 1]].max(value, mode="drop")


def shown_blocks(block: jax.Array, vulnerable: jax.Array) -> jax.Array:
    """Block ids as drawn: the boss shows its render-only vulnerable variant while it can be
    hit (docs/rules/entities.md#blocks); the symbolic view keeps the plain NECROMANCER."""
    necromancer = (block == Block.NECROMANCER) & vulnerable
    return jnp.where(necromancer, Block.NECROMANCER_VULNERABLE, block)


def entity_markers(state: State, static: StaticParams) -> dict[str, tuple[jax.Array, jax.Array]]:
    """Map cells and ids of everything drawn on top of blocks (viewer-independent).

    Each entry is (pos (N, 2), value (N,)) with value 0 meaning "nothing":
    mob: 1 + 8 * class + type; elite: 1 soft, 2 hard; required: attackers needed;
    projectile: 1 + id (+ 8 for players' projectiles); player: 1 + index;
    clock: open handover's remaining time as a fraction (> 0).
    """
    pos, mob, elite, required = [], [], [], []
    for cls, name in enumerate(MOB_FIELDS):
        ents = getattr(state.mobs, name)
        alive = ents.alive
        pos.append(ents.pos)
        mob.append(jnp.where(alive, 1 + 8 * cls + jnp.clip(ents.kind, 0, 7), 0))
        elite.append(jnp.where(alive & ents.elite, 1 + ents.hard, 0))
        required.append(jnp.where(alive & ents.elite, jnp.maximum(ents.required, 2), 0))
    proj_pos, proj = [], []
    for offset, name in enumerate(PROJECTILE_FIELDS):
        ents = getattr(state.mobs, name)
        proj_pos.append(ents.pos)
        proj.append(jnp.where(ents.alive, 1 + 8 * offset + jnp.clip(ents.kind, 0, 7), 0))
    ho = state.handovers
    frac = jnp.clip((ho.deadline - state.timestep) / HANDOVER_HORIZON, 0.02, 1.0)
    mob_pos = jnp.concatenate(pos)
    return {
        "mob": (mob_pos, jnp.concatenate(mob).astype(jnp.int32)),
        "elite": (mob_pos, jnp.concatenate(elite).astype(jnp.int32)),
        "required": (mob_pos, jnp.concatenate(required).astype(jnp.int32)),
        "projectile": (jnp.concatenate(proj_pos), jnp.concatenate(proj).astype(jnp.int32)),
        "player": (state.players.pos, jnp.arange(1, static.player_count + 1, dtype=jnp.int32)),
        "clock": (ho.pos, jnp.where(ho.open, frac, 0.0).astype(jnp.float32)),
    }


def _layers(markers: dict, viewer_pos: jax.Array) -> dict[str, jax.Array]:
    """Every marker scattered into the (9, 11) window of the player at ``viewer_pos``."""
    origin = viewer_pos - jnp.asarray(VIEW_CENTRE, jnp.int32)
    return {name: scatter_ids(pos - origin, value) for name, (pos, value) in markers.items()}


def _coordination(tiles: jax.Array, window: jax.Array, layers: dict, at: Atlas, p: int):
    """Frames on sync (gold, orange when all P are needed; corners only when soft) and
    handover cells (purple), and a clock on open handovers showing the time left."""
    coord, soft = window[..., 2], window[..., 3] > 0
    colour = jnp.where((coord >= max(p, 3))[..., None], jnp.asarray(SYNC_N), jnp.asarray(SYNC_2))
    colour = jnp.where((coord < 0)[..., None], jnp.asarray(HANDOVER_COLOUR), colour)
    shape = jnp.where((soft & (coord > 0))[..., None, None], at.brackets, at.frame)
    marked = (coord != 0)[..., None, None]
    tiles = (
        tiles * (1 - 0.18 * marked[..., None]) + 0.18 * marked[..., None] * colour[:, :, None, None]
    )
    a = (shape * marked)[..., None]
    tiles = tiles * (1 - a) + colour[:, :, None, None] * a
    frac = layers["clock"][..., None, None]
    disc, angle = at.clock[0], at.clock[1]
    has = (frac > 0) * disc
    tiles = paint(tiles, has, (0.97, 0.97, 0.97), 0.9)
    return paint(tiles, has * (angle < frac), HANDOVER_COLOUR)


def _creatures(tiles: jax.Array, layers: dict, at: Atlas) -> jax.Array:
    """Mobs with their elite frame and required count, then projectiles."""
    mob = layers["mob"]
    tiles = over(tiles, at.mobs[jnp.maximum(mob - 1, 0)], (mob > 0)[..., None, None, None])
    elite = layers["elite"][..., None, None]
    colour = jnp.where((elite == 2)[..., None], jnp.asarray(ELITE_HARD), jnp.asarray(ELITE_SOFT))
    shape = jnp.where(elite == 2, at.frame, at.brackets) * (elite > 0)
    tiles = tiles * (1 - shape[..., None]) + colour * shape[..., None]
    count = jnp.clip(layers["required"], 0, 9)
    show = (elite > 0).astype(jnp.float32)
    tiles = paint(tiles, at.shadows[0][count] * show, (0.0, 0.0, 0.0))
    tiles = paint(tiles, at.digits[0][count] * show, (1.0, 1.0, 1.0))
    proj = layers["projectile"]
    return over(
        tiles, at.projectiles[jnp.maximum(proj - 1, 0) % 8], (proj > 0)[..., None, None, None]
    )


def player_sprites(at: Atlas, static: StaticParams, facing: jax.Array) -> jax.Array:
    """(P, t, t, 4) every player's sprite, shirt tinted with its accent colour."""
    role = np.array([ROLE_OF_INDEX[i % 3] for i in range(static.player_count)], np.int32)
    index = 4 * role + jnp.clip(facing, 1, 4) - 1
    sprite = at.players[index]
    accent = jnp.asarray(ACCENTS)[np.arange(static.player_count) % len(ACCENTS)]
    shirt = sprite[..., 4:]
    rgb = sprite[..., :3] * (1 - shirt + shirt * accent[:, None, None, :])
    return jnp.concatenate([rgb, sprite[..., 3:4]], axis=-1)


def _players(tiles: jax.Array, layers: dict, state: State, at: Atlas, static: StaticParams):
    """Players (a skull when dead), with a Z badge when asleep and a numbered speech bubble
    when a comm message was sent this step."""
    who = layers["player"]
    j = jnp.maximum(who - 1, 0)
    here = (who > 0)[..., None, None, None]
    pl = state.players
    sprites = player_sprites(at, static, pl.facing)[j]
    alive = pl.alive[j][..., None, None, None]
    tiles = over(tiles, sprites, here * alive)
    tiles = over(tiles, at.icons[Icon.SKULL], here * ~alive)
    asleep = (pl.sleeping[j] & pl.alive[j])[..., None, None, None]
    tiles = over(tiles, at.badges[Icon.SLEEP], here * asleep)
    if static.num_comm_channels:
        sent = pl.message[j].max(axis=-1) > 0
        channel = jnp.argmax(pl.message[j], axis=-1) % 10
        show = here * sent[..., None, None, None]
        tiles = over(tiles, at.badges[Icon.BUBBLE], show)
        tiles = paint(tiles, at.digits[1][channel] * show[..., 0], (0.1, 0.1, 0.1))
    return tiles


def light_tiles(tiles: jax.Array, light: jax.Array, state: State, at: Atlas) -> jax.Array:
    """Darken the window: by daylight (with fixed grain and a blue shift) on the overworld,
    by each cell's light map value below it (cells at <= 0.05 are black)."""
    dark = 1.0 - jnp.clip(state.world.daylight, 0.0, 1.0)
    night = 1.0 - 0.6 * dark * (1.0 + 0.3 * at.grain)
    tint = 1.0 - dark * (1.0 - jnp.asarray(NIGHT_TINT))
    overworld = tiles * night[..., None] * tint
    cell = jnp.where(light > LIGHT_THRESHOLD, light, 0.0)[..., None, None, None]
    return jnp.where(state.world.floor == 0, overworld, tiles * cell)


def map_tiles(state: State, static: StaticParams, at: Atlas) -> tuple[jax.Array, jax.Array]:
    """Each agent's lit map window and its coordination cues.

    Returns:
        tiles: (P, 9, 11, t, t, 3) the window as tiles (sleepers' at half brightness).
        cues: (P, 3) int32 sync cells, handover cells and elite mobs in the window (lit only).
    """
    ints, light = padded_floor(state)
    pos = state.players.pos
    markers = entity_markers(state, static)
    vulnerable = boss_vulnerable(state)

    def one(viewer_pos: jax.Array) -> tuple[jax.Array, jax.Array]:
        window = view_window(ints, viewer_pos)
        lit = view_window(light, viewer_pos)
        layers = _layers(markers, viewer_pos)
        seen = lit > LIGHT_THRESHOLD
        coord = window[..., 2]
        cues = jnp.stack([(c & seen).sum() for c in (coord > 0, coord < 0, layers["elite"] > 0)])
        tiles = at.blocks[shown_blocks(window[..., 0], vulnerable)]
        tiles = over(tiles, at.items[window[..., 1]])
        tiles = _coordination(tiles, window, layers, at, static.player_count)
        tiles = _creatures(tiles, layers, at)
        tiles = _players(tiles, layers, state, at, static)
        return light_tiles(tiles, lit, state, at), cues.astype(jnp.int32)

    tiles, cues = jax.vmap(one)(pos)
    dim = jnp.where(state.players.sleeping, 0.5, 1.0)
    return tiles * dim[:, None, None, None, None, None], cues


def tiles_to_image(tiles: jax.Array) -> jax.Array:
    """(..., R, C, t, t, 3) tiles -> (..., R * t, C * t, 3) image."""
    *lead, r, c, t, _, ch = tiles.shape
    order = (
        *range(len(lead)),
        len(lead),
        len(lead) + 2,
        len(lead) + 1,
        len(lead) + 3,
        len(lead) + 4,
    )
    return tiles.transpose(order).reshape(*lead, r * t, c * t, ch)


__all__ = ["map_tiles", "over", "paint", "player_sprites", "tiles_to_image"]
