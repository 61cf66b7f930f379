"""The room without the web layer: seats, rejoin and AI takeover; the record and its replay
(bit for bit, and a tampered record is caught); PNG frames and the browser key table."""

from __future__ import annotations

import io
import json
import zlib

import numpy as np
import pytest

from alem_pz.play.keys import key_table
from alem_pz.play.web.record import ReplayMismatchError, read_record, replay
from alem_pz.play.web.replay import main as replay_main
from alem_pz.play.web.room import RoomError
from alem_pz.play.web.views import browser_keys, png_bytes


def test_rejoin_takeover_and_the_record_replays_bit_for_bit(make_room, capsys) -> None:
    room = make_room(takeover_s=5.0)
    a, b = room.take(0), room.take(1)
    room.choose(a, 1)
    assert room.choose(b, 2)  # both chose: the world stepped
    room.leave(b)
    assert room.check_takeovers() == []  # not away long enough yet
    assert room.check_takeovers(now=room.seats[1].left_at + 5.0) == [1]
    assert room.seats_info()[1]["ai"] == "ai:random (took over)"
    assert room.choose(a, 3)  # the AI now chooses for seat 1: seat 0 alone steps the world
    with pytest.raises(RoomError, match="unknown seat token"):
        room.rejoin("someone-else")
    assert room.rejoin(b) == 1 and not room.seats[1].taken_over
    room.chat(b, "back")
    room.choose(a, 4)
    assert room.choose(b, 0)
    room.close()
    steps = [x for x in read_record(room.record_paths[0]) if x["type"] == "step"]
    assert [s["who"][1] for s in steps] == ["human", "ai:random (took over)", "human"]
    assert steps[2]["messages"] == [{"seat": 1, "step": 2, "text": "back"}]
    result = replay(room.record_paths[0])
    assert (result.steps, result.digest) == (3, steps[-1]["digest"])
    replay_main([str(room.record_paths[0])])
    assert "replayed 3 steps bit for bit" in capsys.readouterr().out


def test_a_tampered_record_is_caught_at_its_step(make_room, tmp_path) -> None:
    room = make_room()
    a, b = room.take(0), room.take(1)
    for action in (1, 2, 3):
        room.choose(a, action)
        room.choose(b, action)
    room.close()
    lines = [json.loads(x) for x in room.record_paths[0].read_text().splitlines()]
    lines[2]["actions"][0] = 4 if lines[2]["actions"][0] != 4 else 1  # change step 2
    tampered = tmp_path / "tampered.jsonl"
    tampered.write_text("".join(json.dumps(x) + "\n" for x in lines))
    with pytest.raises(ReplayMismatchError, match="step 2"):
        replay(tampered)


def test_png_frames_decode_to_the_same_pixels() -> None:
    image_module = pytest.importorskip("PIL.Image")
    image = np.random.default_rng(0).integers(0, 256, (30, 22, 3), dtype=np.uint8)
    data = png_bytes(image)
    assert zlib.crc32(data[-8:-4]) == int.from_bytes(data[-4:], "big")  # the IEND chunk
    with image_module.open(io.BytesIO(data)) as decoded:
        assert np.array_equal(np.asarray(decoded.convert("RGB")), image)


def test_the_page_gets_every_binding_of_alem_plays_key_table() -> None:
    keys = browser_keys(3, 12)
    assert len(keys) == len(key_table(3, 12))
    assert len({(k["code"], tuple(k["mods"])) for k in keys}) == len(keys)
    assert {"code": "KeyW", "mods": [], "label": "w", "action": 3, "name": "UP"} in keys
    assert any(k["code"] == "Digit1" and k["mods"] == ["alt", "shift"] for k in keys)


