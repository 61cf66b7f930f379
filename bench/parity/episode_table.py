"""The episode comparison's table: per-world quantities of whole episodes, peer vs ours.

Runs in alem's interpreter (``python -m bench.parity compare --compare PEER.npz OURS.npz`` reads
the two sides' files written by ``episodes.py``). Every quantity is one number per world:
survival and the vitals of the living at checkpoints, when needs first reach 0 and when agents
die per cause, damage by source (``tables.step_events``), friendly-fire chances, live mobs,
deaths by cause and the terminal score keys; ``tables.print_table`` gives each difference its
bootstrap standard error and flag. A death-attribution cross-table checks each side's filed
causes against what happened to health on the last step.
"""

from __future__ import annotations

import json
import warnings

import numpy as np

from bench.parity.protocol import DIRECTIONS
from bench.parity.tables import print_table, step_events

CHECKPOINTS = (50, 100, 150, 200, 250, 300, 350, 400, 500)
CAUSE_ALIASES = {"combat": "mob_combat"}
"""Our cause names -> the published names, where they differ only in wording."""
VITALS_UNTIL = 350
"""Vitals of the living are reported up to here; past it too few agents live to compare."""
NEEDS = ("food", "drink", "energy")
STEPS = np.array(DIRECTIONS)
"""(5, 2) step per facing code."""


def load(path: str) -> dict:
    """Traces (T+1, N, ...), terminal score keys (N, P), done flags (N,) and meta of one side.
    ``path`` may list several runs of one side, comma-separated: their worlds are pooled."""
    if "," in path:
        return _pool([load(p) for p in path.split(",")])
    data = np.load(path)
    meta = json.loads(str(data["meta"]))
    traces = {k[6:]: data[k] for k in data.files if k.startswith("trace/")}
    score = {k[6:]: data[k].astype(float) for k in data.files if k.startswith("score/")}
    names = [CAUSE_ALIASES.get(c, c) for c in meta["cause_names"]]
    return {"meta": meta, "trace": traces, "score": score, "done": data["done"], "causes": names}


def _pool(runs: list[dict]) -> dict:
    """One side's runs (same T) as one sample: worlds concatenated, the score keys all runs
    share, cause names by code (the peer names a code only from a death it saw)."""
    names = []
    for code in range(max(len(r["causes"]) for r in runs)):
        known = [r["causes"][code] for r in runs if code < len(r["causes"])]
        named = [n for n in known if not n.startswith("code")]
        names.append(named[0] if named else known[0])
    keys = set.intersection(*(set(r["score"]) for r in runs))
    return {
        "meta": runs[0]["meta"],
        "trace": {k: np.concatenate([r["trace"][k] for r in runs], 1) for k in runs[0]["trace"]},
        "score": {k: np.concatenate([r["score"][k] for r in runs]) for k in keys},
        "done": np.concatenate([r["done"] for r in runs]),
        "causes": names,
    }


def _at(tr: dict, t: int) -> int:
    return min(t, tr["health"].shape[0] - 1)


def survival_and_vitals(tr: dict) -> dict[str, np.ndarray]:
    """Alive fraction at checkpoints; mean vitals of the living; episode length."""
    out = {}
    alive = tr["alive"].astype(bool)
    last = alive.shape[0] - 1
    for t in (t for t in CHECKPOINTS if t <= last):
        out[f"survival/alive_frac@{t}"] = alive[t].mean(-1)
    for t in (t for t in CHECKPOINTS if t <= min(last, VITALS_UNTIL)):
        for field in ("health", "food", "drink", "energy", "sleeping"):
            v = np.where(alive[t], tr[field][t].astype(float), np.nan)
            with np.errstate(invalid="ignore"):
                out[f"vitals/{field}@{t}"] = np.nanmean(v, -1)
    any_alive = alive.any(-1)
    out["survival/episode_length"] = np.where(any_alive.all(0), last, any_alive.argmin(0))
    out["survival/agent_steps_alive"] = alive[1:].sum((0, 2)).astype(float)
    return out


def damage(tr: dict, ev: dict) -> dict[str, np.ndarray]:
    """Damage taken by source per world, over the first 100 steps and the whole run."""
    out = {}
    for label, t in (("@100", 100), ("", ev["mob"].shape[0])):
        sl = slice(0, t)
        out[f"damage/mobs{label}"] = ev["mob"][sl].sum(0)
        out[f"damage/friendly_fire{label}"] = ev["ff"][sl].sum(0)
        out[f"damage/needs{label}"] = ev["need"][sl].sum((0, 2)).astype(float)
        out[f"damage/regen_ticks{label}"] = ev["regen"][sl].sum((0, 2)).astype(float)
        out[f"damage/melee_hits{label}"] = tr["melee_hits"][1:][sl].sum((0, 2)).astype(float)
        ff_hits = (np.diff(tr["ff_dealt"], axis=0)[sl] > 0).sum((0, 2))
        out[f"damage/friendly_fire_hits{label}"] = ff_hits.astype(float)
    return out


