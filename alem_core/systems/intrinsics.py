"""Survival: capacities, hunger, thirst, fatigue, health regeneration, mana, sleep and rest.

docs/rules/survival.md. Reads and writes players' intrinsics and hidden counters, players.sleeping,
players.resting and the WAKE_UP achievement; reads world.block (shelters) and world.floor.
No revives here: a dead player's stats are left alone.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp

from alem_core.constants import MAX_INVENTORY, Achievement, Action, Block
from alem_core.dense import raise_flags
from alem_core.draws import Draws
from alem_core.grid import adjacent_block
from alem_core.params import Params, StaticParams
from alem_core.rules.boss_tables import BOSS_FLOOR
from alem_core.rules.specialisation import CAPACITY_MULTIPLIER, role_perk
from alem_core.rules.survival_tables import GOD_MODE_MIN_HEALTH, INTRINSICS
from alem_core.state import Players, State

R = INTRINSICS


def capacities(players: Players, static: StaticParams) -> dict[str, jax.Array]:
    """Per-player maxima (P,) recomputed from attributes every step
    (docs/rules/survival.md#capacities)."""
    energy = R.base_needs + R.needs_per_dexterity * players.dexterity
    return {
        "health": (R.base_health + players.strength).astype(jnp.float32),
        "food": energy * role_perk(CAPACITY_MULTIPLIER, static),
        "drink": energy * role_perk(CAPACITY_MULTIPLIER, static),
        "energy": energy,
        "mana": R.base_mana + R.mana_per_intelligence * players.intelligence,
    }


def start_sleep_and_rest(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """SLEEP starts sleep if energy < max; REST starts rest if health < max
    (docs/rules/survival.md#sleep-and-rest)."""
    players = state.players
    caps = capacities(players, static)
    sleep = (actions == Action.SLEEP) & (players.energy < caps["energy"])
    rest = (actions == Action.REST) & (players.health < caps["health"])
    players = dataclasses.replace(
        players, sleeping=players.sleeping | sleep, resting=players.resting | rest
    )
    return dataclasses.replace(state, players=players)


def _tick(counter: jax.Array, rate: jax.Array, threshold: float) -> tuple[jax.Array, jax.Array]:
    """Advance a hidden counter; return (new counter, fired) with the counter reset on firing."""
    counter = counter + rate
    fired = counter > threshold
    return jnp.where(fired, 0.0, counter), fired


def _needs(players: Players, awake_rate: jax.Array, on_boss: jax.Array) -> dict[str, jax.Array]:
    """Hunger, thirst and fatigue: food, drink and energy decay (suppressed on the boss floor)."""
    asleep = players.sleeping
    rate = jnp.where(asleep, R.asleep_need_rate, 1.0) * awake_rate
    hunger, hungry = _tick(players.hunger, rate, R.hunger_threshold)
    thirst, thirsty = _tick(players.thirst, rate, R.thirst_threshold)
    fatigue_awake, tired = _tick(players.fatigue, awake_rate, R.fatigue_threshold)
    live = ~on_boss
    return {
        "hunger": hunger,
        "thirst": thirst,
        "fatigue_awake": fatigue_awake,
        "food": players.food - (hungry & live),
        "drink": players.drink - (thirsty & live),
        "energy_awake": players.energy - (tired & live),
    }


def _sleep_fatigue(players: Players, near_shelter: jax.Array) -> tuple[jax.Array, jax.Array]:
    """Asleep: fatigue falls (faster beside a shelter); below -10 it restores one energy."""
    fatigue = jnp.minimum(players.fatigue - jnp.where(near_shelter, R.shelter_factor, 1.0), 0.0)
    rested = fatigue < R.sleep_restore_threshold
    return jnp.where(rested, 0.0, fatigue), players.energy + rested


def _regeneration(
    players: Players, needs_met: jax.Array, near_shelter: jax.Array, on_boss: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """Health: +2 after the recover counter passes 25 (needs met), -1 below -15 (unmet)."""
    asleep = players.sleeping
    gain = jnp.where(asleep, R.asleep_recover_gain, 1.0)
    gain = gain * jnp.where(near_shelter, R.shelter_factor, 1.0)
    loss = jnp.where(on_boss, 0.0, jnp.where(asleep, R.asleep_recover_loss, 1.0))
    recover = players.recover + jnp.where(needs_met, gain, -loss)
    healed = recover > R.recover_heal_threshold
    hurt = recover < R.recover_hurt_threshold
    health = players.health + R.heal_amount * healed - 1.0 * hurt
    return jnp.where(healed | hurt, 0.0, recover), health


def update_intrinsics(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """One step of waking, needs, regeneration and mana, for alive players
    (docs/rules/survival.md#needs-and-regeneration).

    The order is measured on the published package (docs/decisions.md, "Order within the
    survival update"): a sleeper whose energy was full at the start of the step wakes first and
    takes this step's rates awake; health then reads the needs after this step's decay."""
    players = _wake(state.players, static)
    on_boss = state.world.floor == BOSS_FLOOR
    awake_rate = 1.0 - R.dexterity_decay_step * (players.dexterity - 1)
    near_shelter = adjacent_block(state.world.block, players.pos, Block.EPIC_SHELTER, static)
    needs = _needs(players, awake_rate, on_boss)
    sleep_fatigue, sleep_energy = _sleep_fatigue(players, near_shelter)
    asleep = players.sleeping
    fatigue = jnp.where(asleep, sleep_fatigue, needs["fatigue_awake"])
    energy = jnp.where(asleep, sleep_energy, needs["energy_awake"])
    needs_met = (needs["food"] > 0) & (needs["drink"] > 0) & ((energy > 0) | asleep)
    # Health and its counter skip players whose health already dropped to <= 0 this step.
    recover, health = _regeneration(players, needs_met, near_shelter, on_boss)
    still_up = players.health > 0
    recover = jnp.where(still_up, recover, players.recover)
    health = jnp.where(still_up, health, players.health)
    mana_rate = jnp.where(asleep, R.asleep_mana_rate, 1.0)
    mana_rate = mana_rate * (1.0 + R.intelligence_mana_step * (players.intelligence - 1))
    mana_recover, mana_up = _tick(players.mana_recover, mana_rate, R.mana_threshold)
    updated = dataclasses.replace(
        players,
        hunger=needs["hunger"],
        thirst=needs["thirst"],
        fatigue=fatigue,
        food=needs["food"],
        drink=needs["drink"],
        energy=energy,
        recover=recover,
        health=health,
        mana_recover=mana_recover,
        mana=players.mana + mana_up,
    )
    alive = players.alive
    players = jax.tree.map(
        lambda new, old: jnp.where(alive.reshape(alive.shape + (1,) * (new.ndim - 1)), new, old),
        updated,
        players,
    )
    return dataclasses.replace(state, players=_stop_resting(players, static))


def _wake(players: Players, static: StaticParams) -> Players:
    """Sleepers that start the step at full energy wake (WAKE_UP). Their action this step was
    already NOOP (they were asleep when actions were read); they act again next step."""
    caps = capacities(players, static)
    woke = players.sleeping & (players.energy >= caps["energy"])
    achievements = raise_flags(players.achievements, Achievement.WAKE_UP, woke)
    return dataclasses.replace(
        players, sleeping=players.sleeping & ~woke, achievements=achievements
    )


def _stop_resting(players: Players, static: StaticParams) -> Players:
    """Rest ends at full health or when food or drink has run out."""
    caps = capacities(players, static)
    rest_over = (players.health >= caps["health"]) | (players.food <= 0) | (players.drink <= 0)
    return dataclasses.replace(players, resting=players.resting & ~rest_over)


def clamp_intrinsics(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Clamp inventory to ``MAX_INVENTORY`` and intrinsics to [0, max]; god mode keeps health
    at ``GOD_MODE_MIN_HEALTH`` or more."""
    players = state.players
    caps = capacities(players, static)
    health = jnp.clip(players.health, 0.0, caps["health"])
    health = jnp.where(params.god_mode, jnp.maximum(health, GOD_MODE_MIN_HEALTH), health)
    players = dataclasses.replace(
        players,
        health=health,
        food=jnp.clip(players.food, 0, caps["food"]),
        drink=jnp.clip(players.drink, 0, caps["drink"]),
        energy=jnp.clip(players.energy, 0, caps["energy"]),
        mana=jnp.clip(players.mana, 0, caps["mana"]),
        inventory=jnp.clip(players.inventory, 0, MAX_INVENTORY),
    )
    return dataclasses.replace(state, players=players)
