"""Per-floor behavioural parity, floors 1-8: ours vs the published ``alem-env`` (black box).

Same setup as the episode comparison (``episodes.py``: 3 agents, "medium", individual rewards,
the full 9-floor env, N worlds vmapped, no reset), and the same table: per world one number per
quantity, the difference of the two sides' means with a bootstrap-over-worlds standard error,
flagged beyond 4 SE (``tables.print_table``); the worlds of other floors are NaN and drop out.

**Putting a team on floor L** (``arrive``): the team descends there by the game's own rule. After
reset, three public state fields are set on both sides (the adapters' ``place``, ``down_cells`` and
``with_kills``): the team's floor, L - 1 (ours through ``State.change_floor``, which also swaps in
that floor's hot maps and mobs), the players' positions, player i on the i-th down-ladder cell of L
- 1, and the kill counter of L - 1, raised to the 8 that clear a floor. Then every player does
DESCEND for one step, and each side's floor-change rule puts the team on L's up ladders with
whatever arrival brings (ENTER achievement, XP, docs/rules/world.md#ladders-and-floor-changes); the
kill counter of L - 1 is put back to its reset value. The trace starts after that step. Walking a
scripted team down instead would need 8 kills on every floor above.

Why not set the floor directly: measured, the peer grants a floor's ENTER achievement and its
+1 XP to players found on a floor they lack it for, whatever brought them there (a team set
on floor L has XP 1 after one NOOP step), while ours grants them on the floor change; a team
set down directly then levels up (dexterity) only in the peer, and its food, drink and energy
drift apart (docs/decisions.md). Arriving by DESCEND gives both sides the same arrival.

Two modes (``--mode``):

* ``play``: N worlds per floor (8N vmapped; world w starts on floor 1 + w mod 8), a team of
  the episode comparison (``--team``: random, all 56 actions, no mask, the default; masked
  random; or the scripted greedy team) for T steps.
  Per floor: time on the floor, ascents and descents (floor changes in the trace), live mobs
  per class at arrival and on average while the team is on the floor, damage taken by source
  while on the floor (``tables.step_events``; also per 100 agent-steps alive there), kills and
  chests opened on the floor, survival, death causes.
* ``chests``: N worlds per dungeon floor (1, 3, 4). For R rounds, each player is put on a free
  PATH cell next to a distinct unopened chest, facing it, and every player does DO for one
  step. Per floor and round kind (the player's first chest on the floor vs later ones): the
  fraction of opened chests that gave each item and the mean amount, and the fraction that
  opened. Also the number of chests on every floor at reset.

Run::

    python -m bench.parity floors --peer --mode play --out fp.npz
    python -m bench.parity floors --ours --mode play --out fo.npz
    python -m bench.parity floors --compare fp.npz fo.npz
"""

from __future__ import annotations

import argparse
import json
from typing import Any

import numpy as np

from bench.parity.protocol import (
    CHEST,
    CLEARED,
    DESCEND,
    DIRECTIONS,
    DO,
    LOOT_ITEMS,
    PATH,
    PLAYERS,
    adapter,
)
from bench.parity.tables import masked_mean, print_table, step_events

FLOORS = tuple(range(1, 9))
CHEST_FLOORS = (1, 3, 4)
NUM_LEVELS = 9
CAUSES = ("alive", "starvation", "dehydration", "exhaustion", "mob_combat", "friendly_fire")
"""Death-cause codes, the same on both sides (docs/decisions.md)."""
CLASSES = ("melee", "passive", "ranged")
VITALS = ("health", "food", "drink", "energy")
POOLED = tuple(range(1, 8))
"""Floors pooled in the ``floors1-7`` section (the boss floor plays by other rules)."""
STEPS = np.array(DIRECTIONS)


