"""A rule-based agent that reads only the text observation and answers like a language model.

It proves the text carries what play needs: it never touches the state, it parses the same
observation an LLM reads and replies with tags that go through the shared parser. Stateless
(its exploration direction is a function of the step and the agent), so the same text always
gets the same reply: the harness tests use it as the "model" behind a local HTTP server.
"""

from __future__ import annotations

import re
from dataclasses import dataclass, field

_OFFSET = re.compile(r"(\d+) steps? (north|south|east|west)")
_SIGN = {"north": (-1, 0), "south": (1, 0), "west": (0, -1), "east": (0, 1)}
_MOVES = {(-1, 0): "Move North", (1, 0): "Move South", (0, -1): "Move West", (0, 1): "Move East"}
_HOSTILE = (
    "zombie", "gnome_warrior", "orc_soldier", "lizard", "knight", "troll", "pigman",
    "frost_troll", "skeleton", "gnome_archer", "orc_mage", "kobold", "knight_archer",
    "deep_thing", "fire_elemental", "ice_elemental",
)  # fmt: skip
_CRAFTS = (
    "Make Wood Pickaxe", "Make Wood Sword", "Make Stone Pickaxe", "Make Stone Sword",
    "Make Iron Pickaxe", "Make Iron Sword", "Make Iron Armour", "Make Diamond Pickaxe",
    "Make Diamond Sword", "Make Diamond Armour", "Build Forge", "Build Shelter", "Build Beacon",
)  # fmt: skip
_TOOL_FOR = {"tree": 0, "stone": 1, "coal": 1, "iron": 2, "diamond": 3, "sapphire": 4, "ruby": 4}
_TIERS = {"wood": 1, "stone": 2, "iron": 3, "diamond": 4}


def offset(phrase: str) -> tuple[int, int] | None:
    """(rows south, cols east) of a relative phrase such as "2 steps north and 1 step east"."""
    parts = _OFFSET.findall(phrase)
    if not parts and "here" not in phrase:
        return None
    dr = dc = 0
    for count, word in parts:
        sr, sc = _SIGN[word]
        dr, dc = dr + sr * int(count), dc + sc * int(count)
    return dr, dc


@dataclass
class Reading:
    """What the rule agent takes from one observation text."""

    agent: int = 0
    step: int = 0
    actions: list[str] = field(default_factory=list)
    seen: dict[str, tuple[int, int]] = field(default_factory=dict)
    creatures: dict[str, tuple[int, int]] = field(default_factory=dict)
    cues: list[tuple[str, tuple[int, int], str]] = field(default_factory=list)
    status: dict[str, int] = field(default_factory=dict)
    inventory: dict[str, str] = field(default_factory=dict)
    requests: dict[int, str] = field(default_factory=dict)
    target: str = ""
    facing: str = ""
    teammates_near: int = 0


def _section(lines: list[str], header: str) -> list[str]:
    if header not in lines:
        return []
    out = []
    for line in lines[lines.index(header) + 1 :]:
        if not line.strip() or (not line.startswith((" ", "-")) and line.endswith(":")):
            break
        out.append(line)
    return out


def _bullets(lines: list[str]) -> dict[str, tuple[int, int]]:
    out = {}
    for line in lines:
        match = re.match(r"- ([a-z_ ()-]+?) ((?:\d+ steps? \w+(?: and )?)+|here)", line)
        if match and match.group(1) not in out:
            where = offset(match.group(2))
            if where is not None:
                out[match.group(1).strip()] = where
    return out


