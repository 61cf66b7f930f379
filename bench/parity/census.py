"""Census of world generation on every floor: ours vs the published ``alem-env`` (black box).

Counts every block id, item id and coordination-map cell on each of the nine floors of freshly
reset worlds (3 players, "medium" difficulty, 48 x 48), one count per seed and floor, and compares
the two generators floor by floor.

Three modes; ``--peer`` runs in the published package's venv (``peer.py`` starts it)::

    python -m bench.parity census --peer --json peer.json
    python -m bench.parity census --ours --json ours.json
    # table: block, peer mean ± sd, ours mean ± sd, (ours - peer) / peer sd
    python -m bench.parity census --compare peer.json ours.json

Seeds: the peer resets with ``jax.random.PRNGKey(s)`` for s = 0..N-1 on
"Alem-Coop-Symbolic" (the full 9-floor env); ours generates from
``jax.random.split(jax.random.key(0), N)``. The two key streams are unrelated, so only the
distributions are comparable, not individual worlds. Both sides are jitted and vmapped.

The peer side (``peer.census_maps``) uses only ``make_alem_env_from_name``,
``EnvParams``/``get_coordination_params`` and ``env.reset``; it reads the returned state's
fields ``map``, ``item_map``, ``coordination_map``, ``soft_coordination_mask`` and
``sampled_alpha`` (when present). Block and item ids follow the published table, which
``--ours`` checks against ``alem_core.constants``.

JSON layout: ``{"side", "n_seeds", "map_size", "floors": {"0": {"blocks": {name: [count per
seed]}, "items": {...}, "coord": {"sync": [...], "handover": [...], "soft": [...]}}, "1": ...},
"extra": {...}}``. Standard deviations are sample standard deviations (ddof = 1).
``--compare`` prints one table per floor and a summary: per floor, the largest |d / sd_peer| and
every quantity whose mean differs by more than ``--flag`` peer standard deviations.
"""

from __future__ import annotations

import argparse
import json
import math

from bench.parity.protocol import adapter

BLOCK_NAMES = (
    "INVALID", "OUT_OF_BOUNDS", "GRASS", "WATER", "STONE", "TREE", "WOOD", "PATH", "COAL",
    "IRON", "DIAMOND", "CRAFTING_TABLE", "FURNACE", "SAND", "LAVA", "PLANT", "RIPE_PLANT",
    "WALL", "DARKNESS", "WALL_MOSS", "STALAGMITE", "SAPPHIRE", "RUBY", "CHEST", "FOUNTAIN",
    "FIRE_GRASS", "ICE_GRASS", "GRAVEL", "FIRE_TREE", "ICE_SHRUB", "ENCHANTMENT_TABLE_FIRE",
    "ENCHANTMENT_TABLE_ICE", "NECROMANCER", "GRAVE", "GRAVE2", "GRAVE3",
    "NECROMANCER_VULNERABLE", "CONSTRUCTION_SITE", "EPIC_SHELTER", "EPIC_FORGE", "EPIC_BEACON",
    "CONSTRUCTION_IN_PROGRESS",
)  # fmt: skip
"""Published block table, id = index."""

ITEM_NAMES = ("NONE", "TORCH", "LADDER_DOWN", "LADDER_UP", "LADDER_DOWN_BLOCKED")
"""Published item table, id = index."""

FLOORS = 9


def _census(block0, item0, coord0, soft0) -> dict:
    """Per-seed counts from (N, H, W) arrays of one floor; coord0 / soft0 may be None."""
    import numpy as np

    block0, item0 = np.asarray(block0), np.asarray(item0)
    n = block0.shape[0]

    def per_id(a, names):
        if a.min() < 0 or a.max() >= len(names):
            raise ValueError(f"id outside the table: [{a.min()}, {a.max()}]")
        counts = np.stack([np.bincount(row.ravel(), minlength=len(names)) for row in a])
        return {name: counts[:, i].tolist() for i, name in enumerate(names)}

    coord = {}
    if coord0 is not None:
        c = np.asarray(coord0).reshape(n, -1)
        coord["sync"] = (c > 0).sum(1).tolist()
        coord["handover"] = (c < 0).sum(1).tolist()
    if soft0 is not None:
        coord["soft"] = np.asarray(soft0).reshape(n, -1).astype(bool).sum(1).tolist()
    return {
        "blocks": per_id(block0, BLOCK_NAMES),
        "items": per_id(item0, ITEM_NAMES),
        "coord": coord,
    }


def _census_floors(block, item, coord, soft) -> dict:
    """Per-floor censuses from (N, L, H, W) arrays; coord / soft may be None."""
    import numpy as np

    block = np.asarray(block)
    if block.shape[1] != FLOORS:
        raise RuntimeError(f"expected {FLOORS} floors, got {block.shape[1]}")
    pick = lambda a, f: None if a is None else np.asarray(a)[:, f]  # noqa: E731
    return {
        "n_seeds": int(block.shape[0]),
        "map_size": list(block.shape[2:]),
        "floors": {
            str(f): _census(block[:, f], pick(item, f), pick(coord, f), pick(soft, f))
            for f in range(FLOORS)
        },
    }