def floor_side(name: str, n: int, steps: int, seed: int) -> dict:
    """Side ``name``'s bundle whose probe also records the per-floor ``extras``."""
    side = adapter(name).side(n, steps, seed)
    base, extras = side["probe"], side["extras"]
    side["probe"] = lambda s: {**base(s), **extras(s)}
    return side


def arrive(side: dict, states: Any, target: Any, key: Any) -> Any:
    """Each world's team descends onto floor ``target`` (W,) by the game's own rule: the team on
    the down-ladder cells of the floor above, that floor's kill counter raised to the clearing
    threshold, every player DESCEND for one step; the counter is then put back."""
    import jax
    import jax.numpy as jnp

    above = target - 1
    n = target.shape[0]

    def ready(s, floor):
        s = side["place"](s, floor, side["down_cells"](s, floor), side["facing"](s))
        return side["with_kills"](s, floor, jnp.maximum(side["kills"](s)[floor], CLEARED))

    kills0 = jax.vmap(side["kills"])(states)
    states = jax.jit(jax.vmap(ready))(states, above)
    descend = jnp.full((n, PLAYERS), DESCEND, jnp.int32)
    out = jax.jit(jax.vmap(side["step"]))(jax.random.split(key, n), states, descend)
    states = out[0]
    side["obs"], side["mask"] = out[3], out[4]  # what a policy sees on arrival
    states = jax.vmap(side["with_kills"])(states, above, kills0[jnp.arange(n), above])
    floor = np.asarray(jax.vmap(side["probe"])(states)["floor"])
    if (floor != np.asarray(target)).any():
        raise RuntimeError(f"{(floor != np.asarray(target)).sum()} teams did not arrive")
    return states


def run_play(name: str, n: int, steps: int, seed: int, team: str = "random") -> dict:
    """8N worlds, world w on floor 1 + w mod 8 at its up ladders; the episode comparison's
    random, masked-random or greedy team for T steps."""
    import jax.numpy as jnp

    from bench.parity.episodes import play

    worlds = n * len(FLOORS)
    side = floor_side(name, worlds, steps + 1, seed)  # + the arrival step
    target = jnp.asarray(np.resize(np.array(FLOORS), worlds), jnp.int32)

    side["states"] = arrive(side, side["states"], target, side["key"](seed + 20_000))
    key = side["key"](seed + 10_000)
    _, traces, _, done = play(side, team, key, steps)
    out = {f"trace/{k}": np.asarray(v) for k, v in traces.items()}
    out.update(target=np.asarray(target), done=np.asarray(done))
    meta = {"side": name, "mode": "play", "per_floor": n, "team": team}
    out["meta"] = np.array(json.dumps(meta))
    return out


def _chest_targets(block: np.ndarray, mob_pos, mob_alive, players: int, rng) -> tuple:
    """(pos, facing, chest) (P, 2), (P,), (P, 2) for one world: P distinct unopened chests,
    each with a free PATH neighbour no mob stands on; -1 chest rows where none is left."""
    mobs = {tuple(p) for p, a in zip(mob_pos, mob_alive, strict=True) if a}
    h, w = block.shape
    pos = np.zeros((players, 2), np.int32)
    facing = np.ones(players, np.int32)
    chest = -np.ones((players, 2), np.int32)
    used: set = set()
    p = 0
    for cell in rng.permutation(np.argwhere(block == CHEST)):
        for code in (1, 2, 3, 4):
            stand = cell - STEPS[code]
            key = tuple(stand)
            inside = 0 <= stand[0] < h and 0 <= stand[1] < w
            if inside and block[key] == PATH and key not in mobs and key not in used:
                pos[p], facing[p], chest[p] = stand, code, cell
                used.add(key)
                p += 1
                break
        if p == players:
            break
    return pos, facing, chest


