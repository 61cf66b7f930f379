"""Rooms on the small shared world (tests/pz/conftest.py), views at 10 px per tile: every test
here reuses the compiled step, reset and pixel function of that one shape."""

from __future__ import annotations

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
