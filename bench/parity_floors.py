"""Per-floor behavioural parity, floors 1-8: ours vs the published ``alem-env`` (black box).

Same setup as ``parity_compare.py`` (3 agents, "medium", individual rewards, the full 9-floor
env, N worlds vmapped, no reset), and the same table: per world one number per quantity, the
difference of the two sides' means with a bootstrap-over-worlds standard error, flagged beyond
4 SE (``parity_tables.print_table``).

**Putting a team on floor L** (``arrive``): the team descends there by the game's own rule.
After reset, three public state fields are set on both sides: the team's floor, L - 1 (the
peer's ``player_level``; ours ``world.floor`` through ``World.change_floor``, which also swaps
in that floor's hot maps), the players' positions, player i on the i-th down-ladder cell of
L - 1 (the peer's ``down_ladders``, ours ``world.ladders[:, 0]``), and the kill counter of
L - 1, raised to the 8 that clear a floor (the peer's ``monsters_killed``, ours
``world.kills``). Then every player does DESCEND for one step, and each side's floor-change
rule puts the team on L's up ladders with whatever arrival brings (ENTER achievement, XP,
docs/rules/world.md#ladders-and-floor-changes); the kill counter of L - 1 is put back to its reset
value. The trace starts after that step. Walking a scripted team down instead would need 8 kills on
every floor above.

Why not set the floor directly: measured, the peer grants a floor's ENTER achievement and its
+1 XP to players found on a floor they lack it for, whatever brought them there (a team set
on floor L has XP 1 after one NOOP step), while ours grants them on the floor change; a team
set down directly then levels up (dexterity) only in the peer, and its food, drink and energy
drift apart (docs/decisions.md). Arriving by DESCEND gives both sides the same arrival.

Two modes (``--mode``):

* ``play``: N worlds per floor (8N vmapped; world w starts on floor 1 + w mod 8), a team of
  ``parity_compare.py`` (``--team``: random, all 56 actions, no mask, the default; masked
  random; or the scripted greedy team) for T steps.
  Per floor: time on the floor, ascents and descents (floor changes in the trace), live mobs
  per class at arrival and on average while the team is on the floor, damage taken by source
  while on the floor (inferred from the traces as in ``parity_tables.step_events``; also per
  100 agent-steps alive there), kills and chests opened on the floor, survival, death causes.
* ``chests``: N worlds per dungeon floor (1, 3, 4). For R rounds, each player is put on a free
  PATH cell next to a distinct unopened chest, facing it, and every player does DO for one
  step. Per floor and round kind (the player's first chest on the floor vs later ones): the
  fraction of opened chests that gave each item and the mean amount, and the fraction that
  opened. Also the number of chests on every floor at reset.

Run (one interpreter per side)::

    /work/peer_venv/bin/python -m bench.parity_floors --peer --mode play --out fp.npz
    /work/main/.venv/bin/python -m bench.parity_floors --ours --mode play \\
        --out fo.npz
    /work/main/.venv/bin/python -m bench.parity_floors --compare fp.npz fo.npz
"""

from __future__ import annotations

import argparse
import json
import sys

import numpy as np

from bench.parity_floor_tables import (
    CHEST_FLOORS,
    FLOORS,
    LOOT_ITEMS,
)

CHEST, PATH = 23, 7
"""Block ids (docs/rules/entities.md#blocks; the same on both sides)."""
DO, DESCEND = 5, 18
PLAYERS = 3
CLEARED = 8
"""Kills that clear a floor and open its down ladder
(docs/rules/world.md#ladders-and-floor-changes)."""
DIRECTIONS = np.array([[0, 0], [0, -1], [0, 1], [-1, 0], [1, 0]])
"""Step per facing code (1 left, 2 right, 3 up, 4 down), docs/rules/entities.md#actions."""


def _peer_extras(jnp, s) -> dict:
    inv = s.inventory
    loot = [getattr(inv, k) for k in LOOT_ITEMS[:-1]] + [inv.potions.sum(-1)]
    return {
        "kills_all": s.monsters_killed,
        "chests_all": (s.map == CHEST).sum((1, 2)),
        "loot": jnp.stack(loot, -1),
    }


def _our_extras(jnp, s) -> dict:
    from alem_core.constants import Inv
    from alem_core.systems.consumables import POTION_COLUMNS

    inv = s.players.inventory
    cols = (
        Inv.WOOD, Inv.STONE, Inv.COAL, Inv.IRON, Inv.DIAMOND, Inv.SAPPHIRE, Inv.RUBY, Inv.TORCH,
        Inv.ARROW, Inv.BOOK, Inv.PICKAXE, Inv.BOW,
    )  # fmt: skip
    loot = [inv[:, int(c)] for c in cols] + [inv[:, jnp.asarray(POTION_COLUMNS)].sum(-1)]
    return {
        "kills_all": s.world.kills,
        "chests_all": (s.world.stacked().block == CHEST).sum((1, 2)),
        "loot": jnp.stack(loot, -1),
    }


