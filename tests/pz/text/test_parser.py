"""The shared reply parser: canonical names round-trip, strategies, failure handling, fuzzing."""

from __future__ import annotations

import random
import string

import pytest

from alem_core.constants import GIVE_BASE
from alem_pz.text.actions import (
    CANONICAL_NAMES,
    FIXED_NAMES,
    action_id,
    action_text,
    all_names,
)
from alem_pz.text.parser import (
    MAX_MESSAGE_CHARS,
    MAX_NOTE_CHARS,
    parse_action_name,
    parse_reply,
    plan_text,
)


def test_canonical_list_matches_the_spec_table():
    assert len(CANONICAL_NAMES) == 55
    assert FIXED_NAMES[:6] == ("Noop", "Move West", "Move East", "Move North", "Move South", "Do")
    assert FIXED_NAMES[22] == "Make Iron Armour"
    assert FIXED_NAMES[28] == "Drink Potion Red"
    assert FIXED_NAMES[38] == "Level Up Dexterity"
    assert FIXED_NAMES[53] == "Build Beacon"
    assert CANONICAL_NAMES[54] == "Give"


@pytest.mark.parametrize("players", [1, 2, 3, 4])
def test_every_name_maps_back_to_its_id(players):
    for agent in range(players):
        names = all_names(agent, players)
        ids = {action_id(n, agent, players) for n in names}
        assert len(ids) == len(names)
        for i in range(GIVE_BASE + max(0, players - 1)):
            name = action_text(i, agent, players)
            assert action_id(name, agent, players) == i
            for form in (name, f"<action>{name}</action>", f"<action> {name.lower()}. </action>"):
                assert parse_action_name(form) in (name, *CANONICAL_NAMES)
                assert parse_reply(form, agent, players).action == i


def test_give_slots_follow_the_target():
    assert action_id("Give to Agent 1", 0, 3) == 54
    assert action_id("Give to Agent 2", 0, 3) == 55
    assert action_id("Give to Agent 0", 2, 3) == 54
    assert action_id("give teammate_1", 2, 3) == 55
    assert action_id("Give", 1, 3) == 54  # bare Give: the lowest-indexed teammate
    assert action_id("Give to Agent 1", 1, 3) is None  # self
    assert action_id("Give to Agent 7", 1, 3) is None
    assert parse_reply("<action>Give to Agent 1</action>", 1, 3).status == "bad_target"


@pytest.mark.parametrize(
    ("reply", "expected"),
    [
        ("<think>go</think><action>Move East</action>", "Move East"),
        ("<action>\n  'move east'.\n</action>", "Move East"),
        ("<action>Do: mine the stone", "Do"),  # no close tag, colon part
        ("<action>Mvoe Eats</action>", "Move East"),  # fuzzy
        ("I think so.\nACTION: place table", "Place Table"),
        ("Sleep", "Sleep"),
        ("Make Wood Pickaxe: I have wood", "Make Wood Pickaxe"),
        ("Move South <communication>hi</communication>", "Move South"),
        ("Noop\nbecause nothing to do", "Noop"),
        ("I will go east", None),
        ("", None),
        ("<action></action>", None),
    ],
)
def test_strategies(reply, expected):
    assert parse_action_name(reply) == expected


def test_failures_become_noop_with_feedback_and_limits_hold():
    empty = parse_reply("   ", 0, 3)
    assert (empty.action, empty.status) == (0, "empty") and empty.notes
    junk = parse_reply("blah <communication></communication>", 0, 3)
    assert junk.status == "no_action" and junk.action == 0
    assert any("communication" in n for n in junk.notes)
    long = parse_reply(
        "<action>Do</action><communication>" + "m" * 999 + "</communication>"
        "<scratchpad note='x'>" + "n" * 5000,
        0,
        3,
    )
    assert long.ok and len(long.message) == MAX_MESSAGE_CHARS and len(long.note) == MAX_NOTE_CHARS
    assert not parse_reply("<ACTION>Do</ACTION>", 0, 3).ok  # the action tag is case-sensitive


def test_plan_memory_strips_tags_and_drops_bare_actions():
    reply = "<think>wood first</think><action>Do</action><communication>hi</communication>"
    assert plan_text(reply) == "wood first"
    assert plan_text("<action>Do</action>") == ""
    assert plan_text("x", reasoning="from the reasoning field") == "from the reasoning field"


def _adversarial(rng: random.Random) -> str:
    pieces = [
        "<action>", "</action>", "<communication>", "</communication>", "<scratchpad>",
        "<think>", "</think>", "ACTION:", ":", "\n", "Give to Agent ", str(rng.randint(-9, 99)),
        rng.choice(CANONICAL_NAMES), rng.choice(CANONICAL_NAMES).upper(), "'", "`", ".", "<",
        "\x00", "\u202e", "é", "🙂", " " * rng.randint(0, 5), "<a", "</", ">",
    ]  # fmt: skip
    chars = string.printable + "<>/:é\u200b"
    parts = []
    for _ in range(rng.randint(0, 20)):
        if rng.random() < 0.6:
            parts.append(rng.choice(pieces))
        else:
            parts.append("".join(rng.choice(chars) for _ in range(rng.randint(0, 30))))
    return "".join(parts)


def test_fuzz_never_raises_and_always_submits_a_real_action():
    rng = random.Random(1234)
    players = 3
    replies = [_adversarial(rng) for _ in range(4000)]
    replies += ["<action>" + "x" * 100000, "ACTION:" * 5000, "<" * 10000, None, 12]  # type: ignore
    limit = GIVE_BASE + players - 1
    statuses = set()
    for k, reply in enumerate(replies):
        parsed = parse_reply(reply, k % players, players)
        assert 0 <= parsed.action < limit
        assert parsed.ok == (parsed.status == "ok")
        assert parsed.ok or parsed.action == 0
        assert len(parsed.message) <= MAX_MESSAGE_CHARS and len(parsed.note) <= MAX_NOTE_CHARS
        statuses.add(parsed.status)
    assert statuses == {"ok", "empty", "no_action", "bad_target"}
