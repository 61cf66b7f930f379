"""Health under unmet needs, step by step, either side (black box): issue 28's probes.

One world per scenario, all vmapped in one jitted ``lax.scan``. A scenario holds a subset of
food, drink and energy at 0 (none, each alone, each pair, all three) with the team awake or
asleep. Before every step the probe re-sets, through public state fields only, the held needs to
0, the other needs to 5 (below max, so a sleeper is not woken by full energy), the sleeping flag
(true asleep, false awake) and resting (off), removes every mob, and all players NOOP. Each
scenario also runs "released": held for the first ``RELEASE_AT`` steps, then the held needs set
to 5 once and nothing but the mobs re-set any more (needs decay, recovery resumes from the
counter reached, sleepers wake at full energy). Player 0 starts at health 9, player 1 at 5,
player 2 at 2, every recovery counter at 0. Recorded after every step: health, the hidden
recovery counter, food, drink, energy, sleeping, alive and the death-cause code.

    /work/peer_venv/bin/python -m bench.parity_needs_probe --peer --out np.json
    /work/main/.venv/bin/python -m bench.parity_needs_probe --ours --out no.json
    /work/main/.venv/bin/python -m bench.parity_needs_probe --compare np.json no.json

``--compare`` prints, per scenario, the first step where the traces differ (or "identical") and
each player's health changes as (step, health) pairs (both sides' where they differ).
"""

from __future__ import annotations

import argparse
import itertools
import json
import sys

import numpy as np

from bench import parity_floors as pf
from bench import parity_probes as pp

NEEDS = ("food", "drink", "energy")
HELD = [c for r in range(4) for c in itertools.combinations(NEEDS, r)]
"""The 8 subsets of needs held at 0."""
SCENARIOS = [
    (held, asleep, release)
    for release in (False, True)
    for asleep in (False, True)
    for held in HELD
]
"""(needs held at 0, asleep, released at ``RELEASE_AT``)."""
START_HEALTH = (9.0, 5.0, 2.0)
OTHER_NEED = 5
RELEASE_AT = 40
FIELDS = ("health", "recover", "food", "drink", "energy", "sleeping", "alive", "cause")
PLAYERS = 3


def _fields(name: str) -> dict[str, str]:
    """Our field name -> the side's state field."""
    if name == "peer":
        return {
            "food": "player_food", "drink": "player_drink", "energy": "player_energy",
            "sleeping": "is_sleeping", "resting": "is_resting", "health": "player_health",
            "recover": "player_recover",
        }  # fmt: skip
    return {k: k for k in ("food", "drink", "energy", "sleeping", "resting", "health", "recover")}


def _set(name: str, s, values: dict):
    if name == "peer":
        f = _fields(name)
        return s.replace(**{f[k]: v.astype(getattr(s, f[k]).dtype) for k, v in values.items()})
    pl = s.players
    return s.replace(
        players=pl.replace(**{k: v.astype(getattr(pl, k).dtype) for k, v in values.items()})
    )


def _hold(name: str, s, held, asleep):
    """Held needs (3,) bool and asleep () bool of one world, re-imposed before a step."""
    import jax.numpy as jnp

    ones = jnp.ones(PLAYERS)
    need = {k: jnp.where(held[i], 0, OTHER_NEED) * ones for i, k in enumerate(NEEDS)}
    flags = {"sleeping": ones.astype(bool) & asleep, "resting": jnp.zeros(PLAYERS, bool)}
    return _set(name, s, {**need, **flags})


def run(name: str, steps: int) -> dict:
    import jax
    import jax.numpy as jnp

    n = len(SCENARIOS)
    side = pf._side(name, n, steps + 2, 0)
    held = jnp.array([[k in h for k in NEEDS] for h, _, _ in SCENARIOS])
    asleep = jnp.array([a for _, a, _ in SCENARIOS])
    release = jnp.array([r for _, _, r in SCENARIOS])
    start = {"health": jnp.tile(jnp.array(START_HEALTH), (n, 1)), "recover": jnp.zeros((n, 3))}
    states = jax.vmap(lambda s, v: _set(name, s, v))(side["states"], start)
    probe = side["probe"]
    noop = jnp.zeros((n, PLAYERS), jnp.int32)

    def body(states, xs):
        k, t = xs
        held_now = jnp.where((release & (t == RELEASE_AT))[:, None], False, held)
        hold = ~release | (t <= RELEASE_AT)
        states = jax.vmap(
            lambda s, h, a, on: jax.lax.cond(on, lambda: _hold(name, s, h, a), lambda: s)
        )(states, held_now, asleep, hold)
        states = jax.vmap(lambda s: pp._mobs_off(name, s))(states)
        states = jax.vmap(side["step"])(jax.random.split(k, n), states, noop)[0]
        tr = jax.vmap(probe)(states)
        return states, {f: tr[f] for f in FIELDS}

    run_scan = jax.jit(
        lambda s, key: jax.lax.scan(body, s, (jax.random.split(key, steps), jnp.arange(steps)))
    )
    _, traces = run_scan(states, side["key"](3))
    return {
        "side": name,
        "scenarios": [[list(h), bool(a), bool(r)] for h, a, r in SCENARIOS],
        "traces": {f: np.asarray(v).astype(float).tolist() for f, v in traces.items()},
    }


def _changes(health: np.ndarray) -> list[tuple[int, float]]:
    """(step, health) at every step whose health differs from the step before (step 1-based)."""
    prev = np.concatenate([[np.nan], health[:-1]])
    return [(int(t) + 1, float(health[t])) for t in np.flatnonzero(health != prev)]


def compare(path_peer: str, path_ours: str) -> int:
    sides = []
    for path in (path_peer, path_ours):
        with open(path) as f:
            sides.append(json.load(f))
    tr = [{k: np.asarray(v) for k, v in s["traces"].items()} for s in sides]
    different = 0
    for w, (held, asleep, release) in enumerate(sides[0]["scenarios"]):
        label = f"held at 0: {'+'.join(held) or 'none'}, {'asleep' if asleep else 'awake'}"
        label += f", released after step {RELEASE_AT}" if release else ""
        diff = np.zeros(tr[0]["health"].shape[0], bool)
        for f in FIELDS:
            diff |= (tr[0][f][:, w] != tr[1][f][:, w]).any(-1)
        first = int(np.argmax(diff)) + 1 if diff.any() else None
        different += first is not None
        print(f"{label}: {'identical' if first is None else f'first difference at step {first}'}")
        for p in range(PLAYERS):
            for s, side in zip(tr, ("peer", "ours"), strict=True):
                if first is None and side == "ours":
                    continue
                death = np.flatnonzero(s["alive"][:, w, p] == 0)
                died = ""
                if death.size:
                    cause = int(s["cause"][death[0], w, p])
                    died = f", dead from step {death[0] + 1} cause {cause}"
                print(f"  {side} player {p}: {_changes(s['health'][:, w, p])}{died}")
    print(f"\nscenarios with a difference: {different} of {len(sides[0]['scenarios'])}")
    return 0


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--peer", action="store_true")
    mode.add_argument("--ours", action="store_true")
    mode.add_argument("--compare", nargs=2, metavar=("PEER.json", "OURS.json"))
    parser.add_argument("--out", help="JSON output for --peer / --ours")
    parser.add_argument("--steps", type=int, default=300)
    args = parser.parse_args()
    if args.compare:
        return compare(*args.compare)
    result = run("peer" if args.peer else "ours", args.steps)
    with open(args.out, "w") as f:
        json.dump(result, f)
    print(f"wrote {args.out}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
