"""Mob update on the current floor: melee, passive, ranged, then projectiles
(docs/rules/mobs.md#behaviour).

Reads: ``world.{floor, block, kills}``, ``mobs`` (the current floor's hot copy),
``players.{pos, alive, sleeping, resting, armour, armour_enchant, dexterity, intelligence,
bow_enchant, achievements}``, ``stats``. Writes: ``mobs`` (other floors, in ``mob_floors``, stay
frozen), ``world.{block, kills}``, ``players.{health, sleeping, resting, achievements}``,
``stats.{damage_taken, monsters_killed, friendly_fire_damage}``.

Every class is updated for all its slots at once (array ops over slots, no scan), in the fixed
order melee -> passive -> ranged -> mob projectiles -> player projectiles.

Movement conflicts. A mob may enter a cell only if it is in bounds, its block is allowed for that
mob (``MOB_MOVES_ON``: ground = player-walkable blocks, water, lava), it holds no player (alive or
dead) and no live mob of any class as of the start of this class's update, and no lower-index
mob of the same class claims it this step (lowest slot wins). Classes run one after another, so
a mob sees the final cells of every earlier class: "no lower-index mob of any class already
claimed it" holds across classes by construction. A failed move leaves the mob in place. This
equals a sequential scan over slots except in rare ties: within one class, a mob cannot step
into a cell that a lower-index mob of its own class vacates in the same step.

Sleep multiplier. Within one step only the lowest-index melee mob attacking a sleeper deals the
x3.5 damage (its hit wakes the player), as a sequential scan over slots would.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_BLOCKS, Block, MobClass
from alem_core.draws import DrawBlock, Draws
from alem_core.grid import DIRECTIONS, in_bounds
from alem_core.params import Params, StaticParams
from alem_core.rules.boss_tables import BOSS_DAMAGE_MULTIPLIER, BOSS_FLOOR
from alem_core.rules.tables import (
    MELEE_CHASE_DISTANCE,
    MELEE_CHASE_PROB,
    MELEE_COOLDOWN,
    MELEE_DAMAGE,
    MOB_MOVES_ON,
    RANGED_COOLDOWN,
    RANGED_KEEP_INTENT_PROB,
    RANGED_PROJECTILE,
    SLEEP_DAMAGE_MULTIPLIER,
    WALKABLE,
)
from alem_core.state import Entities, State
from alem_core.systems.mob_frame import (
    FAR,
    Frame,
    block_at,
    hurt_players,
    live_mobs,
    nearest_player,
    player_distances,
    same_cell,
)
from alem_core.systems.projectiles import (
    fire_mob_projectiles,
    move_mob_projectiles,
    move_player_projectiles,
)

DRAWS = {
    "mobs": DrawBlock(
        lambda s: ((s.max_melee_mobs + s.max_passive_mobs + s.max_ranged_mobs) * s.player_count, 4),
        "mobs: four per melee, passive and ranged slot",
    )
}
"""The step's uniforms this system reads (``alem_core/draws.py``)."""

RANGED_APPROACH_GAP = 6
"""A ranged mob approaches at a gap >= 6 and shoots below it."""
RANGED_RETREAT_GAP = 3
"""A ranged mob retreats at a gap <= 3."""


def _can_enter() -> np.ndarray:
    """(3, 8, NUM_BLOCKS) bool: mob class/type may stand on a block
    (docs/rules/mobs.md#mob-kinds)."""
    terrain = np.zeros((3, NUM_BLOCKS), bool)
    terrain[0] = WALKABLE
    terrain[1, Block.WATER] = True
    terrain[2, Block.LAVA] = True
    return np.einsum("ctk,kb->ctb", MOB_MOVES_ON.astype(np.int32), terrain.astype(np.int32)) > 0


CAN_ENTER = _can_enter()
STEPS = DIRECTIONS[1:]
"""(4, 2) unit steps left, right, up, down."""


