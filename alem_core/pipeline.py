"""The transition: docs/rules/step.md#the-pipeline's system order as one declared pipeline.

Every stage is a system ``fn(state, actions, draws, params, static) -> state`` (``System``);
``draws`` holds all of the step's uniforms, drawn once (``alem_core/draws.py``), and each system
reads its own blocks of it; the deterministic ones ignore it. The order is the contract:
* crafting, the Do phase and placing see the positions agents stood on at the start of the step
  (movement comes after them), so an agent crafts at the table it stands beside;
* the Do phase resolves attacks on mobs before blocks, so a Do on a mob never mines under it;
* mobs act after players have moved, then spawn away from the new positions;
* intrinsics run after combat, and inventory achievements after everything that changes items;
* a hit on the boss lands at the end of the Do phase (after attacks on mobs), its wave timer
  counts down at the boss stage (docs/rules/step.md#the-pipeline stage 13), and its defeat ends the
  episode as a win.
The floor change comes first (docs/rules/world.md#ladders-and-floor-changes), so everything else
acts on the new floor.

``transition`` builds no observation: ``alem_core.api`` composes it with ``observe`` into
``step``, and the batch observes once per call, after swapping in the worlds that reset. No
auto-reset here: batching wrappers decide when to reset (docs/development.md#code-style, decision
2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from alem_core.constants import Action
from alem_core.draws import DrawBlock, Draws, draw_blocks, merge_blocks
from alem_core.observation.masking import acting
from alem_core.params import Params, StaticParams
from alem_core.rules.difficulty import episode_params
from alem_core.rules.reward import reward_parts
from alem_core.scoring.metrics import cooperation_metrics
from alem_core.state import State
from alem_core.systems import (
    chests,
    crafting,
    enchanting,
    interaction,
    mining_tasks,
    mobs,
    placement,
    spawning,
)
from alem_core.systems.achievements import inventory_achievements
from alem_core.systems.attack import attack_mobs
from alem_core.systems.attributes import level_up
from alem_core.systems.boss import boss_bookkeeping, boss_defeated, hit_boss
from alem_core.systems.chests import open_chests
from alem_core.systems.communication import send_messages
from alem_core.systems.construction import build
from alem_core.systems.consumables import drink_potions, read_books
from alem_core.systems.crafting import craft
from alem_core.systems.enchanting import enchant
from alem_core.systems.floors import change_floor
from alem_core.systems.handovers import expire_mining_handovers
from alem_core.systems.interaction import interact_blocks
from alem_core.systems.intrinsics import clamp_intrinsics, start_sleep_and_rest, update_intrinsics
from alem_core.systems.launching import launch
from alem_core.systems.lifecycle import end_step
from alem_core.systems.mining_tasks import gate_mining
from alem_core.systems.mobs import update_mobs
from alem_core.systems.movement import move_players
from alem_core.systems.placement import place_blocks, place_torches_and_plants
from alem_core.systems.plants import grow_plants
from alem_core.systems.spawning import spawn_mobs
from alem_core.systems.teammates import act_on_teammates
from alem_core.systems.trading import trade


def do_phase(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """docs/rules/step.md#the-pipeline step 5: handover expiry, coordination gates, attacks,
    teammates, blocks, then chest loot (its own shared draws and CHEST_LOOT gate draws). One
    forager-gate draw per agent serves every gated Do this step (docs/rules/roles.md)."""
    forager_u = draws["do_gate"]
    with jax.named_scope("handovers"):  # each part named in profiles and kernel counts
        state = expire_mining_handovers(state)
    with jax.named_scope("gates"):
        state, gate = gate_mining(state, actions, draws, params, static)
    with jax.named_scope("attack"):
        state = attack_mobs(state, actions, forager_u, params, static)
    with jax.named_scope("teammates"):
        state = act_on_teammates(state, actions, params, static)
    with jax.named_scope("blocks"):
        state = interact_blocks(state, actions, forager_u, draws["sapling"], params, static, *gate)
    with jax.named_scope("chests"):
        state = open_chests(state, actions, draws, params, static)
    with jax.named_scope("boss"):
        return hit_boss(state, actions, static)


def placing(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Blocks (gated, one draw per agent), then torches and plants."""
    state = place_blocks(state, actions, draws["placing_gate"], params, static)
    return place_torches_and_plants(state, actions, static)


System = Callable[[State, jax.Array, Draws, Params, StaticParams], State]
"""``fn(state, actions, draws, params, static) -> state``: every stage of the pipeline."""