def read(text: str, agent: int = 0) -> Reading:
    """Parse an observation (or a whole user message: the current observation is used)."""
    if "Current Observation:" in text:
        text = text.split("Current Observation:", 1)[1]
    lines = text.split("\n")
    r = Reading(agent=agent)
    step = re.search(r"Step: (\d+)/", text)
    r.step = int(step.group(1)) if step else 0
    r.actions = [line[3:].strip() for line in _section(lines, "Available actions:")]
    r.seen = _bullets(_section(lines, "You see:"))
    r.creatures = _bullets(_section(lines, "Nearby creatures:"))
    for line in _section(lines, "Coordination:"):
        match = re.match(r"- ([a-z ]+?) ((?:\d+ steps? \w+(?: and )?)+)", line)
        if match and (where := offset(match.group(2))) is not None:
            r.cues.append((match.group(1), where, line))
    for line in _section(lines, "Your status:"):
        name, _, value = line[2:].partition(": ")
        r.status[name] = int(value) if value.lstrip("-").isdigit() else 0
    for line in _section(lines, "Your inventory:"):
        name, _, value = line[2:].partition(": ")
        r.inventory[name] = value
    current = None
    for line in _section(lines, "Teammates:"):
        match = re.match(r"Agent (\d+)", line)
        current = int(match.group(1)) if match else current
        if match and "off-screen" not in line and "is dead" not in line:
            r.teammates_near += 1
        if "-> Requesting" in line and current is not None:
            r.requests[current] = line.split("Requesting", 1)[1].strip()
    facing = re.search(r"Facing: (\w+)", text)
    r.facing = facing.group(1) if facing else ""
    target = re.search(r"Do target: ([^(\n.]+)", text)
    r.target = target.group(1).strip() if target else ""
    return r


def _count(r: Reading, name: str) -> int:
    value = r.inventory.get(name, "0")
    return int(value) if value.isdigit() else _TIERS.get(value, 0)


_PASSABLE = ("grass", "sand", "path", "fire grass", "ice grass", "gravel", "darkness")
_FACING = {"north": (-1, 0), "south": (1, 0), "west": (0, -1), "east": (0, 1)}


def _sign(v: int) -> int:
    return int(v > 0) - int(v < 0)


def _toward(r: Reading, where: tuple[int, int]) -> str | None:
    """The move toward ``where``; when adjacent and facing it, Do. A blocked path is mined
    through when the tools allow, else side-stepped."""
    dr, dc = where
    facing = _FACING.get(r.facing)
    if abs(dr) + abs(dc) == 1:
        return "Do" if facing == (dr, dc) else _MOVES[(dr, dc)]
    if dr == dc == 0:
        return None
    primary = (_sign(dr), 0) if abs(dr) >= abs(dc) else (0, _sign(dc))
    if facing == primary and r.target not in _PASSABLE:
        if _TOOL_FOR.get(r.target, 9) <= _count(r, "pickaxe"):
            return "Do"
        other = (0, _sign(dc) or 1) if primary[0] else (_sign(dr) or 1, 0)
        return _MOVES[other]
    return _MOVES[primary]


def _survive(r: Reading, legal: set[str]) -> tuple[str, str] | None:
    hostile_near = any(n in _HOSTILE for n in r.creatures)
    needs = (("drink", "water", "Request Drink", 4), ("food", "cow", "Request Food", 6))
    for stat, source, request, low in needs:
        if r.status.get(stat, 9) < low:
            where = r.seen.get(source) or r.creatures.get(source) or r.seen.get("ripe plant")
            if where and (move := _toward(r, where)):
                return move, f"low {stat}: going to the {source}"
            if request in legal and not r.requests.get(r.agent):
                return request, f"low {stat} and no {source} in view"
    if r.status.get("energy", 9) < 3 and not hostile_near and "Sleep" in legal:
        return "Sleep", "low energy and no enemy in view"
    return None


def _fight(r: Reading) -> tuple[str, str] | None:
    for name, where in sorted(r.creatures.items(), key=lambda kv: sum(map(abs, kv[1]))):
        if name in _HOSTILE and abs(where[0]) + abs(where[1]) <= 2:
            move = _toward(r, where)
            if move:
                return move, f"fighting the {name}"
    return None


