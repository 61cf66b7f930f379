"""Static (shape) and dynamic (gameplay) parameters, and the difficulty presets
(docs/rules/world.md#parameters to docs/rules/difficulty.md#the-presets).

``StaticParams`` fixes array shapes: it is hashable, validated in plain Python, and passed to jitted
functions as a static argument. ``Params`` is a pytree of scalars: every field may be traced, so
one compiled step serves any difficulty, and params can be vmapped for domain randomisation.
"""

from __future__ import annotations

import dataclasses
import math
from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any

import jax
import numpy as np

from alem_core.constants import Achievement, action_count


@dataclass(frozen=True)
class StaticParams:
    """Shape-determining settings; changing one recompiles.

    Attributes:
        map_size: (rows, cols) of every floor.
        num_levels: floors kept in the state, all generated at reset (docs/rules/world.md).
        player_count: number of agents P.
        max_melee_mobs / max_passive_mobs / max_ranged_mobs: mob slots per player per floor.
        max_mob_projectiles / max_player_projectiles: projectile slots per player per floor.
        max_growing_plants: plant slots per player (global).
        max_pending_handovers: rows of the pending-handover table.
        max_construction_sites: construction-site slots per floor.
        num_comm_channels: one-hot comm channels per agent (0 = no comm actions).
        layout: which reset builds the world: "game" (the full game) or a coordination drill
            ("t1_sync", "t2_busy", "t3_chain"; ``alem_core.drills``,
            docs/coordination-gap.md#tasks).
        layout_knobs: the drill's settings as sorted (name, value) pairs (a mapping is
            accepted); checked against the drill's knob table. Empty for "game".
        rewarded_achievements: None: every achievement pays its tier weight and the health term
            is paid (docs/rules/rewards.md#per-step-reward). A tuple of achievement names
            (``Achievement`` members): only those pay, and the health term is dropped (a pure sparse
            team reward).
    """

    map_size: tuple[int, int] = (48, 48)
    num_levels: int = 9
    player_count: int = 3
    max_melee_mobs: int = 3
    max_passive_mobs: int = 3
    max_ranged_mobs: int = 2
    max_mob_projectiles: int = 3
    max_player_projectiles: int = 3
    max_growing_plants: int = 10
    max_pending_handovers: int = 8
    max_construction_sites: int = 12
    num_comm_channels: int = 0
    layout: str = "game"
    layout_knobs: tuple[tuple[str, int | float], ...] = ()
    rewarded_achievements: tuple[str, ...] | None = None

    def __post_init__(self) -> None:
        rows_cols = tuple(self.map_size)
        if len(rows_cols) != 2 or not all(isinstance(v, int) for v in rows_cols):
            raise ValueError(f"StaticParams.map_size must be two ints, got {self.map_size!r}")
        object.__setattr__(self, "map_size", rows_cols)
        if min(rows_cols) < 12:
            raise ValueError(f"StaticParams.map_size must be at least 12 x 12, got {rows_cols}")
        checks = {
            "num_levels": (1, 9),
            "player_count": (1, 16),
            "max_melee_mobs": (0, 16),
            "max_passive_mobs": (0, 16),
            "max_ranged_mobs": (0, 16),
            "max_mob_projectiles": (0, 16),
            "max_player_projectiles": (0, 16),
            "max_growing_plants": (0, 64),
            "max_pending_handovers": (0, 64),
            "max_construction_sites": (0, 64),
            "num_comm_channels": (0, 32),
        }
        for name, (lo, hi) in checks.items():
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or not lo <= value <= hi:
                raise ValueError(
                    f"StaticParams.{name} must be an int in [{lo}, {hi}], got {value!r}"
                )
        self._check_rewarded()
        self._check_layout()

    def _check_rewarded(self) -> None:
        names = self.rewarded_achievements
        if names is None:
            return
        if isinstance(names, str) or not isinstance(names, (tuple, list)):
            raise ValueError(
                "StaticParams.rewarded_achievements must be None or a tuple of achievement "
                f"names, got {names!r}"
            )
        for name in names:
            if not isinstance(name, str) or name not in Achievement.__members__:
                raise ValueError(
                    f"StaticParams.rewarded_achievements: unknown achievement {name!r} "
                    "(names as in alem_core.Achievement, e.g. 'COORD_2_AGENTS_HARD')"
                )
        object.__setattr__(self, "rewarded_achievements", tuple(names))

    def _check_layout(self) -> None:
        knobs = self.layout_knobs
        if isinstance(knobs, Mapping):
            knobs = tuple(sorted(knobs.items()))
            object.__setattr__(self, "layout_knobs", knobs)
        if self.layout == "game":
            if knobs:
                raise ValueError(f"StaticParams.layout_knobs must be empty for 'game', got {knobs}")
            return
        # Imported here, not at the top: importing ``alem_core.drills.knobs`` first runs
        # ``alem_core/drills/__init__.py``, whose ``drill_setup`` builds on this module.
        from alem_core.drills.knobs import drill_knobs, knob_pairs

        # Raises ValueError naming a bad layout, knob or value; stores the full knob set.
        object.__setattr__(self, "layout_knobs", knob_pairs(drill_knobs(self)))

    @property
    def num_actions(self) -> int:
        """Per-agent action count: 55 + max(0, P - 2) + num_comm_channels."""
        return action_count(self.player_count, self.num_comm_channels)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Params:
    """Gameplay parameters (docs/rules/difficulty.md#every-parameter). Every field is a traced
    scalar leaf.

    Defaults are the raw environment defaults; ``make_params(difficulty)`` applies a preset.
    Booleans are honoured with ``jnp.where`` inside the systems, never with a Python ``if``.
    """

    max_timesteps: int = 100000
    day_length: int = 300
    mob_despawn_distance: int = 14
    max_attribute: int = 5
    god_mode: bool = False
    shared_reward: bool = True
    friendly_fire: bool = True
    soft_specialization: bool = False
    specialist_efficiency: float = 1.0
    non_specialist_efficiency: float = 0.2
    coordination_enabled: bool = False
    coordination_probability: float = 0.25
    handover_ratio: float = 0.15
    soft_coordination_ratio: float = 0.5
    handover_window_min: int = 10
    handover_window_max: int = 20
    p_max_agents: float = 0.5
    soft_solo_fail_prob: float = 0.0
    elite_mob_probability: float = 0.15
    large_passive_probability: float = 0.20
    hard_mob_probability: float = 0.0
    construction_enabled: bool = False
    num_construction_sites: int = 8
    num_mining_construction_sites: int = 4
    soft_construction_ratio: float = 0.5
    crafting_coordination_enabled: bool = False
    diamond_crafting_agents_required: int = 2
    scale_base_difficulty: bool = False
    mob_health_multiplier: float = 1.0
    starting_resource_multiplier: float = 1.0
    randomize_alpha: bool = False
    alpha_min: float = 0.2
    alpha_max: float = 0.85
    alpha: float = field(default=0.0)
    """The α the execution parameters were derived from (0 for "none"); reported in info."""

    def as_arrays(self) -> Params:
        """The same params as numpy scalars of fixed dtypes (bool, int32, float32 by field).

        Passing these to a jitted function never retraces, whatever Python types the values
        had (``1`` vs ``1.0``), and they pack into fixed buffers (``alem_pz.envs.packing``).
        """
        values: dict[str, Any] = {}
        for f in dataclasses.fields(self):
            dtype = {bool: np.bool_, int: np.int32, float: np.float32}[type(f.default)]
            values[f.name] = np.asarray(getattr(self, f.name), dtype)
        return dataclasses.replace(self, **values)

    def replace(self, **changes: Any) -> Params:
        """Return a copy with ``changes`` applied; unknown names raise a clear error."""
        unknown = set(changes) - {f.name for f in dataclasses.fields(self)}
        if unknown:
            raise ValueError(f"unknown Params field(s): {sorted(unknown)}")
        return dataclasses.replace(self, **changes)


