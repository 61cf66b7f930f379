"""The drills' knobs: each drill's settings as a frozen record that checks itself.

``StaticParams`` holds a drill's knobs as sorted (name, value) pairs, so a reset stays a pure
function of (key, params, static); constructing a ``StaticParams`` checks them here. This module
reads only rule tables, so the params can check a layout without building any world (the worlds
are in ``worlds.py``). ``static`` below is a ``StaticParams``, duck-typed: the params module
imports this one.
"""

from __future__ import annotations

import dataclasses
from typing import Any

import numpy as np

from alem_core.rules.survival_tables import INTRINSICS, STARTING

ROOM = 7
"""Side of the floor area of the sync drills."""
TICKS_PER_ENERGY = 1 - int(INTRINSICS.sleep_restore_threshold)
"""Steps of sleep that restore one energy: asleep, fatigue falls by 1 a step from 0 and one
energy comes back when it passes ``sleep_restore_threshold`` (-10), i.e. every 11 steps."""


def _check_int(layout: str, name: str, value: Any, lo: int, hi: int) -> None:
    if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or not lo <= value <= hi:
        raise ValueError(f"{layout}: knob {name} must be an int in [{lo}, {hi}], got {value!r}")


@dataclasses.dataclass(frozen=True)
class SyncKnobs:
    """``t1_sync``: ``sync_agents`` = m agents needed on the block, 2 <= m <= min(P, 4) (a
    block has four neighbours), in a ``room`` x ``room`` floor (odd, 3..9; 7 by default, as
    docs/training.md#objectives T1's 7 x 7 - 9 x 9; smaller rooms make a random team's success
    likely enough for an outcome-only signal to exist). With ``start_adjacent`` = 1 the agents start
    on distinct cells beside the block (P <= 4), still with random facing, so an episode tests
    only the turn-and-act-together part of the task."""

    sync_agents: int = 2
    room: int = ROOM
    start_adjacent: int = 0

    def check(self, layout: str, static: Any) -> None:
        if static.player_count < 2:
            raise ValueError(f"{layout}: needs at least 2 players, got {static.player_count}")
        _check_int(layout, "sync_agents", self.sync_agents, 2, min(static.player_count, 4))
        _check_int(layout, "room", self.room, 3, min(static.map_size) - 3)
        _check_int(layout, "start_adjacent", self.start_adjacent, 0, 1)
        if self.start_adjacent and static.player_count > 4:
            raise ValueError(f"{layout}: start_adjacent needs P <= 4, got {static.player_count}")
        if self.room % 2 == 0 or static.player_count >= self.room**2:
            raise ValueError(
                f"{layout}: knob room must be odd with room**2 > players ({static.player_count}),"
                f" got {self.room!r}"
            )

    def rewarded(self) -> tuple[str, ...]:
        """The generic hard sync achievement of the block's requirement
        (docs/rules/coordination.md#synchronous-mining)."""
        return ("COORD_2_AGENTS_HARD",) if self.sync_agents == 2 else ("COORD_3_AGENTS_HARD",)

    def param_overrides(self) -> dict[str, object]:
        return {}


@dataclasses.dataclass(frozen=True)
class BusyKnobs(SyncKnobs):
    """``t2_busy``: ``t1_sync``'s knob, plus each agent asleep at reset w.p. ``busy_prob`` for a
    uniform number of steps in [1, ``max_busy``] (at most 9 x 11 = 99: the energy a starting
    agent can lack, times the steps one energy takes)."""

    busy_prob: float = 0.5
    max_busy: int = 16

    def check(self, layout: str, static: Any) -> None:
        super().check(layout, static)
        p = self.busy_prob
        if isinstance(p, bool) or not isinstance(p, (int, float)) or not 0.0 <= p <= 1.0:
            raise ValueError(f"{layout}: knob busy_prob must be a number in [0, 1], got {p!r}")
        cap = INTRINSICS.base_needs + INTRINSICS.needs_per_dexterity * STARTING.attribute
        _check_int(layout, "max_busy", self.max_busy, 1, cap * TICKS_PER_ENERGY)


@dataclasses.dataclass(frozen=True)
class ChainKnobs:
    """``t3_chain``: handover ``window`` W in [1, 24] steps (docs/rules/coordination.md#handovers);
    the chain length is the team size, 2 <= P <= 8."""

    window: int = 8

    def check(self, layout: str, static: Any) -> None:
        _check_int(layout, "window", self.window, 1, 24)
        p = static.player_count
        if not 2 <= p <= 8:
            raise ValueError(f"{layout}: the chain length is the team size, 2..8; got P = {p}")
        if static.max_pending_handovers < 1:
            raise ValueError(f"{layout}: needs max_pending_handovers >= 1")
        if static.map_size[1] < p + 2:
            raise ValueError(f"{layout}: map_size {static.map_size} too narrow for P = {p}")

    def rewarded(self) -> tuple[str, ...]:
        """Both achievements a completed link grants its completer
        (docs/rules/coordination.md#handovers)."""
        return ("HANDOVER_COMPLETE", "COORD_MINE_HANDOVER")

    def param_overrides(self) -> dict[str, object]:
        # The windows the params describe match the map's (the observation bounds read them).
        return {"handover_window_min": self.window, "handover_window_max": self.window}


KNOBS: dict[str, type] = {"t1_sync": SyncKnobs, "t2_busy": BusyKnobs, "t3_chain": ChainKnobs}
"""Every drill's knob record by ``StaticParams.layout`` name."""


def drill_knobs(static: Any) -> Any:
    """The checked knobs of ``static``'s drill (ValueError naming a bad layout, knob or value)."""
    layout = static.layout
    if not isinstance(layout, str) or layout not in KNOBS:
        raise ValueError(f"StaticParams.layout must be one of {('game', *KNOBS)}, got {layout!r}")
    if static.num_levels != 1:
        raise ValueError(f"{layout}: drills have one floor; got num_levels={static.num_levels}")
    kind = KNOBS[layout]
    try:
        given = dict(static.layout_knobs)
    except (TypeError, ValueError):
        raise ValueError(
            f"{layout}: layout_knobs must be (name, value) pairs, got {static.layout_knobs!r}"
        ) from None
    names = [f.name for f in dataclasses.fields(kind)]
    unknown = sorted(set(given) - set(names))
    if unknown:
        raise ValueError(f"{layout}: unknown knob(s) {unknown}; known: {names}")
    knobs = kind(**given)
    knobs.check(layout, static)
    return knobs


def knob_pairs(knobs: Any) -> tuple[tuple[str, int | float], ...]:
    """Every knob as sorted (name, value) pairs, values in their field's type (``1`` -> ``1.0``
    for a probability), so equal drills give equal (hash-equal) ``StaticParams``."""
    return tuple(
        sorted((f.name, type(f.default)(getattr(knobs, f.name))) for f in dataclasses.fields(knobs))
    )


__all__ = [
    "KNOBS",
    "ROOM",
    "TICKS_PER_ENERGY",
    "BusyKnobs",
    "ChainKnobs",
    "SyncKnobs",
    "drill_knobs",
    "knob_pairs",
]
