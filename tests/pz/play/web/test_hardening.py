"""alem-serve against other sites and hostile or broken clients (``alem_pz.play.web.guard`` and
``outbox``): foreign hosts and origins refused, messages out of bounds answered with an error on
a socket that lives on, rates limited, seats freed with their socket, slow pages given up."""

from __future__ import annotations

import asyncio
import json
import os
import socket
import struct
import time

import pytest
from starlette.websockets import WebSocketDisconnect

from alem_pz.play.web import outbox
from alem_pz.play.web.app import make_app
from alem_pz.play.web.guard import RATES
from bench.web_load import frozen_page

from .browser import Server
from .conftest import Socket, join, local_client, receive


def test_foreign_hosts_and_origins_are_refused(make_room) -> None:
    """Another site's page (cross-site WebSocket hijacking) and a hostname that is not this
    server's (DNS rebinding) get nothing; the server's own pages, clients without an Origin and
    origins the host allowed get in."""
    room = make_room()
    app = make_app(room, origins=["http://friend.example:9000"])
    with local_client(app) as client:
        assert client.get("/").status_code == 200
        refused = client.get("http://evil.example/")
        assert refused.status_code == 403 and "host 'evil.example'" in refused.text
        for origin in ("http://evil.example", "null", "file://", "http://localhost:1"):
            opened = client.websocket_connect("/ws", headers={"origin": origin})
            with pytest.raises(WebSocketDisconnect) as closed, opened as socket:
                socket.receive_json()
            assert closed.value.code == 1008 and f"origin {origin!r}" in closed.value.reason
        for origin in ("http://localhost", "http://friend.example:9000", None):
            headers = {"origin": origin} if origin else {}
            with client.websocket_connect("/ws", headers=headers) as socket:
                assert receive(socket, "welcome")["players"] == 3


def test_out_of_bounds_messages_get_an_error_and_the_socket_lives_on(make_room) -> None:
    """A 5,000-digit number, an array nested 100,000 deep and NaN used to end the connection
    with a traceback; a binary frame is refused with a close code."""
    room = make_room()
    with local_client(make_app(room)) as client, client.websocket_connect("/ws") as socket:
        token = join(socket, 0)
        bad = [
            ('{"type": "take", "seat": ' + "9" * 5000 + "}", "at most 4096 characters"),
            ('{"type": "take", "seat": ' + "9" * 40 + "}", "more than 12 digits"),
            ("[" * 100_000 + "]" * 100_000, "at most 4096 characters"),
            ("[" * 2000 + "]" * 2000, "nested too deeply"),
            ('{"type": "act", "token": "t", "action": 1, "client_ms": NaN}', "finite, got NaN"),
            ('{"type": "act", "token": "t", "action": 1e999}', "finite"),
            ("{not json", "must be JSON"),
        ]
        for text, message in bad:
            socket.send_text(text)
            assert message in receive(socket, "error")["message"], text
        socket.send_json({"type": "act", "token": token, "action": 1})
        assert receive(socket, "status")["chosen"] == [0]  # the socket still plays
        socket.send_bytes(b"\x00\x01")
        with pytest.raises(WebSocketDisconnect) as closed:
            receive(socket, "never")
        assert closed.value.code == 1003


def test_rates_are_limited_and_only_seated_pages_start_episodes(make_room) -> None:
    room = make_room()
    limit, window = RATES["chat"]
    with local_client(make_app(room)) as client, client.websocket_connect("/ws") as socket:
        token = join(socket, 0)
        for n in range(limit):
            socket.send_json({"type": "chat", "token": token, "text": f"line {n}"})
            receive(socket, "chat")
        socket.send_json({"type": "chat", "token": token, "text": "one too many"})
        error = receive(socket, "error")["message"]
        assert f"more than {limit} 'chat' messages in {window:g} s" in error
        assert [m["text"] for m in room.chat_log] == [f"line {n}" for n in range(limit)]
        with client.websocket_connect("/ws") as watcher:
            watcher.send_json({"type": "next"})
            assert "take a seat" in receive(watcher, "error")["message"]


def test_a_socket_that_held_two_seats_frees_both(make_room) -> None:
    """One page took seats 0 and 1 and closed: seat 0 used to stay connected forever."""
    pytest.importorskip("websockets.sync.client")
    room = make_room()
    with Server(make_app(room)) as server:
        socket = Socket(f"ws://127.0.0.1:{server.port}/ws")
        join(socket, 0)
        socket.send_json({"type": "take", "seat": 1})
        receive(socket, "joined")
        assert [s.connected for s in room.seats] == [True, True, False]
        socket.close()
        deadline = time.monotonic() + 10
        while any(s.connected for s in room.seats) and time.monotonic() < deadline:
            time.sleep(0.05)  # the server handles the close in its own thread
    assert [s.connected for s in room.seats] == [False, False, False]
    assert all(s.left_at is not None for s in room.seats[:2])


