"""Projectiles on the current floor: ranged mobs firing, mob and player projectiles
(docs/rules/mobs.md#behaviour).

Called by ``mobs.update_mobs`` on its ``Frame`` (the team's floor); all slots move at once.

Reads: ``mobs`` (the team's floor's hot copy), ``world.{block, floor, kills}``, ``players.{pos,
alive, sleeping, resting, armour, armour_enchant, dexterity, intelligence, bow_enchant,
achievements}``. Writes: ``mobs.{mob_projectiles, player_projectiles}`` and mob
``health``/``alive``, ``world.{block, kills}``, ``players.{health, sleeping, resting,
achievements}``, ``stats.{damage_taken, monsters_killed, friendly_fire_damage}``.

Ties against a sequential scan over projectile slots: projectiles that hit the same mob in one
step all stop there and their damage adds; the kill (achievement, counters) is credited to the
projectile whose damage, added in slot order, brings the mob to <= 0. A table destroyed by one
mob projectile still stops another projectile aimed at that cell in the same step.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.constants import NUM_ACHIEVEMENTS, Block, MobClass, Projectile
from alem_core.dense import add_at
from alem_core.grid import in_bounds, write_cells
from alem_core.params import Params, StaticParams
from alem_core.rules.boss_tables import BOSS_DAMAGE_MULTIPLIER, BOSS_FLOOR
from alem_core.rules.tables import (
    FLOOR_DEFEAT_MELEE,
    FLOOR_DEFEAT_RANGED,
    MOB_DEFENCE,
    PROJECTILE_DAMAGE,
    SOLID,
)
from alem_core.state import Entities, Players
from alem_core.systems.combat import player_defence
from alem_core.systems.mob_frame import (
    Frame,
    block_at,
    hurt_players,
    live_mobs,
    same_cell,
)

SPELLS = (Projectile.FIREBALL, Projectile.ICEBALL, Projectile.FIREBALL2, Projectile.ICEBALL2)


def fire_mob_projectiles(
    frame: Frame, shoots: jax.Array, origin: jax.Array, direction: jax.Array, kind: jax.Array
) -> Frame:
    """Put one projectile per shooting ranged mob into free slots (k-th shooter, k-th free slot).

    Args:
        frame: the working view.
        shoots: (R,) bool ranged slots that shoot this step.
        origin: (R, 2) their cells (the projectile starts there).
        direction: (R, 2) unit steps toward their targets.
        kind: (R,) projectile ids.

    Returns:
        The frame with new mob projectiles; shooters beyond the free slots fire nothing.
    """
    proj = frame.mobs.mob_projectiles
    free = ~proj.alive
    rank = jnp.cumsum(shoots) - 1
    free_rank = jnp.cumsum(free) - 1
    assign = shoots[:, None] & free[None, :] & (rank[:, None] == free_rank[None, :])  # (R, S)
    taken = assign.any(0)

    def pick(values: jax.Array, old: jax.Array) -> jax.Array:
        chosen = assign.reshape(*assign.shape, *([1] * (values.ndim - 1))) * values[:, None]
        return jnp.where(taken.reshape(-1, *([1] * (old.ndim - 1))), chosen.sum(0), old)

    proj = proj.replace(
        pos=pick(origin, proj.pos),
        direction=pick(direction, proj.direction),
        kind=pick(kind, proj.kind),
        alive=proj.alive | taken,
    )
    return frame._replace(mobs=frame.mobs.replace(mob_projectiles=proj))


def _next_cell(frame: Frame, proj: Entities, static: StaticParams):
    """Next cells (S, 2), whether in bounds (S,), and their blocks (S,) (clamped gather)."""
    nxt = proj.pos + proj.direction
    inside = in_bounds(nxt, static)
    block = block_at(frame, nxt)
    return nxt, inside, block


def move_mob_projectiles(frame: Frame, static: StaticParams) -> Frame:
    """Mob projectiles hit players on their current or next cell, else fly on or stop.

    Hit players take the damage (defence, x1.5 on the boss floor), wake and stop resting (no
    achievement). A crafting table or furnace on the next cell is destroyed (-> PATH); the
    projectile stops on it, on any solid block, at the edge and in front of a mob.

    Args:
        frame: the working view, after the ranged mobs have fired.
        static: shapes.

    Returns:
        The frame with projectiles moved or removed, players hurt and stations destroyed.
    """
    proj = frame.mobs.mob_projectiles
    players = frame.players
    nxt, inside, block = _next_cell(frame, proj, static)
    on_cur = same_cell(proj.pos, players.pos)
    on_next = same_cell(nxt, players.pos) & inside[:, None]
    hits = proj.alive[:, None] & players.alive[None] & (on_cur | on_next)  # (S, P)
    scale = hits * jnp.where(frame.floor == BOSS_FLOOR, BOSS_DAMAGE_MULTIPLIER, 1.0)
    raw = (jnp.asarray(PROJECTILE_DAMAGE)[proj.kind][:, None, :] * scale[..., None]).sum(0)
    frame = hurt_players(frame, raw, hits.any(0), wake_up=False)

    station = (block == Block.CRAFTING_TABLE) | (block == Block.FURNACE)
    breaks = proj.alive & inside & station
    new_block = write_cells(frame.block, nxt, jnp.full(breaks.shape, Block.PATH), breaks)

    mob_pos, mob_alive = live_mobs(frame.mobs)
    mob_next = (same_cell(nxt, mob_pos) & mob_alive[None]).any(1)
    solid = jnp.asarray(SOLID)[block]
    flies = proj.alive & inside & ~solid & ~mob_next & ~hits.any(1)
    proj = proj.replace(pos=jnp.where(flies[:, None], nxt, proj.pos), alive=flies)
    return frame._replace(block=new_block, mobs=frame.mobs.replace(mob_projectiles=proj))


def player_projectile_damage(proj: Entities, players: Players) -> jax.Array:
    """(S, 3) raw damage of player projectiles from their owners' current attributes.

    Spells (fireballs, iceballs): table damage x (1 + 0.5 (int - 1)). Arrows: ARROW2 (5, 0, 0),
    a bow enchantment adds half the physical damage as fire (1) or ice (2), all x
    (1 + 0.2 (dex - 1)).
    """
    owner = jnp.clip(proj.owner, 0, players.alive.shape[0] - 1)
    table = jnp.asarray(PROJECTILE_DAMAGE)
    spell = jnp.isin(proj.kind, jnp.array(SPELLS))
    spell_raw = table[proj.kind] * (1.0 + 0.5 * (players.intelligence[owner] - 1))[:, None]
    physical = table[Projectile.ARROW2, 0]
    bow = players.bow_enchant[owner]
    arrow = jnp.stack(
        [jnp.full(bow.shape, physical), 0.5 * physical * (bow == 1), 0.5 * physical * (bow == 2)],
        axis=1,
    )
    arrow = arrow * (1.0 + 0.2 * (players.dexterity[owner] - 1))[:, None]
    return jnp.where(spell[:, None], spell_raw, arrow).astype(jnp.float32)


_CLASSES = ("melee", "passive", "ranged")
_CLASS_IDS = (MobClass.MELEE, MobClass.PASSIVE, MobClass.RANGED)


def _mob_table(frame: Frame) -> tuple[jax.Array, jax.Array, jax.Array, jax.Array, jax.Array]:
    """All mobs as flat arrays (M,): positions (M, 2), alive, health, class, type."""
    classes = [getattr(frame.mobs, name) for name in _CLASSES]
    pos, alive = live_mobs(frame.mobs)
    health = jnp.concatenate([e.health for e in classes])
    cls = jnp.concatenate(
        [jnp.full(e.alive.shape, i, jnp.int32) for e, i in zip(classes, _CLASS_IDS, strict=True)]
    )
    kind = jnp.concatenate([e.kind for e in classes])
    return pos, alive, health, cls, kind


def _credit_kills(
    frame: Frame, proj: Entities, killer: jax.Array, cls: jax.Array, kind: jax.Array
) -> Frame:
    """Shooters of melee/ranged kills get the DEFEAT achievement, a kill each, the floor a kill.

    ``killer`` (S, M) marks the projectile credited with each kill; passive kills give nothing.
    """
    defeat = jnp.where(
        cls == MobClass.MELEE,
        jnp.asarray(FLOOR_DEFEAT_MELEE)[kind],
        jnp.asarray(FLOOR_DEFEAT_RANGED)[kind],
    )
    credit = killer & (cls != MobClass.PASSIVE)[None]  # (S, M)
    killed = credit.any(1)  # a projectile kills at most one mob
    unlocked = jnp.where(credit, defeat[None], -1).max(1, initial=-1)  # (S,) id or -1
    owner = proj.owner[:, None] == jnp.arange(frame.players.alive.shape[0])[None]  # (S, P)
    # (S, P, 93) broadcast-and-reduce: tiny, and cheaper than integer matmuls on CPU.
    grant = owner[:, :, None] & (unlocked[:, None, None] == jnp.arange(NUM_ACHIEVEMENTS))
    achievements = frame.players.achievements | grant.any(0)
    monsters = frame.stats.monsters_killed + (owner & killed[:, None]).sum(0)
    return frame._replace(
        players=frame.players.replace(achievements=achievements),
        stats=frame.stats.replace(monsters_killed=monsters),
        kills=add_at(frame.kills, frame.floor, killed.sum()),
    )


def _hit_mobs(
    frame: Frame, proj: Entities, raw: jax.Array, nxt: jax.Array, inside: jax.Array
) -> tuple[Frame, jax.Array]:
    """Player projectiles damage the mob on their current cell, else the one on their next cell.

    Returns the frame (mob health and alive, kills, achievements, counters) and (S,) bool
    projectiles that hit a mob.
    """
    pos, alive, health, cls, kind = _mob_table(frame)
    at_cur = same_cell(proj.pos, pos) & alive[None]
    at_next = same_cell(nxt, pos) & alive[None] & inside[:, None]
    target = proj.alive[:, None] & jnp.where(at_cur.any(1, keepdims=True), at_cur, at_next)
    defence = jnp.asarray(MOB_DEFENCE)[cls, kind]  # (M, 3)
    dealt = target * ((1.0 - defence)[None] * raw[:, None, :]).sum(-1)  # (S, M)
    # The kill goes to the projectile whose damage, added in slot order, ends the mob.
    before = jnp.cumsum(dealt, axis=0) - dealt
    killer = target & (health[None] - before > 0) & (health[None] - before - dealt <= 0)
    frame = _credit_kills(frame, proj, killer, cls, kind)

    health = health - dealt.sum(0)
    alive = alive & ~killer.any(0)
    sizes = [getattr(frame.mobs, name).alive.shape[0] for name in _CLASSES]
    cuts = [sizes[0], sizes[0] + sizes[1]]
    parts = zip(_CLASSES, jnp.split(health, cuts), jnp.split(alive, cuts), strict=True)
    updated = {n: getattr(frame.mobs, n).replace(health=h, alive=a) for n, h, a in parts}
    return frame._replace(mobs=frame.mobs.replace(**updated)), target.any(1)


def move_player_projectiles(frame: Frame, params: Params, static: StaticParams) -> Frame:
    """Player arrows and fireballs hit a mob (current, then next cell) or a teammate (next cell).

    A teammate hit takes the damage x ``friendly_fire`` after defence (logged per shooter in
    ``stats.friendly_fire_damage``); the projectile stops on it either way. Projectiles stop on
    any hit, solid block or the edge; water and dead players do not stop them.

    Args:
        frame: the working view, after the mob projectiles.
        params: gameplay params (``friendly_fire``).
        static: shapes.

    Returns:
        The frame with projectiles moved or removed, mobs and teammates hurt, kills credited.
    """
    proj = frame.mobs.player_projectiles
    nxt, inside, block = _next_cell(frame, proj, static)
    raw = player_projectile_damage(proj, frame.players)
    frame, hit_mob = _hit_mobs(frame, proj, raw, nxt, inside)

    players = frame.players
    n_players = players.alive.shape[0]
    others = proj.owner[:, None] != jnp.arange(n_players)[None]
    mate = (proj.alive & ~hit_mob & inside)[:, None] & players.alive[None] & others
    mate = mate & same_cell(nxt, players.pos)  # (S, P)
    ff = jnp.where(params.friendly_fire, 1.0, 0.0)
    lost = mate * ((1.0 - player_defence(players))[None] * raw[:, None, :]).sum(-1) * ff
    owner = proj.owner[:, None] == jnp.arange(n_players)[None]
    dealt = (owner * lost.sum(1)[:, None]).sum(0)  # logged per shooter
    stats = frame.stats.replace(friendly_fire_damage=frame.stats.friendly_fire_damage + dealt)
    players = players.replace(health=players.health - lost.sum(0))

    solid = jnp.asarray(SOLID)[block]
    flies = proj.alive & inside & ~solid & ~hit_mob & ~mate.any(1)
    proj = proj.replace(pos=jnp.where(flies[:, None], nxt, proj.pos), alive=flies)
    mobs = frame.mobs.replace(player_projectiles=proj)
    return frame._replace(mobs=mobs, players=players, stats=stats)
