"""The teammate strip and the status panel of the pixel observation
(docs/rules/observations.md#pixel-observation).

Teammate strip (ceil(P / 2) rows of 11 tiles, two teammates per row, self first then the others
in index order, as in the symbolic dashboard). Each entry has five tiles: portrait (role sprite
in the player's accent colour; a skull when dead; Z when asleep), heart with health, open
request (resource icon with the steps left), comm message (bubble with the channel number), and
an arrow toward the teammate when it is off-screen.

Status panel (4 rows of 11 tiles), numbers drawn over the bottom half of their icon:

    row 0  health food drink energy mana xp dex str int  sun/moon  floor
    row 1  wood stone coal iron diamond sapphire ruby sapling torch arrow book
    row 2  pickaxe sword bow  6 potions  armour  spell
    row 3  own request, sync / handover cells in view, open handovers, elites in view,
           sleeping, resting, facing, messages received this step, 2 empty
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Inv
from alem_core.observation.map_view import view_order
from alem_core.observation.vector import direction_sectors
from alem_core.params import StaticParams
from alem_core.pixels.textures import ACCENTS, Atlas
from alem_core.pixels.textures_ui import Icon
from alem_core.pixels.view import over, paint, player_sprites
from alem_core.state import State

BACKGROUND = np.array([0.11, 0.11, 0.15], np.float32)
SLOT = np.array([0.18, 0.18, 0.23], np.float32)
REQUEST_ICONS = np.array(
    [Icon.FOOD, Icon.DRINK, Icon.WOOD, Icon.STONE, Icon.IRON, Icon.COAL, Icon.DIAMOND, Icon.RUBY,
     Icon.SAPPHIRE], np.int32,
)  # fmt: skip
"""Icon of each ``Request`` resource."""
FACING_SECTOR = np.array([0, 0, 1, 2, 5], np.int32)
"""Direction-icon sector of each facing code (left W, right E, up N, down S)."""


def ui_tiles(at: Atlas, icon: jax.Array, alpha: jax.Array, number: jax.Array, bg=SLOT) -> jax.Array:
    """(..., t, t, 3) tiles: ``icon`` at ``alpha`` on ``bg``, with ``number`` (0-99, -1 for
    none) in white over a dark outline across the bottom half."""
    t = at.frame.shape[0]
    tiles = jnp.broadcast_to(jnp.asarray(bg, jnp.float32), (*icon.shape, t, t, 3))
    tiles = over(tiles, at.icons[icon], alpha[..., None, None, None])
    shown = (number >= 0)[..., None, None]
    n = jnp.clip(number, 0, 99)
    has_tens = (n >= 10)[..., None, None]
    glyphs = at.digits[3][n % 10] + at.digits[2][n // 10] * has_tens
    shadow = jnp.maximum(at.shadows[3][n % 10], at.shadows[2][n // 10] * has_tens)
    tiles = paint(tiles, shadow * shown, (0.0, 0.0, 0.0), 0.85)
    return paint(tiles, jnp.minimum(glyphs, 1.0) * shown, (1.0, 1.0, 1.0))


def _entries(state: State, static: StaticParams, at: Atlas) -> jax.Array:
    """(P, 5, t, t, 3) the strip entry of every player (viewer-independent but the arrow)."""
    pl = state.players
    p = static.player_count
    accent = jnp.asarray(ACCENTS)[np.arange(p) % len(ACCENTS)]
    t = at.frame.shape[0]
    portrait = jnp.broadcast_to((0.35 * accent)[:, None, None, :], (p, t, t, 3))
    portrait = over(
        portrait, player_sprites(at, static, jnp.full((p,), 4)), pl.alive[:, None, None, None]
    )
    portrait = over(portrait, at.icons[Icon.SKULL], (~pl.alive)[:, None, None, None])
    portrait = over(portrait, at.badges[Icon.SLEEP], (pl.sleeping & pl.alive)[:, None, None, None])
    is_open = (pl.request >= 0) & (pl.request_timer > 0)
    request = jnp.asarray(REQUEST_ICONS)[jnp.clip(pl.request, 0, 8)]
    if static.num_comm_channels:
        sent = pl.message.max(axis=-1) > 0
        channel = jnp.where(sent, jnp.argmax(pl.message, axis=-1) % 100, -1)
    else:
        sent, channel = jnp.zeros((p,), bool), jnp.full((p,), -1)
    icon = jnp.stack([jnp.full((p,), Icon.HEART), request, jnp.full((p,), Icon.BUBBLE)], 1)
    alpha = jnp.stack([jnp.ones((p,)), is_open, sent], 1).astype(jnp.float32)
    health = jnp.where(pl.alive, jnp.ceil(pl.health), 0).astype(jnp.int32)
    number = jnp.stack([health, jnp.where(is_open, pl.request_timer, -1), channel], 1)
    rest = ui_tiles(at, icon.astype(jnp.int32), alpha, number.astype(jnp.int32))
    return jnp.concatenate([portrait[:, None], rest], axis=1)


def strip_tiles(state: State, static: StaticParams, at: Atlas) -> jax.Array:
    """(P, ceil(P / 2), 11, t, t, 3) each agent's teammate strip."""
    p = static.player_count
    rows = -(-p // 2)
    entries = _entries(state, static, at)
    order = jnp.asarray(view_order(p))
    pos = state.players.pos
    sectors = direction_sectors(pos[order] - pos[:, None, :])  # (P, P, 8)
    off = sectors.max(axis=-1)
    arrow = ui_tiles(at, Icon.DIRECTION + jnp.argmax(sectors, -1), off, jnp.full(off.shape, -1))
    views = jnp.concatenate([entries[order], arrow[:, :, None]], axis=2)  # (P, P, 5, ...)
    t = at.frame.shape[0]
    blank = jnp.broadcast_to(jnp.asarray(BACKGROUND), (p, 2 * rows - p, 5, t, t, 3))
    views = jnp.concatenate([views, blank], axis=1).reshape(p, rows, 2, 5, t, t, 3)
    gap = jnp.broadcast_to(jnp.asarray(BACKGROUND), (p, rows, 1, t, t, 3))
    return jnp.concatenate([views[:, :, 0], gap, views[:, :, 1]], axis=2)


def panel_tiles(state: State, static: StaticParams, at: Atlas, cues: jax.Array) -> jax.Array:
    """(P, 4, 11, t, t, 3) each agent's status panel (layout in the module docstring).

    ``cues`` (P, 3) int32: sync cells, handover cells and elite mobs in the agent's view.
    """
    pl, p = state.players, static.player_count
    inv = pl.inventory
    full = lambda v: jnp.broadcast_to(jnp.asarray(v, jnp.int32), (p,))  # noqa: E731
    day = jnp.where(state.world.daylight > 0.5, Icon.SUN, Icon.MOON)
    stats = [pl.health, pl.food, pl.drink, pl.energy, pl.mana, pl.xp]
    stats += [pl.dexterity, pl.strength, pl.intelligence]
    icons = [Icon.HEART, Icon.FOOD, Icon.DRINK, Icon.ENERGY, Icon.MANA, Icon.XP, Icon.DEX]
    icons += [Icon.STR, Icon.INT]
    slots = [
        (full(i), jnp.ones(p), jnp.ceil(v).astype(jnp.int32))
        for i, v in zip(icons, stats, strict=True)
    ]
    slots += [
        (full(day), jnp.ones(p), full(-1)),
        (full(Icon.FLOOR), jnp.ones(p), full(state.world.floor)),
    ]
    for k, icon in enumerate(range(Icon.WOOD, Icon.BOOK + 1)):
        count = inv[:, Inv.WOOD + k]
        slots.append((full(icon), jnp.where(count > 0, 1.0, 0.25), jnp.where(count > 0, count, -1)))
    pick, sword = inv[:, Inv.PICKAXE], inv[:, Inv.SWORD]
    slots.append(
        (Icon.PICKAXE + jnp.clip(pick - 1, 0, 3), jnp.where(pick > 0, 1.0, 0.25), full(-1))
    )
    slots.append(
        (Icon.SWORD + jnp.clip(sword - 1, 0, 3), jnp.where(sword > 0, 1.0, 0.25), full(-1))
    )
    slots.append((full(Icon.BOW), jnp.where(inv[:, Inv.BOW] > 0, 1.0, 0.25), full(-1)))
    for k in range(6):
        count = inv[:, Inv.POTION_RED + k]
        slots.append(
            (
                full(Icon.POTION + k),
                jnp.where(count > 0, 1.0, 0.25),
                jnp.where(count > 0, count, -1),
            )
        )
    armour = pl.armour.sum(axis=1)
    slots.append(
        (full(Icon.ARMOUR), jnp.where(armour > 0, 1.0, 0.25), jnp.where(armour > 0, armour, -1))
    )
    slots.append((full(Icon.SPELL), jnp.where(pl.spell_learned, 1.0, 0.25), full(-1)))
    slots += _cue_slots(state, static, cues)
    icon, alpha, number = (jnp.stack([s[k] for s in slots], axis=1) for k in range(3))
    tiles = ui_tiles(
        at, icon.astype(jnp.int32), alpha.astype(jnp.float32), number.astype(jnp.int32)
    )
    return tiles.reshape(p, 4, 11, *tiles.shape[2:])


def _cue_slots(state: State, static: StaticParams, cues: jax.Array) -> list[tuple]:
    """Row 3 of the panel: own request, coordination cues, sleep/rest, facing, messages."""
    pl, p = state.players, static.player_count
    full = lambda v: jnp.broadcast_to(jnp.asarray(v, jnp.int32), (p,))  # noqa: E731
    is_open = (pl.request >= 0) & (pl.request_timer > 0)
    request = jnp.where(
        is_open, jnp.asarray(REQUEST_ICONS)[jnp.clip(pl.request, 0, 8)], Icon.REQUEST
    )
    handovers = full(state.handovers.open.sum())
    dim = lambda on: jnp.where(on, 1.0, 0.25)  # noqa: E731
    count = lambda v: jnp.where(v > 0, v, -1)  # noqa: E731
    sent = (pl.message.max(axis=-1) > 0).sum() if static.num_comm_channels else 0
    messages = full(sent)
    return [
        (request, dim(is_open), jnp.where(is_open, pl.request_timer, -1)),
        (full(Icon.SYNC), dim(cues[:, 0] > 0), count(cues[:, 0])),
        (full(Icon.HANDOVER), dim(cues[:, 1] > 0), count(cues[:, 1])),
        (full(Icon.CLOCK), dim(handovers > 0), count(handovers)),
        (full(Icon.ELITE), dim(cues[:, 2] > 0), count(cues[:, 2])),
        (full(Icon.SLEEP), dim(pl.sleeping), full(-1)),
        (full(Icon.REST), dim(pl.resting), full(-1)),
        (Icon.DIRECTION + jnp.asarray(FACING_SECTOR)[pl.facing], jnp.ones(p), full(-1)),
        (full(Icon.BUBBLE), dim(messages > 0), count(messages)),
        (full(Icon.EMPTY), jnp.zeros(p), full(-1)),
        (full(Icon.EMPTY), jnp.zeros(p), full(-1)),
    ]