def _craft(r: Reading, legal: set[str]) -> tuple[str, str] | None:
    for name in _CRAFTS:
        if name in legal:
            return name, "I can afford it here"
    if "Place Table" in legal and "crafting table" not in r.seen:
        return "Place Table", "no table in view"
    if "Place Furnace" in legal and "furnace" not in r.seen and _count(r, "pickaxe") >= 1:
        return "Place Furnace", "no furnace in view"
    spare = (
        ("Place Plant", _count(r, "sapling") >= 1),
        ("Make Torch", _count(r, "torches") == 0),
        ("Place Torch", True),
        ("Make Arrow", _count(r, "arrows") == 0),
        ("Place Stone", _count(r, "stone") >= 3 and _count(r, "pickaxe") >= 2),
    )
    for name, wanted in spare:
        if wanted and name in legal:
            return name, "a one-off I can do now"
    return None


def _coordinate(r: Reading) -> tuple[str, str, str] | None:
    pick = _count(r, "pickaxe")
    for block, where, line in r.cues:
        needed = re.search(r"needs (\d+) agents", line)
        helped = needed is not None and r.teammates_near + 1 >= int(needed.group(1))
        works_alone = "bonus" in line or "begins" in line
        if (works_alone or helped) and block in _TOOL_FOR and _TOOL_FOR[block] <= pick:
            move = _toward(r, where)
            if move:
                return move, f"joining the {block} task", f"Going to the {block} task; join me."
    return None


def _gather(r: Reading) -> tuple[str, str] | None:
    pick = _count(r, "pickaxe")
    for block in ("diamond", "iron", "coal", "stone", "tree"):
        if block in r.seen and _TOOL_FOR[block] <= pick:
            move = _toward(r, r.seen[block])
            if move:
                return move, f"collecting {block}"
    return None


def _explore(r: Reading) -> tuple[str, str]:
    moves = ("Move North", "Move East", "Move South", "Move West")
    return moves[(r.agent * 7 + r.step // 12) % 4], "exploring"


def decide(r: Reading) -> tuple[str, str, str]:
    """(action name, reason, message) by the first rule that applies."""
    legal = set(r.actions)
    for k, resource in sorted(r.requests.items()):
        if f"Give to Agent {k}" in legal:
            return f"Give to Agent {k}", f"answering Agent {k}", f"Sent you {resource}, Agent {k}."
    for rule in (_survive(r, legal), _fight(r), _craft(r, legal)):
        if rule:
            return rule[0], rule[1], ""
    if (joined := _coordinate(r)) is not None:
        return joined
    gathered = _gather(r)
    if gathered:
        return gathered[0], gathered[1], ""
    action, reason = _explore(r)
    return action, reason, ""


def reply(text: str, agent: int = 0) -> str:
    """A full tagged reply to observation ``text``, as a chat model would write it."""
    r = read(text, agent)
    action, reason, message = decide(r)
    out = f"<think>{reason}</think>\n<action>{action}</action>"
    if message:
        out += f"\n<communication>{message}</communication>"
    return out + f"\n<scratchpad>step {r.step}: {reason}</scratchpad>"


def team_policy(players: int = 3, seed: int = 0, comm_channels: int = 0) -> TextRuleTeam:
    """The ``text-rule`` policy by name (registered under the ``alem.policies`` entry-point group,
    so ``alem-evaluate --policy text-rule`` finds it without evaluation importing the text
    track): the rule agent in every seat. It draws nothing and reads messages from its text, so
    ``seed`` and ``comm_channels`` are unused."""
    return TextRuleTeam(players)


class TextRuleTeam:
    """A batched policy for ``alem_pz.evaluation.cli`` on a text env: one reply per agent per step,
    parsed by the shared parser (the same path an LLM's reply takes)."""

    batched = True
    needs_text = True
    """Its observations are the text track's (``alem_pz.evaluation.policies.load_seat_policy``
    checks)."""

    def __init__(self, players: int = 3) -> None:
        self.players = players

    def __call__(self, observations, masks) -> list[int]:
        from alem_pz.text.parser import parse_reply

        return [
            parse_reply(reply(str(text), i), i, self.players).action
            for i, text in enumerate(observations)
        ]
