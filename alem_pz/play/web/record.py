"""Game records: one JSONL file per episode, and the replay that checks one bit for bit.

Lines, one JSON object each (``"type"`` says which):

* ``header``: ``seed``, ``players``, ``difficulty``, ``comm_channels``, ``max_steps``, ``static``
  (every ``StaticParams`` field), ``tick_ms``, ``ai``, ``seats`` and ``digest`` (of the state
  after reset), plus ``version`` and ``started`` (wall-clock time);
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


def state_digest(state: alem_core.State) -> str:
    """SHA-256 (hex) of every leaf of ``state`` (a host copy), in tree order."""
    h = hashlib.sha256()
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
        self._write({"type": "header", "version": VERSION, "started": time.time(), **header})

    def _write(self, line: dict[str, Any]) -> None:
        if self._file.closed:
            raise RuntimeError(f"record {self.path} is closed")
        self._file.write(json.dumps(line, default=_jsonable) + "\n")
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
    """The lines of a record, parsed."""
    with Path(path).open(encoding="utf-8") as file:
        for line in file:
            if line.strip():
                yield json.loads(line)


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


class Replay(NamedTuple):
    """What a replay reproduced."""

    steps: int
    digest: str
    score: dict[str, dict[str, float]]
    ended: bool


def replay(path: str | Path, on_step: Any = None) -> Replay:
    """Re-run the record at ``path`` through the core and check every step's state digest.

    ``on_step(env)``, if given, is called after reset and after every step (the viewer draws).
    Raises ReplayMismatchError naming the first step whose state differs from the record.
    """
    from alem_pz.envs.parallel import AlemParallelEnv
    from alem_pz.episode import Episode

    lines = list(read_record(path))
    header = lines[0]
    if header.get("type") != "header":
        raise ValueError(f"{path}: the first line is not a header")
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
    for line in lines[1:]:
        if line["type"] == "end":
            ended = True
            if line["digest"] != digest:
                raise ReplayMismatchError(f"{path}: the final state differs from the record")
            continue
        if len(line["actions"]) != episode.players:
            raise ValueError(
                f"{path}: step {line['t']} lists {len(line['actions'])} actions for a team of "
                f"{episode.players}"
            )
        episode.step(dict(enumerate(line["actions"])))
        digest = _check(env, line["digest"], line["t"])
        if on_step is not None:
            on_step(env)
    return Replay(episode.steps, digest, env.episode_score(), ended)


def _check(env: Any, recorded: str, t: int) -> str:
    digest = state_digest(jax.device_get(env.core_state))
    if digest != recorded:
        raise ReplayMismatchError(
            f"step {t}: replayed state {digest[:12]} != recorded {recorded[:12]}"
        )
    return digest


__all__ = [
    "RecordWriter",
    "Replay",
    "ReplayMismatchError",
    "read_record",
    "replay",
    "state_digest",
    "static_from",
]
