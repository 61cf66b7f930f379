"""One chat-completions client per agent, on the official ``openai`` package
(docs/language-agents.md#the-harness), against any OpenAI-compatible endpoint (vLLM, llama.cpp
server, hosted APIs).

Retries: exponential back-off ``retry_delay * 2**(k - 1)`` on timeouts, connection errors and HTTP
408, 429 and 5xx; no retry on other 4xx. A request that still fails yields an empty completion
with stop reason ``error_<cause>`` (a parse failure, so Noop) and is counted, so no episode is lost
to a flaky server; authentication errors (401, 403) abort the run instead, since every later
request would fail too. The API key is read from the environment at client construction and
never stored in a config, a trace, a summary or an error text.
"""

from __future__ import annotations

import os
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from typing import Any

RETRYABLE_STATUS = (408, 429)
AUTH_STATUS = (401, 403)


@dataclass(frozen=True)
class ClientConfig:
    """One agent's model endpoint and sampling settings (defaults: docs/evaluation.md#the-protocol
    and docs/language-agents.md#the-harness)."""

    model: str
    base_url: str = "http://localhost:8000/v1"
    api_key_env: str | None = None
    """Name of the environment variable holding the key (None: the key "EMPTY", as for vLLM)."""
    temperature: float = 1.0
    max_tokens: int = 8192
    seed: int | None = 42
    timeout: float = 420.0
    max_retries: int = 5
    retry_delay: float = 2.0
    reasoning_effort: str | None = None
    extra_body: dict[str, Any] | None = None

    def public(self) -> dict[str, Any]:
        """The settings as JSON, for run records (holds the variable's name, never a key)."""
        return asdict(self)

    @classmethod
    def from_dict(cls, values: dict[str, Any]) -> ClientConfig:
        """Build from a config-file entry; unknown or key-bearing fields are refused."""
        if "api_key" in values:
            raise ValueError(
                "client config must name the environment variable (api_key_env), not hold a key"
            )
        known = set(cls.__dataclass_fields__)
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"unknown client config field(s) {unknown}; known: {sorted(known)}")
        if "model" not in values:
            raise ValueError(f"client config needs a model, got {sorted(values)}")
        return cls(**values)


@dataclass
class Completion:
    """One reply and its accounting."""

    text: str = ""
    reasoning: str = ""
    finish_reason: str = ""
    input_tokens: int = 0
    output_tokens: int = 0
    reasoning_tokens: int = 0
    attempts: int = 0
    faults: Counter = field(default_factory=Counter)
    seconds: float = 0.0


class RunAbortedError(RuntimeError):
    """A failure no retry can fix (bad credentials)."""


class ChatClient:
    """A thread-safe wrapper of ``openai.OpenAI`` with our retry policy and accounting."""

    def __init__(self, config: ClientConfig) -> None:
        import openai

        self.config = config
        key = "EMPTY"
        if config.api_key_env:
            key = os.environ.get(config.api_key_env, "")
            if not key:
                raise ValueError(
                    f"environment variable {config.api_key_env!r} (api_key_env of model "
                    f"{config.model!r}) is unset or empty"
                )
        self._openai = openai
        self._client = openai.OpenAI(
            api_key=key, base_url=config.base_url, timeout=config.timeout, max_retries=0
        )

    def close(self) -> None:
        """Close the connection pool now. The ``openai`` client sits in a reference cycle once
        it has sent a request, so without this its sockets wait for a full garbage collection."""
        self._client.close()

    def _request(self, messages: list[dict[str, str]]):
        c = self.config
        kwargs: dict[str, Any] = dict(model=c.model, messages=messages, temperature=c.temperature)
        kwargs["max_tokens"] = c.max_tokens
        if c.seed is not None:
            kwargs["seed"] = c.seed
        if c.reasoning_effort:
            kwargs["reasoning_effort"] = c.reasoning_effort
        if c.extra_body:
            kwargs["extra_body"] = c.extra_body
        return self._client.chat.completions.create(**kwargs)

    def _classify(self, error: Exception) -> tuple[str, bool]:
        """(fault name, retryable) of an exception from the client."""
        o = self._openai
        if isinstance(error, o.APITimeoutError):
            return "timeout", True
        if isinstance(error, o.APIConnectionError):
            return "connection", True
        if isinstance(error, o.APIStatusError):
            status = error.status_code
            if status in AUTH_STATUS:
                raise RunAbortedError(
                    f"model {self.config.model!r} at {self.config.base_url}: HTTP {status} "
                    "(check the API key variable)"
                ) from None
            return f"http_{status}", status in RETRYABLE_STATUS or status >= 500
        if isinstance(error, o.APIResponseValidationError):
            return "bad_response", True
        return f"error_{type(error).__name__}", False

    def complete(self, messages: list[dict[str, str]]) -> Completion:
        """One completion with retries; never raises except ``RunAbortedError``."""
        out, start = Completion(), time.perf_counter()
        for attempt in range(1, self.config.max_retries + 2):
            out.attempts = attempt
            try:
                response = self._request(messages)
            except Exception as error:  # classified below; anything else is a fault too
                fault, retryable = self._classify(error)
                out.faults[fault] += 1
                if not retryable or attempt > self.config.max_retries:
                    out.finish_reason = f"error_{fault}"
                    break
                time.sleep(self.config.retry_delay * 2 ** (attempt - 1))
                continue
            _fill(out, response)
            break
        out.seconds = time.perf_counter() - start
        return out


def _fill(out: Completion, response) -> None:
    """Copy text, reasoning, stop reason and token counts from a chat completion."""
    choice = response.choices[0] if response.choices else None
    message = getattr(choice, "message", None)
    out.text = (getattr(message, "content", None) or "") if message else ""
    extra = (getattr(message, "model_extra", None) or {}) if message else {}
    out.reasoning = extra.get("reasoning_content") or extra.get("reasoning") or ""
    out.finish_reason = (getattr(choice, "finish_reason", None) or "") if choice else "empty"
    usage = getattr(response, "usage", None)
    if usage is not None:
        out.input_tokens = int(getattr(usage, "prompt_tokens", 0) or 0)
        out.output_tokens = int(getattr(usage, "completion_tokens", 0) or 0)
        details = getattr(usage, "completion_tokens_details", None)
        out.reasoning_tokens = int(getattr(details, "reasoning_tokens", 0) or 0) if details else 0
