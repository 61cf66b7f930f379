"""The rule-based text agent reads only the text and plays through the shared parser."""

from __future__ import annotations

import ast
from pathlib import Path

from alem_pz.evaluation import protocol
from alem_pz.evaluation.policies import load_policy
from alem_pz.text import rule_agent
from alem_pz.text.parser import parse_reply
from alem_pz.text.rule_agent import decide, read, reply

from ..conftest import SMALL

OBS = """Step: 12/100 (88 remaining, ends early if all agents die)
Role: forager

You see:
- tree 2 steps north and 1 step west (x=4, y=4)
- water 1 step east (x=6, y=6)
Facing: east.
 Do target: water (x=6, y=6).

Teammates:
Agent 0 (warrior): 1 step west (x=4, y=6), health=9
  -> Requesting wood
Agent 2 (miner): off-screen south (x=5, y=14), health=7

Your status:
- health: 9
- food: 8
- drink: 2
- energy: 9
- mana: 9
- xp: 0

Your inventory:
- wood: 3

Available actions:
 - Noop
 - Move West
 - Do
 - Give to Agent 0"""


def test_reads_only_text():
    tree = ast.parse(Path(rule_agent.__file__).read_text())
    imported = {
        node.module if isinstance(node, ast.ImportFrom) else alias.name
        for node in ast.walk(tree)
        if isinstance(node, (ast.Import, ast.ImportFrom))
        for alias in node.names
    }
    assert not any(name.startswith(("alem_core", "jax", "alem_pz.text.view")) for name in imported)


def test_reading_and_rules():
    r = read(OBS, agent=1)
    assert r.step == 12 and r.seen["tree"] == (-2, -1) and r.seen["water"] == (0, 1)
    assert r.status["drink"] == 2 and r.inventory["wood"] == "3" and r.requests == {0: "wood"}
    assert r.target == "water" and r.facing == "east"
    assert decide(r)[0] == "Give to Agent 0"  # a teammate's request comes first
    r.requests.clear()
    assert decide(r)[0] == "Do"  # thirsty and facing water
    parsed = parse_reply(reply(OBS, 1), 1, 3)
    assert parsed.ok and parsed.name == "Give to Agent 0" and parsed.message


def test_plays_text_episodes_through_the_runner():
    """Two 60-step episodes: the team achieves something. One is not enough to ask that of a
    script without path-finding: on the first world the nearest tree needs all three agents at
    once, and the third cannot reach a free side of it past its teammates."""
    summary = protocol.evaluate(
        load_policy("text-rule"), episodes=2, max_steps=60, difficulties=["easy"],
        static=SMALL, resamples=20, progress=False, obs_type="text",
    )  # fmt: skip
    episodes = summary["results"]["easy"]["per_episode"]
    assert [episode["steps"] for episode in episodes] == [60, 60]
    assert sum(episode["metrics"]["Team/total_achievements"] for episode in episodes) >= 1