class Stage(NamedTuple):
    """One stage: its name (named scope in profiles, health snapshots) and its system."""

    name: str
    fn: System


PIPELINE: tuple[Stage, ...] = tuple(
    Stage(name, fn)
    for name, fn in (
        ("floor_change", change_floor),
        ("crafting", craft),
        ("do_phase", do_phase),
        ("placing", placing),
        ("construction", build),
        ("launching", launch),
        ("potions", drink_potions),
        ("books", read_books),
        ("enchanting", enchant),
        ("boss", boss_bookkeeping),
        ("level_up", level_up),
        ("trading", trade),
        ("communication", send_messages),
        ("sleep_and_rest", start_sleep_and_rest),
        ("movement", move_players),
        ("mobs", update_mobs),
        ("spawning", spawn_mobs),
        ("plants", grow_plants),
        ("intrinsics", update_intrinsics),
        ("clamp", clamp_intrinsics),
        ("achievements", inventory_achievements),
    )
)
"""The stages in order."""


DRAW_BLOCKS: dict[str, DrawBlock] = merge_blocks(
    crafting.DRAWS,
    interaction.DRAWS,  # the Do phase
    mining_tasks.DRAWS,
    chests.DRAWS,
    placement.DRAWS,
    enchanting.DRAWS,
    mobs.DRAWS,
    spawning.DRAWS,
)
"""Every block of a step's one draw (``alem_core/draws.py``), gathered from the systems that
read them, in stage order."""


def step_draws(key: jax.Array, static: StaticParams) -> Draws:
    """All of a step's uniforms from ``key``, cut into ``DRAW_BLOCKS`` (what every stage gets;
    a test that runs one system alone passes the same)."""
    return draw_blocks(key, DRAW_BLOCKS, static)


def effective_actions(state: State, actions: jax.Array, static: StaticParams) -> jax.Array:
    """Dead, sleeping or resting agents act as NOOP; ids outside the space also become NOOP
    (the adapters reject them with a clear error before they get here)."""
    actions = jnp.asarray(actions, jnp.int32)
    valid = (actions >= 0) & (actions < static.num_actions)
    return jnp.where(valid & acting(state), actions, Action.NOOP)


def _count_steps(state: State) -> State:
    players, stats = state.players, state.stats
    actionable = acting(state)
    stats = dataclasses.replace(
        stats,
        alive_steps=stats.alive_steps + players.alive,
        actionable_steps=stats.actionable_steps + actionable,
    )
    return dataclasses.replace(state, stats=stats)


def transition(
    key: jax.Array, state: State, actions: jax.Array, params: Params, static: StaticParams
) -> tuple[State, jax.Array, jax.Array, jax.Array, dict[str, jax.Array]]:
    """Advance the world one step for all agents at once; no observation is built.

    Args:
        key: PRNG key for this step: all of its uniforms are drawn from it in one call
            (``draw_blocks``), cut into the blocks of ``DRAW_BLOCKS``.
        state: the current state.
        actions: (P,) int action ids.
        params: gameplay parameters.
        static: shapes (static under ``jit``).

    Returns:
        ``(state, reward (P,) float32, terminated (P,) bool, truncated (P,) bool, info)``;
        ``info["cooperation"]`` holds the running cooperation metrics (``scoring/metrics.py``)
        and ``info["won"]`` () bool says the boss is defeated (the episode ends as a win).
        ``terminated`` is set when every player is dead or the boss is defeated
        (docs/rules/rewards.md#termination-and-truncation).
    """
    before = state
    params = episode_params(params, state.alpha)  # randomised α drives the step too
    actions = effective_actions(state, actions, static)
    state = _count_steps(state)
    draws = step_draws(key, static)
    health = {}
    for stage in PIPELINE:
        with jax.named_scope(stage.name):  # names each stage's ops in profiles
            state = stage.fn(state, actions, draws, params, static)
        health[stage.name] = state.players.health
    parts = reward_parts(before, state, params, static)
    state = end_step(
        state, before.players.health, health["do_phase"], health["spawning"], params, static
    )
    won = boss_defeated(state)
    terminated = jnp.broadcast_to(~state.players.alive.any() | won, (static.player_count,))
    truncated = jnp.broadcast_to(state.timestep >= params.max_timesteps, (static.player_count,))
    info = {
        "alive": state.players.alive,
        "reward_parts": parts,
        "achievements": state.players.achievements,
        "timestep": state.timestep,
        "alpha": state.alpha,
        "won": won,
        "cooperation": cooperation_metrics(state),
    }
    return state, parts["reward"], terminated, truncated, info
