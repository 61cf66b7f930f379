"""The rolling prompt history of one language agent (docs/language-agents.md).

Per agent: the last ``text_history`` observations with the action taken after each, the last
``comm_history`` rounds of teammates' messages (each shown with the observation it came with),
the latest private note, and the previous step's plan (chain-of-thought memory 1). The short-term
block (vitals, inventory, legal actions) and the note appear only with the current observation.
Inactive agents get a shorter history, no note and only the latest round of messages.
"""

from __future__ import annotations

from collections import deque
from dataclasses import dataclass, field

from alem_pz.text.parser import MAX_MESSAGE_CHARS, MAX_NOTE_CHARS, ParsedReply

NOTES_HEADER = "Scratchpad:"
COMM_HEADER = "Communication from other agent(s):"
IDLE_BANNER = (
    "[resuming after idle period (death/sleep/rest) - position and health may have changed]"
)


@dataclass(frozen=True)
class HistoryConfig:
    """Prompt-builder settings (defaults: the evaluation configuration,
    docs/language-agents.md#the-harness)."""

    text_history: int = 8
    comm_history: int = 4
    chain_of_thought: bool = True
    remember_plan: bool = True
    reasoning: bool = False
    """The model has a separate reasoning channel: no visible <think> step is asked for."""
    notes: bool = True
    communication: bool = True


@dataclass
class _Turn:
    step_line: str
    long_text: str
    messages: dict[int, str]
    action: str | None = None


def output_format(config: HistoryConfig) -> str:
    """The output-format block appended once to the system prompt
    (docs/language-agents.md#the-system-prompt item 6)."""
    steps = []
    if config.chain_of_thought and not config.reasoning:
        steps.append("Think first inside <think></think>: what you see, what you need, the plan.")
    steps.append(
        "Give exactly one action from 'Available actions' inside <action></action>, "
        "e.g. <action>Move East</action>."
    )
    if config.communication:
        steps.append(
            f"Optionally broadcast a message to every teammate inside "
            f"<communication></communication> (at most {MAX_MESSAGE_CHARS} characters; be "
            "specific: locations, timings, answers to requests)."
        )
    if config.notes:
        steps.append(
            f"Optionally write private notes inside <scratchpad></scratchpad> (at most "
            f"{MAX_NOTE_CHARS} characters). They are your only memory: record plans, teammates' "
            "intentions and facts that scroll out of view. The latest note is shown back to you."
        )
    steps.append("Close every tag you open.")
    lines = [f"{k}. {text}" for k, text in enumerate(steps, 1)]
    return "<output_format>\n" + "\n".join(lines) + "\n</output_format>"


def reminder(config: HistoryConfig) -> str:
    """The one-line tag-order reminder ending every user message."""
    tags = (["<think>"] if config.chain_of_thought and not config.reasoning else []) + ["<action>"]
    tags += ["<communication>"] if config.communication else []
    tags += ["<scratchpad>"] if config.notes else []
    return "---\nResponse format reminder: " + ", ".join(tags) + "; close every tag."


def split_step_line(long_text: str) -> tuple[str, str]:
    """(the ``Step:`` line, the text without it): the builder lifts that line first."""
    lines = long_text.split("\n")
    for k, line in enumerate(lines):
        if line.startswith("Step:"):
            return line, "\n".join(lines[:k] + lines[k + 1 :]).strip("\n")
    return "", long_text


@dataclass
class AgentHistory:
    """One agent's memory across an episode; ``messages`` builds each request."""

    agent: int
    config: HistoryConfig = field(default_factory=HistoryConfig)
    note: str = ""
    plan: str = ""
    was_inactive: bool = False
    turns: deque = field(default_factory=deque)

    def observe(self, long_text: str, messages: dict[int, str], inactive: bool) -> None:
        """Record this step's observation and the teammates' messages that came with it."""
        if self.was_inactive and not inactive and self.note:
            self.note = f"{IDLE_BANNER}\n{self.note}"
        self.was_inactive = inactive
        step_line, rest = split_step_line(long_text)
        received = {k: v for k, v in messages.items() if k != self.agent and v}
        self.turns.append(_Turn(step_line, rest, received if self.config.communication else {}))
        while len(self.turns) > self.config.text_history:
            self.turns.popleft()

    def record(self, parsed: ParsedReply, inactive: bool) -> None:
        """Store the action taken, the plan and (while active) a new non-empty note."""
        if self.turns:
            self.turns[-1].action = parsed.name
        self.plan = parsed.plan if self.config.remember_plan else ""
        if self.config.notes and parsed.note and not inactive:
            self.note = parsed.note

    def messages(self, system_prompt: str, short_text: str) -> list[dict[str, str]]:
        """Chat messages: system prompt, then user/assistant turns, the current one last."""
        inactive = self.was_inactive
        keep = max(2, self.config.text_history // 4) if inactive else self.config.text_history
        turns = list(self.turns)[-keep:]
        comm_rounds = 1 if inactive else self.config.comm_history
        out = [{"role": "system", "content": system_prompt}]
        for k, turn in enumerate(turns):
            ago = len(turns) - 1 - k
            current = ago == 0
            head = [turn.step_line] if turn.step_line else []
            head.append(
                "Current Observation:" if current else f"Observation from {ago} step(s) ago:"
            )
            parts = ["\n".join([*head, turn.long_text])]
            if current:
                parts.append(short_text)
                if self.config.notes and self.note and not inactive:
                    parts.append(f"{NOTES_HEADER}\n{self.note}")
            if turn.messages and ago < comm_rounds:
                lines = [f"- Agent {s}: {m}" for s, m in sorted(turn.messages.items())]
                parts.append(COMM_HEADER + "\n" + "\n".join(lines))
            if current:
                parts.append(reminder(self.config))
            out.append({"role": "user", "content": "\n\n".join(p for p in parts if p)})
            if not current and turn.action is not None:
                out.append({"role": "assistant", "content": self._assistant(turn, ago == 1)})
        return out

    def _assistant(self, turn: _Turn, latest: bool) -> str:
        if latest and self.plan and self.config.chain_of_thought:
            return f"Previous plan: {self.plan}\nAction taken: {turn.action}"
        return str(turn.action)
