"""The step: GAME.md §5.1's system order as one declared pipeline.

Every stage is ``fn(state, actions, key, params, static) -> state``; ``key`` is ``None`` for the
deterministic ones. The order is the contract:
* crafting, the Do phase and placing see the positions agents stood on at the start of the step
  (movement comes after them), so an agent crafts at the table it stands beside;
* the Do phase resolves attacks on mobs before blocks, so a Do on a mob never mines under it;
* mobs act after players have moved, then spawn away from the new positions;
* intrinsics run after combat, and inventory achievements after everything that changes items;
* a hit on the boss lands at the end of the Do phase (after attacks on mobs), its wave timer
  counts down at the boss stage (§5.1 stage 13), and its defeat ends the episode as a win.
The floor change comes first (§1.7), so everything else acts on the new floor.

No auto-reset here: batching wrappers decide when to reset (STYLE.md §6, decision 2).
"""

from __future__ import annotations

import dataclasses
from collections.abc import Callable
from typing import NamedTuple

import jax
import jax.numpy as jnp

from alem_core.constants import Action
from alem_core.difficulty import episode_params
from alem_core.masking import acting, action_mask
from alem_core.metrics import cooperation_metrics
from alem_core.observation import observe
from alem_core.params import Params, StaticParams
from alem_core.reward import reward_parts
from alem_core.specialisation import gate_draws
from alem_core.state import State
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


def _crafting(state, actions, key, params, static):
    return craft(state, actions, gate_draws(key, static), params, static)


def _do_phase(state, actions, key, params, static):
    # GAME.md §5.1 step 5: handover expiry, coordination gates, attacks, teammates, blocks,
    # then chest loot (its own shared draws and CHEST_LOOT gate draws).
    # One forager-gate draw per agent serves every gated Do this step (§5.4).
    gate_key, sapling_key, solo_key, chest_key = jax.random.split(key, 4)
    forager_u = gate_draws(gate_key, static)
    state = expire_mining_handovers(state)
    state, gate = gate_mining(state, actions, solo_key, params, static)
    state = attack_mobs(state, actions, forager_u, params, static)
    state = act_on_teammates(state, actions, params, static)
    state = interact_blocks(state, actions, forager_u, sapling_key, params, static, *gate)
    state = open_chests(state, actions, chest_key, params, static)
    return hit_boss(state, actions, static)


def _placing(state, actions, key, params, static):
    state = place_blocks(state, actions, gate_draws(key, static), params, static)
    return place_torches_and_plants(state, actions, static)


class Stage(NamedTuple):
    """One system in the pipeline."""

    name: str
    fn: Callable[..., State]
    needs_key: bool


PIPELINE: tuple[Stage, ...] = (
    Stage("floor_change", lambda s, a, k, p, st: change_floor(s, a, p, st), False),
    Stage("crafting", _crafting, True),
    Stage("do_phase", _do_phase, True),
    Stage("placing", _placing, True),
    Stage("construction", lambda s, a, k, p, st: build(s, a, st), False),
    Stage("launching", lambda s, a, k, p, st: launch(s, a, st), False),
    Stage("potions", lambda s, a, k, p, st: drink_potions(s, a), False),
    Stage("books", lambda s, a, k, p, st: read_books(s, a), False),
    Stage("enchanting", lambda s, a, k, p, st: enchant(s, a, k, p, st), True),
    Stage("boss", lambda s, a, k, p, st: boss_bookkeeping(s), False),
    Stage("level_up", lambda s, a, k, p, st: level_up(s, a, p, st), False),
    Stage("trading", lambda s, a, k, p, st: trade(s, a, st), False),
    Stage("communication", lambda s, a, k, p, st: send_messages(s, a, p, st), False),
    Stage("sleep_and_rest", lambda s, a, k, p, st: start_sleep_and_rest(s, a, st), False),
    Stage("movement", lambda s, a, k, p, st: move_players(s, a, p, st), False),
    Stage("mobs", lambda s, a, k, p, st: update_mobs(k, s, p, st), True),
    Stage("spawning", lambda s, a, k, p, st: spawn_mobs(k, s, p, st), True),
    Stage("plants", lambda s, a, k, p, st: grow_plants(s, p, st), False),
    Stage("intrinsics", lambda s, a, k, p, st: update_intrinsics(s, p, st), False),
    Stage("clamp", lambda s, a, k, p, st: clamp_intrinsics(s, p, st), False),
    Stage("achievements", lambda s, a, k, p, st: inventory_achievements(s, p, st), False),
)


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


def step(
    key: jax.Array, state: State, actions: jax.Array, params: Params, static: StaticParams
) -> tuple[jax.Array, State, jax.Array, jax.Array, jax.Array, dict[str, jax.Array]]:
    """Advance the world one step for all agents at once.

    Args:
        key: PRNG key for this step.
        state: the current state.
        actions: (P,) int action ids.
        params: gameplay parameters.
        static: shapes (static under ``jit``).

    Returns:
        ``(obs (P, D) float32, state, reward (P,) float32, terminated (P,) bool,
        truncated (P,) bool, info)``; ``info["action_mask"]`` is (P, A) bool,
        ``info["cooperation"]`` the running cooperation metrics (``metrics.py``) and
        ``info["won"]`` () bool the boss is defeated (the episode ends as a win).
        ``terminated`` is set when every player is dead or the boss is defeated (GAME.md §7.2).
    """
    before = state
    params = episode_params(params, state.alpha)  # randomised α drives the step too
    actions = effective_actions(state, actions, static)
    state = _count_steps(state)
    keys = dict(zip([s.name for s in PIPELINE], jax.random.split(key, len(PIPELINE)), strict=True))
    health = {}
    for stage in PIPELINE:
        with jax.named_scope(stage.name):  # names each stage's ops in profiles
            state = stage.fn(
                state, actions, keys[stage.name] if stage.needs_key else None, params, static
            )
        health[stage.name] = state.players.health
    parts = reward_parts(before, state, params, static)
    state = end_step(
        state, before.players.health, health["do_phase"], health["spawning"], params, static
    )
    won = boss_defeated(state)
    terminated = jnp.broadcast_to(~state.players.alive.any() | won, (static.player_count,))
    truncated = jnp.broadcast_to(state.timestep >= params.max_timesteps, (static.player_count,))
    info = {
        "action_mask": action_mask(state, params, static),
        "alive": state.players.alive,
        "reward_parts": parts,
        "achievements": state.players.achievements,
        "timestep": state.timestep,
        "alpha": state.alpha,
        "won": won,
        "cooperation": cooperation_metrics(state),
    }
    with jax.named_scope("observation"):
        obs = observe(state, params, static)
    return obs, state, parts["reward"], terminated, truncated, info
