"""Coordination drills T1-T3 (docs/coordination-gap.md#tasks) as alem worlds: matching static and
params.

Usage::

    static, params = alem_core.drills.drill_setup("t1_sync", players=3, sync_agents=2)
    obs, state = alem_core.reset(key, params, static)      # or BatchRunner / alem_pz

The worlds and knobs are described in ``alem_core/drills/worlds.py``. Every drill is a 12 x 12,
one-floor world without mobs, projectiles, plants or construction sites, stepped by the core's
unchanged ``step``. Its reward is a pure sparse team reward: ``shared_reward`` on, only the
drill's coordination achievements pay (``StaticParams.rewarded_achievements``), no health term.
Friendly fire is off (a Do aimed at a teammate is not a learning signal here) and the
coordination flags are on; the difficulty preset is "none" (α = 0), so nothing else is rolled.
"""

from __future__ import annotations

import dataclasses

from alem_core.drills.knobs import drill_knobs
from alem_core.drills.worlds import DRILLS
from alem_core.params import Params, StaticParams, make_params

DRILL_SHAPES: dict[str, int | tuple[int, int]] = {
    "map_size": (12, 12),
    "num_levels": 1,
    "max_melee_mobs": 0,
    "max_passive_mobs": 0,
    "max_ranged_mobs": 0,
    "max_mob_projectiles": 0,
    "max_player_projectiles": 0,
    "max_growing_plants": 0,
    "max_construction_sites": 0,
}
"""The ``StaticParams`` of every drill besides team size, layout and rewarded achievements."""

DRILL_PARAMS: dict[str, object] = {
    "shared_reward": True,
    "friendly_fire": False,
    "coordination_enabled": True,
}
"""``make_params("none", ...)`` overrides common to every drill."""

DEFAULT_HORIZON = 64


def drill_setup(
    name: str, players: int | None = None, horizon: int = DEFAULT_HORIZON, **knobs: object
) -> tuple[StaticParams, Params]:
    """``(static, params)`` of drill ``name`` for a team of ``players``.

    Args:
        name: "t1_sync", "t2_busy" or "t3_chain".
        players: team size P (default: 2 for t1_sync, 4 for t2_busy, 3 for t3_chain, whose
            chain length is P).
        horizon: ``Params.max_timesteps`` (the episode is truncated after it).
        **knobs: the drill's knobs: t1_sync ``sync_agents``; t2_busy ``sync_agents``,
            ``busy_prob``, ``max_busy`` (<= horizon // 2, so every sleeper is up by
            mid-episode); t3_chain ``window``.

    Raises:
        ValueError: naming an unknown drill, knob or a bad value.
    """
    if not isinstance(name, str) or name not in DRILLS:
        raise ValueError(f"unknown drill {name!r}; known: {sorted(DRILLS)}")
    players = DRILLS[name].default_players if players is None else players
    if isinstance(horizon, bool) or not isinstance(horizon, int) or horizon < 1:
        raise ValueError(f"{name}: horizon must be a positive int, got {horizon!r}")
    static = StaticParams(**DRILL_SHAPES, player_count=players, layout=name, layout_knobs=knobs)
    checked = drill_knobs(static)
    if 2 * getattr(checked, "max_busy", 0) > horizon:
        raise ValueError(
            f"{name}: max_busy={checked.max_busy} must be at most horizon // 2 = {horizon // 2}"
        )
    static = dataclasses.replace(static, rewarded_achievements=checked.rewarded())
    params = make_params("none", max_timesteps=horizon, **DRILL_PARAMS, **checked.param_overrides())
    return static, params


def drill_names() -> tuple[str, ...]:
    """Every drill's name."""
    return tuple(DRILLS)


__all__ = ["DEFAULT_HORIZON", "DRILL_PARAMS", "DRILL_SHAPES", "drill_names", "drill_setup"]
