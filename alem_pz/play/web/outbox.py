"""What the server sends one page, sent by that page's own task so that no room ever waits on a
socket.

A page that stops reading (a frozen tab, a bad connection) used to stall every page of its room:
the room's broadcast awaited each socket's send in turn, and the server queued megabytes for the
one that did not read. Here a broadcast only hands the text to each page's outbox. A view frame
replaces the page's unsent older frame (a page needs only the latest view; the replaced ones are
counted as dropped); other messages keep their order. A page whose send does not complete within
``SEND_TIMEOUT_S``, or whose queue of other messages overflows, is given up: ``run`` returns and
the session closes it, which marks its seats away (the AI takes over after ``takeover_s``).
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque

from starlette.websockets import WebSocket

SEND_TIMEOUT_S = 5.0
MAX_QUEUED = 256


class Outbox:
    """One page's outgoing messages (module docstring)."""

    def __init__(self, socket: WebSocket) -> None:
        self.socket = socket
        self.queue: deque[tuple[bool, str]] = deque()  # (is a frame, text)
        self.ready = asyncio.Event()
        self.dropped_frames = 0
        self.gave_up: str | None = None

    def put(self, text: str, frame: bool = False) -> None:
        """Queue ``text``; a ``frame`` replaces an unsent older frame."""
        if self.gave_up is not None:
            return
        if frame:
            before = len(self.queue)
            self.queue = deque(item for item in self.queue if not item[0])
            self.dropped_frames += before - len(self.queue)
        if len(self.queue) >= MAX_QUEUED:
            self.gave_up = f"more than {MAX_QUEUED} messages waited for this page"
        self.queue.append((frame, text))
        self.ready.set()

    async def run(self) -> str:
        """Send what is queued, in order, until the page is given up; returns why."""
        while self.gave_up is None:
            await self.ready.wait()
            self.ready.clear()
            while self.queue and self.gave_up is None:
                _, text = self.queue.popleft()
                try:
                    await asyncio.wait_for(self.socket.send_text(text), SEND_TIMEOUT_S)
                except TimeoutError:
                    self.gave_up = f"a send took over {SEND_TIMEOUT_S:g} s: the page is not reading"
                except Exception as error:  # closed underneath us: the session ends too
                    self.gave_up = f"the page's connection failed ({type(error).__name__})"
        return self.gave_up

    async def close(self, code: int = 1008) -> None:
        """Close the socket without waiting on a page that does not read."""
        with contextlib.suppress(Exception):
            await asyncio.wait_for(self.socket.close(code=code, reason=self.gave_up or ""), 1.0)


__all__ = ["MAX_QUEUED", "SEND_TIMEOUT_S", "Outbox"]
