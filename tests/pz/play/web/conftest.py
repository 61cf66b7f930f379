"""Rooms on the small shared world (tests/pz/conftest.py), views at 10 px per tile: every test
here reuses the compiled step, reset and pixel function of that one shape."""

from __future__ import annotations

import json
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")

from alem_pz.play.web.room import Room, RoomConfig
from tests.pz.conftest import SMALL


@pytest.fixture
def make_room(tmp_path):
    """``make_room(humans=(0, 1), tick_ms=None, ...)``: a room of three on the small world,
    recording under ``tmp_path``; closed after the test."""
    rooms = []

    def factory(**overrides: Any) -> Room:
        options = dict(
            players=3, humans=(0, 1), ai="random", seed=3, static=SMALL, tile_px=10,
            record_dir=str(tmp_path / "games"), max_steps=200,
        )  # fmt: skip
        options.update(overrides)
        rooms.append(Room(RoomConfig(**options)))
        return rooms[-1]

    yield factory
    for room in rooms:
        room.close()


def receive(socket: Any, kind: str, where: Any = None, limit: int = 50) -> dict[str, Any]:
    """The next message of type ``kind`` (and, if given, ``where(message)`` true) on a test
    websocket; other messages (earlier broadcasts) are skipped."""
    for _ in range(limit):
        message = socket.receive_json()
        if message["type"] == kind and (where is None or where(message)):
            return message
    raise AssertionError(f"no {kind!r} message in {limit}")


def join(socket, seat: int) -> str:
    """Read the welcome and first frame, take ``seat``; returns the token."""
    welcome = receive(socket, "welcome")
    assert welcome["players"] == 3 and welcome["keys"]
    assert receive(socket, "frame")["views"][0].startswith("data:image/png;base64,")
    socket.send_json({"type": "take", "seat": seat})
    joined = receive(socket, "joined")
    assert joined["seat"] == seat
    return joined["token"]


def local_client(app: Any) -> Any:
    """Starlette's test client speaking to ``app`` as a page on this machine would: the server
    answers only to the hosts it serves (``Host: localhost``, not the client's "testserver")."""
    from starlette.testclient import TestClient

    class LocalClient(TestClient):
        def websocket_connect(self, url: str, *args: Any, **kwargs: Any) -> Any:
            return super().websocket_connect(f"ws://localhost{url}", *args, **kwargs)

    return LocalClient(app, base_url="http://localhost")


class Socket:
    """A real WebSocket client (the ``websockets`` package of the web extra) with the test
    client's ``send_json`` and ``receive_json``, so the protocol helpers drive it."""

    def __init__(self, url: str) -> None:
        from websockets.sync.client import connect

        self.socket = connect(url, open_timeout=30).__enter__()  # closed by close()

    def send_json(self, message: object) -> None:
        self.socket.send(json.dumps(message))

    def receive_json(self) -> dict:
        return json.loads(self.socket.recv(timeout=30))

    def close(self) -> None:
        self.socket.close()
