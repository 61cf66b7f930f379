"""Rule tables of survival (docs/rules/world.md#initial-state, docs/rules/survival.md#capacities to
docs/rules/survival.md#needs-and-regeneration): capacities, hidden counters, starting values.

Read by ``systems/intrinsics.py`` and ``initial.py``; the system prompt reads them too.
"""

from __future__ import annotations

from typing import NamedTuple


class IntrinsicRules(NamedTuple):
    """The numbers of docs/rules/survival.md (capacities, hidden counters and their thresholds)."""

    hunger_threshold: float = 25.0
    thirst_threshold: float = 20.0
    fatigue_threshold: float = 30.0
    sleep_restore_threshold: float = -10.0  # asleep fatigue below this: +1 energy
    recover_heal_threshold: float = 25.0  # needs met: +heal_amount health
    recover_hurt_threshold: float = -15.0  # needs unmet: -1 health
    mana_threshold: float = 30.0
    asleep_need_rate: float = 0.5  # hunger and thirst grow at half rate asleep
    asleep_recover_gain: float = 2.0
    asleep_recover_loss: float = 0.5
    asleep_mana_rate: float = 2.0
    shelter_factor: float = 1.5  # beside an Epic Shelter: recover gain and sleep fatigue
    heal_amount: float = 2.0
    dexterity_decay_step: float = 0.125  # rate coefficient c = 1 - 0.125 (dex - 1)
    intelligence_mana_step: float = 0.25  # mana regen x (1 + 0.25 (int - 1))
    base_health: float = 8.0  # max health = 8 + strength
    base_needs: int = 7  # max food, drink, energy = 7 + 2 dex
    needs_per_dexterity: int = 2
    base_mana: int = 6  # max mana = 6 + 3 int
    mana_per_intelligence: int = 3


INTRINSICS = IntrinsicRules()


class StartingValues(NamedTuple):
    """The step-0 player (docs/rules/world.md#initial-state); food, drink and energy are x the
    resource multiplier."""

    health: float = 9.0
    needs: int = 9
    mana: int = 9
    attribute: int = 1
    facing: int = 3  # north


STARTING = StartingValues()
GOD_MODE_MIN_HEALTH = 9.0
