"""Player melee attacks on mobs: the combat part of the Do phase
(docs/rules/interactions.md#the-do-action, docs/rules/coordination.md#elite-and-large-mobs).

Reads: players (pos, facing, sword, strength, intelligence, food), mobs on the current floor
(melee, passive, ranged: pos, alive, health, kind, elite, hard, required), world.kills.
Writes: mob health and alive flags, world.kills, players.food / hunger, achievements
(DEFEAT_*, EAT_*, COLLECT_FOOD, COORD_ELITE_*_KILL, COORD_LARGE_PASSIVE_KILL),
stats.monsters_killed, coordination elite counters.

Damage from several attackers on one mob adds up. Elite and large mobs (slots pre-rolled at
reset) scale each attacker's damage by how many players hit them this step, k, against the
slot's required count: normal x1; soft x2 if k >= required else x0.5; hard x3 else 0.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import NUM_ACHIEVEMENTS, Achievement, Action, MobClass
from alem_core.dense import add_at, raise_flags
from alem_core.grid import faced_cell
from alem_core.params import Params, StaticParams
from alem_core.rules.specialisation import JOB_ROLE, passes_gate_with
from alem_core.rules.tables import COW_FOOD, EAT_PASSIVE, FLOOR_DEFEAT_MELEE, FLOOR_DEFEAT_RANGED
from alem_core.state import Entities, State
from alem_core.systems.combat import damage_to_mobs, player_melee_damage

HOSTILE_CLASSES = {"melee": MobClass.MELEE, "ranged": MobClass.RANGED}
KILL_ACHIEVEMENT = {"melee": FLOOR_DEFEAT_MELEE, "ranged": FLOOR_DEFEAT_RANGED}
ELITE_ACHIEVEMENT = {
    "melee": Achievement.COORD_ELITE_MELEE_KILL,
    "ranged": Achievement.COORD_ELITE_RANGED_KILL,
}


def coordination_multiplier(ents: Entities, k: jax.Array) -> jax.Array:
    """(S,) damage multiplier per slot given k attackers
    (docs/rules/coordination.md#elite-and-large-mobs table)."""
    required = ents.required
    met = k >= jnp.where(required > 0, required, 2)
    soft = jnp.where(met, 2.0, 0.5)
    hard = jnp.where(met, 3.0, 0.0)
    return jnp.where(ents.elite, jnp.where(ents.hard, hard, soft), 1.0)


def _hits(state: State, ents: Entities, actions: jax.Array) -> jax.Array:
    """(P, S) bool: player p's Do lands on slot s of the current floor."""
    target = faced_cell(state.players)
    doing = (actions == Action.DO) & state.players.alive
    same = (target[:, None, :] == ents.pos[None, :, :]).all(-1)
    return doing[:, None] & ents.alive[None, :] & same


def _strike(
    state: State, ents: Entities, mob_class: int, actions: jax.Array, static: StaticParams
) -> tuple[Entities, jax.Array, jax.Array, jax.Array]:
    """Apply one class's damage; return (entities, hits, killed (S,), coordination met (S,))."""
    hits = _hits(state, ents, actions)
    k = hits.sum(axis=0)
    raw = player_melee_damage(state.players, static)
    per_hit = damage_to_mobs(raw[:, None, :], mob_class, ents.kind[None, :])
    total = (hits * per_hit).sum(axis=0) * coordination_multiplier(ents, k)
    health = ents.health - total
    killed = hits.any(axis=0) & (health <= 0)
    coordinated = ents.elite & (k >= jnp.where(ents.required > 0, ents.required, 2))
    ents = dataclasses.replace(ents, health=health, alive=ents.alive & ~killed)
    return ents, hits, killed, coordinated


def attack_mobs(
    state: State, actions: jax.Array, forager_u: jax.Array, params: Params, static: StaticParams
) -> State:
    """Resolve every player's Do on a mob; ``forager_u`` (P,) is the Do phase's gate draw."""
    floor = state.world.floor
    mobs, players, world, stats = state.mobs, state.players, state.world, state.stats
    achievements = players.achievements
    counters = state.coordination
    for name, mob_class in HOSTILE_CLASSES.items():
        ents, hits, killed, coordinated = _strike(
            state, getattr(mobs, name), mob_class, actions, static
        )
        counters = _count_elite(counters, ents, hits, killed, coordinated, name)
        credit = hits & killed[None, :]
        defeat = jnp.asarray(KILL_ACHIEVEMENT[name])[ents.kind]
        unlocked = (
            credit[:, :, None] & (jnp.arange(NUM_ACHIEVEMENTS) == defeat[:, None])[None]
        ).any(1)
        elite_kill = (credit & coordinated[None, :]).any(axis=1)
        achievements = achievements | unlocked
        achievements = raise_flags(achievements, ELITE_ACHIEVEMENT[name], elite_kill)
        world = dataclasses.replace(world, kills=add_at(world.kills, floor, killed.sum()))
        stats = dataclasses.replace(
            stats, monsters_killed=stats.monsters_killed + credit.sum(axis=1)
        )
        mobs = dataclasses.replace(mobs, **{name: ents})
    players = dataclasses.replace(players, achievements=achievements)
    state = dataclasses.replace(
        state, mobs=mobs, players=players, world=world, stats=stats, coordination=counters
    )
    return _eat_passive(state, actions, forager_u, params, static)


ELITE_COUNTER_INDEX = {"melee": 0, "ranged": 1, "passive": 2}


def _count_elite(counters, ents: Entities, hits, killed, coordinated, name: str):
    """Elite/large events of one class: attempted, requirement met, kills with it met."""
    hit = hits.any(axis=0) & ents.elite
    one_class = jnp.zeros(3, jnp.int32).at[ELITE_COUNTER_INDEX[name]]
    return counters.bump(
        elite_attempts=one_class.set(hit.any()),
        elite_successes=one_class.set((hit & coordinated).any()),
        elite_kills=one_class.set((killed & coordinated).sum()),
    )


def _eat_passive(
    state: State, actions: jax.Array, forager_u: jax.Array, params: Params, static: StaticParams
) -> State:
    """Passive kills feed the foragers among the killers (x2 soft / x3 hard large, if met)."""
    ents, hits, killed, coordinated = _strike(
        state, state.mobs.passive, MobClass.PASSIVE, actions, static
    )
    credit = hits & killed[None, :]
    players = state.players
    fed = credit.any(axis=1) & passes_gate_with(JOB_ROLE["eat_passive"], forager_u, params, static)
    bonus = jnp.where(coordinated, jnp.where(ents.hard, 3, 2), 1)
    food_gain = (credit * (COW_FOOD * bonus)[None, :]).max(axis=1, initial=0)  # 0 slots: 0
    eat = jnp.asarray(EAT_PASSIVE)[ents.kind]
    ate = (credit[:, :, None] & (jnp.arange(NUM_ACHIEVEMENTS) == eat[:, None])[None]).any(1) & fed[
        :, None
    ]
    achievements = raise_flags(players.achievements | ate, Achievement.COLLECT_FOOD, fed)
    large_kill = (credit & coordinated[None, :]).any(axis=1)
    achievements = raise_flags(achievements, Achievement.COORD_LARGE_PASSIVE_KILL, large_kill)
    players = dataclasses.replace(
        players,
        food=players.food + jnp.where(fed, food_gain, 0),
        hunger=jnp.where(fed, 0.0, players.hunger),
        achievements=achievements,
    )
    mobs = dataclasses.replace(state.mobs, passive=ents)
    counters = _count_elite(state.coordination, ents, hits, killed, coordinated, "passive")
    return dataclasses.replace(state, mobs=mobs, players=players, coordination=counters)