def update_mobs(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Advance every mob and projectile on the team's floor by one step.

    Args:
        draws: the step's uniforms; reads the ``mobs`` block.
        state: the state after player movement.
        params: gameplay params (``mob_despawn_distance``, ``friendly_fire``).
        static: shapes.

    Returns:
        The state with the current floor's mobs, projectiles, blocks, kills and the players'
        health, sleep, rest, achievements and stats updated.
    """
    floor = state.world.floor
    frame = Frame(
        mobs=state.mobs,
        players=state.players,
        stats=state.stats,
        block=state.world.block,
        kills=state.world.kills,
        floor=floor,
    )
    n_melee, n_passive = frame.mobs.melee.alive.shape[0], frame.mobs.passive.alive.shape[0]
    u = draws["mobs"]  # four uniforms per melee, passive and ranged slot
    frame = _update_melee(frame, u[:n_melee], params, static)
    frame = _update_passive(frame, u[n_melee : n_melee + n_passive], params, static)
    frame = _update_ranged(frame, u[n_melee + n_passive :], params, static)
    frame = move_mob_projectiles(frame, static)
    frame = move_player_projectiles(frame, params, static)
    world = state.world.replace(block=frame.block, kills=frame.kills)
    return state.replace(world=world, mobs=frame.mobs, players=frame.players, stats=frame.stats)


def _toward(delta: jax.Array, u: jax.Array) -> jax.Array:
    """(N, 2) unit step along the axis with the larger gap (ties: row axis if ``u`` < 0.5)."""
    gap = jnp.abs(delta)
    rows = (gap[:, 0] > gap[:, 1]) | ((gap[:, 0] == gap[:, 1]) & (u < 0.5))
    sign = jnp.sign(delta)
    return jnp.where(rows[:, None], sign * jnp.array([1, 0]), sign * jnp.array([0, 1]))


def _random_step(pos: jax.Array, u: jax.Array, static: StaticParams) -> jax.Array:
    """(N, 2) a uniform step among the four directions that stay in bounds."""
    steps = jnp.asarray(STEPS)
    ok = in_bounds(pos[:, None, :] + steps[None], static)  # (N, 4)
    count = ok.sum(axis=1)
    pick = jnp.minimum((u * count).astype(jnp.int32), count - 1)
    chosen = ok & (jnp.cumsum(ok, axis=1) - 1 == pick[:, None])
    return (chosen[..., None] * steps[None]).sum(axis=1)


def _resolve_moves(
    frame: Frame,
    mob_class: int,
    ents: Entities,
    step: jax.Array,
    wants: jax.Array,
    static: StaticParams,
) -> jax.Array:
    """(S, 2) positions after each mob of a class tries ``pos + step`` (see module docstring).

    ``wants`` (S,) marks the mobs that try to move; the others (and every failed move) stay.
    """
    target = ents.pos + step
    inside = in_bounds(target, static)
    block = block_at(frame, target)
    allowed = jnp.asarray(CAN_ENTER)[mob_class, ents.kind, block]
    mob_pos, mob_alive = live_mobs(frame.mobs)
    taken = (same_cell(target, mob_pos) & mob_alive[None]).any(1)
    taken = taken | same_cell(target, frame.players.pos).any(1)
    valid = wants & ents.alive & inside & allowed & ~taken & (step != 0).any(1)
    slots = ents.alive.shape[0]
    lower = jnp.tril(jnp.ones((slots, slots), bool), k=-1)  # [i, j]: j < i
    beaten = (same_cell(target, target) & valid[None, :] & lower).any(1)
    return jnp.where((valid & ~beaten)[:, None], target, ents.pos)


def _despawn(ents: Entities, frame: Frame, params: Params, exempt: jax.Array) -> Entities:
    """Remove mobs at Manhattan distance >= ``mob_despawn_distance`` from every alive player."""
    dist, _ = nearest_player(ents.pos, frame.players)
    far = dist >= params.mob_despawn_distance
    return ents.replace(alive=ents.alive & ~(far & ~exempt))


def _melee_hits(frame: Frame, ents: Entities) -> tuple[Frame, jax.Array]:
    """Melee mobs with cooldown <= 0 hit every adjacent alive player; returns who attacked."""
    adjacent = player_distances(ents.pos, frame.players) == 1  # (S, P)
    attacks = ents.alive & (ents.cooldown <= 0) & adjacent.any(1)
    hits = adjacent & attacks[:, None]
    # Only the first (lowest-slot) attacker of a sleeper gets x3.5: its hit wakes the player.
    first = hits & (jnp.cumsum(hits, axis=0) == 1)
    scale = jnp.where(first & frame.players.sleeping[None], SLEEP_DAMAGE_MULTIPLIER, 1.0)
    scale = scale * hits * jnp.where(frame.floor == BOSS_FLOOR, BOSS_DAMAGE_MULTIPLIER, 1.0)
    raw = (jnp.asarray(MELEE_DAMAGE)[ents.kind][:, None, :] * scale[..., None]).sum(0)
    return hurt_players(frame, raw, hits.any(0), wake_up=True), attacks


def _update_melee(frame: Frame, u: jax.Array, params: Params, static: StaticParams) -> Frame:
    """Melee mobs attack adjacent players or chase (75 %) / wander, then despawn if far."""
    ents = frame.mobs.melee
    frame, attacks = _melee_hits(frame, ents)
    dist, delta = nearest_player(ents.pos, frame.players)
    boss = frame.floor == BOSS_FLOOR
    near = (dist < MELEE_CHASE_DISTANCE) | (boss & (dist < FAR))
    chase = (u[:, 0] < MELEE_CHASE_PROB) & near
    step = jnp.where(
        chase[:, None], _toward(delta, u[:, 1]), _random_step(ents.pos, u[:, 2], static)
    )
    pos = _resolve_moves(frame, MobClass.MELEE, ents, step, ~attacks, static)
    cooldown = jnp.where(attacks, MELEE_COOLDOWN, ents.cooldown - 1)
    ents = ents.replace(pos=pos, cooldown=jnp.where(ents.alive, cooldown, ents.cooldown))
    ents = _despawn(ents, frame, params, exempt=boss)
    return frame._replace(mobs=frame.mobs.replace(melee=ents))


def _update_passive(frame: Frame, u: jax.Array, params: Params, static: StaticParams) -> Frame:
    """Passive mobs pick one of 8 options (4 steps, 4 stays), then despawn if far."""
    ents = frame.mobs.passive
    choice = jnp.minimum((u[:, 0] * 8).astype(jnp.int32), 7)
    moving = choice < 4
    step = jnp.where(moving[:, None], jnp.asarray(STEPS)[jnp.minimum(choice, 3)], 0)
    pos = _resolve_moves(frame, MobClass.PASSIVE, ents, step, moving, static)
    ents = _despawn(ents.replace(pos=pos), frame, params, exempt=jnp.bool_(False))
    return frame._replace(mobs=frame.mobs.replace(passive=ents))


def _update_ranged(frame: Frame, u: jax.Array, params: Params, static: StaticParams) -> Frame:
    """Ranged mobs shoot when close and ready, else keep distance (15 %) or wander."""
    ents = frame.mobs.ranged
    dist, delta = nearest_player(ents.pos, frame.players)
    gap = jnp.where(dist < FAR, jnp.abs(delta).max(axis=1), FAR)
    toward = _toward(delta, u[:, 1])
    wander = _random_step(ents.pos, u[:, 2], static)
    intent = jnp.where(
        (gap >= RANGED_APPROACH_GAP)[:, None] & (dist < FAR)[:, None],
        toward,
        jnp.where((gap <= RANGED_RETREAT_GAP)[:, None], -toward, wander),
    )
    keep = u[:, 0] < RANGED_KEEP_INTENT_PROB
    step = jnp.where(keep[:, None], intent, _random_step(ents.pos, u[:, 3], static))
    shoots = ents.alive & (gap < RANGED_APPROACH_GAP) & (ents.cooldown <= 0)
    frame = fire_mob_projectiles(
        frame, shoots, ents.pos, toward, jnp.asarray(RANGED_PROJECTILE)[ents.kind]
    )
    pos = _resolve_moves(frame, MobClass.RANGED, ents, step, ~shoots, static)
    cooldown = jnp.where(shoots, RANGED_COOLDOWN, ents.cooldown - 1)
    ents = ents.replace(pos=pos, cooldown=jnp.where(ents.alive, cooldown, ents.cooldown))
    ents = _despawn(ents, frame, params, exempt=frame.floor == BOSS_FLOOR)
    return frame._replace(mobs=frame.mobs.replace(ranged=ents))