def friendly_fire_chances(tr: dict) -> dict[str, np.ndarray]:
    """(T, N, P) ``chance``: an able agent faces a living teammate at the start of the step (a
    Do would hit it), and ``hit``: the agent dealt friendly-fire damage in the step."""
    if "pos" not in tr:
        return {}
    pos, alive = tr["pos"][:-1], tr["alive"][:-1].astype(bool)
    able = alive & ~tr["sleeping"][:-1].astype(bool) & ~tr["resting"][:-1].astype(bool)
    target = pos + STEPS[tr["facing"][:-1]]
    on = (target[:, :, :, None, :] == pos[:, :, None, :, :]).all(-1) & alive[:, :, None, :]
    on &= ~np.eye(pos.shape[2], dtype=bool)
    gap = np.abs(pos[:, :, :, None, :] - pos[:, :, None, :, :]).sum(-1)
    both = alive[:, :, :, None] & alive[:, :, None, :]
    return {
        "chance": able & on.any(-1),
        "hit": np.diff(tr["ff_dealt"], axis=0) > 0,
        "adjacent_pairs": ((gap == 1) & both).sum((-1, -2)) / 2,
    }


def friendly_fire(tr: dict) -> dict[str, np.ndarray]:
    """Chances to hit a teammate and adjacent teammate pairs per world (first 200 steps)."""
    ch = friendly_fire_chances(tr)
    if not ch:
        return {}
    sl = slice(0, 200)
    return {
        "friendly_fire/chances@200": ch["chance"][sl].sum((0, 2)).astype(float),
        "friendly_fire/hits@200": ch["hit"][sl].sum((0, 2)).astype(float),
        "friendly_fire/adjacent_pair_steps@200": ch["adjacent_pairs"][sl].sum(0).astype(float),
    }


def friendly_fire_check(side: dict) -> str:
    """Pooled hits per chance, and hits with no chance (0 if the facing codes are read right)."""
    ch = friendly_fire_chances(side["trace"])
    if not ch:
        return f"{side['meta']['side']}: no positions recorded"
    hits, chances = ch["hit"].sum(), ch["chance"].sum()
    stray = (ch["hit"] & ~ch["chance"]).sum()
    return (
        f"{side['meta']['side']}: {hits} friendly-fire hits / {chances} chances = "
        f"{hits / max(chances, 1):.4f} (a Do is 1/56 = 0.0179); hits without a chance: {stray}"
    )


def mobs(tr: dict) -> dict[str, np.ndarray]:
    """Live mobs per class on the team's floor at t = 100 and averaged over steps 1-100."""
    out = {}
    counts = tr["mobs"].astype(float)  # (T+1, N, 3)
    for c, name in enumerate(("melee", "passive", "ranged")):
        out[f"mobs/{name}@100"] = counts[_at(tr, 100), :, c]
        out[f"mobs/{name}_mean_1_100"] = counts[1 : _at(tr, 100) + 1, :, c].mean(0)
    return out


def _first(hit: np.ndarray) -> np.ndarray:
    """(N, P) first step index where ``hit`` (T+1, N, P) holds, NaN where it never does."""
    return np.where(hit.any(0), hit.argmax(0), np.nan).astype(float)


def _world_mean(x: np.ndarray) -> np.ndarray:
    """(N,) mean over a world's agents, NaN-skipping; NaN where no agent has a value."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)  # a world with no value stays NaN
        return np.nanmean(x, -1)


def timing(side: dict) -> dict[str, np.ndarray]:
    """When needs first reach 0 and when agents die, per cause: per world the mean step over
    its agents that got there (NaN-skipped; agents that never did are left out, the same on both
    sides), and the steps from an agent's first need at 0 to its death."""
    tr = side["trace"]
    alive = tr["alive"].astype(bool)
    was_alive = np.concatenate([alive[:1], alive[:-1]])
    zero = {k: was_alive & (tr[k] <= 0) for k in NEEDS}
    zero["any_need"] = zero["food"] | zero["drink"] | zero["energy"]
    out = {f"timing/first_{k}_at_0": _world_mean(_first(v)) for k, v in zero.items()}
    death = _first(~alive)
    out["timing/death"] = _world_mean(death)
    cause = tr["cause"][-1]
    for code, name in enumerate(side["causes"]):
        if code > 0:
            out[f"timing/death_by_{name}"] = _world_mean(np.where(cause == code, death, np.nan))
    out["timing/need_at_0_to_death"] = _world_mean(death - _first(zero["any_need"]))
    return out


