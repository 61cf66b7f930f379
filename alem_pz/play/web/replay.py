"""``alem-replay FILE``: re-run a game record through the core, check it bit for bit, score it.

    alem-replay games/game_3_20260101-120000.jsonl            # check and print the score
    alem-replay games/game_3_*.jsonl --show --fps 8           # and watch it in a pygame window
    alem-replay games/game_3_*.jsonl --gif game.gif           # or save it as a GIF

A record holds the seed, the params and every seat's actions (``alem_pz.play.web.record``); the
world is a pure function of them, so the replay must reach the recorded state digest at every step.
It exits with status 1, naming the step, where it does not, and with status 2, naming the file
and line, for a record it cannot replay (cut off, an unknown line type, a missing field, an
action the env refuses). The score printed is the episode score
``env.episode_score()`` reports (docs/rules/score.md), the one the evaluation protocol averages.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from alem_pz.play.web.record import RecordError, ReplayMismatchError, replay

HEADLINE = ("Team/achievement_pct", "Team/coordination_achievement_pct", "Team/total_achievements")
"""The team's score keys printed (``Team/achievement_pct`` is the protocol's headline)."""


def viewer(show: bool, gif: str | None, fps: float) -> tuple[Any, list]:
    """``on_step(env)`` drawing team frames in a window and/or keeping them for a GIF."""
    from alem_pz.envs.rendering import Window, team_frame

    window = Window(caption="alem replay") if show else None
    frames: list = []

    def on_step(env: Any) -> None:
        frame = team_frame(env)
        if window is not None:
            window.show(frame, fps)
        if gif:
            frames.append(frame)

    return on_step, frames


def record_gif(record: str | Path, gif: str | Path, fps: float = 8.0) -> Path:
    """Replay ``record`` (checked bit for bit) and save its team frames as the GIF ``gif``:
    what ``--gif`` does, and what ``alem-serve`` sends for ``/api/room/NAME/gif``."""
    from alem_pz.play.gif import save_frames

    on_step, frames = viewer(False, str(gif), fps)
    replay(record, on_step)
    return save_frames(frames, gif, fps)


def main(argv: Sequence[str] | None = None) -> None:
    """Command line (module docstring)."""
    parser = argparse.ArgumentParser(description="Replay and check an alem game record.")
    parser.add_argument("record", help="a .jsonl game record written by alem-serve")
    parser.add_argument("--show", action="store_true", help="watch it in a pygame window")
    parser.add_argument("--gif", default=None, help="save the replay as a GIF")
    parser.add_argument("--fps", type=float, default=8.0)
    args = parser.parse_args(argv)
    on_step, frames = viewer(args.show, args.gif, args.fps) if args.show or args.gif else (None, [])
    try:
        result = replay(args.record, on_step)
    except ReplayMismatchError as error:
        print(f"MISMATCH: {error}", file=sys.stderr)
        raise SystemExit(1) from None
    except (RecordError, OSError) as error:
        print(f"cannot replay: {error}", file=sys.stderr)
        raise SystemExit(2) from None
    ended = "the episode's end" if result.ended else "the last recorded step (unfinished game)"
    print(f"replayed {result.steps} steps bit for bit up to {ended}; state {result.digest[:16]}")
    team = next(iter(result.score.values()), {})  # Team/ keys are the same in every row
    print("score: " + ", ".join(f"{k} {team[k]:.3g}" for k in HEADLINE if k in team))
    if args.gif and frames:
        from alem_pz.play.gif import save_frames

        print(f"saved {save_frames(frames, args.gif, args.fps)}")


__all__ = ["main"]

if __name__ == "__main__":
    main()
