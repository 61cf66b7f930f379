"""What the browser server lets in: requests from its own pages, messages within bounds, at a
person's pace.

The game runs on a player's machine while they browse, so another website must not be able to
play it: a WebSocket is not bound by the browser's same-origin policy, and a page elsewhere could
otherwise open one (cross-site WebSocket hijacking), or reach the server under a hostname it
controls (DNS rebinding). Following OWASP's WebSocket guidance, every request must name a host
this server answers to (``Host``), and a WebSocket handshake that carries an ``Origin`` must come
from the server's own pages (or an origin the host allowed with ``--allow-origin``). Clients that
are not browsers send no ``Origin`` and pass on the ``Host`` check alone.

Messages are parsed with limits (size, digits of a number, no NaN or Infinity, nesting bounded
by the size), and each socket may send only so many messages of a kind in a window: an ``error``
reply names the limit, and nothing in the room changes.
"""

from __future__ import annotations

import json
import math
import time
from collections import defaultdict, deque
from collections.abc import Iterable
from typing import Any
from urllib.parse import urlsplit

from starlette.datastructures import Headers
from starlette.responses import PlainTextResponse
from starlette.types import ASGIApp, Receive, Scope, Send
from starlette.websockets import WebSocketClose

LOOPBACK = ("127.0.0.1", "localhost", "::1")
MAX_MESSAGE_CHARS = 4096
"""The longest client message (a chat line of 300 characters fits many times over)."""
MAX_NESTING = 16
"""The deepest nesting of arrays and objects in a message (the protocol's messages use two)."""
MAX_INT_DIGITS = 12
RATES = {"act": (20, 1.0), "chat": (5, 5.0), "other": (10, 10.0)}
"""Per socket and kind: at most N messages in any window of S seconds (``take``, ``rejoin``,
``next`` and unknown types count as "other"). A person presses a key a few times a second."""
POLICY_VIOLATION = 1008


class MessageError(ValueError):
    """A refused client message: too long, not JSON, out of bounds or too frequent."""


def hostname(host_header: str) -> str:
    """The host name of a ``Host`` header, without port or IPv6 brackets, lower case."""
    return (urlsplit(f"//{host_header}").hostname or "").lower()


class OriginGuard:
    """ASGI middleware: refuse requests to a host not served here (403) and WebSocket
    handshakes from another origin (closed before the upgrade, which browsers see as 403)."""

    def __init__(self, app: ASGIApp, hosts: Iterable[str], origins: Iterable[str] = ()) -> None:
        self.app = app
        self.hosts = {h.lower().strip("[]") for h in hosts}
        self.origins = {o.rstrip("/") for o in origins}

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] in ("http", "websocket"):
            refusal = self.refusal(Headers(scope=scope), scope["type"])
            if refusal is not None:
                if scope["type"] == "http":
                    response: Any = PlainTextResponse(refusal, status_code=403)
                else:
                    response = WebSocketClose(code=POLICY_VIOLATION, reason=refusal)
                await response(scope, receive, send)
                return
        await self.app(scope, receive, send)

    def refusal(self, headers: Headers, kind: str) -> str | None:
        """Why a request is refused, or None to let it through."""
        host = headers.get("host", "")
        if hostname(host) not in self.hosts:
            return f"host {host!r} is not served here (alem-serve --allow-host NAME adds one)"
        origin = headers.get("origin")
        own = {f"http://{host}", f"https://{host}"}
        if kind == "websocket" and origin is not None and origin not in own | self.origins:
            return f"origin {origin!r} may not open a game socket (--allow-origin adds one)"
        return None


def _bounded_int(text: str) -> int:
    if len(text.lstrip("-")) > MAX_INT_DIGITS:
        raise MessageError(f"a number has more than {MAX_INT_DIGITS} digits ({text[:16]}...)")
    return int(text)


def _finite_float(text: str) -> float:
    value = float(text)
    if not math.isfinite(value):
        raise MessageError(f"numbers must be finite, got {text[:16]}")
    return value


def _no_constant(name: str) -> None:
    raise MessageError(f"numbers must be finite, got {name}")


def nesting_depth(text: str) -> int:
    """How deep ``[`` and ``{`` nest in ``text``, outside strings: counted before parsing,
    because whether ``json.loads`` hits the recursion limit depends on the Python (3.13 parses
    2,000 levels)."""
    depth = deepest = 0
    in_string = escaped = False
    for char in text:
        if in_string:
            escaped, in_string = (False, True) if escaped else (char == "\\", char != '"')
        elif char == '"':
            in_string = True
        elif char in "[{":
            depth += 1
            deepest = max(deepest, depth)
        elif char in "]}":
            depth -= 1
    return deepest


def parse_message(text: str) -> Any:
    """A client's JSON message, parsed within the bounds above; MessageError otherwise."""
    if len(text) > MAX_MESSAGE_CHARS:
        raise MessageError(
            f"a message holds at most {MAX_MESSAGE_CHARS} characters, got {len(text)}"
        )
    if nesting_depth(text) > MAX_NESTING:
        raise MessageError(f"a message is nested too deeply (at most {MAX_NESTING} levels)")
    try:
        return json.loads(
            text, parse_int=_bounded_int, parse_float=_finite_float, parse_constant=_no_constant
        )
    except RecursionError:
        raise MessageError("a message is nested too deeply") from None
    except json.JSONDecodeError as error:
        raise MessageError(f"a message must be JSON ({error.msg})") from None


class Rates:
    """One socket's recent messages by kind, against ``RATES``."""

    def __init__(self) -> None:
        self.times: dict[str, deque[float]] = defaultdict(deque)

    def check(self, kind: Any, now: float | None = None) -> None:
        """Count one message of ``kind``; MessageError naming the limit when over it."""
        kind = kind if kind in RATES else "other"
        limit, window = RATES[kind]
        now = time.monotonic() if now is None else now
        recent = self.times[kind]
        while recent and now - recent[0] >= window:
            recent.popleft()
        if len(recent) >= limit:
            raise MessageError(
                f"more than {limit} {kind!r} messages in {window:g} s from this page: slow down"
            )
        recent.append(now)


__all__ = [
    "LOOPBACK",
    "MAX_MESSAGE_CHARS",
    "RATES",
    "MessageError",
    "OriginGuard",
    "Rates",
    "hostname",
    "parse_message",
]
