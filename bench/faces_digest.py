"""A behaviour digest of the faces: proof that a rewrite of ``alem_pz`` plays the same.

Run from the repository root::

    python -m bench.faces_digest [--out FILE] [--only FACE ...]
    python -m bench.faces_digest --compare A.json B.json

``bench.digest`` hashes the core's step; this hashes what the adapters hand out. Each face
(``faces``: PettingZoo's parallel and AEC envs, frames, pixel and text observations, make_vec,
Stable-Baselines3 and JaxMARL where installed, the browser room and its records, their replay,
keyboard play) plays the tests' small world with fixed seeds, masked random actions (a seeded
numpy Generator; JaxMARL: jax keys) and short episodes, so resets and auto-resets happen. Every
output is hashed leaf by leaf (arrays: SHA-256 of dtype, shape and bytes; other values: JSON,
sorted keys, floats as raw bytes; ``bench.face_records``), less wall-clock times, paths and
seat tokens. ``--compare`` names, per face, the first record where two ``--out`` files part;
compare runs made with the same packages installed (a skipped face is absent from its file).
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import importlib.util
import io
import json
import os
import sys
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import jax
import numpy as np

from alem_core.testing import SMALL
from bench.face_records import Record, compare, record, totals

KW = {"players": SMALL.player_count, "static": SMALL}
WALL_CLOCK = ("started", "reaction_ms")
"""The fields of a game record that hold wall-clock times."""


class Skipped(Exception):  # noqa: N818  (a face that cannot run here; not an error)
    """A face whose library is not installed."""


def masked(rng: np.random.Generator, mask: Any) -> int:
    """A uniform draw among the legal actions of ``mask``."""
    return int(rng.choice(np.flatnonzero(np.asarray(mask))))


def _episode(env: Any, rng, seed: int | None, steps: int = 10**6, extra=lambda: None):
    """Reset ``env`` (``seed``) and play until the episode ends or ``steps`` steps; a record
    of each reset and step output and of ``extra()`` after it."""
    obs, infos = env.reset(seed=seed)
    out = [record({"reset": (obs, infos), "extra": extra()})]
    for _ in range(steps):
        if not env.agents:
            break
        step = env.step({a: masked(rng, infos[a]["action_mask"]) for a in env.agents})
        infos = step[4]
        out.append(record({"step": step, "extra": extra()}))
    return out


def parallel() -> list[Record]:
    """``alem_pz.make``: three episodes (seeds 0 and 1, then the env's own key sequence)."""
    import alem_pz

    env, rng, out = alem_pz.make(**KW, max_steps=20), np.random.default_rng(1), []
    for seed in (0, 1, None):
        out += _episode(env, rng, seed, extra=lambda: {"agents": env.agents, "state": env.state()})
        out.append(record({"score": env.episode_score(), "keys": env.score_keys}))
    env.close()
    return out


def aec() -> list[Record]:
    """``alem_pz.make(parallel=False)``: one episode through ``agent_iter``, ``last``, ``step``."""
    import alem_pz

    env, rng, out = alem_pz.make(parallel=False, **KW, max_steps=8), np.random.default_rng(2), []
    env.reset(seed=2)
    for agent in env.agent_iter():
        obs, reward, term, trunc, info = env.last()
        action = None if term or trunc else masked(rng, info["action_mask"])
        out.append(record({"agent": agent, "last": (obs, reward, term, trunc, info), "a": action}))
        env.step(action)
    env.close()
    return out


def render() -> list[Record]:
    """``render_mode="rgb_array"`` frames (with ``mask_in_obs``), then pixel observations."""
    import alem_pz

    env = alem_pz.make(**KW, max_steps=20, render_mode="rgb_array", mask_in_obs=True)
    pixels = alem_pz.make(**KW, max_steps=20, obs_type="pixels")
    rng = np.random.default_rng(3)
    return _episode(env, rng, 3, 4, env.render) + _episode(pixels, rng, 4, 3)


def text() -> list[Record]:
    """``obs_type="text"``: the strings and the text parts of the infos."""
    import alem_pz

    env = alem_pz.make(**KW, max_steps=20, obs_type="text")
    return _episode(env, np.random.default_rng(5), 5, 6)


def vector() -> list[Record]:
    """``gymnasium.make_vec``: 4 worlds, 4-step episodes, 16 steps (three auto-resets each)."""
    import gymnasium

    import alem_pz  # noqa: F401  (registers alem/Coop-v0)

    mode, rng = "vector_entry_point", np.random.default_rng(6)
    envs = gymnasium.make_vec(
        "alem/Coop-v0", num_envs=4, vectorization_mode=mode, **KW, max_steps=4
    )
    obs, infos = envs.reset(seed=6)
    out = [record({"reset": (obs, infos)})]
    for _ in range(16):
        actions = np.array([masked(rng, m) for m in infos["action_mask"]], np.int64)
        step = envs.step(actions)
        infos = step[4]
        out.append(record({"actions": actions, "step": step}))
    envs.close()
    return out


def sb3() -> list[Record]:
    """Stable-Baselines3's ``VecEnv``: 4 worlds, 4-step episodes, 12 steps."""
    if importlib.util.find_spec("stable_baselines3") is None:
        raise Skipped("stable_baselines3 is not installed (alem_pz.envs.sb3 imports it)")
    from alem_pz.envs.sb3 import make_vec_env

    env, rng = make_vec_env(4, **KW, max_steps=4), np.random.default_rng(7)
    env.seed(7)
    out = [record({"reset": env.reset(), "masks": env.action_masks()})]
    for _ in range(12):
        actions = np.array([masked(rng, m) for m in env.action_masks()], np.int64)
        obs, rewards, dones, infos = env.step(actions)
        for info in infos:
            info.get("episode", {}).pop("t", None)  # wall-clock seconds
        out.append(record({"step": (obs, rewards, dones, infos), "masks": env.action_masks()}))
    env.close()
    return out


def jaxmarl() -> list[Record]:
    """JaxMARL's ``MultiAgentEnv``, 3 envs under ``vmap``, 4-step episodes, 12 steps."""
    if importlib.util.find_spec("jaxmarl") is None:
        raise Skipped("jaxmarl is not installed (AlemJaxMARL derives from its MultiAgentEnv)")
    import jax.numpy as jnp

    from alem_pz.envs.jaxmarl import AlemJaxMARL

    env = AlemJaxMARL(**KW, max_steps=4)

    def one(key, state):
        k_act, k_env = jax.random.split(key)
        avail = env.get_avail_actions(state)
        keys = jax.random.split(k_act, env.num_agents)
        acts = {
            a: jax.random.categorical(k, jnp.where(avail[a], 0.0, -jnp.inf)).astype(jnp.int32)
            for k, a in zip(keys, env.agents, strict=True)
        }
        return acts, env.step(k_env, state, acts)

    step = jax.jit(jax.vmap(one))
    obs, state = jax.vmap(env.reset)(jax.random.split(jax.random.key(8), 3))
    out, key = [record({"reset": (obs, state)})], jax.random.key(9)
    for t in range(12):
        actions, outputs = step(jax.random.split(jax.random.fold_in(key, t), 3), state)
        state = outputs[1]
        out.append(record({"actions": actions, "step": outputs}))
    return out


def _page(hub: Any) -> Record:
    """What every page of the room receives now (``frame``, less its wall-clock stamp)."""
    frame = hub.frame()
    frame.pop("sent_at")
    return record(frame)


def _play_turns(room: Any, hub: Any, tokens: list[str], rng, steps: int) -> list[Record]:
    """Turn mode: the people choose masked random actions, one leaves and is taken over, then
    comes back; a chat line; the next episode once one ends."""
    out = []
    for t in range(steps):
        if room.session.current.over:
            room.next_episode()
        if t == 2:
            room.chat(tokens[1], "wood over here")
        if t == 3:  # seat 1 goes away long enough for the AI to take it over
            room.leave(tokens[1])
            room.check_takeovers(now=room.seats[1].left_at + room.config.takeover_s)
        if t == 5:
            room.rejoin(tokens[1])
        waiting = room.waiting_for()
        if not waiting:
            room.step_unattended()
        for i in waiting:
            action = masked(rng, room.session.current.infos[f"agent_{i}"]["action_mask"])
            room.choose(tokens[i], action, client_ms=float(100 + t))
        out.append(_page(hub))
    return out


def room(work: Path) -> list[Record]:
    """The browser room: a turn-mode game of two people and an AI over two episodes, and a
    real-time one; the pages' messages, then each game record (less wall-clock fields)."""
    from alem_pz.play.web.app import Hub
    from alem_pz.play.web.record import read_record
    from alem_pz.play.web.room import Room, RoomConfig

    base = {**KW, "ai": "random", "tile_px": 10, "max_steps": 6, "takeover_s": 5.0}
    turns = Room(RoomConfig(**base, humans=(0, 1), seed=9, record_dir=str(work / "turn")))
    hub, rng = Hub(turns), np.random.default_rng(10)
    out = [record(hub.welcome()), _page(hub)]
    tokens = [turns.take(0), turns.take(1)]
    out += _play_turns(turns, hub, tokens, rng, 14)
    base["record_dir"] = str(work / "tick")
    ticks = Room(RoomConfig(**base, humans=(0,), tick_ms=100, seed=20))
    hub = Hub(ticks)
    out.append(record({"before_start": ticks.tick(), "page": _page(hub)}))
    token = ticks.take(0)
    for t in range(4):
        if t % 2 == 0 and ticks.can_act(0):
            ticks.choose(token, masked(rng, ticks.session.current.infos["agent_0"]["action_mask"]))
        out.append(record({"ticked": ticks.tick(), "page": _page(hub)}))
    for game in (turns, ticks):
        game.close()
        for path in game.record_paths:
            lines = read_record(path)
            out += [record({k: v for k, v in x.items() if k not in WALL_CLOCK}) for x in lines]
    return out


def replay(work: Path) -> list[Record]:
    """``alem-replay`` on every record ``room`` wrote: its result, frames and printed lines."""
    from alem_pz.play.web import record as records
    from alem_pz.play.web.replay import main, viewer

    out = []
    for path in sorted(work.rglob("*.jsonl")):  # named by seed: the same order every run
        on_step, frames = viewer(False, "frames.gif", 8.0)  # kept in memory, not written
        result = records.replay(path, on_step)._asdict()
        with contextlib.redirect_stdout(io.StringIO()) as printed:
            main([str(path)])
        out.append(record({"replay": result, "frames": frames, "printed": printed.getvalue()}))
    return out


def keyboard() -> list[Record]:
    """``alem-play``'s ``Game`` headless: two people (key events) and an AI seat, two 5-step
    episodes; HUDs, notices, views, the drawn window and the printed summaries."""
    import pygame

    from alem_pz.play.keyboard import Game, PlayConfig
    from alem_pz.play.keys import key_table
    from alem_pz.play.seats import hud_lines

    config = PlayConfig(humans=(0, 1), seed=12, tile_px=10, max_steps=5, episodes=2, **KW)
    table = list(key_table(SMALL.player_count, 0).items())
    keys = {action: binding for binding, action in reversed(table)}  # each action's first key
    bits = {"ctrl": pygame.KMOD_LCTRL, "shift": pygame.KMOD_LSHIFT, "alt": pygame.KMOD_LALT}
    printed, rng, out = io.StringIO(), np.random.default_rng(13), []
    with contextlib.redirect_stdout(printed):
        game = Game(config)
        play = game.session
        while True:
            game.draw()
            out.append(record({
                "turn": game.turn, "steps": play.steps, "episodes": game.episodes,
                "log": game.log, "returns": play.current.returns, "views": play.views,
                "hud": [hud_lines(play.state, i, game.p, play.current.returns[i], game.turn)
                        for i in range(game.p)],
                "notices": [n[:2] for n in game.notices],  # less the time shown
                "window": pygame.surfarray.array3d(game.screen), "printed": printed.getvalue(),
            }))  # fmt: skip
            if game.finished or game.turn is None:
                break
            name, mods = keys[masked(rng, play.current.infos[f"agent_{game.turn}"]["action_mask"])]
            mod = functools.reduce(int.__or__, (bits[m] for m in mods), 0)
            event = pygame.event.Event(pygame.KEYDOWN, key=pygame.key.key_code(name), mod=mod)
            pygame.event.post(event)
            game.handle_events()
        game.close()
    return out


def faces(work: Path) -> dict[str, Callable[[], list[Record]]]:
    """Every face, in the order played (``replay`` replays what ``room`` wrote in ``work``)."""
    return {
        "parallel": parallel, "aec": aec, "render": render, "text": text, "vector": vector,
        "sb3": sb3, "jaxmarl": jaxmarl, "room": functools.partial(room, work),
        "replay": functools.partial(replay, work), "keyboard": keyboard,
    }  # fmt: skip


FACES = tuple(faces(Path()))


def play(names: tuple[str, ...] = FACES) -> tuple[dict[str, list[Record]], dict[str, str]]:
    """Every face's records (in ``FACES`` order) and the faces skipped, with why."""
    os.environ["ALEM_FASTER_STEP"] = "0"  # one compiled tier for the whole run
    for name, value in (("SDL_VIDEODRIVER", "dummy"), ("SDL_AUDIODRIVER", "dummy"),
                        ("PYGAME_HIDE_SUPPORT_PROMPT", "1")):  # fmt: skip
        os.environ.setdefault(name, value)
    digests, skipped = {}, {}
    with tempfile.TemporaryDirectory() as tmp:
        work = Path(tmp)
        functions = faces(work)
        for name in names:
            start = time.perf_counter()
            try:
                digests[name] = functions[name]()
            except Skipped as why:
                skipped[name] = str(why)
                continue
            seconds = time.perf_counter() - start
            print(f"  {name}: {len(digests[name])} records, {seconds:.1f} s", file=sys.stderr)
    return digests, skipped


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--out", help="write every record's digests here (json)")
    parser.add_argument("--only", nargs="+", choices=FACES, help="play these faces only")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two --out files")
    args = parser.parse_args()
    if args.compare:
        sys.exit(compare(*(json.loads(Path(p).read_text())["faces"] for p in args.compare)))
    start = time.perf_counter()
    digests, skipped = play(tuple(args.only or FACES))
    sums = totals(digests)
    if args.out:
        Path(args.out).write_text(
            json.dumps({"totals": sums, "skipped": skipped, "faces": digests})
        )
    for name in args.only or FACES:
        print(f"{name} skipped: {skipped[name]}" if name in skipped else f"{name} {sums[name]}")
    print(f"total {sums['total']}")
    print(f"  {time.perf_counter() - start:.0f} s", file=sys.stderr)


if __name__ == "__main__":
    main()