def run_chests(name: str, n: int, rounds: int, seed: int) -> dict:
    """Each round: every player next to a distinct unopened chest of its floor, facing it, DO."""
    import jax
    import jax.numpy as jnp

    worlds = n * len(CHEST_FLOORS)
    side = floor_side(name, worlds, rounds + 2, seed)
    target = np.resize(np.array(CHEST_FLOORS), worlds).astype(np.int32)
    probe, block = jax.jit(jax.vmap(side["probe"])), jax.jit(jax.vmap(side["block"]))
    place, step = jax.jit(jax.vmap(side["place"])), jax.jit(jax.vmap(side["step"]))
    states = side["states"]
    at_reset = np.asarray(probe(states)["chests_all"])
    rng = np.random.default_rng(seed)
    players = np.asarray(probe(states)["pos"]).shape[1]
    rows = {"loot": [], "opened": [], "round": [], "aimed": []}
    floors = jnp.asarray(target)
    states = arrive(side, states, floors, side["key"](seed + 20_000))
    for r, k in enumerate(jax.random.split(side["key"](seed + 10_000), rounds)):
        before, blocks = probe(states), np.asarray(block(states))
        mp, ma = np.asarray(before["mob_pos"]), np.asarray(before["mob_alive"])
        picks = [_chest_targets(blocks[w], mp[w], ma[w], players, rng) for w in range(worlds)]
        pos, facing, chest = (np.stack(x) for x in zip(*picks, strict=True))
        states = place(states, floors, jnp.asarray(pos), jnp.asarray(facing))
        before = probe(states)
        actions = jnp.full((worlds, players), DO, jnp.int32)
        states = step(jax.random.split(k, worlds), states, actions)[0]
        after, blocks = probe(states), np.asarray(block(states))
        idx = np.clip(chest, 0, None)
        cell_after = blocks[np.arange(worlds)[:, None], idx[..., 0], idx[..., 1]]
        aimed = chest[..., 0] >= 0
        rows["loot"].append(np.asarray(after["loot"]) - np.asarray(before["loot"]))
        rows["opened"].append(aimed & (cell_after != CHEST))
        rows["aimed"].append(aimed)
        rows["round"].append(np.full((worlds, players), r))
    out = {f"chest/{k}": np.stack(v) for k, v in rows.items()}  # (R, N, P, ...)
    out.update(target=target, chests_at_reset=at_reset)
    out["meta"] = np.array(json.dumps({"side": name, "mode": "chests", "per_floor": n}))
    return out


# --- the per-floor table (alem's interpreter) -----------------------------------------------


def load(path: str) -> dict:
    data = np.load(path)
    return {k: data[k] for k in data.files} | {"meta": json.loads(str(data["meta"]))}


def _floor_counts(tr: dict, target: np.ndarray) -> dict[str, np.ndarray]:
    """Time on the target floor, floor changes, kills and chests there."""
    worlds = np.arange(target.shape[0])
    floor = tr["floor"]
    on_b = floor[:-1] == target
    opened = tr["chests_all"][0] - tr["chests_all"][-1]
    return {
        "floor/steps_on": on_b.sum(0).astype(float),
        "floor/left": (on_b.sum(0) < on_b.shape[0]).astype(float),
        "floor/ascents": (np.diff(floor, axis=0) < 0).sum(0).astype(float),
        "floor/descents": (np.diff(floor, axis=0) > 0).sum(0).astype(float),
        "floor/kills": (tr["kills_all"][-1] - tr["kills_all"][0])[worlds, target].astype(float),
        "floor/chests_at_reset": tr["chests_all"][0][worlds, target].astype(float),
        "floor/chests_opened": opened[worlds, target].astype(float),
    }