PRESET_ALPHA = {"easy": 0.3, "medium": 0.6, "hard": 0.9}

# The evaluation protocol's gameplay settings (individual rewards, soft roles): what every face
# evaluates under and the trainers train under. Here, so a trainer needs no adapter to read them.
PROTOCOL_PARAMS = {"shared_reward": False, "soft_specialization": True}


def _opportunity_overrides() -> dict[str, object]:
    """Identical for every α above "none": how many tasks exist
    (docs/rules/difficulty.md#the-presets)."""
    return dict(
        coordination_enabled=True,
        coordination_probability=0.25,
        soft_coordination_ratio=0.5,
        handover_ratio=0.25,
        hard_mob_probability=0.5,
        elite_mob_probability=0.15,
        large_passive_probability=0.20,
        construction_enabled=True,
        num_construction_sites=8,
        num_mining_construction_sites=4,
        soft_construction_ratio=0.5,
        crafting_coordination_enabled=True,
        diamond_crafting_agents_required=2,
        soft_specialization=True,
    )


ALPHA_WINDOW_FLOOR = {"handover_window_min": (3, 12), "handover_window_max": (6, 24)}
"""Handover window bounds: max(floor, ceil(scale x (1 - α))) steps
(docs/rules/difficulty.md#the-presets)."""


def alpha_derived(alpha: Any, xp: Any = np) -> dict[str, Any]:
    """Every execution parameter derived from α, rounded to 4 decimals
    (docs/rules/difficulty.md#the-presets table).

    The one place these formulas live: ``xp`` is numpy for the presets (plain Python values
    after ``alpha_overrides``) or ``jax.numpy`` for a randomised α inside jit (``difficulty``).
    The last two entries apply only with ``scale_base_difficulty``.
    """

    def round4(x: Any) -> Any:
        return xp.round(x * 1e4) / 1e4

    values = {
        "alpha": round4(alpha),
        "p_max_agents": round4(alpha),
        "soft_solo_fail_prob": round4(alpha),
        "non_specialist_efficiency": round4(1 - alpha),
    }
    for name, (lowest, scale) in ALPHA_WINDOW_FLOOR.items():
        values[name] = xp.maximum(lowest, xp.ceil(round4(scale * (1 - alpha)))).astype(xp.int32)
    values["mob_health_multiplier"] = round4(1 + alpha / 3)
    values["starting_resource_multiplier"] = round4(1 - alpha / 3)
    return values