def _broken_records(lines: list[str]) -> dict[str, tuple[list[str], str]]:
    """Each way a record can be broken, with the line and words alem-replay must name."""
    step, header = json.loads(lines[1]), json.loads(lines[0])
    old_world = json.dumps({k: v for k, v in header.items() if k != "world_version"})

    def with_step(**change) -> str:
        return json.dumps({k: v for k, v in (step | change).items() if v is not None})

    return {
        "cut mid-line": ([lines[0], lines[1][: len(lines[1]) // 2]], ":2: not a JSON line"),
        "empty": ([], ":1: a record starts with its header line"),
        "action out of range": ([lines[0], with_step(actions=[0, 999, 0])], ":2: action for"),
        "short action list": ([lines[0], with_step(actions=[0])], ":2: actions must list one"),
        "no digest": ([lines[0], with_step(digest=None)], ":2: the step line lacks ['digest']"),
        "changed type": ([lines[0], with_step(type="stop")], ":2: a line of type 'stop'"),
        "older world": ([old_world, lines[1]], ":1: saved with world version 1"),
    }


def test_a_broken_record_is_named_by_line_not_replayed(make_room, tmp_path, capsys) -> None:
    """alem-replay on a record cut mid-line, with a bad action, a short action list, a missing
    digest, no lines, a changed line type or a world version this alem does not play: exit
    status 2 and the file and line, not a
    traceback, and never a clean replay."""
    room = make_room(humans=())
    room.tick()
    room.close()
    lines = room.record_paths[0].read_text().splitlines()
    for name, (broken, message) in _broken_records(lines).items():
        path = tmp_path / f"{name.replace(' ', '_')}.jsonl"
        path.write_text("".join(line + "\n" for line in broken))
        with pytest.raises(SystemExit) as exit_:
            replay_main([str(path)])
        assert exit_.value.code == 2, name
        assert message in capsys.readouterr().err, name


def test_chat_over_the_limit_is_refused_and_client_times_stay_json(make_room) -> None:
    """Chat was cut to 300 characters without a word, and a client time of NaN or Infinity
    went into the record as bare NaN, which is not JSON."""
    from alem_pz.play.web.room import MAX_CHAT_CHARS

    room = make_room(humans=(0,))
    token = room.take(0)
    with pytest.raises(RoomError, match=f"at most {MAX_CHAT_CHARS} characters, got 301"):
        room.chat(token, "x" * 301)
    room.chat(token, "y" * MAX_CHAT_CHARS)
    room.choose(token, 1, client_ms=float("nan"))
    room.close()
    step = next(x for x in read_record(room.record_paths[0]) if x["type"] == "step")
    assert step["client_ms"][0] is None
    assert step["messages"][0]["text"] == "y" * MAX_CHAT_CHARS
    text = room.record_paths[0].read_text()
    assert "NaN" not in text and "Infinity" not in text


def test_turn_mode_steps_on_while_no_person_can_act(make_room) -> None:
    """Everyone asleep, resting or dead: the room used to wait forever for a key nobody could
    press (a load test found rooms stalled); now it steps, as alem-play does."""
    room = make_room(humans=(0,))
    assert not room.step_unattended()  # seat 0 not taken yet: it is waited for
    token = room.take(0)
    assert not room.step_unattended()  # seat 0 can act: its key is waited for
    room.choose(token, 1)
    noop_only = np.zeros_like(room.session.current.infos["agent_0"]["action_mask"])
    noop_only[0] = 1
    room.session.current.infos["agent_0"]["action_mask"] = noop_only  # as when asleep
    assert room.waiting_for() == [] and room.step_unattended() and room.steps == 2


def test_the_state_digest_reads_the_game_not_the_stack_of_the_team_s_floor() -> None:
    """A record's digest hashes the state with every floor's entities unpacked: the stale row of
    the team's floor in the packed stack (no rule reads it) does not change it, and a mob of
    the team's floor does. So the digests do not depend on how the state keeps that floor, and
    records of the earlier layout replay."""
    import jax
    import jax.numpy as jnp

    import alem_core
    from alem_core.testing import SMALL
    from alem_pz.play.web.record import state_digest

    params, static = alem_core.Params(), SMALL
    state = alem_core.reset(jax.random.key(3), params, static)[1]
    stack = state.mob_floors
    stale = stack.replace(ints=stack.ints.at[state.world.floor].add(7))
    assert state_digest(state.replace(mob_floors=stale)) == state_digest(state)
    melee = state.mobs.melee
    moved = state.mobs.replace(melee=melee.replace(alive=melee.alive.at[0].set(True)))
    assert state_digest(state.replace(mobs=moved)) != state_digest(state)
    assert jax.tree.structure(state.unpacked().mobs) == jax.tree.structure(state.mobs)
    assert state.unpacked().mobs.melee.alive.shape == (static.num_levels, *melee.alive.shape)
    assert jnp.array_equal(state.unpacked().mobs.melee.pos[0], state.mobs.melee.pos)
