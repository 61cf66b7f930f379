"""The episode score (GAME.md §9, TEXT_AND_EVAL.md §4.3): one function for every interface.

``score(state, static, done)`` reads only the final state, so the RL evaluator, the PettingZoo
adapter and the text track report the same numbers for the same episode. Every value is a (P,)
float32 array: per-agent keys (``Achievements/<name>``) hold one value per agent, all others
are broadcast (as in the published benchmark), and everything is multiplied by ``done``.
Flatten a key to one number per episode by averaging over agents (TEXT_AND_EVAL.md §4.3).

Keys (``K`` = agent index from 0, ``<cat>`` in soft, sync_hard, handover, construction, hard):

* ``Team/achievement_pct``, ``Team/normal_achievement_pct``,
  ``Team/coordination_achievement_pct``, ``Team/<cat>_coordination_achievement_pct``: fractions
  in [0, 1] of the eligible achievements unlocked by at least one agent;
  ``Team/total_achievements``, ``Team/normal_achievements``, ``Team/coordination_achievements``,
  ``Team/<cat>_coordination_achievements``: the counts.
* ``Team/reward_pct_of_max`` (Total%, / 376), ``Team/normal_reward_pct_of_max`` (Base%, / 217),
  ``Team/coord_reward_pct_of_max`` (Coord.%, / 159), ``Team/<cat>_coord_reward_pct_of_max``:
  reward-weighted fractions (denominators = the weights of the eligible set).
* ``AgentK/...``: the same for agent K alone, plus ``role_aligned_achievements``,
  ``cross_role_achievements``, ``{forager,warrior,miner}_aligned_achievements``, attributes,
  ``inventory_<item>``, ``alive``, ``death_cause`` (code), ``died_from_<cause>``,
  ``level_at_death`` (the floor of the agent's death, -1 while alive), ``monsters_killed``,
  ``damage_taken`` and the cooperation counters of ``metrics.py``.
  Death causes follow the published benchmark in names and numbering (measured as a black box,
  docs/decisions.md): codes 1 ``starvation``, 2 ``dehydration``, 3 ``exhaustion``,
  4 ``mob_combat``, 5 ``friendly_fire`` (0 alive). The cause is filed by GAME.md §3.6's windows:
  health lost in the Do phase -> friendly fire, lost from the Do phase to the end of mob
  spawning -> mob combat (so a need tick on the step of a mob hit is still mob combat), else the
  first unmet need. ``Deaths/<cause>_count`` use the same names.
* ``Team/specialization_ratio`` = aligned / (aligned + cross-role), ``Team/mean_<attribute>``.
* ``Achievements/<NAME>``: 100 x unlocked, per agent.
* ``Cooperation/*`` (team totals and rates per 100 actionable agent-steps), ``Progression/*``
  (with ``Progression/won``: 1 when the episode ended with the boss's defeat, and
  ``Progression/boss_progress``), ``Deaths/*``, ``Coordination/*`` and
  ``Team/soft_coordination_bonus_rate`` (``coordination_metrics``).

Eligibility and category tables: ``score_tables.py``.
"""

from __future__ import annotations

import functools

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Role
from alem_core.params import StaticParams
from alem_core.rules.tables import OVERWORLD_INITIAL_KILLS
from alem_core.scoring.metrics import cooperation_metrics
from alem_core.scoring.score_tables import (
    ACHIEVEMENT_NAMES,
    ATTRIBUTES,
    COORD_CATEGORIES,
    DEATH_CAUSES,
    ENTER_FLOOR,
    INVENTORY,
    IS_COORD,
    IS_NORMAL,
    ROLE_ALIGNED,
    WEIGHT,
    eligible,
    role_aligned_matrix,
)
from alem_core.state import State
from alem_core.systems.boss import boss_defeated

