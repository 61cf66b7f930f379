"""Coordination cue lines of the text observation (docs/language-agents.md#coordination-cues).

Read from the same per-floor coordination map and soft mask the step uses (through
``alem_pz.text.view``); difficulty changes only the values shown, never the wording.
"""

from __future__ import annotations

from alem_core.constants import Block
from alem_pz.text import view
from alem_pz.text.wording import FACING_DELTA, FACING_NAMES, LocationStyle, block_name, located

_BUILD_SITES = (Block.CONSTRUCTION_SITE, Block.CONSTRUCTION_IN_PROGRESS)


def rule_sentence(value: int, soft: bool, block: int) -> str:
    """What a cell's coordination value asks for."""
    verb = "use a Build action" if block in _BUILD_SITES else "select Do"
    if value > 0 and soft:
        return f"works alone, but gives a bonus when {value} agents {verb} on it at once."
    if value > 0:
        return f"needs {value} agents to {verb} on it at once; fails alone."
    return f"one agent begins ({verb}), another agent completes it within {-value} steps."


def side_hint(dr: int, dc: int, facing: int) -> str:
    """Where the agent stands relative to the target (``dr, dc`` = target minus agent)."""
    if dr == 0 and dc == 0:
        return "You are on it."
    vertical = "south" if dr < 0 else "north" if dr > 0 else ""
    horizontal = "east" if dc < 0 else "west" if dc > 0 else ""
    side = "-".join(p for p in (vertical, horizontal) if p)
    distance = abs(dr) + abs(dc)
    if distance == 1:
        if FACING_DELTA.get(facing) == (dr, dc):
            return f"[you are on its {side} side, adjacent, already facing it]"
        now = FACING_NAMES.get(facing, "none")
        return f"[you are on its {side} side, adjacent, facing {now}: move toward it to face it]"
    return f"[you are on its {side} side, {distance} steps away]"


def cue_lines(s, agent: view.PlayerView, cells, style: LocationStyle) -> list[str]:
    """The ``Coordination:`` bullets for one agent.

    ``cells`` are the agent's lit window cells as (dr, dc, row, col) tuples.
    """
    coord, soft = view.current_floor_tasks(s)
    blocks = view.current_floor_blocks(s)
    nearest: dict[tuple[int, bool], tuple[int, int, int, int, int]] = {}
    for dr, dc, row, col in cells:
        value = int(coord[row, col])
        if value == 0:
            continue
        key = (value, bool(soft[row, col]))
        distance = abs(dr) + abs(dc)
        if key not in nearest or distance < nearest[key][0]:
            nearest[key] = (distance, dr, dc, row, col)
    lines = []
    for (value, is_soft), (_, dr, dc, row, col) in sorted(nearest.items(), key=lambda kv: kv[1]):
        block = int(blocks[row, col])
        where = located(dr, dc, row, col, style, agent.facing)
        rule = rule_sentence(value, is_soft, block)
        lines.append(f"- {block_name(block)} {where}: {rule} {side_hint(dr, dc, agent.facing)}")
    lit = {(row, col): (dr, dc) for dr, dc, row, col in cells}
    now = view.timestep(s)
    for handover in view.open_handovers(s):
        if (handover.row, handover.col) in lit and handover.deadline > now:
            dr, dc = lit[(handover.row, handover.col)]
            where = located(dr, dc, handover.row, handover.col, style, agent.facing)
            lines.append(
                f"- Active handover {where}: it was started - another agent must complete it "
                f"within {handover.deadline - now} steps"
            )
    return lines
