"""Language-model seats of a room: the text harness's team, asked only for the seats it plays.

Why not a ``policy(observation, mask)`` from ``alem_pz.evaluation.policies``: a language model reads
text observations (with the step feedback the text track gives), keeps a memory across steps and
talks with its team; none of that fits a per-step policy call. So the room keeps one ``LLMSeats``
beside its policies, and everything it sends goes through the text harness:

* the settings are a ``HarnessConfig`` (``load_config``: the same JSON file and ``--model``,
  ``--base-url``, ``--api-key-env`` flags as ``alem-evaluate --policy llm``);
* the requests go through ``ChatClient`` (retries, fault accounting, keys from the environment);
* prompts, history, the reply parser, parse statistics and the trace are ``LLMTeam``'s, and the
  observations are ``TextObserver``'s, stepped with the room's world.

Chat, in one place: a person's chat line is delivered to the models as that seat's message
(``LLMTeam.hear``), so it appears under "Communication from other agent(s)" in their next
request exactly as another model's ``<communication>`` would; a model's ``<communication>``
comes back to the room as a chat line of its seat. A reply without an action is a counted parse
failure and the seat takes NOOP, as in the evaluation; refused credentials make every language
seat NOOP with the error shown, and the room keeps running.
"""

from __future__ import annotations

import dataclasses
from pathlib import Path
from typing import IO, Any

import numpy as np

from alem_pz.text.client import RunAbortedError
from alem_pz.text.harness import HarnessConfig
from alem_pz.text.observer import AgentText, TextObserver
from alem_pz.text.team import LLMTeam

LLM = "llm"
"""The ``--ai`` name of a language-model seat."""


class LLMSeats:
    """The language-model seats of one room (module docstring)."""

    def __init__(self, config: HarnessConfig | None, env: Any) -> None:
        if config is None:
            raise ValueError(
                "a language-model seat needs the harness settings (RoomConfig.llm: "
                "alem-serve --model M --base-url URL, or --llm-config FILE)"
            )
        p = env.static.player_count
        self.config = config
        self.models = [config.client_for(i).model for i in range(p)]
        self.clients = config.make_clients(p)  # one per seat for the room's life, closed here
        self.team = LLMTeam(
            list(self.clients), env.params, env.static, config.history, config.prompt_mode,
            config.feedback, config.parse_retries,
        )  # fmt: skip
        self.observer = TextObserver(env.params, env.static, config.text)
        self.texts: list[AgentText] = []
        self.statuses: dict[int, str] = {}
        """The parse status of the last replies ("ok", "no_action", ...), by seat."""
        self.error: str | None = None
        self._trace: IO[str] | None = None

    def name(self, seat: int) -> str:
        """How the record and the page name the model of ``seat``: ``llm:MODEL``."""
        return f"{LLM}:{self.models[seat]}"

    def reset(self, state: Any, masks: np.ndarray, seed: int, trace: Path) -> None:
        """A new episode: fresh memories and stats, the first texts, a new trace file (every
        prompt and reply, as the harness writes them; ``alem_pz.text.viewer`` reads it)."""
        self._close_trace()
        self.team.reset(seed)
        self.texts = self.observer.reset(state, masks)
        trace.parent.mkdir(parents=True, exist_ok=True)
        self._trace = trace.open("w", encoding="utf-8")
        self.team.trace = self._trace
        self.statuses, self.error = {}, None

    def observe(self, state: Any, actions: list[int], rewards: list[float], masks: Any) -> None:
        """The world stepped: the texts (with each seat's step feedback) follow it."""
        reward = np.asarray(rewards, np.float32)
        self.texts = self.observer.step(state, np.asarray(actions), reward, masks)

    def hear(self, seat: int, text: str) -> None:
        """A person's chat line, for the models' next request (``LLMTeam.hear``)."""
        self.team.hear(seat, text)

    def act(self, seats: list[int], step: int) -> tuple[dict[int, int], list[dict[str, Any]]]:
        """The actions of ``seats`` (asked concurrently) and their messages as chat lines of
        ``step``; NOOP for each if the endpoint refused the credentials (``error`` says so;
        the room does not stop)."""
        if not seats:
            return {}, []
        texts = {i: dataclasses.asdict(self.texts[i]) for i in seats}
        failed_before = list(self.team.stats.failed)
        try:
            actions = self.team.act(texts)
        except RunAbortedError as error:
            self.error = str(error)
            self.team.stats.faults["aborted"] += 1
            self.statuses = {i: "error" for i in seats}
            return dict.fromkeys(seats, 0), []
        self.statuses = {
            i: "ok" if self.team.stats.failed[i] == failed_before[i] else "parse_failure"
            for i in seats
        }
        said = [
            {"seat": i, "step": step, "text": text, "from": self.name(i)}
            for i, text in sorted(self.team.inbox.items())
        ]
        return actions, said

    def stats(self) -> dict[str, Any]:
        """The harness statistics of the episode (parse rate and failures, tokens, faults)."""
        return {**self.team.stats.as_dict(), "models": self.models, "error": self.error}

    def _close_trace(self) -> None:
        if self._trace is not None and not self._trace.closed:
            self._trace.close()

    def close(self) -> None:
        """Close the trace file and the seats' clients when the room ends (idempotent): an
        ``openai`` client in a reference cycle keeps its connection pool and TLS context until
        a full collection."""
        self._close_trace()
        for client in self.clients:
            client.close()


__all__ = ["LLM", "LLMSeats"]
