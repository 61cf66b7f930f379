"""TensorBoard logs in CleanRL's layout, so an alem run sits beside any CleanRL run.

    log = RunLog.open("runs", env_id="alem-hard", exp_name="ippo", seed=0, config={...})
    log.write(row, step=env_steps)     # a metrics.csv row: CleanRL tags plus the alem score keys
    log.close()

A run writes ``<runs>/<env_id>__<exp_name>__<seed>__<unix time>`` (CleanRL's ``run_name``) with
the tags a CleanRL reader looks for: ``charts/episodic_return``, ``charts/SPS``,
``losses/policy_loss``, ``losses/value_loss``, ``losses/entropy`` and any other update statistic
under ``losses/``; the alem score keys (``Team/achievement_pct`` ...) keep their own names, so
TensorBoard groups them by prefix. The hyperparameters go in as a markdown table under the
``hyperparameters`` text tag, as CleanRL writes them. The writer is tensorboardX (the ``train``
extra): it needs neither torch nor TensorFlow.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from pathlib import Path
from typing import Any

CLEANRL_TAGS = {
    "episode_return": "charts/episodic_return",
    "episode_length": "charts/episodic_length",
    "episodes": "charts/episodes",
    "actor_loss": "losses/policy_loss",
    "value_loss": "losses/value_loss",
    "entropy": "losses/entropy",
    "clip_frac": "losses/clipfrac",
    "train_return": "charts/episodic_return",
    "train_success": "charts/success",
    "grad_steps": "charts/grad_steps",
    "probe_env_steps": "charts/probe_env_steps",
}
"""alem_train's metric names -> CleanRL's tags."""

SKIPPED = frozenset({"update", "env_steps", "seconds"})
"""Row entries that are the step or the clock, not scalars to plot."""


def run_name(env_id: str, exp_name: str, seed: int, when: float | None = None) -> str:
    """CleanRL's ``f"{env_id}__{exp_name}__{seed}__{int(time.time())}"``."""
    return f"{env_id}__{exp_name}__{seed}__{int(time.time() if when is None else when)}"


def tag(name: str) -> str:
    """The TensorBoard tag of a metric: CleanRL's where it has one, the score keys (which hold a
    ``/``) as they are, any other update statistic under ``losses/``."""
    if name in CLEANRL_TAGS:
        return CLEANRL_TAGS[name]
    return name if "/" in name else f"losses/{name}"


class RunLog:
    """One run's event file (see the module docstring)."""

    def __init__(self, path: Path, config: Mapping[str, Any] | None = None) -> None:
        try:
            from tensorboardX import SummaryWriter
        except ImportError as err:  # pragma: no cover - the train extra has it
            raise ImportError(
                'TensorBoard logs need tensorboardX: pip install -e ".[train]" (in a clone of alem)'
            ) from err
        self.path = Path(path)
        self.writer = SummaryWriter(str(self.path))
        if config:
            table = "\n".join(f"|{k}|{v}|" for k, v in config.items())
            self.writer.add_text("hyperparameters", f"|param|value|\n|-|-|\n{table}")

    @classmethod
    def open(
        cls, runs: str | Path, env_id: str, exp_name: str, seed: int,
        config: Mapping[str, Any] | None = None,
    ) -> RunLog:  # fmt: skip
        """A new run under ``runs`` named by :func:`run_name`."""
        return cls(Path(runs) / run_name(env_id, exp_name, seed), config)

    def write(self, row: Mapping[str, Any], step: int) -> None:
        """Every numeric entry of ``row`` at ``step`` (env steps), plus ``charts/SPS`` when the
        row has ``env_steps`` and ``seconds``; NaN entries (no episode ended) are left out."""
        for name, value in row.items():
            if name in SKIPPED or not isinstance(value, int | float) or value != value:
                continue
            self.writer.add_scalar(tag(name), float(value), step)
        if row.get("seconds"):
            # A float, not CleanRL's int: a first update that pays for the compile on a busy
            # machine runs at under one env-step a second, which an int shows as 0.
            self.writer.add_scalar("charts/SPS", row["env_steps"] / row["seconds"], step)

    def close(self) -> None:
        """Flush and close the event file."""
        self.writer.close()


def read_scalars(run: str | Path) -> dict[str, list[tuple[int, float]]]:
    """``{tag: [(step, value), ...]}`` of every scalar in a run directory's event files.

    Reads the files' TFRecord framing (8-byte length, 4-byte CRC, the record, 4-byte CRC) and
    decodes each record with tensorboardX's ``Event`` message, so checking a run needs neither
    TensorBoard nor TensorFlow.
    """
    import struct

    from tensorboardX.proto.event_pb2 import Event

    found: dict[str, list[tuple[int, float]]] = {}
    for path in sorted(Path(run).glob("events.out.tfevents.*")):
        data, at = path.read_bytes(), 0
        while at + 12 <= len(data):
            (length,) = struct.unpack("<Q", data[at : at + 8])
            event = Event.FromString(data[at + 12 : at + 12 + length])
            at += 12 + length + 4
            for value in event.summary.value:
                if value.WhichOneof("value") == "simple_value":
                    found.setdefault(value.tag, []).append((event.step, value.simple_value))
    return found


__all__ = ["CLEANRL_TAGS", "RunLog", "read_scalars", "run_name", "tag"]