def masked_text_frame(text: str) -> bytes:
    """A client's WebSocket text frame (RFC 6455: clients mask what they send)."""
    data, mask = text.encode(), os.urandom(4)
    size = bytes([0x80 | len(data)]) if len(data) < 126 else b"\xfe" + struct.pack("!H", len(data))
    return b"\x81" + size + mask + bytes(b ^ mask[i % 4] for i, b in enumerate(data))


def never_reading_page(port: int, seat: int) -> socket.socket:
    """A page that takes ``seat`` and then never reads its socket (``bench.web_load``'s
    frozen page, which has a small receive buffer, so the server's sends back up within
    seconds)."""
    page = frozen_page(port, "/ws")
    assert page.recv(12) == b"HTTP/1.1 101"
    page.sendall(masked_text_frame(json.dumps({"type": "take", "seat": seat})))
    return page


def test_a_page_that_never_reads_delays_no_other_page_and_loses_its_seat(
    make_room, monkeypatch
) -> None:
    """Over a real loopback server in real-time mode: the reading page gets every frame within
    a second of the last, while the page that does not read is given up and its seat is
    taken over (one such page used to freeze every page of its room for minutes)."""
    pytest.importorskip("websockets.sync.client")
    monkeypatch.setattr(outbox, "SEND_TIMEOUT_S", 1.0)
    room = make_room(tick_ms=50, takeover_s=1.0, max_steps=100_000)
    with Server(make_app(room)) as server:
        stuck = never_reading_page(server.port, 0)
        reader = Socket(f"ws://127.0.0.1:{server.port}/ws")
        join(reader, 1)
        start = last = time.monotonic()
        gaps = []
        while not room.seats[0].taken_over and time.monotonic() - start < 60:
            if reader.receive_json()["type"] == "frame":
                gaps.append(time.monotonic() - last)
                last = time.monotonic()
        reader.close()
        stuck.close()
    assert room.seats[0].taken_over and not room.seats[0].connected
    assert len(gaps) > 20 and max(gaps) < 1.0


def test_a_page_that_closes_while_taking_a_second_seat_frees_both(make_room) -> None:
    """The page asks for two seats and closes before reading either reply: both tokens used to
    be lost with the reply that failed, and both seats stayed connected."""
    room = make_room()
    with Server(make_app(room)) as server:
        page = never_reading_page(server.port, 0)
        page.sendall(masked_text_frame(json.dumps({"type": "take", "seat": 1})))
        deadline = time.monotonic() + 10
        while sum(s.token is not None for s in room.seats) < 2 and time.monotonic() < deadline:
            time.sleep(0.02)
        page.close()
        while any(s.connected for s in room.seats) and time.monotonic() < deadline:
            time.sleep(0.05)
    assert [s.token is not None for s in room.seats] == [True, True, False]
    assert [s.connected for s in room.seats] == [False, False, False]


@pytest.mark.slow  # waits 8 s for a socket to back up
def test_a_closed_page_is_taken_over_on_time_beside_a_page_that_does_not_read(
    make_room, monkeypatch
) -> None:
    """Beside a page whose socket backed up, another page closed and kept its seat for 30 s
    or more with a 5 s takeover: the room's clock waited on the stuck socket."""
    pytest.importorskip("websockets.sync.client")
    monkeypatch.setattr(outbox, "SEND_TIMEOUT_S", 30.0)  # the stuck page stays stuck meanwhile
    room = make_room(tick_ms=50, takeover_s=1.0, max_steps=100_000)
    with Server(make_app(room)) as server:
        stuck = never_reading_page(server.port, 0)
        leaving = Socket(f"ws://127.0.0.1:{server.port}/ws")
        join(leaving, 1)
        time.sleep(8)  # the stuck page's buffers are full by now (about 6 s in the probe)
        leaving.close()
        closed_at = time.monotonic()
        while not room.seats[1].taken_over and time.monotonic() - closed_at < 10:
            time.sleep(0.05)
        took = time.monotonic() - closed_at
        stuck.close()
    assert room.seats[1].taken_over and took < 3.0, took


class StuckSocket:
    """A page that never reads: its first send never completes."""

    def __init__(self) -> None:
        self.sent: list[str] = []

    async def send_text(self, text: str) -> None:
        self.sent.append(text)
        await asyncio.Event().wait()


def test_an_outbox_keeps_the_latest_frame_and_gives_up_on_a_page_that_does_not_read(
    monkeypatch,
) -> None:
    monkeypatch.setattr(outbox, "SEND_TIMEOUT_S", 0.2)

    async def scenario() -> tuple[outbox.Outbox, str]:
        box = outbox.Outbox(StuckSocket())
        running = asyncio.create_task(box.run())
        box.put("frame 1", frame=True)
        await asyncio.sleep(0.05)  # frame 1 is being sent and is stuck
        for n in (2, 3, 4):
            box.put(f"frame {n}", frame=True)
        box.put("chat")
        assert [text for _, text in box.queue] == ["frame 4", "chat"]
        return box, await asyncio.wait_for(running, 5)

    box, reason = asyncio.run(scenario())
    assert box.dropped_frames == 2 and "not reading" in reason
    box.put("after")  # nothing more is queued for a page given up
    assert [text for _, text in box.queue] == ["frame 4", "chat"]
