"""A local OpenAI-compatible chat-completions server answered by the rule-based text agent.

For harness tests and overhead measurements: a real HTTP server on 127.0.0.1 speaking the
chat-completions wire format, so the official ``openai`` client is exercised end to end. It can
inject faults: HTTP 429, 500 and 400 (not retryable), replies slower than the client's timeout,
and truncated or garbled completions. Faults are drawn from a hash of the request body and how
many times that body was seen, so they do not depend on thread timing: transport faults hit the
first attempt only (a retry gets the true reply), content faults replace the reply of that request.

    with LocalServer(faults={"429": 0.1}) as server:
        client = ClientConfig(model="rule", base_url=server.url)

The same server in a process of its own, so that a measurement of the client process (the soak's
RSS) leaves the server out: ``python -m alem_pz.text.local_server --faults '{"429": 0.1}'``
prints its base URL on the first line and serves until its standard input closes; ``GET
<url>/stats`` (``fetch_stats``) answers the request count per fault kind.
"""

from __future__ import annotations

import argparse
import contextlib
import hashlib
import json
import re
import sys
import threading
import time
import urllib.request
from collections import Counter
from collections.abc import Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from alem_pz.text.rule_agent import reply

FAULTS = ("429", "500", "400", "slow", "truncate", "garble")
_AGENT = re.compile(r"You are Agent (\d+)")


def _draw(key: str) -> float:
    return int(hashlib.sha256(key.encode()).hexdigest()[:8], 16) / 0xFFFFFFFF


class LocalServer:
    """Start on ``__enter__`` (a free port), stop on ``__exit__``; ``url`` ends in ``/v1``."""

    def __init__(
        self,
        faults: dict[str, float] | None = None,
        slow_seconds: float = 1.0,
        delay: float = 0.0,
    ) -> None:
        unknown = set(faults or {}) - set(FAULTS)
        if unknown:
            raise ValueError(f"unknown fault(s) {sorted(unknown)}; known: {FAULTS}")
        self.faults = dict(faults or {})
        self.slow_seconds, self.delay = slow_seconds, delay
        self.stats: Counter = Counter()
        self.seen: Counter = Counter()
        self.auth_headers: list[str] = []
        self.routes: Counter = Counter()
        """(model, agent) pairs of the requests answered."""
        self._lock = threading.Lock()
        self._server: ThreadingHTTPServer | None = None

    @property
    def url(self) -> str:
        """The base URL for an OpenAI client."""
        assert self._server is not None, "server not started"
        return f"http://127.0.0.1:{self._server.server_address[1]}/v1"

    def __enter__(self) -> LocalServer:
        owner = self

        class Handler(BaseHTTPRequestHandler):
            def log_message(self, *args) -> None:  # keep test output clean
                pass

            def do_POST(self) -> None:
                owner.answer_post(self)

            def do_GET(self) -> None:
                owner.answer_get(self)

        self._server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
        self._server.daemon_threads = True
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(self, *exc) -> None:
        if self._server is not None:
            self._server.shutdown()
            self._server.server_close()

    def _fault(self, body: bytes) -> str | None:
        digest = hashlib.sha256(body).hexdigest()
        with self._lock:
            self.seen[digest] += 1
            attempt = self.seen[digest]
        edge = 0.0
        draw = _draw(digest)
        for name in FAULTS:
            edge += self.faults.get(name, 0.0)
            if draw < edge:
                transport = name in ("429", "500", "400", "slow")
                return name if attempt == 1 or not transport else None
        return None

    def answer_get(self, handler: BaseHTTPRequestHandler) -> None:
        """``/stats``: the counts, for a client that cannot read ``stats`` (another process)."""
        if handler.path.rstrip("/").endswith("/stats"):
            with self._lock:
                stats = dict(self.stats)
            return _send(handler, 200, stats)
        _send(handler, 404, {"error": {"message": f"no {handler.path}"}})

    def answer_post(self, handler: BaseHTTPRequestHandler) -> None:
        body = handler.rfile.read(int(handler.headers.get("Content-Length", 0)))
        with self._lock:
            self.auth_headers.append(handler.headers.get("Authorization", ""))
            self.stats["requests"] += 1
        fault = self._fault(body)
        if fault:
            with self._lock:
                self.stats[fault] += 1
        try:
            if fault in ("429", "500", "400"):
                return _send(handler, int(fault), {"error": {"message": f"injected {fault}"}})
            if fault == "slow":
                time.sleep(self.slow_seconds)
            if self.delay:
                time.sleep(self.delay)
            request = json.loads(body)
            completion, agent = _completion(request, fault)
            with self._lock:
                self.routes[(request.get("model"), agent)] += 1
            _send(handler, 200, completion)
        except (BrokenPipeError, ConnectionResetError):
            pass  # the client gave up (a slow reply past its timeout)


def _completion(request: dict, fault: str | None) -> tuple[dict, int]:
    messages = request.get("messages", [])
    system = next((m["content"] for m in messages if m.get("role") == "system"), "")
    user = next((m["content"] for m in reversed(messages) if m.get("role") == "user"), "")
    match = _AGENT.search(system)
    agent = int(match.group(1)) if match else 0
    text = reply(user, agent)
    finish = "stop"
    if fault == "truncate":
        text, finish = text[: len(text) // 3], "length"
    elif fault == "garble":
        text = hashlib.sha256(text.encode()).hexdigest() * 3
    prompt_tokens = sum(len(m.get("content", "")) for m in messages) // 4
    return {
        "id": "chatcmpl-local",
        "object": "chat.completion",
        "created": 0,
        "model": request.get("model", "rule"),
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": text},
                "finish_reason": finish,
            }
        ],
        "usage": {
            "prompt_tokens": prompt_tokens,
            "completion_tokens": len(text) // 4,
            "total_tokens": prompt_tokens + len(text) // 4,
        },
    }, agent


def _send(handler: BaseHTTPRequestHandler, status: int, payload: dict) -> None:
    data = json.dumps(payload).encode()
    handler.send_response(status)
    handler.send_header("Content-Type", "application/json")
    handler.send_header("Content-Length", str(len(data)))
    handler.end_headers()
    handler.wfile.write(data)


def fetch_stats(url: str, timeout: float = 10.0) -> dict[str, int]:
    """The request count per fault kind of the server at base URL ``url`` (``stats``)."""
    with urllib.request.urlopen(f"{url}/stats", timeout=timeout) as response:
        return json.loads(response.read())


def main(argv: Sequence[str] | None = None) -> None:
    """Serve in this process until standard input closes (a parent that exits or closes the
    pipe stops its server, so none outlives the run that started it)."""
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--faults", default="{}", help="fault: probability, JSON")
    parser.add_argument("--slow-seconds", type=float, default=1.0)
    parser.add_argument("--delay", type=float, default=0.0)
    args = parser.parse_args(argv)
    with LocalServer(json.loads(args.faults), args.slow_seconds, args.delay) as server:
        print(server.url, flush=True)
        with contextlib.suppress(KeyboardInterrupt):
            sys.stdin.read()


if __name__ == "__main__":
    main()
