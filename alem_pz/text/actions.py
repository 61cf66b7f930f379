"""Canonical action names for language agents (docs/language-agents.md#actions-and-the-parser).

The 54 fixed names are derived from ``alem_core.constants.Action`` (title case, moves named by
compass direction), so they follow the action ids and never need a second list. Give slots are
addressed by target: ``Give to Agent <t>``; agent g's slot for target t is ``t if t < g else
t - 1`` (``alem_core.constants.give_target`` inverted).
"""

from __future__ import annotations

import re
from functools import cache

from alem_core.constants import GIVE_BASE, Action, give_target, num_give_slots

MOVE_NAMES = {
    Action.LEFT: "Move West",
    Action.RIGHT: "Move East",
    Action.UP: "Move North",
    Action.DOWN: "Move South",
}
GIVE_PREFIX = "Give to Agent "
BARE_GIVE = "Give"


def fixed_action_name(action: int) -> str:
    """Canonical name of fixed action ``action`` (0-53): "Noop", "Move West", "Make Torch"..."""
    member = Action(action)
    return MOVE_NAMES.get(member, member.name.replace("_", " ").title())


FIXED_NAMES: tuple[str, ...] = tuple(fixed_action_name(a) for a in range(GIVE_BASE))
"""The 54 fixed names in action-id order."""

CANONICAL_NAMES: tuple[str, ...] = (*FIXED_NAMES, BARE_GIVE)
"""The 55 labels of docs/language-agents.md#actions-and-the-parser: the fixed names and the bare
"Give" (slot 0)."""

_GIVE_PATTERN = re.compile(r"^\s*give\s*(?:to\s*)?(?:agent|teammate)[\s_-]*(\d+)\s*$", re.I)


def give_name(target: int) -> str:
    """``Give to Agent <target>``."""
    return f"{GIVE_PREFIX}{target}"


def normalise_give(text: str) -> str | None:
    """ "give [to] agent|teammate[ _-]N" in any case -> "Give to Agent N"; else None."""
    match = _GIVE_PATTERN.match(text)
    return give_name(int(match.group(1))) if match else None


def action_text(action: int, agent: int, player_count: int) -> str:
    """The name agent ``agent`` reads for action id ``action`` (Give slots by target).

    Raises:
        ValueError: an id outside the agent's fixed actions and Give slots (comm channels are
            not text actions: language agents talk with ``<communication>``).
    """
    if 0 <= action < GIVE_BASE:
        return FIXED_NAMES[action]
    slot = action - GIVE_BASE
    if 0 <= slot < num_give_slots(player_count):
        return give_name(give_target(agent, slot))
    last_give = GIVE_BASE + num_give_slots(player_count) - 1
    raise ValueError(
        f"action id {action!r} of agent {agent} is not a text action "
        f"(fixed 0-{GIVE_BASE - 1} or Give {GIVE_BASE}-{last_give})"
    )


@cache
def _lookup() -> dict[str, int]:
    table = {name.lower(): i for i, name in enumerate(FIXED_NAMES)}
    table[BARE_GIVE.lower()] = GIVE_BASE
    return table


def action_id(name: str, agent: int, player_count: int) -> int | None:
    """Id of canonical ``name`` for ``agent``; None if it names nothing this agent can submit.

    "Give" is slot 0 (the lowest-indexed teammate); "Give to Agent t" is t's slot; giving to
    oneself or to a missing agent is None (the caller records it as a failure and submits Noop).
    """
    give = normalise_give(name)
    if give is not None:
        target = int(give[len(GIVE_PREFIX) :])
        if target == agent or not 0 <= target < player_count:
            return None
        return GIVE_BASE + (target if target < agent else target - 1)
    found = _lookup().get(name.strip().lower())
    if found == GIVE_BASE and num_give_slots(player_count) == 0:
        return None
    return found


def all_names(agent: int, player_count: int) -> list[str]:
    """Every name agent ``agent`` may submit: the fixed names and one Give per teammate."""
    gives = [give_name(t) for t in range(player_count) if t != agent]
    return [*FIXED_NAMES, *gives]
