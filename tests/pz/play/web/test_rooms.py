"""Several rooms on one server (lobby, separate games and records, one compiled step), the GIF
of a finished episode from the server and from ``alem-replay --gif``, and a disconnect and
rejoin over a real WebSocket on a loopback port."""

from __future__ import annotations

import io
from dataclasses import replace

import pytest
from starlette.websockets import WebSocketDisconnect

from alem_core.constants import Action
from alem_pz.envs.kernels import compiled_core
from alem_pz.play.web.app import make_app
from alem_pz.play.web.record import read_record, replay
from alem_pz.play.web.replay import main as replay_main
from alem_pz.play.web.room import RoomConfig
from alem_pz.play.web.server import make_rooms
from tests.pz.conftest import SMALL

from .browser import Server
from .conftest import Socket, join, local_client, receive


def gif_frames(data: bytes) -> int:
    """The number of frames of a GIF (Pillow)."""
    image_module = pytest.importorskip("PIL.Image")
    with image_module.open(io.BytesIO(data)) as image:
        assert image.format == "GIF"
        return image.n_frames


def test_two_rooms_play_apart_and_the_lobby_lists_their_free_seats(make_room, tmp_path) -> None:
    first = make_room(record_dir=str(tmp_path / "room-a"))
    compiles = compiled_core.cache_info().misses
    second = make_room(record_dir=str(tmp_path / "room-b"), max_steps=2)
    assert compiled_core.cache_info().misses == compiles  # the second room compiled nothing
    with (
        local_client(make_app({"a": first, "b": second})) as client,
        client.websocket_connect("/room/a/ws") as a0,
        client.websocket_connect("/room/b/ws") as b0,
        client.websocket_connect("/room/b/ws") as b1,
    ):
        assert 'id="rooms"' in client.get("/").text and 'id="view"' in client.get("/room/b").text
        ta0, tb0, tb1 = join(a0, 0), join(b0, 0), join(b1, 1)  # seat 0 in each room
        lobby = {r["name"]: r for r in client.get("/api/rooms").json()}
        assert (lobby["a"]["free"], lobby["b"]["free"], lobby["b"]["url"]) == ([1], [], "/room/b")
        assert client.get("/api/room/a/gif").status_code == 409  # no episode finished yet
        for _ in range(2):  # room b plays its whole (two-step) episode; room a does not move
            b0.send_json({"type": "act", "token": tb0, "action": int(Action.LEFT)})
            b1.send_json({"type": "act", "token": tb1, "action": int(Action.UP)})
            frame = receive(b0, "frame")
        assert frame["summary"] and client.get("/api/room/a").json()["step"] == 0
        a0.send_json({"type": "act", "token": tb0, "action": 1})  # room b's token in room a
        assert "unknown seat token" in receive(a0, "error")["message"]
        gif = client.get("/api/room/b/gif")
        assert gif.headers["content-type"] == "image/gif" and gif_frames(gif.content) == 3
        assert client.get("/api/room/zzz").status_code == 404
        with pytest.raises(WebSocketDisconnect), client.websocket_connect("/room/zzz/ws") as ws:
            ws.receive_json()
        a0.send_json({"type": "chat", "token": ta0, "text": "still here"})
        assert receive(a0, "chat")["message"]["text"] == "still here"
    assert [p.parent.name for p in (*first.record_paths, *second.record_paths)] == [
        "room-a", "room-b",
    ]  # fmt: skip
    assert replay(second.record_paths[0]).ended and replay(first.record_paths[0]).steps == 0


def test_alem_serve_rooms_share_a_seed_and_record_apart(tmp_path) -> None:
    config = RoomConfig(players=3, humans=(0,), static=SMALL, tile_px=10, record_dir=str(tmp_path))
    rooms = make_rooms(config, 2)
    for room in rooms.values():
        room.close()
    assert list(rooms) == ["1", "2"] and rooms["1"].session.seed == rooms["2"].session.seed
    assert [r.record_paths[0].parent.name for r in rooms.values()] == ["room1", "room2"]
    assert (
        make_rooms(replace(config, record_dir=str(tmp_path / "one")), 1)["1"].session.seed
        is not None
    )


def test_alem_replay_gif_has_a_frame_per_state(make_room, tmp_path, capsys) -> None:
    room = make_room()
    a, b = room.take(0), room.take(1)
    for action in (1, 2, 3):
        room.choose(a, action)
        room.choose(b, action)
    room.close()
    out = tmp_path / "game.gif"
    replay_main([str(room.record_paths[0]), "--gif", str(out), "--fps", "4"])
    assert "replayed 3 steps bit for bit" in capsys.readouterr().out
    assert gif_frames(out.read_bytes()) == 4  # after reset, then after each step


def test_disconnect_and_rejoin_over_a_real_websocket(make_room) -> None:
    pytest.importorskip("websockets.sync.client")
    room = make_room()

    with Server(make_app(room)) as server:
        url = f"ws://127.0.0.1:{server.port}/room/1/ws"
        a, b = Socket(url), Socket(url)
        ta, tb = join(a, 0), join(b, 1)
        a.send_json({"type": "act", "token": ta, "action": int(Action.LEFT)})
        receive(b, "status", lambda m: m["chosen"] == [0])
        b.close()  # seat 1's person goes away after seat 0 chose
        gone = receive(a, "status", lambda m: m["chosen"] and not m["seats"][1]["connected"])
        assert gone["waiting"] == [1] and gone["step"] == 0  # the choice waits with the seat
        b = Socket(url)
        b.send_json({"type": "rejoin", "token": "not-mine"})
        assert "unknown seat token" in receive(b, "error")["message"]
        b.send_json({"type": "rejoin", "token": tb})
        assert receive(b, "joined")["seat"] == 1
        b.send_json({"type": "act", "token": tb, "action": int(Action.UP)})
        frame = receive(a, "frame")
        assert frame["step"] == 1 and frame["last"]["who"] == ["human", "human", "ai:random"]
        a.close()
        b.close()
    steps = [x for x in read_record(room.record_paths[0]) if x["type"] == "step"]
    assert [s["actions"][:2] for s in steps] == [[int(Action.LEFT), int(Action.UP)]]
