"""Team logic with scripted completions: message delivery, feedback, parse retries, stats.

(The real ``openai`` client is exercised in ``test_harness.py``; here a scripted stand-in
returns fixed completions so each rule of docs/language-agents.md#actions-and-the-parser is checked
exactly.)
"""

from __future__ import annotations

from alem_pz.evaluation import protocol
from alem_pz.text.client import Completion
from alem_pz.text.history import COMM_HEADER
from alem_pz.text.team import LLMTeam

from ..conftest import SMALL


class Scripted:
    """Answers from a list, cycling; records every request it got."""

    def __init__(self, replies):
        self.replies, self.requests = list(replies), []

    def complete(self, messages):
        self.requests.append(messages)
        text = self.replies[(len(self.requests) - 1) % len(self.replies)]
        return Completion(text=text, finish_reason="stop", input_tokens=10, output_tokens=2)


def _run(clients, steps=3, **kw):
    env = protocol.make_env("easy", steps, SMALL, obs_type="text")
    team = LLMTeam(clients, env.params, env.static, **kw)
    record = protocol.run_episode(env, team, protocol.BASE_SEED)
    team.close()
    return record, team


def test_messages_feedback_and_accounting():
    talker = Scripted(["<action>Do</action><communication>wood at x=3</communication>"])
    mute = Scripted(["nonsense"])
    quiet = Scripted(["<action>Noop</action><scratchpad>remember the lake</scratchpad>"])
    record, team = _run([talker, mute, quiet])
    assert record["steps"] == 3
    last = {i: c.requests[-1][-1]["content"] for i, c in enumerate([talker, mute, quiet])}
    assert f"{COMM_HEADER}\n- Agent 0: wood at x=3" in last[1] and "Agent 0:" in last[2]
    assert COMM_HEADER not in last[0]  # a sender does not receive its own message
    assert "No valid action was found in your last reply" in last[1]
    assert "Last action: Noop" in last[1] and "Scratchpad:\nremember the lake" in last[2]
    stats = team.stats.as_dict()
    assert stats["parse_failures"] == 3 and stats["parse_successes"] == 6
    assert stats["action_parse_rate_per_agent"] == [1.0, 0.0, 1.0]
    assert stats["tokens"] == {"input": 90, "output": 18, "reasoning": 0, "requests": 9,
                               "retries": 0}  # fmt: skip
    assert stats["comm_parse_rate"] == 1.0 and stats["notes_parse_rate"] == 1.0


def test_parse_retries_reask_with_a_correction():
    flaky = Scripted(["hmm", "<action>Move East</action>"])
    steady = Scripted(["<action>Noop</action>"])
    _, team = _run([flaky, steady, steady], steps=2, parse_retries=1)
    assert team.stats.as_dict()["parse_failures"] == 0
    retry = flaky.requests[1]
    assert retry[-2] == {"role": "assistant", "content": "hmm"}
    assert "no valid action" in retry[-1]["content"]
    assert team.stats.faults["parse_retry"] == 2
