"""The WebSocket protocol of alem-serve through Starlette's test client: two people and one AI
seat, turn mode and real-time mode, and bad input that is refused without changing the room."""

from __future__ import annotations

import json
import time

from alem_core.constants import Action
from alem_pz.play.web.app import make_app
from alem_pz.play.web.record import read_record, replay

from .conftest import join, local_client, receive


def test_turn_mode_two_people_and_an_ai_seat(make_room) -> None:
    room = make_room()
    with (
        local_client(make_app(room)) as client,
        client.websocket_connect("/ws") as a,
        client.websocket_connect("/ws") as b,
    ):
        ta, tb = join(a, 0), join(b, 1)
        for step in (1, 2):
            a.send_json({"type": "act", "token": ta, "action": int(Action.LEFT)})
            status = receive(b, "status", lambda m: m["chosen"] == [0])
            assert status["waiting"] == [1] and status["step"] == step - 1
            b.send_json({"type": "act", "token": tb, "action": int(Action.UP), "client_ms": 80})
            for socket in (a, b):  # both pages see the new step
                frame = receive(socket, "frame")
                assert frame["step"] == step and len(frame["views"]) == 3
        assert frame["last"]["who"] == ["human", "human", "ai:random"]
        assert frame["last"]["actions"][:2] == ["LEFT", "UP"]
        b.send_json({"type": "chat", "token": tb, "text": "wood over here"})
        assert receive(a, "chat")["message"] == {"seat": 1, "step": 2, "text": "wood over here"}
    steps = [line for line in read_record(room.record_paths[0]) if line["type"] == "step"]
    assert [s["who"] for s in steps] == [["human", "human", "ai:random"]] * 2
    assert steps[1]["client_ms"][1] == 80.0 and steps[1]["reaction_ms"][0] is not None
    assert replay(room.record_paths[0]).steps == 2


def test_bad_messages_are_refused_and_change_nothing(make_room) -> None:
    room = make_room()
    with (
        local_client(make_app(room)) as client,
        client.websocket_connect("/ws") as a,
        client.websocket_connect("/ws") as b,
    ):
        ta, tb = join(a, 0), join(b, 1)
        before = client.get("/api/room").json()
        bad = [
            ({"type": "act", "token": ta, "action": 999}, "seat 0: action 999 is outside"),
            ({"type": "act", "token": ta, "action": "up"}, "seat 0: action must be an integer"),
            ({"type": "act", "token": ta, "action": True}, "seat 0: action must be"),
            ({"type": "act", "token": "not-a-token", "action": 1}, "unknown seat token"),
            ({"type": "act", "action": 1}, "unknown seat token"),
            ({"type": "take", "seat": 1}, "seat 1 is taken"),
            ({"type": "take", "seat": 2}, "seat 2 is played by the AI"),
            ({"type": "take", "seat": 7}, "seat must be an integer in [0, 3)"),
            ({"type": "chat", "token": ta, "text": ""}, "non-empty text"),
            ({"type": "fly"}, "unknown message type 'fly'"),
            ({"type": "next"}, "still running"),
            ([1, 2], "must be a JSON object"),
        ]
        for message, expected in bad:
            a.send_json(message)
            assert expected in receive(a, "error")["message"], message
        a.send_text("{not json")
        assert "Expecting" in receive(a, "error")["message"]
        assert client.get("/api/room").json() == before  # nothing chosen, nothing stepped
        a.send_json({"type": "act", "token": ta, "action": 1})
        b.send_json({"type": "act", "token": tb, "action": 2})
        assert receive(a, "frame")["step"] == 1
    assert replay(room.record_paths[0]).steps == 1


def test_tick_mode_steps_with_noop_for_people_who_did_not_choose(make_room) -> None:
    room = make_room(tick_ms=40)
    with (
        local_client(make_app(room)) as client,
        client.websocket_connect("/ws") as a,
        client.websocket_connect("/ws") as b,
    ):
        ta = join(a, 0)
        time.sleep(0.2)
        assert client.get("/api/room").json()["step"] == 0  # seat 1 is still free
        join(b, 1)
        assert receive(a, "frame")["step"] >= 1
        a.send_json({"type": "act", "token": ta, "action": int(Action.RIGHT)})
        deadline = time.monotonic() + 30
        while time.monotonic() < deadline:
            frame = receive(a, "frame")
            if frame["last"]["who"][0] == "human":
                break
        assert frame["last"]["actions"][0] == "RIGHT"
    lines = [json.loads(x) for x in room.record_paths[0].read_text().splitlines()]
    whos = [line["who"] for line in lines if line["type"] == "step"]
    assert whos[0] == ["noop:no-choice", "noop:no-choice", "ai:random"]
    assert ["human", "noop:no-choice", "ai:random"] in whos
    assert replay(room.record_paths[0]).steps == len(whos)