SCALED_BY_ALPHA = ("mob_health_multiplier", "starting_resource_multiplier")
"""α-derived values that apply only with ``scale_base_difficulty``."""


def alpha_overrides(alpha: float, scale_base_difficulty: bool = False) -> dict[str, object]:
    """Execution parameters derived from a fixed α, as plain Python values (presets)."""
    derived = alpha_derived(np.float64(alpha))
    values: dict[str, object] = {
        name: value.item() for name, value in derived.items() if name not in SCALED_BY_ALPHA
    }
    if scale_base_difficulty:
        values["scale_base_difficulty"] = True
        values.update({name: derived[name].item() for name in SCALED_BY_ALPHA})
    return values


def _none_overrides() -> dict[str, object]:
    return dict(
        coordination_enabled=False,
        construction_enabled=False,
        crafting_coordination_enabled=False,
        coordination_probability=0.0,
        handover_ratio=0.0,
        hard_mob_probability=0.0,
        p_max_agents=0.0,
        soft_solo_fail_prob=0.0,
        elite_mob_probability=0.0,
        large_passive_probability=0.0,
        num_construction_sites=0,
        num_mining_construction_sites=0,
        handover_window_min=10,
        handover_window_max=20,
        soft_coordination_ratio=0.5,
        soft_construction_ratio=0.5,
        diamond_crafting_agents_required=2,
        alpha=0.0,
    )


def parse_difficulty(difficulty: str | float | int) -> float | None:
    """Map "none" | "easy" | "medium" | "hard" | α in [0, 1] to α (None for "none")."""
    value: float | None = None
    if isinstance(difficulty, str):
        name = difficulty.strip().lower()
        if name == "none":
            return None
        if name in PRESET_ALPHA:
            return PRESET_ALPHA[name]
        try:
            value = float(name)
        except ValueError:
            value = None
    elif isinstance(difficulty, (int, float)) and not isinstance(difficulty, bool):
        value = float(difficulty)
    if value is None or math.isnan(value) or not 0.0 <= value <= 1.0:
        raise ValueError(
            "difficulty must be 'none', 'easy', 'medium', 'hard' or a number α in [0, 1], "
            f"got {difficulty!r}"
        )
    return value


def make_params(
    difficulty: str | float = "medium", scale_base_difficulty: bool = False, **overrides: object
) -> Params:
    """Build ``Params`` for a difficulty preset, then apply ``overrides``.

    Args:
        difficulty: "none", "easy", "medium", "hard" (case-insensitive) or α in [0, 1].
        scale_base_difficulty: also derive mob health and starting resources from α.
        **overrides: any ``Params`` field; unknown names or wrongly typed values raise.

    Returns:
        A validated ``Params``.
    """
    alpha = parse_difficulty(difficulty)
    values: dict[str, object] = {}
    if alpha is None:
        values.update(_none_overrides())
    else:
        values.update(_opportunity_overrides())
        values.update(alpha_overrides(alpha, scale_base_difficulty))
    values.update(overrides)
    params = Params().replace(**values)
    validate_params(params)
    return params


def validate_params(params: Params) -> None:
    """Check types and ranges in plain Python, before any tracing (clear errors, no clamps)."""
    for f in dataclasses.fields(params):
        value = getattr(params, f.name)
        default = f.default
        if isinstance(value, jax.Array):
            continue  # a batch of params for vmap: checked by whoever built it
        if isinstance(default, bool):
            if not isinstance(value, bool):
                raise ValueError(f"Params.{f.name} must be a bool, got {value!r}")
        elif isinstance(default, int):
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ValueError(f"Params.{f.name} must be a non-negative int, got {value!r}")
        elif isinstance(value, bool) or not isinstance(value, (int, float)) or math.isnan(value):
            raise ValueError(f"Params.{f.name} must be a number, got {value!r}")
    probabilities = (
        "specialist_efficiency",
        "non_specialist_efficiency",
        "coordination_probability",
        "handover_ratio",
        "soft_coordination_ratio",
        "p_max_agents",
        "soft_solo_fail_prob",
        "elite_mob_probability",
        "large_passive_probability",
        "hard_mob_probability",
        "soft_construction_ratio",
        "alpha_min",
        "alpha_max",
        "alpha",
    )
    for name in probabilities:
        value = getattr(params, name)
        if not isinstance(value, jax.Array) and not 0.0 <= value <= 1.0:
            raise ValueError(f"Params.{name} must lie in [0, 1], got {value!r}")
    if not isinstance(params.max_timesteps, jax.Array) and params.max_timesteps < 1:
        raise ValueError(f"Params.max_timesteps must be >= 1, got {params.max_timesteps!r}")
    if not isinstance(params.day_length, jax.Array) and params.day_length < 1:
        raise ValueError(f"Params.day_length must be >= 1, got {params.day_length!r}")
