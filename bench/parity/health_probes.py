"""What takes an agent's health, either side (black box): the death probe and the needs probe.

**Death probe** (``probe death``): plays the episode comparison's protocol (random team over all
56 actions, 3 agents, medium, individual rewards, full env, N worlds vmapped) in a Python loop.
Whenever an agent dies, the same step (same key, same actions) is replayed from the state before
it twice:

* "no need tick": every agent's hidden health-recovery counter set to 0, so unmet needs cannot
  take health this step;
* "no mobs": every melee and ranged mob and every mob projectile removed (all floors).

If the agent survives a replay, that replay removed what killed it. The table crosses the cause
each side filed with what killed the agent, and shows the cause filed in the replays.

**Needs probe** (``probe needs``): one world per scenario, all vmapped in one jitted
``lax.scan``. A scenario holds a subset of food, drink and energy at 0 (none, each alone, each
pair, all three) with the team awake or asleep. Before every step the probe re-sets, through
public state fields only, the held needs to 0, the other needs to 5 (below max, so a sleeper is
not woken by full energy), the sleeping flag (true asleep, false awake) and resting (off),
removes every mob, and all players NOOP. Each scenario also runs "released": held for the first
``RELEASE_AT`` steps, then the held needs set to 5 once and nothing but the mobs re-set any more
(needs decay, recovery resumes from the counter reached, sleepers wake at full energy). Player 0
starts at health 9, player 1 at 5, player 2 at 2, every recovery counter at 0. Recorded after
every step: health, the hidden recovery counter, food, drink, energy, sleeping, alive and the
death-cause code. ``--compare`` prints, per scenario, the first step where the traces differ
(or "identical") and each player's health changes as (step, health) pairs (both sides' where
they differ)::

    python -m bench.parity probe death --peer --worlds 32
    python -m bench.parity probe needs --peer --out np.json
    python -m bench.parity probe needs --ours --out no.json
    python -m bench.parity probe needs --compare np.json no.json

Both sides are driven through the adapters (``peer.replay_side``, ``peer.set_players``, ...),
which touch the published package's public API and state fields only.
"""

from __future__ import annotations

import argparse
import collections
import itertools
import json

import numpy as np

from bench.parity.protocol import PLAYERS, adapter

# --- the death probe ------------------------------------------------------------------------


def _killer(saved_need: bool, saved_mobs: bool) -> str:
    """What killed an agent, from which replays it survived."""
    if saved_need and not saved_mobs:
        return "needs"
    if saved_mobs and not saved_need:
        return "mobs"
    return "both needed" if saved_need and saved_mobs else "neither alone"


def death_probe(side: str, n: int, steps: int, seed: int) -> dict:
    """Play, replay every death twice, and count (filed, killer, replay causes)."""
    import jax

    reset, step, fields, no_need, no_mobs, names = adapter(side).replay_side(steps)
    key_fn = jax.random.PRNGKey if side == "peer" else jax.random.key
    vstep, vfields = jax.jit(jax.vmap(step)), jax.jit(jax.vmap(fields))
    states = jax.jit(jax.vmap(reset))(jax.random.split(key_fn(seed), n))
    cf_need = jax.jit(jax.vmap(lambda k, s, a: step(k, no_need(s), a)))
    cf_mobs = jax.jit(jax.vmap(lambda k, s, a: step(k, no_mobs(s), a)))

    def read(states):
        return {k: np.asarray(v) for k, v in vfields(states).items()}

    rng = np.random.default_rng(seed)
    rows = collections.Counter()
    before = read(states)
    for t, k in enumerate(jax.random.split(key_fn(seed + 1), steps)):
        keys = jax.random.split(k, n)
        actions = jax.numpy.asarray(rng.integers(0, 56, (n, PLAYERS)), jax.numpy.int32)
        new = vstep(keys, states, actions)
        after = read(new)
        died = before["alive"] & ~after["alive"]
        if died.any():
            a_need = read(cf_need(keys, states, actions))
            a_mobs = read(cf_mobs(keys, states, actions))
            for w, p in zip(*np.nonzero(died), strict=True):
                saved_need, saved_mobs = a_need["alive"][w, p], a_mobs["alive"][w, p]
                rows[(
                    names[after["cause"][w, p]], _killer(saved_need, saved_mobs),
                    names[a_mobs["cause"][w, p]] if not saved_mobs else "-",
                    names[a_need["cause"][w, p]] if not saved_need else "-",
                    f"drink0={int(before['drink'][w, p] == 0)}"
                    f" food0={int(before['food'][w, p] == 0)}",
                )] += 1  # fmt: skip
        states, before = new, after
        if t % 50 == 0:
            print(f"t={t} alive={before['alive'].mean():.2f}", flush=True)
    return {"side": side, "worlds": n, "steps": steps, "rows": [[*k, v] for k, v in rows.items()]}