HEADLINE_KEYS = (
    "Team/achievement_pct",
    "Team/normal_achievement_pct",
    "Team/coordination_achievement_pct",
    "Team/normal_reward_pct_of_max",
    "Team/coord_reward_pct_of_max",
    "Team/reward_pct_of_max",
)
"""The protocol's headline numbers: achievement pcts, then Base%, Coord.%, Total%."""


def _groups(static: StaticParams) -> list[tuple[str, str, str, np.ndarray]]:
    """(pct key, count key, weighted key, eligible mask) for every achievement group."""
    ok = eligible(static)
    groups = [
        ("achievement_pct", "total_achievements", "reward_pct_of_max", ok),
        (
            "normal_achievement_pct",
            "normal_achievements",
            "normal_reward_pct_of_max",
            ok & IS_NORMAL,
        ),
        (
            "coordination_achievement_pct",
            "coordination_achievements",
            "coord_reward_pct_of_max",
            ok & IS_COORD,
        ),
    ]
    for cat, mask in COORD_CATEGORIES.items():
        names = (
            f"{cat}_coordination_achievement_pct",
            f"{cat}_coordination_achievements",
            f"{cat}_coord_reward_pct_of_max",
        )
        groups.append((*names, ok & mask))
    return groups


def achievement_fractions(has: jax.Array, static: StaticParams) -> dict[str, jax.Array]:
    """Counts and plain / reward-weighted fractions of one unlock vector.

    Args:
        has: (93,) bool, what one agent (or the team) unlocked.
        static: decides eligibility (``score_tables.eligible``).

    Returns:
        Unprefixed keys (``achievement_pct``, ``total_achievements``, ``reward_pct_of_max``, ...)
        to () float32. A group with no eligible member (coordination with P = 1) reads 0.
    """
    has = has.astype(jnp.float32)
    out = {}
    for pct, count, weighted, mask in _groups(static):
        n = has @ jnp.asarray(mask, jnp.float32)
        w = has @ jnp.asarray(WEIGHT * mask, jnp.float32)
        out[count] = n
        out[pct] = n / max(int(mask.sum()), 1)
        out[weighted] = w / max(float((WEIGHT * mask).sum()), 1.0)
    return out


def role_metrics(unlocked: jax.Array, static: StaticParams) -> dict[str, jax.Array]:
    """Role-aligned vs cross-role counts per agent and ``Team/specialization_ratio``.

    Reads ``unlocked`` (P, 93) bool; agent i's role is ``ROLE_OF_INDEX[i % 3]``.
    """
    own, cross = role_aligned_matrix(static)
    has = unlocked.astype(jnp.float32)
    aligned = (has * jnp.asarray(own, jnp.float32)).sum(axis=1)
    crossed = (has * jnp.asarray(cross, jnp.float32)).sum(axis=1)
    ok = jnp.asarray(eligible(static), jnp.float32)
    out = {}
    for k in range(static.player_count):
        out[f"Agent{k}/role_aligned_achievements"] = aligned[k]
        out[f"Agent{k}/cross_role_achievements"] = crossed[k]
        for role in Role:
            count = has[k] @ (jnp.asarray(ROLE_ALIGNED[role], jnp.float32) * ok)
            out[f"Agent{k}/{role.name.lower()}_aligned_achievements"] = count
    total = aligned.sum() + crossed.sum()
    out["Team/role_aligned_achievements"] = aligned.sum()
    out["Team/cross_role_achievements"] = crossed.sum()
    out["Team/specialization_ratio"] = jnp.where(total > 0, aligned.sum() / total, 0.0)
    return out


