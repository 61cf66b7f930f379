"""The per-floor table of ``parity_floors.py``: per-world quantities of each floor, bootstrap
errors and 4-SE flags (``parity_tables.print_table``). Runs in alem's interpreter.

Every quantity is one number per world; the worlds of other floors are NaN and drop out.
"""

from __future__ import annotations

import json

import numpy as np

from bench.parity_tables import print_table, step_events

FLOORS = tuple(range(1, 9))
CHEST_FLOORS = (1, 3, 4)
NUM_LEVELS = 9
LOOT_ITEMS = (
    "wood", "stone", "coal", "iron", "diamond", "sapphire", "ruby", "torches", "arrows",
    "books", "pickaxe", "bow", "potions",
)  # fmt: skip
CAUSES = ("alive", "starvation", "dehydration", "exhaustion", "mob_combat", "friendly_fire")
"""Death-cause codes, the same on both sides (docs/decisions.md)."""

CLASSES = ("melee", "passive", "ranged")
VITALS = ("health", "food", "drink", "energy")
POOLED = tuple(range(1, 8))
"""Floors pooled in the ``floors1-7`` section (the boss floor plays by other rules)."""


def load(path: str) -> dict:
    data = np.load(path)
    return {k: data[k] for k in data.files} | {"meta": json.loads(str(data["meta"]))}


def _masked_mean(values: np.ndarray, mask: np.ndarray) -> np.ndarray:
    """Mean over axis 0 where ``mask``; NaN where nothing is selected."""
    count = mask.sum(0)
    total = np.where(mask, values, 0.0).sum(0)
    with np.errstate(invalid="ignore", divide="ignore"):
        return np.where(count > 0, total / np.maximum(count, 1), np.nan)


def play_quantities(side: dict) -> dict[str, np.ndarray]:
    """Per-world quantities of the ``play`` mode, before splitting by floor."""
    tr = {k[6:]: v for k, v in side.items() if k.startswith("trace/")}
    target = side["target"]
    worlds = np.arange(target.shape[0])
    floor = tr["floor"]
    on_b, on_a = floor[:-1] == target, floor[1:] == target  # (T, N)
    ev = step_events(tr)
    alive = tr["alive"].astype(bool)
    opened = tr["chests_all"][0] - tr["chests_all"][-1]
    alive_on = (alive[:-1] & on_b[..., None]).sum((0, 2)).astype(float)
    out = {
        "floor/steps_on": on_b.sum(0).astype(float),
        "floor/left": (on_b.sum(0) < on_b.shape[0]).astype(float),
        "floor/ascents": (np.diff(floor, axis=0) < 0).sum(0).astype(float),
        "floor/descents": (np.diff(floor, axis=0) > 0).sum(0).astype(float),
        "floor/kills": (tr["kills_all"][-1] - tr["kills_all"][0])[worlds, target].astype(float),
        "floor/chests_at_reset": tr["chests_all"][0][worlds, target].astype(float),
        "floor/chests_opened": opened[worlds, target].astype(float),
    }
    for c, name in enumerate(CLASSES):
        counts = tr["mobs"][..., c].astype(float)
        out[f"mobs/{name}_at_arrival"] = counts[0]
        out[f"mobs/{name}_mean_on_floor"] = _masked_mean(counts[1:], on_a)
    for name in ("mob", "ff"):
        out[f"damage/{'mobs' if name == 'mob' else 'friendly_fire'}"] = (ev[name] * on_b).sum(0)
    out["damage/needs"] = (ev["need"] * on_b[..., None]).sum((0, 2)).astype(float)
    out["damage/regen_ticks"] = (ev["regen"] * on_b[..., None]).sum((0, 2)).astype(float)
    hits = tr["melee_hits"][1:] * on_b[..., None]
    out["damage/melee_hits"] = hits.sum((0, 2)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["damage/mobs_per_100_agent_steps"] = np.where(
            alive_on > 0, 100 * out["damage/mobs"] / alive_on, np.nan
        )
    last = alive.shape[0] - 1
    for t in (50, 100, 200, 300):
        if t <= last:
            out[f"survival/alive_frac@{t}"] = alive[t].mean(-1)
    for t, field in ((t, f) for t in (25, 50, 100) for f in VITALS):
        if t <= last:
            with np.errstate(invalid="ignore"):
                out[f"vitals/{field}@{t}"] = np.nanmean(
                    np.where(alive[t], tr[field][t].astype(float), np.nan), -1
                )
    cause = tr["cause"][-1]
    for code, name in enumerate(CAUSES[1:], start=1):
        out[f"deaths/{name}"] = (cause == code).sum(-1).astype(float)
    return out


def chest_quantities(side: dict) -> dict[str, np.ndarray]:
    """Per-world loot rates of the ``chests`` mode (first chest on the floor vs later ones)."""
    loot, opened = side["chest/loot"], side["chest/opened"]  # (R, N, P, I), (R, N, P)
    aimed = side["chest/aimed"]
    first = np.zeros(opened.shape, bool)
    first[0] = True
    out = {}
    for kind, sel in (("first", first), ("later", ~first)):
        got = opened & sel
        out[f"chest_{kind}/opened_frac"] = _masked_mean(
            opened.astype(float).transpose(0, 2, 1).reshape(-1, opened.shape[1]),
            (aimed & sel).transpose(0, 2, 1).reshape(-1, opened.shape[1]),
        )
        flat = got.transpose(0, 2, 1).reshape(-1, got.shape[1])
        for i, item in enumerate(LOOT_ITEMS):
            amount = loot[..., i].astype(float).transpose(0, 2, 1).reshape(-1, got.shape[1])
            out[f"chest_{kind}/{item}_rate"] = _masked_mean((amount > 0).astype(float), flat)
            out[f"chest_{kind}/{item}_amount"] = _masked_mean(amount, flat)
    return out


def by_floor(q: dict[str, np.ndarray], target: np.ndarray, floors) -> dict[str, np.ndarray]:
    """``floorL/<quantity>``: the quantity with every world of another floor set to NaN."""
    out = {}
    for floor in floors:
        for name, v in q.items():
            out[f"floor{floor}/{name}"] = np.where(target == floor, v, np.nan)
    return out


def quantities(side: dict) -> dict[str, np.ndarray]:
    if side["meta"]["mode"] == "play":
        q = play_quantities(side)
        pooled = np.isin(side["target"], POOLED)
        out = {f"floors1-7/{k}": np.where(pooled, v, np.nan) for k, v in q.items()}
        return out | by_floor(q, side["target"], FLOORS)
    out = by_floor(chest_quantities(side), side["target"], CHEST_FLOORS)
    at_reset = side["chests_at_reset"].astype(float)
    for floor in range(NUM_LEVELS):
        out[f"generation/chests_on_floor{floor}"] = at_reset[:, floor]
    return out


def compare_floors(path_peer: str, path_ours: str, boot: int = 1000, seed: int = 0) -> None:
    peer, ours = load(path_peer), load(path_ours)
    if peer["meta"]["mode"] != ours["meta"]["mode"]:
        raise ValueError(f"modes differ: peer {peer['meta']}, ours {ours['meta']}")
    for side in (peer, ours):
        n = side["target"].shape[0]
        print(f"{side['meta']['side']}: {side['meta']['mode']}, {n} worlds")
    flagged = print_table(quantities(peer), quantities(ours), boot, seed)
    print(f"\nflagged ({len(flagged)}): {', '.join(flagged) or 'none'}")
