"""The one shared reply parser (docs/language-agents.md): action, message, note, reasoning.

``parse_action_name`` is the multi-strategy extractor; the first strategy that yields a name
wins. It validates against every canonical name (never against the currently legal actions: an
illegal but named action is submitted and simply has no effect). ``parse_reply`` adds the tag
extraction of ``<communication>`` and ``<scratchpad>``, the length limits, the agent-specific
Give mapping and the failure status that drives NOOP plus next-step feedback. Nothing here
raises on any string.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass, field

from alem_pz.text.actions import CANONICAL_NAMES, action_id, normalise_give

MAX_MESSAGE_CHARS = 400
MAX_NOTE_CHARS = 1000
FUZZY_CUTOFF = 0.6
_LONGEST_NAME = max(len(n) for n in CANONICAL_NAMES)
_FUZZY_MAX_CHARS = int(2 * _LONGEST_NAME / FUZZY_CUTOFF)
"""Longer strings can never reach the similarity cutoff (ratio = 2M / (|a| + |b|)), so fuzzy
matching skips them: the parser stays linear in the reply length."""

_LOWER_NAMES = {name.lower(): name for name in CANONICAL_NAMES}
_TRAILING = ".,;:!?"
_QUOTES = "\"'`"
_CLOSED_ACTION = re.compile(r"<action>(.*?)</action>", re.S)
_OPEN_ACTION = re.compile(r"<action>(.*?)(?=<[a-z]|\Z)", re.S)
_ACTION_PREFIX = re.compile(r"action:([^\n]*)", re.I)
NOOP_NAME = "Noop"


def clean(text: str) -> str:
    """Trim whitespace, strip quotes and backticks, drop trailing punctuation."""
    text = text.strip().strip(_QUOTES).strip()
    while text and text[-1] in _TRAILING:
        text = text[:-1].rstrip()
    return text.strip(_QUOTES).strip()


def _strict(text: str) -> str | None:
    """Give normalisation, then exact or case-insensitive name."""
    text = clean(text)
    give = normalise_give(text)
    if give is not None:
        return give
    return _LOWER_NAMES.get(text.lower())


def _fuzzy(text: str) -> str | None:
    text = clean(text).lower()
    if not text or len(text) > _FUZZY_MAX_CHARS:
        return None
    hits = difflib.get_close_matches(text, list(_LOWER_NAMES), n=1, cutoff=FUZZY_CUTOFF)
    return _LOWER_NAMES[hits[0]] if hits else None


def _valid(text: str) -> str | None:
    """Strict match, then the part before a colon (strict or fuzzy), then fuzzy on the whole."""
    found = _strict(text)
    if found is None and ":" in text:
        head = text.split(":", 1)[0]
        found = _strict(head) or _fuzzy(head)
    return found or _fuzzy(text)


def parse_action_name(reply: str | None) -> str | None:
    """The canonical action name in ``reply`` (e.g. "Move East", "Give to Agent 2"), or None."""
    if not isinstance(reply, str) or not reply.strip():
        return None
    for pattern in (_CLOSED_ACTION, _OPEN_ACTION, _ACTION_PREFIX):
        match = pattern.search(reply)
        if match:
            found = _valid(match.group(1))
            if found is not None:
                return found
    text = reply.strip()
    lines = text.splitlines()
    candidates = [text]
    if len(lines) == 1 and ":" in text:
        candidates.append(text.split(":", 1)[0])
    if "<" in text:
        candidates.append(text.split("<", 1)[0])
    if len(lines) > 1:
        candidates.append(lines[0])
    for candidate in candidates:
        found = _strict(candidate)
        if found is not None:
            return found
    return None


def extract_tag(reply: str, tag: str) -> tuple[bool, str]:
    """(attempted, content) of ``<tag ...>content</tag>``: case-insensitive, attributes allowed,
    a missing close tag runs the content to the next tag or the end."""
    if not isinstance(reply, str):
        return False, ""
    opening = re.search(rf"<{tag}(?:\s[^>]*)?>", reply, re.I)
    if not opening:
        return False, ""
    rest = reply[opening.end() :]
    closing = re.search(rf"</{tag}\s*>", rest, re.I)
    if closing:
        return True, rest[: closing.start()].strip()
    following = re.search(r"</?[A-Za-z]", rest)
    return True, (rest[: following.start()] if following else rest).strip()


def plan_text(reply: str, reasoning: str | None = None) -> str:
    """The step's reasoning for the plan memory (docs/language-agents.md#messages-and-notes): the
    reasoning field if present, else the reply without its action/communication/scratchpad tags and
    with ``<think>`` unwrapped."""
    if reasoning and reasoning.strip():
        return reasoning.strip()
    if not isinstance(reply, str):
        return ""
    text = reply
    for tag in ("action", "communication", "scratchpad"):
        text = re.sub(rf"<{tag}(?:\s[^>]*)?>.*?(</{tag}\s*>|\Z)", "", text, flags=re.S | re.I)
    text = re.sub(r"</?think>", "", text, flags=re.I).strip()
    return "" if _strict(text) is not None else text


@dataclass
class ParsedReply:
    """What one reply means for one agent."""

    action: int
    """The action id submitted (0, Noop, on any failure)."""
    name: str
    """The canonical name parsed, or "Noop" on failure."""
    status: str
    """"ok", "empty" (blank reply), "no_action" (nothing parsed) or "bad_target" (a Give to
    oneself or to a missing agent)."""
    message: str = ""
    note: str = ""
    plan: str = ""
    comm_attempted: bool = False
    note_attempted: bool = False
    failed_candidate: str = ""
    notes: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        """The parser found an action this agent can submit."""
        return self.status == "ok"


FEEDBACK = {
    "empty": "Your last reply was empty, so Noop was taken.",
    "no_action": "No valid action was found in your last reply, so it defaulted to Noop. "
    "Put exactly one action name from the list in <action></action>.",
    "bad_target": "Your last Give named no teammate you can give to, so Noop was taken.",
}


def parse_reply(
    reply: str | None, agent: int, player_count: int, reasoning: str | None = None
) -> ParsedReply:
    """Parse a whole reply for ``agent`` (see ``ParsedReply``); never raises."""
    text = reply if isinstance(reply, str) else ""
    name = parse_action_name(text)
    action = None if name is None else action_id(name, agent, player_count)
    if not text.strip():
        status = "empty"
    elif name is None:
        status = "no_action"
    else:
        status = "ok" if action is not None else "bad_target"
    comm_attempted, message = extract_tag(text, "communication")
    note_attempted, note = extract_tag(text, "scratchpad")
    parsed = ParsedReply(
        action=action if status == "ok" else 0,
        name=name if status == "ok" else NOOP_NAME,
        status=status,
        message=message[:MAX_MESSAGE_CHARS],
        note=note[:MAX_NOTE_CHARS],
        plan=plan_text(text, reasoning),
        comm_attempted=comm_attempted,
        note_attempted=note_attempted,
        failed_candidate="" if status == "ok" else text[:200],
    )
    if status != "ok":
        parsed.notes.append(FEEDBACK[status])
    if comm_attempted and not message:
        parsed.notes.append("Your <communication> could not be parsed.")
    if note_attempted and not note:
        parsed.notes.append("Your <scratchpad> could not be parsed.")
    return parsed