def deaths(side: dict) -> dict[str, np.ndarray]:
    """Deaths per world by the cause each side filed, at the end of the run."""
    cause = side["trace"]["cause"][-1]
    return {
        f"deaths/{name}": (cause == code).sum(-1).astype(float)
        for code, name in enumerate(side["causes"])
        if code > 0
    }


def score_keys(side: dict) -> dict[str, np.ndarray]:
    """Terminal score keys, averaged over agents (achievement keys as unlock fractions)."""
    out = {}
    for key, value in side["score"].items():
        v = value.mean(-1) if value.ndim > 1 else value
        if key.startswith("Achievements/"):
            out["achievements/" + key.split("/", 1)[1].lower()] = v / 100.0
        else:
            out["score/" + _alias_key(key)] = v
    return out


def _alias_key(key: str) -> str:
    for ours, theirs in CAUSE_ALIASES.items():
        key = key.replace(f"died_from_{ours}", f"died_from_{theirs}")
        key = key.replace(f"Deaths/{ours}_count", f"Deaths/{theirs}_count")
    return key


def world_quantities(side: dict) -> dict[str, np.ndarray]:
    tr = side["trace"]
    ev = step_events(tr)
    out = {}
    parts = (
        survival_and_vitals(tr), timing(side), damage(tr, ev), friendly_fire(tr), deaths(side),
        mobs(tr),
    )  # fmt: skip
    for part in parts:
        out.update(part)
    out.update(score_keys(side))
    return out


def death_attribution(side: dict) -> list[str]:
    """Cross-table of each death: the cause filed vs what happened to health on the last step."""
    tr = side["trace"]
    ev = step_events(tr)
    t_idx, w_idx, p_idx = np.nonzero(ev["died"])
    cause = tr["cause"][t_idx + 1, w_idx, p_idx]
    need = ev["need"][t_idx, w_idx, p_idx]
    melee = tr["melee_hits"][t_idx + 1, w_idx, p_idx] > 0
    ff = ev["ff"][t_idx, w_idx] > 0
    h_b = ev["h_b"][t_idx, w_idx, p_idx]
    kinds = np.where(
        melee,
        np.where(need, "melee+need", "melee"),
        np.where(ff, "friendly_fire", np.where(need, "need_tick_only", "other(projectile?)")),
    )
    cols = ["need_tick_only", "melee", "melee+need", "friendly_fire", "other(projectile?)"]
    lines = [f"{'filed cause':<16}" + "".join(f"{c:>20}" for c in cols) + f"{'h before':>10}"]
    for code in np.unique(cause):
        sel = cause == code
        row = [(kinds[sel] == c).sum() for c in cols]
        name = side["causes"][code] if code < len(side["causes"]) else f"code{code}"
        lines.append(
            f"{name:<16}" + "".join(f"{v:>20d}" for v in row) + f"{h_b[sel].mean():>10.2f}"
        )
    need_deaths = kinds == "need_tick_only"
    lines.append(
        f"deaths {len(cause)}; with a need tick alone on the last step: {need_deaths.sum()} "
        f"(health before it: mean {h_b[need_deaths].mean() if need_deaths.any() else 0:.2f})"
    )
    return lines


def compare(path_peer: str, path_ours: str, boot: int = 1000, seed: int = 0) -> None:
    """Print every quantity both sides report: peer vs ours, difference, SE, flag."""
    peer, ours = load(path_peer), load(path_ours)
    qa, qb = world_quantities(peer), world_quantities(ours)
    for side in (peer, ours):
        n, steps = side["done"].shape[0], side["trace"]["health"].shape[0] - 1
        print(f"{side['meta']['side']}: {n} worlds, {steps} steps, done {side['done'].mean():.2f}")
    flagged = print_table(qa, qb, boot, seed)
    only = sorted(set(qa) ^ set(qb))
    print(
        f"\non one side only ({len(only)}): {', '.join(only[:40])}"
        + (" ..." if len(only) > 40 else "")
    )
    if "damage_taken" in ours["trace"]:
        own = np.diff(ours["trace"]["damage_taken"], axis=0).sum((0, 2)).mean()
        print(f"check: ours mob damage per world, own counter {own:.2f} vs inferred "
              f"{qb['damage/mobs'].mean():.2f}")  # fmt: skip
    for side in (peer, ours):
        print(friendly_fire_check(side))
    for side in (peer, ours):
        print(f"\ndeath attribution, {side['meta']['side']} (last step of each dying agent):")
        print("\n".join(death_attribution(side)))
    print(f"\nflagged ({len(flagged)}): {', '.join(flagged) or 'none'}")
