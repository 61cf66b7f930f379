"""Fuzzed WebSocket messages to a room (hypothesis): any JSON value, any text, any bytes.
Every text gets either a normal reply or an ``error``, the socket stays open (a binary frame is
closed with 1003 and nothing else), and afterwards the room plays on from where it was."""

from __future__ import annotations

import json

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from starlette.websockets import WebSocketDisconnect

from alem_pz.play.web import guard
from alem_pz.play.web.app import make_app

from .conftest import join, local_client, receive

JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats() | st.text(max_size=20),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner, max_size=4)
    ),
    max_leaves=12,
)
MESSAGE = st.one_of(
    JSON,
    st.fixed_dictionaries(
        {"type": st.sampled_from(["take", "rejoin", "act", "chat", "next", "x"])},
        optional={"seat": JSON, "token": JSON, "action": JSON, "text": JSON, "client_ms": JSON},
    ),
)
REPLIES = {"error", "joined", "status", "frame", "chat"}


@pytest.fixture(scope="module")
def room_client(tmp_path_factory):
    from alem_pz.play.web.room import Room, RoomConfig
    from tests.pz.conftest import SMALL

    games = str(tmp_path_factory.mktemp("games"))
    config = RoomConfig(humans=(0, 1), seed=3, static=SMALL, tile_px=10, record_dir=games)
    room = Room(config)
    rates = dict(guard.RATES)
    guard.RATES["other"] = (10_000, 1.0)  # the fuzzer sends fast but is no flooder
    try:
        with local_client(make_app(room)) as client:
            yield room, client
    finally:
        guard.RATES.update(rates)
        room.close()


@settings(max_examples=80, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(messages=st.lists(st.one_of(MESSAGE.map(json.dumps), st.text(max_size=60)), max_size=5))
def test_any_message_gets_a_reply_and_the_socket_lives_on(room_client, messages):
    _, client = room_client
    with client.websocket_connect("/ws") as socket:
        for text in messages:
            socket.send_text(text)
        socket.send_json({"type": "ping-after"})  # answered last: every reply came before it
        seen = []
        while not seen or "'ping-after'" not in seen[-1].get("message", ""):
            seen.append(socket.receive_json())
        assert {m["type"] for m in seen} <= REPLIES | {"welcome"}, seen
        errors = sum(m["type"] == "error" for m in seen)
        assert errors <= len(messages) + 1


@settings(max_examples=20, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(data=st.binary(min_size=1, max_size=64))
def test_a_binary_frame_closes_only_its_own_socket(room_client, data):
    _, client = room_client
    with client.websocket_connect("/ws") as other, client.websocket_connect("/ws") as socket:
        receive(socket, "welcome")
        socket.send_bytes(data)
        with pytest.raises(WebSocketDisconnect) as closed:
            receive(socket, "never")
        assert closed.value.code == 1003
        receive(other, "welcome")
        other.send_json({"type": "next"})
        assert "take a seat" in receive(other, "error")["message"]


def test_after_the_fuzz_the_room_still_plays(room_client):
    room, client = room_client
    with client.websocket_connect("/ws") as a, client.websocket_connect("/ws") as b:
        seats = [s.index for s in room.seats if s.human and s.token is None]
        if len(seats) < 2:
            pytest.skip("the fuzzer took the human seats")  # their tokens went with it
        ta, tb = join(a, seats[0]), join(b, seats[1])
        step = room.steps
        a.send_json({"type": "act", "token": ta, "action": 1})
        b.send_json({"type": "act", "token": tb, "action": 2})
        assert receive(a, "frame", lambda m: m["step"] == step + 1)["step"] == step + 1
