"""Language-model seats through the text harness, against its local OpenAI-compatible server
(the rule agent answers; faults on request): the seat acts, a person's chat line reaches its
prompt, its own messages join the chat and the record, and a malformed reply is a counted parse
failure (NOOP) while the room plays on."""

from __future__ import annotations

import json

import pytest

pytest.importorskip("openai")


from alem_core.constants import Action
from alem_pz.play.web.app import make_app
from alem_pz.play.web.record import read_record, replay
from alem_pz.play.web.server import config_from, parser
from alem_pz.text.client import ClientConfig, Completion, RunAbortedError
from alem_pz.text.harness import HarnessConfig
from alem_pz.text.history import COMM_HEADER
from alem_pz.text.local_server import LocalServer

from .conftest import join, local_client, receive


def harness(server: LocalServer) -> HarnessConfig:
    """One client for every seat, with a timeout a loaded machine cannot trip."""
    client = ClientConfig(model="rule", base_url=server.url, timeout=10.0, retry_delay=0.01)
    return HarnessConfig(clients=[client])


def test_an_llm_seat_acts_and_reads_a_persons_chat_line(make_room) -> None:
    with LocalServer() as server:
        room = make_room(humans=(0,), ai="random", llm_seats=(2,), llm=harness(server))
        token = room.take(0)
        room.chat(token, "meet me at the lake")
        assert room.choose(token, int(Action.LEFT))
        room.choose(token, int(Action.UP))
        clients = [client._client for client in room.llm.clients]
        assert not any(c.is_closed() for c in clients)  # an episode's start leaves them open
        room.close()
    assert all(c.is_closed() for c in clients)  # the room's end closes them
    assert server.stats["requests"] == 2  # the LLM seat only: seat 1 is the random policy
    lines = list(read_record(room.record_paths[0]))
    header, steps = lines[0], [x for x in lines if x["type"] == "step"]
    assert [s["ai"] for s in header["seats"]] == ["random", "random", "llm:rule"]
    assert header["llm"]["clients"][0]["model"] == "rule"
    assert [s["who"] for s in steps] == [["human", "ai:random", "ai:llm:rule"]] * 2
    assert [s["llm"] for s in steps] == [{"2": "ok"}] * 2
    trace = room.record_paths[0].parent / "traces" / f"{room.record_paths[0].stem}.trace.jsonl"
    first = json.loads(trace.read_text().splitlines()[0])["agents"][0]
    assert first["agent"] == 2 and first["status"] == "ok"
    assert f"{COMM_HEADER}\n- Agent 0: meet me at the lake" in first["prompt"][-1]["content"]
    assert replay(room.record_paths[0]).steps == 2


class Scripted:
    """A stand-in client with one fixed reply (as tests/pz/text/test_team.py)."""

    def __init__(self, text: str) -> None:
        self.text = text

    def complete(self, messages):
        return Completion(text=self.text, finish_reason="stop")


def test_malformed_replies_are_counted_noops_and_the_room_plays_on(make_room) -> None:
    with LocalServer(faults={"garble": 1.0}) as server:
        room = make_room(humans=(0, 1), ai="llm", llm=harness(server))
        with (
            local_client(make_app(room)) as client,
            client.websocket_connect("/ws") as a,
            client.websocket_connect("/ws") as b,
        ):
            ta, tb = join(a, 0), join(b, 1)
            for step in (1, 2):
                a.send_json({"type": "act", "token": ta, "action": int(Action.LEFT)})
                b.send_json({"type": "act", "token": tb, "action": int(Action.RIGHT)})
                frame = receive(a, "frame", lambda m, s=step: m["step"] == s)
            assert (
                frame["last"]["who"][2] == "ai:llm:rule" and frame["last"]["actions"][2] == "NOOP"
            )
            room.llm.team.clients[2] = Scripted("<action>Noop</action><communication>on my way"
                                                "</communication>")  # fmt: skip
            a.send_json({"type": "act", "token": ta, "action": int(Action.LEFT)})
            b.send_json({"type": "act", "token": tb, "action": int(Action.RIGHT)})
            frame = receive(a, "frame", lambda m: m["step"] == 3)
            assert frame["chat"][-1] == {"seat": 2, "step": 2, "text": "on my way",
                                         "from": "llm:rule"}  # fmt: skip
        stats = room.llm.stats()
    assert server.stats["garble"] == stats["parse_failures"] == 2
    assert stats["parse_successes"] == 1 and stats["models"] == ["rule"] * 3
    steps = [x for x in read_record(room.record_paths[0]) if x["type"] == "step"]
    assert [s["llm"] for s in steps] == [{"2": "parse_failure"}] * 2 + [{"2": "ok"}]
    assert [s["actions"][2] for s in steps] == [0, 0, 0]
    assert steps[2]["messages"][-1]["text"] == "on my way"
    assert replay(room.record_paths[0]).steps == 3


class Refused:
    """A client whose endpoint refuses the credentials (what ``ChatClient`` raises then)."""

    def complete(self, messages):
        raise RunAbortedError("model 'rule' at http://127.0.0.1: HTTP 401 (check the API key)")


def test_refused_credentials_make_the_seat_noop_and_say_so(make_room) -> None:
    with LocalServer() as server:
        room = make_room(humans=(0,), ai="random", llm_seats=(2,), llm=harness(server))
        room.llm.team.clients[2] = Refused()
        token = room.take(0)
        assert room.choose(token, int(Action.LEFT)) and room.choose(token, int(Action.UP))
        assert room.events[-1] == f"language model: {room.llm.error}" and "401" in room.events[-1]
        room.close()
    steps = [x for x in read_record(room.record_paths[0]) if x["type"] == "step"]
    assert [(s["actions"][2], s["llm"]) for s in steps] == [(0, {"2": "error"})] * 2
    assert room.llm.stats()["faults"] == {"aborted": 2}


def test_the_command_line_loads_the_harness_settings_as_alem_evaluate_does() -> None:
    args = parser().parse_args(["--ai", "greedy", "--llm-seats", "2", "--model", "m"])
    config = config_from(args)
    assert config.llm_seats == (2,) and config.llm.clients[0].model == "m"
    assert config_from(parser().parse_args(["--ai", "greedy"])).llm is None
    with pytest.raises(SystemExit, match="needs a model"):
        config_from(parser().parse_args(["--ai", "llm"]))
