"""Save episodes as animated GIFs or PNG sequences (Pillow), from Python or the command line.

    python -m alem_pz.play.gif --steps 300 --out docs/team.gif       # the greedy team of 3
    python -m alem_pz.play.gif --policy random --out frames/          # PNGs frame_0000.png ...

From Python::

    frames = record_episode(steps=100, policy="greedy")   # list of (H, W, 3) uint8 frames
    save_frames(frames, "team.gif", fps=10)

Frames are team frames as ``env.render()`` draws them (every agent's view side by side).
Rendering reads the state and never changes the episode: a recorded episode equals the same seed
played unrecorded.
"""

from __future__ import annotations

import argparse
from collections.abc import Sequence
from pathlib import Path

import numpy as np

import alem_core
from alem_pz.envs.rendering import RENDER_TILE_PX, team_frame
from alem_pz.episode import Episode
from alem_pz.evaluation.policies import load_seat_policies


def save_frames(frames: Sequence[np.ndarray], path: str | Path, fps: float = 10.0) -> Path:
    """Write ``frames`` ((H, W, 3) uint8 each) as an animated GIF (``path`` ends in .gif) or as
    PNGs ``frame_0000.png ...`` in the directory ``path``. Returns the path written."""
    from PIL import Image

    if not frames:
        raise ValueError("no frames to save")
    path = Path(path)
    images = [Image.fromarray(np.asarray(f, np.uint8)) for f in frames]
    if path.suffix.lower() == ".gif":
        path.parent.mkdir(parents=True, exist_ok=True)
        # One shared palette without dithering keeps flat tiles flat: small files, no shimmer.
        palette = images[len(images) // 2].quantize(colors=128, dither=Image.Dither.NONE)
        paletted = [im.quantize(palette=palette, dither=Image.Dither.NONE) for im in images]
        paletted[0].save(
            path, save_all=True, append_images=paletted[1:], duration=round(1000 / fps),
            loop=0, optimize=False,
        )  # fmt: skip
        return path
    path.mkdir(parents=True, exist_ok=True)
    for i, image in enumerate(images):
        image.save(path / f"frame_{i:04d}.png")
    return path


def record_episode(
    steps: int = 300,
    players: int = 3,
    difficulty: str | float = "medium",
    seed: int = 0,
    policy: str = "greedy",
    every: int = 1,
    static: alem_core.StaticParams | None = None,
    tile_px: int = RENDER_TILE_PX,
    progress: bool = True,
) -> list[np.ndarray]:
    """Play up to ``steps`` steps with ``policy`` for every agent; return every ``every``-th
    team frame at ``tile_px`` pixels per tile (the first and the last included). A tqdm bar
    counts the steps on a terminal unless ``progress`` is off (rendering is the slow part)."""
    from alem_pz.envs.parallel import AlemParallelEnv
    from alem_pz.progress import bar as progress_bar

    env = AlemParallelEnv(
        players=players, difficulty=difficulty, max_steps=steps, render_mode="rgb_array",
        static=static,
    )  # fmt: skip
    policies = load_seat_policies(policy, range(players), players=players, seed=seed)
    episode = Episode(env, seed, policies)
    frames = [team_frame(env, tile_px)]
    bar = progress_bar(steps, "recording", enabled=progress)

    def keep(episode: Episode) -> None:
        bar.update()
        if episode.steps % every == 0 or episode.over:
            frames.append(team_frame(env, tile_px))

    episode.play(policies, on_step=keep)
    bar.close()
    env.close()
    return frames


def main(argv: Sequence[str] | None = None) -> Path:
    """Command line: record one episode and save it (see the module docstring)."""
    parser = argparse.ArgumentParser(description="Record an alem episode as a GIF or PNGs.")
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--players", type=int, default=3)
    parser.add_argument("--difficulty", default="medium")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--policy", default="greedy", help="random, greedy or module:function")
    parser.add_argument("--every", type=int, default=1, help="keep every n-th frame")
    parser.add_argument("--fps", type=float, default=10.0)
    parser.add_argument("--tile", type=int, default=RENDER_TILE_PX, help="pixels per tile")
    parser.add_argument("--out", default="team.gif", help="a .gif file or a folder for PNGs")
    parser.add_argument("--no-progress", action="store_true")
    args = parser.parse_args(argv)
    frames = record_episode(
        args.steps,
        args.players,
        args.difficulty,
        args.seed,
        args.policy,
        args.every,
        tile_px=args.tile,
        progress=not args.no_progress,
    )
    path = save_frames(frames, args.out, args.fps)
    print(f"wrote {len(frames)} frames to {path}")
    return path


if __name__ == "__main__":
    main()