def achievement_metrics(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """Team and per-agent achievement keys (``Team/*``, ``AgentK/*``, ``Achievements/*``)."""
    unlocked = state.players.achievements
    out = {f"Team/{k}": v for k, v in achievement_fractions(unlocked.any(axis=0), static).items()}
    for k in range(static.player_count):
        fractions = achievement_fractions(unlocked[k], static)
        out.update({f"Agent{k}/{name}": v for name, v in fractions.items()})
    out.update(role_metrics(unlocked, static))
    # Per agent (P,), not broadcast: the flattened value is the per-agent unlock rate.
    out.update(
        {
            f"Achievements/{name}": 100.0 * unlocked[:, i].astype(jnp.float32)
            for i, name in enumerate(ACHIEVEMENT_NAMES)
        }
    )
    return out


def agent_metrics(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """End-of-episode attributes, inventory, deaths and counters per agent (``AgentK/*``),
    and ``Team/mean_<attribute>``."""
    pl, stats = state.players, state.stats
    coop = cooperation_metrics(state)
    out = {}
    for name in ATTRIBUTES:
        value = getattr(pl, name).astype(jnp.float32)
        out[f"Team/mean_{name}"] = value.mean()
        out.update({f"Agent{k}/{name}": value[k] for k in range(static.player_count)})
    for k in range(static.player_count):
        agent = f"Agent{k}/"
        for column, item in enumerate(INVENTORY):
            out[f"{agent}inventory_{item}"] = pl.inventory[k, column]
        out[f"{agent}alive"] = pl.alive[k]
        out[f"{agent}death_cause"] = pl.death_cause[k]
        out[f"{agent}level_at_death"] = pl.death_floor[k]
        for code, cause in enumerate(DEATH_CAUSES, start=1):
            out[f"{agent}died_from_{cause}"] = pl.death_cause[k] == code
        out[f"{agent}monsters_killed"] = stats.monsters_killed[k]
        out[f"{agent}damage_taken"] = stats.damage_taken[k]
        out.update({f"{agent}{name}": value[k] for name, value in coop.items()})
    return out


def cooperation_summary(state: State) -> dict[str, jax.Array]:
    """Team totals of the cooperation counters (``Cooperation/*``), from ``metrics.py``.

    Rates are per 100 actionable agent-steps (0 before any); ``give_success_rate`` is the
    team's successful gives / GIVE actions.
    """
    c = {name: value.sum() for name, value in cooperation_metrics(state).items()}
    per_100 = 100.0 / jnp.maximum(c["actionable_steps"], 1.0)
    return {
        "Cooperation/trade_count": c["trades"],
        "Cooperation/food_trades": c["food_trades"],
        "Cooperation/drink_trades": c["drink_trades"],
        "Cooperation/resource_trades": c["resource_trades"],
        "Cooperation/give_attempts": c["give_attempts"],
        "Cooperation/give_success_rate": c["trades"] / jnp.maximum(c["give_attempts"], 1.0),
        "Cooperation/requests_made": c["requests"],
        "Cooperation/requests_expired": c["request_expiries"],
        "Cooperation/units_received": c["received"],
        "Cooperation/open_requests": c["open_request"],
        "Cooperation/revives": c["revives"],
        "Cooperation/friendly_fire_damage": c["friendly_fire_damage"],
        "Cooperation/comm_count": c["comms"],
        "Cooperation/alive_agent_steps": c["alive_steps"],
        "Cooperation/actionable_agent_steps": c["actionable_steps"],
        "Cooperation/trades_per_100_steps": c["trades"] * per_100,
        "Cooperation/gives_per_100_steps": c["give_attempts"] * per_100,
        "Cooperation/requests_per_100_steps": c["requests"] * per_100,
        "Cooperation/revives_per_100_steps": c["revives"] * per_100,
        "Cooperation/comms_per_100_steps": c["comms"] * per_100,
    }


def progression_and_deaths(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """``Progression/*`` and ``Deaths/*``.

    ``max_level_reached`` is the deepest floor any agent entered (ENTER_* achievements) or the
    current one. Kill counts subtract the overworld's 10 pre-counted kills (GAME.md §9), the
    current-floor count too when the team is on the overworld (measured on the published
    benchmark: 13 kills on floor 0 report 3; docs/decisions.md). ``won`` is 1 once the boss is
    defeated (the episode's win, GAME.md §7.2), ``boss_progress`` the hits it took. Deaths count
    agents dead at the end (a revive clears the cause).
    """
    world, cause = state.world, state.players.death_cause
    entered = state.players.achievements.any(axis=0)
    deepest = world.floor
    for floor, ach in ENTER_FLOOR.items():
        if floor < static.num_levels:
            deepest = jnp.maximum(deepest, jnp.where(entered[ach], floor, 0))
    out = {
        "Progression/player_level": world.floor,
        "Progression/max_level_reached": deepest,
        "Progression/total_monsters_killed": world.kills.sum() - OVERWORLD_INITIAL_KILLS,
        "Progression/current_level_monsters_killed": world.kills[world.floor]
        - jnp.where(world.floor == 0, OVERWORLD_INITIAL_KILLS, 0),
        "Progression/won": boss_defeated(state),
        "Progression/boss_progress": world.boss_progress,
        "Deaths/total_deaths": (cause > 0).sum(),
    }
    for code, name in enumerate(DEATH_CAUSES, start=1):
        out[f"Deaths/{name}_count"] = (cause == code).sum()
    return out


def _rate(successes: jax.Array, attempts: jax.Array) -> jax.Array:
    """successes / attempts, 0 when nothing was attempted."""
    return successes / jnp.maximum(attempts, 1)


def coordination_metrics(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """``Coordination/*`` keys (GAME.md §9 "Coordination", TEXT_AND_EVAL.md §4.3).

    Reads ``state.coordination`` (team counters; event counts are "any agent this step",
    ``builds``, ``elite_kills`` and ``diamond_items`` count things), the open rows of
    ``state.handovers`` and ``state.alpha``. Handover success rates are over resolved ones
    (successes + expiries). ``coordination_success_rate`` = (sync + handover + construction-sync
    + elite + craft successes) / (the same attempts, handovers only when resolved), mining and
    construction handovers both counted. Also ``Team/soft_coordination_bonus_rate``.
    """
    del static
    c, ho = state.coordination, state.handovers
    mining_open = (ho.open & (ho.kind == 0)).sum()
    handover_ok = c.handover_successes + c.build_handover_successes
    handover_resolved = handover_ok + c.handover_expiries + c.build_handover_expiries
    out = {
        "mining_sync_soft": c.sync_soft_successes,
        "mining_sync_hard": c.sync_hard_successes,
        "sync_attempts": c.sync_attempts,
        "sync_successes": c.sync_successes,
        "sync_success_rate": _rate(c.sync_successes, c.sync_attempts),
        "sync_2_agent": c.sync_2_agents,
        "sync_3plus_agent": c.sync_3plus_agents,
        "soft_sync_events": c.soft_sync_events,
        "soft_bonus_events": c.soft_bonus_events,
        "solo_soft_attempts": c.solo_soft_attempts,
        "solo_soft_successes": c.solo_soft_successes,
        "solo_soft_success_rate": _rate(c.solo_soft_successes, c.solo_soft_attempts),
        "mining_handover_setups": c.handover_setups,
        "mining_handover_successes": c.handover_successes,
        "mining_handover_expiries": c.handover_expiries,
        "mining_open_handovers": mining_open,
        "mining_handover_success_rate": _rate(
            c.handover_successes, c.handover_successes + c.handover_expiries
        ),
        "construction_sync_attempts": c.build_sync_attempts,
        "construction_sync_successes": c.build_sync_successes,
        "construction_sync_success_rate": _rate(c.build_sync_successes, c.build_sync_attempts),
        "construction_unfunded_attempts": c.build_unfunded,
        "construction_handover_setups": c.build_handover_setups,
        "construction_handover_successes": c.build_handover_successes,
        "construction_handover_expiries": c.build_handover_expiries,
        "construction_open_handovers": (ho.open & (ho.kind > 0)).sum(),
        "construction_handover_success_rate": _rate(
            c.build_handover_successes, c.build_handover_successes + c.build_handover_expiries
        ),
        "open_handovers": ho.open.sum(),
        "handover_success_rate": _rate(handover_ok, handover_resolved),
        "craft_attempts": c.craft_attempts,
        "craft_successes": c.craft_successes,
        "craft_success_rate": _rate(c.craft_successes, c.craft_attempts),
        "diamond_items_crafted": c.diamond_items,
        "coordination_success_rate": _overall_success_rate(c, handover_ok, handover_resolved),
        "sampled_alpha": state.alpha,
    }
    out.update(_per_class_counts(c))
    result = {f"Coordination/{k}": v for k, v in out.items()}
    result["Team/soft_coordination_bonus_rate"] = _rate(c.soft_bonus_events, c.soft_sync_events)
    return result


def _overall_success_rate(c, handover_ok: jax.Array, handover_resolved: jax.Array) -> jax.Array:
    """(sync + handover + construction-sync + elite + craft successes) / the same attempts."""
    successes = c.sync_successes + handover_ok + c.build_sync_successes
    successes = successes + c.elite_successes.sum() + c.craft_successes
    attempts = c.sync_attempts + handover_resolved + c.build_sync_attempts
    attempts = attempts + c.elite_attempts.sum() + c.craft_attempts
    return _rate(successes, attempts)


def _per_class_counts(c) -> dict[str, jax.Array]:
    """Builds by structure and elite/large counters by class (melee, ranged, passive)."""
    out = {}
    for i, name in enumerate(("shelter", "forge", "beacon")):
        out[f"builds_{name}"] = c.builds[i]
    for i, name in enumerate(("melee", "ranged", "passive")):
        out[f"elite_{name}_attempts"] = c.elite_attempts[i]
        out[f"elite_{name}_successes"] = c.elite_successes[i]
    out["elite_attempts"] = c.elite_attempts.sum()
    out["elite_successes"] = c.elite_successes.sum()
    out["elite_success_rate"] = _rate(c.elite_successes.sum(), c.elite_attempts.sum())
    out["elite_melee_kills"] = c.elite_kills[0]
    out["elite_ranged_kills"] = c.elite_kills[1]
    out["large_passive_kills"] = c.elite_kills[2]
    return out


def score(
    state: State, static: StaticParams, done: jax.Array | bool = True
) -> dict[str, jax.Array]:
    """Every score key (module docstring) as a (P,) float32 array, times ``done``.

    Args:
        state: the final state of an episode (any state works; metrics are "so far").
        static: shapes; the key set depends on it only (static under ``jit``).
        done: scalar; 0 / False zeroes every value (metrics count at the terminal step only).

    Returns:
        Key -> (P,) float32. Pure jnp: jit- and vmap-able.
    """
    parts = {}
    parts.update(achievement_metrics(state, static))
    parts.update(agent_metrics(state, static))
    parts.update(cooperation_summary(state))
    parts.update(progression_and_deaths(state, static))
    parts.update(coordination_metrics(state, static))
    scale = jnp.asarray(done, jnp.float32)
    shape = (static.player_count,)
    return {
        k: jnp.broadcast_to(jnp.asarray(v, jnp.float32), shape) * scale for k, v in parts.items()
    }


@functools.cache
def score_keys(static: StaticParams) -> tuple[str, ...]:
    """The keys ``score`` returns for ``static``, sorted (the order of a dict that went through
    ``jax.jit``). Traces shapes only; nothing is computed."""
    # Imported here: api imports the pipeline, which must not depend on the score.
    from alem_core.api import reset
    from alem_core.params import make_params

    params = make_params("medium").as_arrays()
    state = jax.eval_shape(lambda k: reset(k, params, static)[1], jax.random.key(0))
    return tuple(sorted(jax.eval_shape(lambda s: score(s, static), state)))