def run(name: str, n_seeds: int) -> dict:
    """Census of every floor of n worlds of side ``name``."""
    import numpy as np

    if name == "peer":
        maps = adapter("peer").census_maps(n_seeds)
    else:
        maps = adapter("ours").census_maps(n_seeds, BLOCK_NAMES, ITEM_NAMES)
    out = _census_floors(maps["block"], maps["item"], maps["coord"], maps["soft"])
    out["extra"] = {}
    if name == "peer":
        out["extra"] = {"env": maps["env"]}
        if maps["alpha"] is not None:
            out["extra"]["sampled_alpha"] = np.asarray(maps["alpha"]).tolist()
    return {"side": name, **out}


def _stats(xs: list[float]) -> tuple[float, float]:
    """Mean and sample standard deviation."""
    n = len(xs)
    mean = sum(xs) / n
    var = sum((x - mean) ** 2 for x in xs) / (n - 1) if n > 1 else 0.0
    return mean, math.sqrt(var)


def _rows(a: dict, b: dict) -> list[tuple[str, str, float, float, float, float, float, float]]:
    """(section, name, mean_a, sd_a, mean_b, sd_b, d / sd_a, z) for quantities non-zero somewhere.

    d / sd_a is inf when the peer never varies but the means differ (0 when they agree).
    """
    rows = []
    for section in ("blocks", "items", "coord"):
        for name in [k for k in a.get(section, {}) if k in b.get(section, {})]:
            xa, xb = a[section][name], b[section][name]
            if not any(xa) and not any(xb):
                continue
            (ma, sa), (mb, sb) = _stats(xa), _stats(xb)
            d = mb - ma
            se = math.sqrt(sa**2 / len(xa) + sb**2 / len(xb))
            rel = d / sa if sa > 0 else (0.0 if d == 0 else math.inf)
            z = d / se if se > 0 else (0.0 if d == 0 else math.inf)
            rows.append((section, name, ma, sa, mb, sb, rel, z))
    return rows


def compare(path_a: str, path_b: str, flag: float) -> None:
    """Print one table per floor (peer a vs ours b), then a per-floor summary."""
    with open(path_a) as f:
        a = json.load(f)
    with open(path_b) as f:
        b = json.load(f)
    print(f"a = {a['side']} ({path_a}, {a['n_seeds']} seeds, map {a['map_size']})")
    print(f"b = {b['side']} ({path_b}, {b['n_seeds']} seeds, map {b['map_size']})")
    print("d/sd_a = (mean_b - mean_a) / sd_a;  z = (mean_b - mean_a) / standard error of it")
    header = f"{'quantity':<34}{'a mean ± sd':>18}{'b mean ± sd':>18}{'d/sd_a':>9}{'z':>9}"
    summary = []
    for floor in sorted(a["floors"], key=int):
        rows = _rows(a["floors"][floor], b["floors"].get(floor, {}))
        print(f"\n[floor {floor}]\n{header}")
        for section, name, ma, sa, mb, sb, rel, z in rows:
            cell_a, cell_b = f"{ma:.1f} ± {sa:.1f}", f"{mb:.1f} ± {sb:.1f}"
            print(f"{section + '/' + name:<34}{cell_a:>18}{cell_b:>18}{rel:>+9.2f}{z:>+9.1f}")
        worst = max(rows, key=lambda r: abs(r[6]), default=None)
        flagged = [f"{r[1]} {r[6]:+.1f}" for r in rows if abs(r[6]) > flag]
        summary.append((floor, worst, flagged))
    print(f"\n[summary: largest |d/sd_a| per floor; quantities beyond {flag} peer sd]")
    for floor, worst, flagged in summary:
        top = f"{worst[1]} {worst[6]:+.2f}" if worst else "-"
        print(f"floor {floor}: max {top:<28} beyond: {', '.join(flagged) or 'none'}")
    for side in (a, b):
        alpha = side.get("extra", {}).get("sampled_alpha")
        if alpha:
            m, s = _stats(alpha)
            print(f"\n{side['side']} sampled_alpha: {m:.3f} ± {s:.3f} "
                  f"(min {min(alpha):.3f}, max {max(alpha):.3f})")  # fmt: skip


def main(args: argparse.Namespace) -> int:
    """``census``: count one side's worlds into ``--json`` (or stdout), or print the table."""
    if args.compare:
        compare(*args.compare, args.flag)
        return 0
    result = run("peer" if args.peer else "ours", args.seeds)
    text = json.dumps(result)
    if args.json:
        with open(args.json, "w") as f:
            f.write(text + "\n")
        print(f"wrote {args.json}: {result['side']}, {result['n_seeds']} seeds")
    else:
        print(text)
    return 0