def death_main(args: argparse.Namespace) -> int:
    """``probe death``: the table of deaths by filed cause and by what killed the agent."""
    result = death_probe("peer" if args.peer else "ours", args.worlds, args.steps, args.seed)
    head = ("filed", "killed by", "filed w/o mobs", "filed w/o need", "before: needs at 0")
    print("".join(f"{h:>22}" for h in head) + f"{'deaths':>8}")
    for row in sorted(result["rows"], key=lambda r: -r[-1]):
        print("".join(f"{c!s:>22}" for c in row[:-1]) + f"{row[-1]:>8}")
    if args.json:
        with open(args.json, "w") as f:
            json.dump(result, f)
    return 0


# --- the needs probe ------------------------------------------------------------------------

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


def _hold(sides, s, held, asleep):
    """Held needs (3,) bool and asleep () bool of one world, re-imposed before a step."""
    import jax.numpy as jnp

    ones = jnp.ones(PLAYERS)
    need = {k: jnp.where(held[i], 0, OTHER_NEED) * ones for i, k in enumerate(NEEDS)}
    flags = {"sleeping": ones.astype(bool) & asleep, "resting": jnp.zeros(PLAYERS, bool)}
    return sides.set_players(s, {**need, **flags})


def needs_probe(name: str, steps: int) -> dict:
    """Every scenario for ``steps`` steps on side ``name``: the traces of ``FIELDS``."""
    import jax
    import jax.numpy as jnp

    from bench.parity.floors import floor_side

    n, sides = len(SCENARIOS), adapter(name)
    side = floor_side(name, n, steps + 2, 0)
    held = jnp.array([[k in h for k in NEEDS] for h, _, _ in SCENARIOS])
    asleep = jnp.array([a for _, a, _ in SCENARIOS])
    release = jnp.array([r for _, _, r in SCENARIOS])
    start = {"health": jnp.tile(jnp.array(START_HEALTH), (n, 1)), "recover": jnp.zeros((n, 3))}
    states = jax.vmap(sides.set_players)(side["states"], start)
    probe, noop = side["probe"], jnp.zeros((n, PLAYERS), jnp.int32)

    def body(states, xs):
        k, t = xs
        held_now = jnp.where((release & (t == RELEASE_AT))[:, None], False, held)
        hold = ~release | (t <= RELEASE_AT)
        states = jax.vmap(
            lambda s, h, a, on: jax.lax.cond(on, lambda: _hold(sides, s, h, a), lambda: s)
        )(states, held_now, asleep, hold)
        states = jax.vmap(sides.mobs_off)(states)
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


def _print_players(tr: list[dict], w: int, identical: bool) -> None:
    """Each player's health changes in scenario ``w`` (ours only where the sides differ)."""
    for p in range(PLAYERS):
        for s, side in zip(tr, ("peer", "ours"), strict=True):
            if identical and side == "ours":
                continue
            death = np.flatnonzero(s["alive"][:, w, p] == 0)
            died = ""
            if death.size:
                cause = int(s["cause"][death[0], w, p])
                died = f", dead from step {death[0] + 1} cause {cause}"
            print(f"  {side} player {p}: {_changes(s['health'][:, w, p])}{died}")


def compare_needs(path_peer: str, path_ours: str) -> int:
    """Print per scenario the first differing step and the players' health changes."""
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
        _print_players(tr, w, first is None)
    print(f"\nscenarios with a difference: {different} of {len(sides[0]['scenarios'])}")
    return 0


def needs_main(args: argparse.Namespace) -> int:
    """``probe needs``: run one side into ``--out``, or compare two sides' files."""
    if args.compare:
        return compare_needs(*args.compare)
    result = needs_probe("peer" if args.peer else "ours", args.steps)
    with open(args.out, "w") as f:
        json.dump(result, f)
    print(f"wrote {args.out}")
    return 0
