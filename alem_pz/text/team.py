"""A team of language agents as one batched policy for the evaluation runner
(docs/language-agents.md#the-harness): each step every agent's request is sent concurrently,
replies go through the shared parser, messages are delivered the next step, and every request is
traced and accounted for.
"""

from __future__ import annotations

import functools
import json
import re
import threading
import time
from collections import Counter
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, field
from typing import IO, Any

import numpy as np

import alem_core
from alem_pz.text.client import ChatClient, Completion
from alem_pz.text.history import AgentHistory, HistoryConfig
from alem_pz.text.parser import ParsedReply, parse_reply
from alem_pz.text.prompt import system_prompt

_FLOOR = re.compile(r"Location: dungeon level (\d+)")


@dataclass
class TeamStats:
    """Per-episode harness accounting (parse rates per episode, decision 4).

    A reply counts for the parse rate only when its agent was active in the observation it
    answered (inactive agents' actions become Noop anyway; they are tallied as
    ``skipped_inactive``). Token counts are the endpoint's ``usage`` figures.
    """

    players: int
    parsed: list[int] = field(default_factory=list)
    failed: list[int] = field(default_factory=list)
    skipped_inactive: int = 0
    comm: Counter = field(default_factory=Counter)
    notes: Counter = field(default_factory=Counter)
    tokens: Counter = field(default_factory=Counter)
    faults: Counter = field(default_factory=Counter)
    finish: Counter = field(default_factory=Counter)
    failed_candidates: list[list[str]] = field(default_factory=list)
    steps: int = 0
    request_seconds: float = 0.0
    harness_seconds: float = 0.0

    def __post_init__(self) -> None:
        self.parsed = [0] * self.players
        self.failed = [0] * self.players
        self.failed_candidates = [[] for _ in range(self.players)]

    def add(self, agent: int, done: Completion, parsed: ParsedReply, inactive: bool) -> None:
        """Count one agent's request and reply."""
        if inactive:
            self.skipped_inactive += 1
        elif parsed.ok:
            self.parsed[agent] += 1
        else:
            self.failed[agent] += 1
            self.failed_candidates[agent].append(parsed.failed_candidate)
        self.comm["attempted"] += parsed.comm_attempted
        self.comm["parsed"] += bool(parsed.message)
        self.notes["attempted"] += parsed.note_attempted
        self.notes["parsed"] += bool(parsed.note)
        self.tokens.update(
            input=done.input_tokens, output=done.output_tokens, reasoning=done.reasoning_tokens
        )
        self.tokens["requests"] += 1
        self.tokens["retries"] += max(done.attempts - 1, 0)
        self.faults.update(done.faults)
        self.finish[done.finish_reason or "none"] += 1

    def as_dict(self) -> dict[str, Any]:
        """JSON-ready stats, with the episode's parse rates (overall and per agent)."""
        ok, bad = sum(self.parsed), sum(self.failed)
        return {
            "action_parse_rate": ok / (ok + bad) if ok + bad else None,
            "action_parse_rate_per_agent": [
                p / (p + f) if p + f else None
                for p, f in zip(self.parsed, self.failed, strict=True)
            ],
            "parse_successes": ok,
            "parse_failures": bad,
            "skipped_inactive": self.skipped_inactive,
            "comm_parse_rate": _rate(self.comm),
            "notes_parse_rate": _rate(self.notes),
            "tokens": dict(self.tokens),
            "faults": dict(self.faults),
            "finish_reasons": dict(self.finish),
            "failed_candidates": self.failed_candidates,
            "steps": self.steps,
            "request_seconds": self.request_seconds,
            "harness_seconds": self.harness_seconds,
        }


def _rate(counter: Counter) -> float | None:
    return counter["parsed"] / counter["attempted"] if counter["attempted"] else None


def retry_prompt(config: HistoryConfig) -> str:
    """The correction sent after a reply without a valid action
    (docs/language-agents.md#actions-and-the-parser)."""
    order = (
        "first <think>...</think>, then "
        if config.chain_of_thought and not config.reasoning
        else ""
    )
    return (
        "Your reply had no valid action. Answer again: " + order + "exactly one action name "
        "from 'Available actions' inside <action></action>, closing every tag."
    )