def _floor_damage(tr: dict, on_b: np.ndarray, on_a: np.ndarray) -> dict[str, np.ndarray]:
    """Live mobs and damage by source while the team is on the target floor."""
    ev = step_events(tr)
    out = {}
    for c, name in enumerate(CLASSES):
        counts = tr["mobs"][..., c].astype(float)
        out[f"mobs/{name}_at_arrival"] = counts[0]
        out[f"mobs/{name}_mean_on_floor"] = masked_mean(counts[1:], on_a)
    for name in ("mob", "ff"):
        out[f"damage/{'mobs' if name == 'mob' else 'friendly_fire'}"] = (ev[name] * on_b).sum(0)
    out["damage/needs"] = (ev["need"] * on_b[..., None]).sum((0, 2)).astype(float)
    out["damage/regen_ticks"] = (ev["regen"] * on_b[..., None]).sum((0, 2)).astype(float)
    hits = tr["melee_hits"][1:] * on_b[..., None]
    out["damage/melee_hits"] = hits.sum((0, 2)).astype(float)
    alive_on = (tr["alive"].astype(bool)[:-1] & on_b[..., None]).sum((0, 2)).astype(float)
    with np.errstate(invalid="ignore", divide="ignore"):
        out["damage/mobs_per_100_agent_steps"] = np.where(
            alive_on > 0, 100 * out["damage/mobs"] / alive_on, np.nan
        )
    return out


def play_quantities(side: dict) -> dict[str, np.ndarray]:
    """Per-world quantities of the ``play`` mode, before splitting by floor."""
    tr = {k[6:]: v for k, v in side.items() if k.startswith("trace/")}
    target = side["target"]
    on_b, on_a = tr["floor"][:-1] == target, tr["floor"][1:] == target  # (T, N)
    out = _floor_counts(tr, target) | _floor_damage(tr, on_b, on_a)
    alive = tr["alive"].astype(bool)
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
        out[f"chest_{kind}/opened_frac"] = masked_mean(
            opened.astype(float).transpose(0, 2, 1).reshape(-1, opened.shape[1]),
            (aimed & sel).transpose(0, 2, 1).reshape(-1, opened.shape[1]),
        )
        flat = got.transpose(0, 2, 1).reshape(-1, got.shape[1])
        for i, item in enumerate(LOOT_ITEMS):
            amount = loot[..., i].astype(float).transpose(0, 2, 1).reshape(-1, got.shape[1])
            out[f"chest_{kind}/{item}_rate"] = masked_mean((amount > 0).astype(float), flat)
            out[f"chest_{kind}/{item}_amount"] = masked_mean(amount, flat)
    return out


def by_floor(q: dict[str, np.ndarray], target: np.ndarray, floors) -> dict[str, np.ndarray]:
    """``floorL/<quantity>``: the quantity with every world of another floor set to NaN."""
    out = {}
    for floor in floors:
        for name, v in q.items():
            out[f"floor{floor}/{name}"] = np.where(target == floor, v, np.nan)
    return out


def quantities(side: dict) -> dict[str, np.ndarray]:
    """Every per-world quantity of one side's file, by floor (and pooled over floors 1-7)."""
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
    """Print the per-floor table of two files of the same mode."""
    peer, ours = load(path_peer), load(path_ours)
    if peer["meta"]["mode"] != ours["meta"]["mode"]:
        raise ValueError(f"modes differ: peer {peer['meta']}, ours {ours['meta']}")
    for side in (peer, ours):
        n = side["target"].shape[0]
        print(f"{side['meta']['side']}: {side['meta']['mode']}, {n} worlds")
    flagged = print_table(quantities(peer), quantities(ours), boot, seed)
    print(f"\nflagged ({len(flagged)}): {', '.join(flagged) or 'none'}")


def main(args: argparse.Namespace) -> int:
    """``floors``: play one side into ``--out``, or print the per-floor table of two files."""
    if args.compare:
        compare_floors(*args.compare, boot=args.boot)
        return 0
    name = "peer" if args.peer else "ours"
    if args.mode == "play":
        result = run_play(name, args.worlds, args.steps, args.seed, args.team)
    else:
        result = run_chests(name, args.worlds, args.rounds, args.seed)
    np.savez_compressed(args.out, **result)
    print(f"wrote {args.out}: {json.loads(str(result['meta']))}")
    return 0
