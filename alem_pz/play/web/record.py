"""Game records: one JSONL file per episode, and the replay that checks one bit for bit.

Lines, one JSON object each (``"type"`` says which):

* ``header``: ``seed``, ``players``, ``difficulty``, ``comm_channels``, ``max_steps``, ``static``
  (every ``StaticParams`` field), ``tick_ms``, ``ai``, ``seats`` and ``digest`` (of the state
  after reset), plus ``version`` (of the file format), ``world_version``
  (``alem_core.WORLD_VERSION``: a record replays only under the same one) and ``started``
  (wall-clock time);
* ``step`` (one per world step): ``t``, every seat's ``actions`` and ``who`` chose it
  (``human``, ``ai:SPEC``, ``ai:SPEC (took over)``, ``noop:no-choice``, ``noop:cannot-act``),
  ``reaction_ms`` (server: view sent to action received), ``client_ms`` (the page's own
  measure: view shown to key pressed), ``messages`` (free-text chat), ``rewards`` and
  ``digest``;
* ``end``: ``steps``, ``score`` (``env.episode_score()``) and the final ``digest``.

The digest is SHA-256 over every leaf of the world state (``alem_core.State``), so a replay
that reaches the same digest at every step reproduced the episode bit for bit. Everything in a
step except the actions is what the game *reported*; the replay needs only seed, params and
actions, because the world is a pure function of them.
"""

from __future__ import annotations

import dataclasses
import hashlib
import json
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any, NamedTuple

import jax
import numpy as np

import alem_core

VERSION = 1


_unpacked = jax.jit(alem_core.State.unpacked)


def state_digest(state: alem_core.State) -> str:
    """SHA-256 (hex) of every leaf of ``state`` with every floor's entities unpacked
    (``State.unpacked``), in tree order: a record's digests do not depend on how the state
    keeps the team's floor, so records of an older state layout replay."""
    h = hashlib.sha256()
    state = jax.device_get(_unpacked(jax.tree.map(jax.numpy.asarray, state)))
    for leaf in jax.tree.leaves(state):
        array = np.ascontiguousarray(jax.random.key_data(leaf) if _is_key(leaf) else leaf)
        h.update(str(array.dtype).encode())
        h.update(array.tobytes())
    return h.hexdigest()


def _is_key(leaf: Any) -> bool:
    return hasattr(leaf, "dtype") and jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key)


def _jsonable(value: Any) -> Any:
    if dataclasses.is_dataclass(value) and not isinstance(value, type):
        return dataclasses.asdict(value)
    if isinstance(value, np.generic):
        return value.item()
    raise TypeError(f"not JSON serialisable: {value!r}")


class RecordWriter:
    """Appends one episode's lines to ``path`` (flushed after every line: a crash loses
    nothing written so far)."""

    def __init__(self, path: str | Path, header: dict[str, Any]) -> None:
        self.path = Path(path)
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self._file = self.path.open("w", encoding="utf-8")
        self._t = 0
        first = {"type": "header", "version": VERSION, "world_version": alem_core.WORLD_VERSION}
        self._write({**first, "started": time.time(), **header})

    def _write(self, line: dict[str, Any]) -> None:
        if self._file.closed:
            raise RuntimeError(f"record {self.path} is closed")
        self._file.write(json.dumps(line, default=_jsonable, allow_nan=False) + "\n")
        self._file.flush()

    def step(self, **fields: Any) -> None:
        """One world step (fields: module docstring)."""
        self._t += 1
        self._write({"type": "step", "t": self._t, **fields})

    def end(self, **fields: Any) -> None:
        """The episode's last line; closes the file."""
        self._write({"type": "end", **fields})
        self.close()

    def close(self) -> None:
        """Close the file (idempotent)."""
        if not self._file.closed:
            self._file.close()


def read_record(path: str | Path) -> Iterator[dict[str, Any]]:
    """The lines of a record, parsed; RecordError names a line that is not a JSON object."""
    with Path(path).open(encoding="utf-8") as file:
        for number, line in enumerate(file, start=1):
            if not line.strip():
                continue
            try:
                parsed = json.loads(line)
            except json.JSONDecodeError as error:
                raise RecordError(
                    f"{path}:{number}: not a JSON line ({error.msg}); was the record cut off?"
                ) from None
            if not isinstance(parsed, dict):
                raise RecordError(f"{path}:{number}: a line must be a JSON object")
            yield parsed