class LLMTeam:
    """``policy(observations, masks, infos) -> actions`` driving one client per agent."""

    batched = True
    wants_infos = True

    def __init__(
        self,
        clients: list[ChatClient],
        params: alem_core.Params,
        static: alem_core.StaticParams,
        history: HistoryConfig | None = None,
        prompt_mode: str = "specific_collaborative",
        feedback: bool = True,
        parse_retries: int = 0,
    ) -> None:
        if len(clients) < static.player_count:
            raise ValueError(
                f"need one client per agent: got {len(clients)} for {static.player_count} agents"
            )
        self.clients, self.params, self.static = clients, params, static
        self.history_config = history or HistoryConfig()
        self.prompt_mode, self.feedback = prompt_mode, feedback
        self.parse_retries = int(parse_retries)
        self.trace: IO[str] | None = None
        self._lock = threading.Lock()
        self.reset(0)

    def reset(self, seed: int) -> None:
        """Fresh memories, prompts and stats for an episode on world ``seed``."""
        p = self.static.player_count
        self.seed = seed
        self.histories = [AgentHistory(i, self.history_config) for i in range(p)]
        self.inbox: dict[int, str] = {}
        self.pending_notes: list[list[str]] = [[] for _ in range(p)]
        self.max_floor = 0
        self.prompts = [self._prompt(i) for i in range(p)]
        self.stats = TeamStats(p)

    def _prompt(self, agent: int) -> str:
        return system_prompt(
            agent, self.params, self.static, self.max_floor, self.prompt_mode, self.history_config
        )

    def _refresh_prompts(self, texts: list[dict]) -> None:
        """Progressive disclosure: regenerate every prompt when the team goes deeper."""
        floors = [int(m.group(1)) for t in texts if (m := _FLOOR.search(t["long"]))]
        deepest = max(floors, default=0)
        if deepest > self.max_floor:
            self.max_floor = deepest
            self.prompts = [self._prompt(i) for i in range(self.static.player_count)]

    def __call__(self, observations, masks, infos) -> list[int]:
        chosen = self.act({i: info["text"] for i, info in enumerate(infos)})
        return [chosen[i] for i in range(len(infos))]

    def hear(self, agent: int, text: str) -> None:
        """Deliver ``text`` as agent ``agent``'s message with the next request, the way the
        models' own <communication> travels: how a person's chat line (alem-serve) reaches
        the language-model teammates. Several lines of one agent are joined."""
        before = self.inbox.get(agent)
        self.inbox[agent] = f"{before} / {text}" if before else text

    def act(self, texts: dict[int, dict]) -> dict[int, int]:
        """Ask the agents in ``texts`` ({agent: ``infos[agent]["text"]``}) concurrently and
        return {agent: action}. The evaluation asks the whole team each step; a room of
        alem-serve asks only the seats a language model plays. Messages heard since the last
        call are delivered, then replaced by the messages these replies carry."""
        start = time.perf_counter()
        agents = sorted(texts)
        self._refresh_prompts([texts[i] for i in agents])
        requests = {}
        for i in agents:
            notes, text = self.pending_notes[i], texts[i]
            long = (" ".join(notes) + "\n\n" + text["long"]) if notes else text["long"]
            self.histories[i].observe(long, self.inbox, text["inactive"])
            requests[i] = self.histories[i].messages(self.prompts[i], text["short"])
        sent = time.perf_counter()
        asked = _request_pool().map(lambda k: self._ask(k, requests[k]), agents)
        replies = dict(zip(agents, asked, strict=True))
        waited = time.perf_counter() - sent
        actions, records, inbox = {}, [], {}
        for i in agents:
            done, text = replies[i], texts[i]
            parsed = parse_reply(done.text, i, self.static.player_count, done.reasoning)
            self.histories[i].record(parsed, text["inactive"])
            self.stats.add(i, done, parsed, text["inactive"])
            self.pending_notes[i] = parsed.notes if self.feedback else []
            if parsed.message:
                inbox[i] = parsed.message
            actions[i] = parsed.action
            records.append(_trace_record(i, requests[i], done, parsed, text, self.inbox))
        self.inbox = inbox
        self.stats.steps += 1
        self.stats.request_seconds += waited
        self.stats.harness_seconds += time.perf_counter() - start - waited
        self._write({"step": self.stats.steps - 1, "agents": records})
        return actions

    def _ask(self, agent: int, messages: list[dict[str, str]]) -> Completion:
        """One agent's completion; with parse retries, re-ask after a reply without an action
        (the last reply counts; tokens, attempts and faults add up)."""
        done = self.clients[agent].complete(messages)
        for _ in range(self.parse_retries):
            if parse_reply(done.text, agent, self.static.player_count).ok:
                break
            messages = [
                *messages,
                {"role": "assistant", "content": done.text},
                {"role": "user", "content": retry_prompt(self.history_config)},
            ]
            again = self.clients[agent].complete(messages)
            again.input_tokens += done.input_tokens
            again.output_tokens += done.output_tokens
            again.reasoning_tokens += done.reasoning_tokens
            again.attempts += done.attempts
            again.faults.update(done.faults)
            again.faults["parse_retry"] += 1
            again.seconds += done.seconds
            done = again
        return done

    def _write(self, record: dict) -> None:
        if self.trace is not None:
            with self._lock:
                self.trace.write(json.dumps(record, default=_plain) + "\n")
                self.trace.flush()

    def close(self) -> None:
        """Nothing to release: the request threads are shared (``_request_pool``)."""


@functools.cache
def _request_pool() -> ThreadPoolExecutor:
    """The threads every team sends its requests from, shared by all teams and episodes.

    One pool per team meant new threads every episode, and glibc gives new threads fresh
    malloc arenas: over 40 episodes of a long evaluation the process grew by about 1.9 MB an
    episode (0.2 MB with MALLOC_ARENA_MAX=2; the Python heap itself stayed flat), so threads
    are made once. Requests block on the network, so more threads than cores is right.
    """
    return ThreadPoolExecutor(max_workers=32, thread_name_prefix="alem-llm")


def _trace_record(i, prompt, done: Completion, parsed: ParsedReply, text, inbox) -> dict:
    return {
        "agent": i,
        "inactive": text["inactive"],
        "observation": text["long"],
        "short": text["short"],
        "frame": text.get("frame", ""),
        "prompt": prompt,
        "reply": done.text,
        "reasoning": done.reasoning,
        "plan": parsed.plan,
        "finish_reason": done.finish_reason,
        "action": parsed.name,
        "action_id": parsed.action,
        "status": parsed.status,
        "message": parsed.message,
        "note": parsed.note,
        "received": {str(k): v for k, v in inbox.items() if k != i},
        "tokens": {
            "input": done.input_tokens,
            "output": done.output_tokens,
            "reasoning": done.reasoning_tokens,
        },
        "attempts": done.attempts,
        "faults": dict(done.faults),
        "seconds": round(done.seconds, 4),
    }


def _plain(value: Any) -> Any:
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {type(value).__name__}")
