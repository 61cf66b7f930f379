"""Drive headless Chromium over the DevTools protocol (no Playwright or Selenium needed: the
``websockets`` client of the ``web`` extra speaks it), and serve an app on a free loopback port."""

from __future__ import annotations

import base64
import itertools
import json
import socket
import subprocess
import threading
import time
import urllib.request
from pathlib import Path
from typing import Any

from tests.conftest import CHROMIUM

FLAGS = (
    "--headless", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--hide-scrollbars", "--window-size=1280,900", "--remote-debugging-port=0",
)  # fmt: skip


def free_port() -> int:
    """A loopback port nobody listens on right now."""
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Server:
    """uvicorn serving ``app`` in a thread on a free loopback port (a context manager)."""

    def __init__(self, app: Any) -> None:
        import uvicorn

        self.port = free_port()
        config = uvicorn.Config(app, host="127.0.0.1", port=self.port, log_level="warning")
        self.server = uvicorn.Server(config)
        self.thread = threading.Thread(target=self.server.run, daemon=True)

    def __enter__(self) -> Server:
        self.thread.start()
        deadline = time.monotonic() + 60
        while not self.server.started:
            if time.monotonic() > deadline:
                raise TimeoutError("uvicorn did not start")
            time.sleep(0.05)
        return self

    def __exit__(self, *exc: object) -> None:
        self.server.should_exit = True
        self.thread.join(30)


class Browser:
    """One headless Chromium process; ``page()`` opens a tab to drive."""

    def __init__(self, profile: Path) -> None:
        self.process = subprocess.Popen(
            [CHROMIUM, *FLAGS, f"--user-data-dir={profile}", "about:blank"],
            stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL,
        )  # fmt: skip
        port_file = profile / "DevToolsActivePort"
        deadline = time.monotonic() + 60
        while not port_file.exists() or not port_file.read_text().strip():
            if time.monotonic() > deadline:
                raise TimeoutError("chromium did not open its DevTools port")
            time.sleep(0.1)
        self.port = int(port_file.read_text().split()[0])

    def page(self, url: str) -> Page:
        """A new tab at ``url``."""
        request = urllib.request.Request(
            f"http://127.0.0.1:{self.port}/json/new?{url}", method="PUT"
        )
        with urllib.request.urlopen(request, timeout=30) as response:
            return Page(json.load(response)["webSocketDebuggerUrl"])

    def close(self) -> None:
        """End the browser (this process only)."""
        self.process.terminate()
        self.process.wait(30)


class Page:
    """A tab: evaluate JavaScript, press keys, take screenshots."""

    def __init__(self, ws_url: str) -> None:
        from websockets.sync.client import connect

        self.ws = connect(ws_url, max_size=None).__enter__()  # closed by close()
        self.ids = itertools.count(1)

    def call(self, method: str, **params: Any) -> dict[str, Any]:
        """One DevTools command; events arriving meanwhile are skipped."""
        n = next(self.ids)
        self.ws.send(json.dumps({"id": n, "method": method, "params": params}))
        while True:
            reply = json.loads(self.ws.recv(timeout=60))
            if reply.get("id") == n:
                if "error" in reply:
                    raise RuntimeError(f"{method}: {reply['error']}")
                return reply.get("result", {})

    def js(self, expression: str) -> Any:
        """The value of ``expression`` in the page."""
        result = self.call("Runtime.evaluate", expression=expression, returnByValue=True)
        return result["result"].get("value")

    def wait(self, expression: str, timeout: float = 60.0) -> Any:
        """Poll ``expression`` until it is truthy; returns it."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            value = self.js(expression)
            if value:
                return value
            time.sleep(0.05)
        raise TimeoutError(f"page never made {expression!r} true")

    def press(self, key: str, code: str, key_code: int) -> None:
        """A key press as a person makes it (keydown, keyup)."""
        for kind in ("keyDown", "keyUp"):
            self.call(
                "Input.dispatchKeyEvent", type=kind, key=key, code=code,
                windowsVirtualKeyCode=key_code,
            )  # fmt: skip

    def screenshot(self, path: Path) -> None:
        """Save the page as a PNG (brought to the front first: a background tab draws nothing)."""
        self.call("Page.bringToFront")
        path.write_bytes(base64.b64decode(self.call("Page.captureScreenshot")["data"]))

    def close(self) -> None:
        """Close the DevTools connection."""
        self.ws.close()
