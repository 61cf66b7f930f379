"""The system prompt is generated from the rule tables and params, so it follows any change."""

from __future__ import annotations

import re

import pytest

import alem_core
from alem_core.constants import Inv
from alem_core.rules.tables import RECIPE_COST, SLEEP_DAMAGE_MULTIPLIER
from alem_core.systems.handovers import STRUCTURE_COST
from alem_pz.text.disclosure import disclosed
from alem_pz.text.history import HistoryConfig
from alem_pz.text.prompt import system_prompt

STATIC = alem_core.StaticParams()


def _prompt(params=None, **kw):
    return system_prompt(1, params or alem_core.make_params("medium"), STATIC, **kw)


def test_params_in_force_are_stated():
    for difficulty, chance in (("easy", "0.70"), ("medium", "0.40"), ("hard", "0.10")):
        text = _prompt(alem_core.make_params(difficulty))
        assert f"other roles with probability {chance}" in text  # decision 1
    changed = alem_core.make_params(
        "medium",
        non_specialist_efficiency=0.33,
        handover_window_min=4,
        handover_window_max=11,
        diamond_crafting_agents_required=3,
    )
    text = _prompt(changed)
    assert "other roles with probability 0.33" in text
    assert "(4 to 11 steps)" in text and "need 3 agents crafting" in text
    assert _prompt() != text


def test_tables_drive_the_numbers(monkeypatch):
    assert f"takes {SLEEP_DAMAGE_MULTIPLIER:g}x melee damage" in _prompt()
    assert "- Build Shelter: 10 wood, 5 stone" in _prompt()
    shelter, pickaxe = STRUCTURE_COST.copy(), RECIPE_COST.copy()
    try:  # the very arrays the step reads, edited in place
        STRUCTURE_COST[0, Inv.WOOD] = 12
        RECIPE_COST[0, Inv.WOOD] = 2  # wood pickaxe
        text = _prompt()
    finally:
        STRUCTURE_COST[:], RECIPE_COST[:] = shelter, pickaxe
    assert "- Build Shelter: 12 wood, 5 stone" in text
    assert "- Make Wood Pickaxe: 2 wood [table]" in text
    monkeypatch.setattr("alem_pz.text.prompt.SLEEP_DAMAGE_MULTIPLIER", 4.25)
    assert "takes 4.25x melee damage" in _prompt()


def test_progressive_disclosure_and_modes():
    params = alem_core.make_params("medium")
    assert [len(disclosed(f, True)) for f in (0, 1, 3, 5)] == [54, 72, 84, 93]
    assert len(disclosed(0, False)) == 31
    assert "Enter Dungeon" in _prompt() and "Enter Gnomish Mines" not in _prompt()
    assert "Enter Gnomish Mines" in _prompt(floor=1)
    assert "Coordination:" not in _prompt(mode="specific")
    assert "<game_rules>" not in _prompt(mode="general") and "<all_actions>" in _prompt(
        mode="general"
    )
    none = system_prompt(0, alem_core.make_params("none"), STATIC)
    assert "Coord " not in none and "Coordination:" not in none
    with pytest.raises(ValueError, match="prompt mode"):
        _prompt(mode="chatty")
    with pytest.raises(ValueError, match="agent 5"):
        system_prompt(5, params, STATIC)
    assert "<think>" not in _prompt(history=HistoryConfig(reasoning=True))


def test_no_stray_numbers_of_the_published_prompt():
    text = _prompt(alem_core.make_params("hard"))
    for wrong in ("2.5x", "10/40/70", "forced sleep", "+50%", "0.20"):
        assert wrong not in text
    assert re.search(r"Agent 1 \(forager\) in a 3-agent", text)
