"""The episode score (docs/rules/score.md, docs/evaluation.md#metrics): one function for every
interface.

``score(state, static, done)`` reads only the final state, so the RL evaluator, the PettingZoo
adapter and the text track report the same numbers for the same episode. Every value is a (P,)
float32 array: per-agent keys (``Achievements/<name>``) hold one value per agent, all others
are broadcast (as in the published benchmark), and everything is multiplied by ``done``.
Flatten a key to one number per episode by averaging over agents (docs/evaluation.md#metrics).

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
  4 ``mob_combat``, 5 ``friendly_fire`` (0 alive). The cause is filed by
  docs/rules/survival.md#death-and-revival's windows: health lost in the Do phase -> friendly fire,
  lost from the Do phase to the end of mob spawning -> mob combat (so a need tick on the step of a
  mob hit is still mob combat), else the first unmet need. ``Deaths/<cause>_count`` use the same
  names.
* ``Team/specialization_ratio`` = aligned / (aligned + cross-role), ``Team/mean_<attribute>``.
* ``Achievements/<NAME>``: 100 x unlocked, per agent.
* ``Cooperation/*`` (team totals and rates per 100 actionable agent-steps), ``Progression/*``
  (with ``Progression/won``: 1 when the episode ended with the boss's defeat, and
  ``Progression/boss_progress``), ``Deaths/*``, ``Coordination/*`` and
  ``Team/soft_coordination_bonus_rate`` (``coordination_metrics``).

Eligibility and category tables: ``score_tables.py``; the ``Coordination/*`` section:
``score_coordination.py``.
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
from alem_core.scoring.score_coordination import coordination_metrics
from alem_core.scoring.score_tables import (
    ACHIEVEMENT_NAMES,
    ATTRIBUTES,
    COORD_CATEGORIES,
    DEATH_CAUSES,
    ENTER_FLOOR,
    HEADLINE_KEYS,
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
    """Counts and plain / reward-weighted fractions of unlock vectors, every group at once.

    Args:
        has: (..., 93) bool, what each agent (or the team) unlocked.
        static: decides eligibility (``score_tables.eligible``).

    Returns:
        Unprefixed keys (``achievement_pct``, ``total_achievements``, ``reward_pct_of_max``, ...)
        to (...) float32. A group with no eligible member (coordination with P = 1) reads 0.
    """
    groups = _groups(static)
    masks = np.stack([mask for *_, mask in groups], axis=1).astype(np.float32)  # (93, G)
    weights = WEIGHT[:, None] * masks
    has = has.astype(jnp.float32)
    counts = has @ jnp.asarray(masks)
    weighted = has @ jnp.asarray(weights, jnp.float32)
    sizes = np.maximum(masks.sum(axis=0), 1.0)
    totals = np.maximum(weights.sum(axis=0), 1.0)
    out = {}
    for g, (pct, count, reward, _) in enumerate(groups):
        out[count] = counts[..., g]
        out[pct] = counts[..., g] / float(sizes[g])
        out[reward] = weighted[..., g] / float(totals[g])
    return out


def role_metrics(unlocked: jax.Array, static: StaticParams) -> tuple[dict, dict]:
    """Role-aligned vs cross-role counts: ``(team scalars, per-agent (P,) arrays)``.

    Reads ``unlocked`` (P, 93) bool; agent i's role is ``ROLE_OF_INDEX[i % 3]``.
    """
    own, cross = role_aligned_matrix(static)
    has = unlocked.astype(jnp.float32)
    aligned = (has * jnp.asarray(own, jnp.float32)).sum(axis=1)
    crossed = (has * jnp.asarray(cross, jnp.float32)).sum(axis=1)
    ok = eligible(static)
    by_role = np.stack([ROLE_ALIGNED[role] * ok for role in Role], axis=1).astype(np.float32)
    counts = has @ jnp.asarray(by_role)  # (P, roles)
    agent = {"role_aligned_achievements": aligned, "cross_role_achievements": crossed}
    for r, role in enumerate(Role):
        agent[f"{role.name.lower()}_aligned_achievements"] = counts[:, r]
    total = aligned.sum() + crossed.sum()
    team = {
        "Team/role_aligned_achievements": aligned.sum(),
        "Team/cross_role_achievements": crossed.sum(),
        "Team/specialization_ratio": jnp.where(total > 0, aligned.sum() / total, 0.0),
    }
    return team, agent


def agent_columns(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """Every per-agent value as a (P,) array, unprefixed (``AgentK/<name>`` in the score):
    achievement fractions, attributes, inventory, death, kills, cooperation (role counts:
    ``role_metrics``)."""
    pl, stats = state.players, state.stats
    out = achievement_fractions(pl.achievements, static)
    out.update({name: getattr(pl, name) for name in ATTRIBUTES})
    out.update({f"inventory_{item}": pl.inventory[:, c] for c, item in enumerate(INVENTORY)})
    out.update(alive=pl.alive, death_cause=pl.death_cause, level_at_death=pl.death_floor)
    for code, cause in enumerate(DEATH_CAUSES, start=1):
        out[f"died_from_{cause}"] = pl.death_cause == code
    out.update(monsters_killed=stats.monsters_killed, damage_taken=stats.damage_taken)
    out.update(cooperation_metrics(state))
    return out


def team_columns(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """Every team value as a scalar, by its full key (role counts: ``role_metrics``)."""
    fractions = achievement_fractions(state.players.achievements.any(axis=0), static)
    out = {f"Team/{k}": v for k, v in fractions.items()}
    for name in ATTRIBUTES:
        out[f"Team/mean_{name}"] = getattr(state.players, name).astype(jnp.float32).mean()
    out.update(cooperation_summary(state))
    out.update(progression_and_deaths(state, static))
    out.update(coordination_metrics(state, static))
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
    current one. Kill counts subtract the overworld's 10 pre-counted kills (docs/rules/score.md),
    the current-floor count too when the team is on the overworld (measured on the published
    benchmark: 13 kills on floor 0 report 3; docs/decisions.md). ``won`` is 1 once the boss is
    defeated (the episode's win, docs/rules/rewards.md#termination-and-truncation),
    ``boss_progress`` the hits it took. Deaths count agents dead at the end (a revive clears the
    cause).
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


def _columns(state: State, static: StaticParams) -> tuple[jax.Array, tuple[str, ...]]:
    """(P, K) float32 values and their names, in construction order: team scalars broadcast to
    every agent, then ``AgentK/*`` (agent K's value, broadcast), then ``Achievements/*`` (each
    agent its own)."""
    p = static.player_count
    team_roles, agent_roles = role_metrics(state.players.achievements, static)
    team = team_columns(state, static) | team_roles
    agent = agent_columns(state, static) | agent_roles
    team_row = jnp.stack([jnp.asarray(v, jnp.float32) for v in team.values()])
    per_agent = jnp.stack([jnp.asarray(v, jnp.float32) for v in agent.values()], axis=1)
    unlocked = 100.0 * state.players.achievements.astype(jnp.float32)
    values = jnp.concatenate(
        [
            jnp.broadcast_to(team_row, (p, team_row.size)),
            jnp.broadcast_to(per_agent.reshape(1, -1), (p, per_agent.size)),
            unlocked,
        ],
        axis=1,
    )
    names = (
        *team,
        *(f"Agent{k}/{name}" for k in range(p) for name in agent),
        *(f"Achievements/{name}" for name in ACHIEVEMENT_NAMES),
    )
    return values, names


def score_table(state: State, static: StaticParams, done: jax.Array | bool = True) -> jax.Array:
    """Every score key (module docstring) of every agent as one (P, K) float32 table, times
    ``done``; column k is ``score_keys(static)[k]``. Pure jnp, one dense table: no Python loop
    over keys reaches the compiled program, so it compiles in about the time of a few ops.

    Args:
        state: the final state of an episode (any state works; metrics are "so far").
        static: shapes; the key set depends on it only (static under ``jit``).
        done: scalar; 0 / False zeroes every value (metrics count at the terminal step only).
    """
    values, names = _columns(state, static)
    order = np.argsort(np.array(names), kind="stable")
    return values[:, order] * jnp.asarray(done, jnp.float32)


def score(
    state: State, static: StaticParams, done: jax.Array | bool = True
) -> dict[str, jax.Array]:
    """``score_table`` as a dict: key -> (P,) float32 (column views of the one table)."""
    return score_columns(score_table(state, static, done), static)


def score_columns(table, static: StaticParams) -> dict:
    """The one named view of a score table, ``{key: table[..., k]}`` in ``score_keys`` order,
    for any leading axes (P; N, P; a team mean) and for JAX or numpy tables."""
    return {key: table[..., k] for k, key in enumerate(score_keys(static))}


@functools.cache
def score_keys(static: StaticParams) -> tuple[str, ...]:
    """The column names of ``score_table`` for ``static``, sorted. Traces shapes only."""
    # Imported here: api imports the pipeline, which must not depend on the score.
    from alem_core.api import reset
    from alem_core.params import make_params

    params = make_params("medium").as_arrays()
    state = jax.eval_shape(lambda k: reset(k, params, static)[1], jax.random.key(0))
    names: list[tuple[str, ...]] = []
    jax.eval_shape(lambda s: names.append(_columns(s, static)[1]), state)
    return tuple(sorted(names[0]))


__all__ = ["HEADLINE_KEYS", "score", "score_columns", "score_keys", "score_table"]
