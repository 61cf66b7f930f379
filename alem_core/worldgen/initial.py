"""Initial state of an episode (docs/rules/world.md#initial-state): players, empty mob slots,
plants, counters.

World generation lives in ``worldgen``; this module places the team on the generated world.
"""

from __future__ import annotations

import dataclasses
import math

import jax
import jax.numpy as jnp

from alem_core.constants import MAX_INVENTORY, NUM_ACHIEVEMENTS, NUM_INV, NUM_POTIONS, Inv
from alem_core.draws import DrawBlock, Draws
from alem_core.params import Params, StaticParams
from alem_core.rules.survival_tables import STARTING
from alem_core.state import (
    CoordinationStats,
    Entities,
    Handovers,
    Mobs,
    MobStack,
    Plants,
    Players,
    State,
    Stats,
    World,
    zeros_entities,
)


def spawn_positions(static: StaticParams) -> jax.Array:
    """(P, 2) spawn cells: (c + i div w, c + i mod w), w = ceil(sqrt(P)), c the map centre."""
    rows, cols = static.map_size
    width = math.ceil(math.sqrt(static.player_count))
    return jnp.array(
        [(rows // 2 + i // width, cols // 2 + i % width) for i in range(static.player_count)],
        jnp.int32,
    )


def god_inventory(player_count: int) -> jax.Array:
    """(P, NUM_INV) full inventory of god mode: 99 of everything, tier-4 tools, a bow."""
    full = jnp.full((NUM_INV,), MAX_INVENTORY, jnp.int32)
    full = full.at[Inv.PICKAXE].set(4).at[Inv.SWORD].set(4).at[Inv.BOW].set(1)
    return jnp.broadcast_to(full, (player_count, NUM_INV))


def initial_players(params: Params, static: StaticParams) -> Players:
    """Players on their spawn cells facing north; needs scaled by the resource multiplier."""
    p = static.player_count
    multiplier = jnp.asarray(params.starting_resource_multiplier)
    start = jnp.round(STARTING.needs * multiplier).astype(jnp.int32)
    ints = lambda value: jnp.full((p,), value, jnp.int32)  # noqa: E731
    floats = lambda value: jnp.full((p,), value, jnp.float32)  # noqa: E731
    return Players(
        pos=spawn_positions(static),
        facing=ints(STARTING.facing),
        alive=jnp.ones((p,), bool),
        health=floats(STARTING.health),
        food=jnp.broadcast_to(start, (p,)),
        drink=jnp.broadcast_to(start, (p,)),
        energy=jnp.broadcast_to(start, (p,)),
        mana=ints(STARTING.mana),
        hunger=floats(0.0),
        thirst=floats(0.0),
        fatigue=floats(0.0),
        recover=floats(0.0),
        mana_recover=floats(0.0),
        xp=ints(0),
        dexterity=ints(STARTING.attribute),
        strength=ints(STARTING.attribute),
        intelligence=ints(STARTING.attribute),
        sleeping=jnp.zeros((p,), bool),
        resting=jnp.zeros((p,), bool),
        inventory=jnp.where(params.god_mode, god_inventory(p), 0).astype(jnp.int32),
        armour=jnp.where(params.god_mode, 2, jnp.zeros((p, 4), jnp.int32)),
        armour_enchant=jnp.zeros((p, 4), jnp.int32),
        sword_enchant=ints(0),
        bow_enchant=ints(0),
        spell_learned=jnp.zeros((p,), bool),
        achievements=jnp.zeros((p, NUM_ACHIEVEMENTS), bool),
        request=ints(-1),
        request_timer=ints(0),
        message=jnp.zeros((p, static.num_comm_channels), jnp.float32),
        chest_opened=jnp.zeros((p, static.num_levels), bool),
        death_cause=ints(0),
        death_floor=ints(-1),
    )


def empty_mobs(static: StaticParams) -> Mobs:
    """All mob and projectile slots free; per-player caps times P slots per floor."""
    p, levels = static.player_count, static.num_levels
    return Mobs(
        melee=zeros_entities(levels, slots(static, "melee")),
        passive=zeros_entities(levels, slots(static, "passive")),
        ranged=zeros_entities(levels, slots(static, "ranged")),
        mob_projectiles=zeros_entities(levels, static.max_mob_projectiles * p),
        player_projectiles=zeros_entities(levels, static.max_player_projectiles * p),
    )


def initial_state(
    world: World, mobs: Mobs | None, params: Params, static: StaticParams, alpha: jax.Array
) -> State:
    """Assemble the step-0 state on a generated ``world`` (``mobs`` (L, S, ...) carries
    pre-rolled slots of every floor; the world's floor gets the hot copy)."""
    stack = empty_mobs(static) if mobs is None else mobs
    p = static.player_count
    plants_n = static.max_growing_plants * p
    handovers_n = static.max_pending_handovers
    return State(
        world=world,
        players=initial_players(params, static),
        mobs=stack.on_floor(world.floor),
        mob_floors=MobStack.of(stack),
        plants=Plants(
            pos=jnp.zeros((plants_n, 2), jnp.int32),
            age=jnp.zeros((plants_n,), jnp.int32),
            alive=jnp.zeros((plants_n,), bool),
        ),
        handovers=Handovers(
            pos=jnp.zeros((handovers_n, 2), jnp.int32),
            deadline=jnp.zeros((handovers_n,), jnp.int32),
            initiator=jnp.full((handovers_n,), -1, jnp.int32),
            kind=jnp.zeros((handovers_n,), jnp.int32),
            open=jnp.zeros((handovers_n,), bool),
        ),
        stats=Stats.zeros(p),
        coordination=CoordinationStats.zeros(),
        timestep=jnp.zeros((), jnp.int32),
        alpha=jnp.asarray(alpha, jnp.float32),
    )


def slots(static: StaticParams, name: str) -> int:
    """Slots per floor of a mob class (``"melee"``, ``"passive"``, ``"ranged"``): its per-player
    cap times P."""
    return getattr(static, f"max_{name}_mobs") * static.player_count


SLOT_ROLLS = ("elite", "hard", "needs_all")
"""The uniforms of one pre-rolled mob slot, in block order."""

DRAWS = {
    "potions": DrawBlock(lambda s: (NUM_POTIONS,), "potion permutation: one per colour"),
    **{
        f"{name}_slots": DrawBlock(
            lambda s, name=name: (len(SLOT_ROLLS), slots(s, name)),
            f"{name} slots: per slot and floor, elite (or large), hard, all agents needed",
            per_floor=True,
        )
        for name in ("melee", "passive", "ranged")
    },
}
"""The reset's uniforms these rolls read (``alem_core/draws.py``)."""


def potion_permutation(u: jax.Array) -> jax.Array:
    """(6,) random map potion colour -> effect from six uniforms: each colour's effect is the
    rank of its uniform, a uniformly random permutation (ties have probability 0) without a
    sort."""
    return (u[None, :] < u[:, None]).sum(axis=1).astype(jnp.int32)


def roll_slot_status(
    u: jax.Array,
    entities: Entities,
    base_probability: jax.Array,
    floor_bonus: float,
    params: Params,
    static: StaticParams,
) -> Entities:
    """Pre-roll the elite/large status of every slot on every floor
    (docs/rules/coordination.md#elite-and-large-mobs) from the uniforms ``u`` (L, 3, S) of
    ``SLOT_ROLLS``.

    Elite w.p. ``base_probability + floor_bonus * floor``; hard w.p. ``hard_mob_probability``;
    required attackers P w.p. ``p_max_agents`` else 2 (0 for normal slots). Only rolled with
    coordination on: the coordination-free game has no elite mobs.
    """
    shape = entities.alive.shape
    floors = jnp.arange(shape[0], dtype=jnp.float32)[:, None]
    chance = jnp.clip(base_probability + floor_bonus * floors, 0.0, 1.0)
    elite = (u[:, 0] < chance) & params.coordination_enabled
    hard = elite & (u[:, 1] < params.hard_mob_probability)
    needs_all = u[:, 2] < params.p_max_agents
    # Strong int32: a weak-typed leaf would make states from reset and from elsewhere (packed
    # buffers, hand-built tests) compile the step twice.
    required = jnp.where(elite, jnp.where(needs_all, static.player_count, 2), 0)
    required = required.astype(jnp.int32)
    return dataclasses.replace(entities, elite=elite, hard=hard, required=required)


def rolled_mobs(draws: Draws, params: Params, static: StaticParams) -> Mobs:
    """Empty mob slots whose elite (melee, ranged) and large (passive) status is pre-rolled."""
    mobs = empty_mobs(static)
    elite, large = params.elite_mob_probability, params.large_passive_probability
    rolls = {"melee": (elite, 0.05), "passive": (large, 0.0), "ranged": (elite, 0.05)}
    return dataclasses.replace(
        mobs,
        **{
            name: roll_slot_status(
                draws[f"{name}_slots"], getattr(mobs, name), base, bonus, params, static
            )
            for name, (base, bonus) in rolls.items()
        },
    )