def static_from(fields: dict[str, Any]) -> alem_core.StaticParams:
    """The ``StaticParams`` a header's ``static`` holds (JSON lists back to tuples)."""
    values = dict(fields)
    values["map_size"] = tuple(values["map_size"])
    values["layout_knobs"] = tuple(tuple(kv) for kv in values.get("layout_knobs", ()))
    if values.get("rewarded_achievements") is not None:
        values["rewarded_achievements"] = tuple(values["rewarded_achievements"])
    return alem_core.StaticParams(**values)


class ReplayMismatchError(AssertionError):
    """The replayed world left the recorded one (at ``step``)."""


class RecordError(ValueError):
    """A record that cannot be replayed, named by file and line."""


class Replay(NamedTuple):
    """What a replay reproduced."""

    steps: int
    digest: str
    score: dict[str, dict[str, float]]
    ended: bool


def replay(path: str | Path, on_step: Any = None) -> Replay:
    """Re-run the record at ``path`` through the core and check every step's state digest.

    ``on_step(env)``, if given, is called after reset and after every step (the viewer draws).
    Raises ReplayMismatchError naming the first step whose state differs from the record, and
    RecordError naming the line of a record that cannot be replayed (cut off, an unknown line
    type, a missing field, an action the env refuses).
    """
    from alem_pz.envs.parallel import AlemParallelEnv
    from alem_pz.episode import Episode

    lines = list(read_record(path))
    if not lines or lines[0].get("type") != "header":
        raise RecordError(f"{path}:1: a record starts with its header line")
    header = _fields(path, 1, lines[0], HEADER_FIELDS)
    _check_world_version(path, header)
    env = AlemParallelEnv(
        players=header["players"], difficulty=header["difficulty"],
        comm_channels=header["comm_channels"], max_steps=header["max_steps"],
        static=static_from(header["static"]),
    )  # fmt: skip
    episode = Episode(env, header["seed"])
    digest = _check(env, header["digest"], 0)
    if on_step is not None:
        on_step(env)
    ended = False
    for number, line in enumerate(lines[1:], start=2):
        kind = line.get("type")
        if kind == "end":
            ended = True
            if _fields(path, number, line, ("digest",))["digest"] != digest:
                raise ReplayMismatchError(f"{path}: the final state differs from the record")
            continue
        if kind != "step" or ended:
            what = f"a line of type {kind!r}" if kind != "step" else "a step after the end"
            raise RecordError(f"{path}:{number}: {what} (a record holds steps, then one end)")
        step = _fields(path, number, line, ("t", "actions", "digest"))
        _step(path, number, episode, step["actions"])
        digest = _check(env, step["digest"], step["t"])
        if on_step is not None:
            on_step(env)
    return Replay(episode.steps, digest, env.episode_score(), ended)


HEADER_FIELDS = ("seed", "players", "difficulty", "comm_channels", "max_steps", "static", "digest")


def _check_world_version(path: Any, header: dict) -> None:
    """A record of another ``WORLD_VERSION`` cannot replay here (its seed plays another
    episode): say so rather than report a mismatch at step 0."""
    why = alem_core.world_version_mismatch(header.get("world_version"))
    if why:
        raise RecordError(f"{path}:1: {why}. Replay it with the alem release that recorded it.")


def _fields(path: Any, number: int, line: dict, names: tuple[str, ...]) -> dict:
    missing = [name for name in names if name not in line]
    if missing:
        raise RecordError(f"{path}:{number}: the {line.get('type')} line lacks {missing}")
    return line


def _step(path: Any, number: int, episode: Any, actions: Any) -> None:
    """One recorded step; a RecordError names the line for actions the env refuses."""
    if not isinstance(actions, list) or len(actions) != episode.players:
        raise RecordError(
            f"{path}:{number}: actions must list one id per seat of {episode.players}, "
            f"got {actions!r}"
        )
    try:
        episode.step(dict(enumerate(actions)))
    except (ValueError, RuntimeError) as error:
        raise RecordError(f"{path}:{number}: {error}") from None


def _check(env: Any, recorded: str, t: int) -> str:
    digest = state_digest(jax.device_get(env.core_state))
    if digest != recorded:
        raise ReplayMismatchError(
            f"step {t}: replayed state {digest[:12]} != recorded {recorded[:12]}"
        )
    return digest


__all__ = [
    "RecordError",
    "RecordWriter",
    "Replay",
    "ReplayMismatchError",
    "read_record",
    "replay",
    "state_digest",
    "static_from",
]
