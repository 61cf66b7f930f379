"""What alem-serve's views cost: PNG frames per step against a sprite sheet drawn client-side.

    python -m bench.web_frames [--tile 24] [--steps 40] [--full]

Frames (what alem-serve sends): per step, the pixel observation of every seat
(``rendering.pixel_observations``), rounded to uint8, PNG-encoded (``alem_pz.play.web.views``) and
base64'd into the JSON frame; timed here at zlib levels 1, 6 and 9.

Sprite sheet (the alternative, not built): the atlas of code-drawn textures sent once as a PNG,
then per step only ids for the client to composite. The per-step size is a *lower bound*: one
byte per cell for each of the 10 layers ``alem_core.pixels.view`` composites (block, item,
coordination mark, clock, mob, elite frame, required count, projectile, player, light) over the
map window, strip and panel, zlib-compressed; the client's compositing time is not counted.
Runs on the 16 x 16 one-floor world unless ``--full`` (the pictures cost the same per view).
"""

from __future__ import annotations

import argparse
import base64
import time
import zlib

import numpy as np

import alem_core
from alem_core.pixels import strip_rows
from alem_core.pixels.textures import atlas
from alem_pz.envs import rendering
from alem_pz.envs.parallel import AlemParallelEnv
from alem_pz.play.web.views import png_bytes, to_uint8
from bench.common import SMALL

LAYERS = 10


def sheet_bytes(tile_px: int) -> int:
    """PNG bytes of every RGBA texture of the atlas in one column (sent once)."""
    at = atlas(tile_px)
    parts = [at.blocks[..., :3], at.items[..., :3], at.mobs[..., :3], at.projectiles[..., :3],
             at.players[..., :3], at.icons[..., :3]]  # fmt: skip
    column = np.concatenate([p.reshape(-1, tile_px, 3) for p in parts])
    return len(png_bytes(to_uint8(column)))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--tile", type=int, default=24)
    parser.add_argument("--steps", type=int, default=40)
    parser.add_argument("--full", action="store_true", help="the 48 x 48 nine-floor world")
    args = parser.parse_args()
    static = None if args.full else alem_core.StaticParams(**SMALL)
    env = AlemParallelEnv(players=3, difficulty="easy", static=static)
    _, infos = env.reset(seed=0)
    start = time.perf_counter()
    rendering.pixel_observations(env, args.tile)
    print(f"first render (compile) {time.perf_counter() - start:.1f} s")
    rng = np.random.default_rng(0)
    render_s, sizes = 0.0, {1: [], 6: [], 9: []}
    encode_s = dict.fromkeys(sizes, 0.0)
    for _ in range(args.steps):
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        _, _, _, _, infos = env.step(actions)
        start = time.perf_counter()
        images = to_uint8(rendering.pixel_observations(env, args.tile))
        render_s += time.perf_counter() - start
        for level in sizes:
            start = time.perf_counter()
            pngs = [png_bytes(image, level) for image in images]
            sizes[level].append(sum(len(base64.b64encode(p)) for p in pngs))
            encode_s[level] += time.perf_counter() - start
    shape = images.shape
    print(f"views: 3 x {shape[1]} x {shape[2]} px at {args.tile} px per tile; render "
          f"{1e3 * render_s / args.steps:.1f} ms per step (all seats)")  # fmt: skip
    for level in sizes:
        print(f"frames, zlib {level}: encode {1e3 * encode_s[level] / args.steps:.1f} ms, "
              f"{np.mean(sizes[level]) / 1024:.1f} KiB base64 per step")  # fmt: skip
    rows = strip_rows(3) + 9 + 4
    ids = rng.integers(0, 8, (3, rows, 11, LAYERS), dtype=np.uint8)  # noisier than real maps
    print(f"sprite sheet: {sheet_bytes(args.tile) / 1024:.1f} KiB once; per step >= "
          f"{len(zlib.compress(ids.tobytes(), 6)) / 1024:.2f} KiB of ids "
          f"({ids.nbytes} bytes raw) + client compositing")  # fmt: skip


if __name__ == "__main__":
    main()