def _side(name: str, n: int, steps: int, seed: int) -> dict:
    """``parity_compare``'s side bundle plus ``place`` (floor, positions, facing) and ``block``
    (the current floor's block map)."""
    import jax.numpy as jnp

    from bench import parity_compare as pc

    if name == "peer":
        side = pc.peer_side(n, steps, seed)

        def place(s, floor, pos, facing):
            return s.replace(
                player_level=floor.astype(jnp.int32),
                player_position=pos.astype(jnp.int32),
                player_direction=facing.astype(jnp.int32),
            )

        def block(s):
            return s.map[s.player_level]

        def down_cells(s, floor):
            return s.down_ladders[floor]

        def with_kills(s, floor, kills):
            return s.replace(monsters_killed=s.monsters_killed.at[floor].set(kills))

        def kills(s):
            return s.monsters_killed

        extras = _peer_extras
    else:
        side = pc.our_side(n, steps, seed)

        def place(s, floor, pos, facing):
            pl = s.players
            players = pl.replace(
                pos=pos.astype(pl.pos.dtype), facing=facing.astype(pl.facing.dtype)
            )
            return s.replace(world=s.world.change_floor(floor), players=players)

        def block(s):
            return s.world.block

        def down_cells(s, floor):
            return s.world.ladders[floor, 0]

        def with_kills(s, floor, kills):
            return s.replace(world=s.world.replace(kills=s.world.kills.at[floor].set(kills)))

        def kills(s):
            return s.world.kills

        extras = _our_extras
    base = side["probe"]
    side.update(
        place=place,
        block=block,
        down_cells=down_cells,
        with_kills=with_kills,
        kills=kills,
        probe=lambda s: {**base(s), **extras(jnp, s)},
    )
    return side


def arrive(side: dict, states, target, key):
    """Each world's team descends onto floor ``target`` (W,) by the game's own rule: the team on
    the down-ladder cells of the floor above, that floor's kill counter raised to the clearing
    threshold, every player DESCEND for one step; the counter is then put back."""
    import jax
    import jax.numpy as jnp

    above = target - 1
    n = target.shape[0]

    def ready(s, floor):
        facing = s.player_direction if side["name"] == "peer" else s.players.facing
        s = side["place"](s, floor, side["down_cells"](s, floor), facing)
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
    """8N worlds, world w on floor 1 + w mod 8 at its up ladders; ``parity_compare``'s random,
    masked-random or greedy team for T steps."""
    import jax
    import jax.numpy as jnp

    from bench import parity_compare as pc

    worlds = n * len(FLOORS)
    side = _side(name, worlds, steps + 1, seed)  # + the arrival step
    target = jnp.asarray(np.resize(np.array(FLOORS), worlds), jnp.int32)

    side["states"] = arrive(side, side["states"], target, side["key"](seed + 20_000))
    key = side["key"](seed + 10_000)
    _, traces, _, done = pc._play(jax, side, team, key, steps)
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
            stand = cell - DIRECTIONS[code]
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
    side = _side(name, worlds, rounds + 2, seed)
    target = np.resize(np.array(CHEST_FLOORS), worlds).astype(np.int32)
    probe = jax.jit(jax.vmap(side["probe"]))
    block = jax.jit(jax.vmap(side["block"]))
    place = jax.jit(jax.vmap(side["place"]))
    step = jax.jit(jax.vmap(side["step"]))
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


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    mode = parser.add_mutually_exclusive_group(required=True)
    mode.add_argument("--peer", action="store_true", help="play the published alem-env")
    mode.add_argument("--ours", action="store_true", help="play alem_core")
    mode.add_argument("--compare", nargs=2, metavar=("PEER.npz", "OURS.npz"), help="table")
    parser.add_argument("--mode", choices=("play", "chests"), default="play")
    parser.add_argument("--out", help="output .npz for --peer / --ours")
    parser.add_argument("--worlds", type=int, default=64, help="N worlds per floor")
    parser.add_argument("--steps", type=int, default=200, help="T steps (play)")
    parser.add_argument("--team", choices=("random", "masked", "greedy"), default="random")
    parser.add_argument("--rounds", type=int, default=4, help="chest rounds (chests)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--boot", type=int, default=1000, help="bootstrap resamples")
    args = parser.parse_args()
    if args.compare:
        from bench.parity_floor_tables import compare_floors

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


if __name__ == "__main__":
    sys.exit(main())
