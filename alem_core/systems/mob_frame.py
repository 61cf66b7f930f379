"""The working view shared by the mob and projectile updates (docs/rules/mobs.md#behaviour).

``update_mobs`` puts the current floor's slots of every entity class (the state's hot copy) in a
``Frame`` with the players, the stats and the hot block map, and runs the class updates on it
in order. Every helper here works on small dense arrays (slots x players, slots x mobs) instead
of (H, W) grids: a floor holds at most 14P entities, so pairwise comparisons are cheaper than
building and gathering occupancy maps.

Reads: ``mobs``, ``players.{pos, alive, sleeping, resting, armour, armour_enchant,
achievements}``, ``stats.damage_taken``. Writes (through ``hurt_players`` and the class updates):
``mobs``, ``players.{health, sleeping, resting, achievements}``, ``stats.damage_taken``.
"""

from __future__ import annotations

from typing import NamedTuple

import jax
import jax.numpy as jnp

from alem_core.constants import Achievement
from alem_core.dense import raise_flags
from alem_core.state import Mobs, Players, Stats
from alem_core.systems.combat import damage_to_players

FAR = 1 << 20
"""Distance reported when no player is alive (larger than any map)."""


class Frame(NamedTuple):
    """What the mob update carries from class to class.

    Attributes:
        mobs: the current floor's entities (``State.mobs``), shapes (S, ...).
        players: the full ``Players``.
        stats: the full ``Stats``.
        block: (H, W) blocks of the current floor (hot map), read and written (by mob
            projectiles breaking stations) at single cells: no map-sized copies.
        kills: (L,) int32 per-floor kill counter.
        floor: () int32 the current floor.
    """

    mobs: Mobs
    players: Players
    stats: Stats
    block: jax.Array
    kills: jax.Array
    floor: jax.Array


def same_cell(a: jax.Array, b: jax.Array) -> jax.Array:
    """(N, M) bool: position ``a[n]`` (N, 2) equals position ``b[m]`` (M, 2)."""
    return (a[:, None, 0] == b[None, :, 0]) & (a[:, None, 1] == b[None, :, 1])


def block_at(frame: Frame, cells: jax.Array) -> jax.Array:
    """(N,) block ids at cells (N, 2) of the current floor; off-map cells read a clamped cell."""
    rows, cols = frame.block.shape
    return frame.block[
        jnp.clip(cells[:, 0], 0, rows - 1), jnp.clip(cells[:, 1], 0, cols - 1)
    ].astype(jnp.int32)


def player_distances(pos: jax.Array, players: Players) -> jax.Array:
    """(N, P) int32 Manhattan distance from each position (N, 2) to each alive player.

    Dead players are ignored by mob targeting, so their distance is ``FAR``.
    """
    gap = jnp.abs(pos[:, None, :] - players.pos[None]).sum(-1)
    return jnp.where(players.alive[None], gap, FAR)


def nearest_player(pos: jax.Array, players: Players) -> tuple[jax.Array, jax.Array]:
    """Nearest alive player (Manhattan, lowest index on ties) of each position (N, 2).

    Returns:
        ``(distance, delta)``: (N,) int32 distance (``FAR`` if nobody is alive) and (N, 2)
        int32 offset from the position to that player.
    """
    dist = player_distances(pos, players)
    target = jnp.argmin(dist, axis=1)
    return dist.min(axis=1), players.pos[target] - pos


def live_mobs(mobs: Mobs) -> tuple[jax.Array, jax.Array]:
    """Positions (M, 2) and alive flags (M,) of melee, passive and ranged slots, in that order."""
    classes = (mobs.melee, mobs.passive, mobs.ranged)
    pos = jnp.concatenate([e.pos for e in classes])
    alive = jnp.concatenate([e.alive for e in classes])
    return pos, alive


def hurt_players(frame: Frame, raw: jax.Array, hit: jax.Array, wake_up: bool) -> Frame:
    """Apply mob damage to players and interrupt their sleep and rest.

    Args:
        frame: the working view.
        raw: (P, 3) summed raw damage vectors (defence is linear, so summing first is exact).
        hit: (P,) bool players hit this phase; they stop sleeping and resting.
        wake_up: grant WAKE_UP to hit sleepers (melee hits do, mob projectiles do not).

    Returns:
        The frame with health, sleep, rest, achievements and ``damage_taken`` updated.
    """
    players = frame.players
    lost = damage_to_players(raw, players)
    woken = hit & players.sleeping
    achievements = players.achievements
    if wake_up:  # a Python bool fixed by the caller, not a parameter
        achievements = raise_flags(achievements, Achievement.WAKE_UP, woken)
    players = players.replace(
        health=players.health - lost,
        sleeping=players.sleeping & ~hit,
        resting=players.resting & ~hit,
        achievements=achievements,
    )
    stats = frame.stats.replace(damage_taken=frame.stats.damage_taken + lost)
    return frame._replace(players=players, stats=stats)
