"""The rolling prompt history: window sizes, comm rounds, notes, plan memory, inactive form."""

from __future__ import annotations

from alem_pz.text.history import (
    COMM_HEADER,
    IDLE_BANNER,
    NOTES_HEADER,
    AgentHistory,
    HistoryConfig,
    output_format,
)
from alem_pz.text.parser import parse_reply


def _obs(t: int) -> str:
    return f"Last action: Noop\n\nStep: {t}/100 (x remaining)\nRole: miner\nmarker-{t}"


def _play(history: AgentHistory, steps: int, inactive_from: int = 10**9) -> None:
    for t in range(steps):
        inactive = t >= inactive_from
        history.observe(_obs(t), {0: f"msg-{t}", history.agent: "own"}, inactive)
        reply = f"<think>plan-{t}</think><action>Do</action><scratchpad>note-{t}</scratchpad>"
        history.record(parse_reply(reply, history.agent, 3), inactive)


def test_window_comm_rounds_notes_and_plan():
    history = AgentHistory(agent=1)
    _play(history, 12)
    history.observe(_obs(12), {0: "msg-12"}, False)
    messages = history.messages("SYSTEM", "SHORT")
    users = [m["content"] for m in messages if m["role"] == "user"]
    assert messages[0] == {"role": "system", "content": "SYSTEM"}
    assert len(users) == 8 and "marker-5" in users[0] and "marker-12" in users[-1]
    assert users[-1].startswith("Step: 12/100") and "Current Observation:" in users[-1]
    assert "Observation from 7 step(s) ago:" in users[0]
    assert all("SHORT" not in u for u in users[:-1]) and "SHORT" in users[-1]
    assert f"{NOTES_HEADER}\nnote-11" in users[-1]
    assert sum(COMM_HEADER in u for u in users) == 4  # the last 4 rounds only
    assert "own" not in "".join(users)  # a sender never receives its own message
    assistants = [m["content"] for m in messages if m["role"] == "assistant"]
    assert assistants[-1] == "Previous plan: plan-11\nAction taken: Do"
    assert assistants[0] == "Do"


def test_inactive_agents_get_a_short_history_and_keep_their_note():
    history = AgentHistory(agent=2)
    _play(history, 10, inactive_from=6)
    history.observe(_obs(10), {0: "latest"}, True)
    users = [m["content"] for m in history.messages("S", "SHORT") if m["role"] == "user"]
    assert len(users) == 2 and NOTES_HEADER not in users[-1]
    assert sum(COMM_HEADER in u for u in users) == 1
    assert history.note == "note-5"  # not updated while inactive
    history.observe(_obs(11), {}, False)
    assert history.note.startswith(IDLE_BANNER)


def test_output_format_follows_the_switches():
    assert "<think>" in output_format(HistoryConfig())
    assert "<think>" not in output_format(HistoryConfig(reasoning=True))
    text = output_format(HistoryConfig(notes=False, communication=False))
    assert "<scratchpad>" not in text and "<communication>" not in text
