"""Hand-built black-box scenarios behind the parity decisions (docs/decisions.md), either side.

Each scenario resets one (or N) worlds, sets a few public state fields the same way on both
sides (``parity_floors._side``: floor, positions, facing; plus the cells and counters named
below), plays a fixed action script and prints what changed::

    /work/peer_venv/bin/python -m bench.parity_probes --peer handover
    /work/main/.venv/bin/python -m bench.parity_probes --ours handover

* ``handover``: player 0 below and player 1 right of a tree with a handover task (mobs removed,
  pickaxes given). Script: player 1 starts the handover, then players 0 and 1 Do on the same
  step, then both again one after the other. Prints the block, the coordination value, the open
  handover entries (cell, deadline, initiator) and the wood of each player after each step.
* ``sapling``: 32 worlds, each player facing its own TREE cell, GRASS cell, or a cow (100
  health) on GRASS, re-set every step, Do for 100 steps: saplings and wood per player per Do.
* ``blocked``: 32 worlds; a Do on a teammate standing on GRASS (saplings per Do), and a Do on
  WATER holding a cow (drink per Do), each beside a free-cell control (issue 28).
* ``arrival``: 8 worlds, player 2 dead, every team brought onto floors 1-8 by DESCEND
  (``parity_floors.arrive``): XP and ENTER achievements of each player.
"""

from __future__ import annotations

import argparse
import sys

import numpy as np

from bench import parity_floors as pf

TREE, GRASS, WATER, STONE = 5, 2, 3, 4
DO, NOOP = 5, 0
SAPLING, WOOD, PICKAXE = 7, 0, 11
"""Our inventory columns (``alem_core.constants.Inv``)."""


def _mobs_off(name: str, s):
    import jax.numpy as jnp

    if name == "peer":
        kinds = ("melee_mobs", "passive_mobs", "ranged_mobs")
        return s.replace(
            **{k: getattr(s, k).replace(mask=jnp.zeros_like(getattr(s, k).mask)) for k in kinds}
        )
    kinds = ("melee", "passive", "ranged")
    off = {
        k: getattr(s.mobs, k).replace(alive=jnp.zeros_like(getattr(s.mobs, k).alive)) for k in kinds
    }
    return s.replace(mobs=s.mobs.replace(**off))


def _set_cells(name: str, s, cells, blocks, coord=None):
    """Blocks (and coordination values) of overworld cells (K, 2)."""
    import jax.numpy as jnp

    rows, cols = cells[:, 0], cells[:, 1]
    if name == "peer":
        cmap = (
            s.coordination_map if coord is None else s.coordination_map.at[0, rows, cols].set(coord)
        )
        return s.replace(map=s.map.at[0, rows, cols].set(blocks), coordination_map=cmap)
    w = s.world
    cmap = (
        w.coord if coord is None else w.coord.at[rows, cols].set(jnp.asarray(coord, w.coord.dtype))
    )
    return s.replace(world=w.replace(block=w.block.at[rows, cols].set(blocks), coord=cmap))


def _inventory(name: str, s, column: str):
    if name == "peer":
        return getattr(s.inventory, column)
    return s.players.inventory[..., {"sapling": SAPLING, "wood": WOOD, "pickaxe": PICKAXE}[column]]


def handover(name: str) -> None:
    import jax
    import jax.numpy as jnp

    side = pf._side(name, 1, 50, 0)
    s = jax.tree.map(lambda a: a[0], side["states"])
    cell = jnp.array([[19, 10]])
    pos, facing = jnp.array([[20, 10], [19, 11], [30, 30]]), jnp.array([3, 1, 3])
    s = _mobs_off(name, side["place"](s, jnp.int32(0), pos, facing))
    s = _set_cells(name, s, pos[:2], jnp.array([GRASS, GRASS]))
    if name == "peer":
        window = int(np.asarray(s.coordination_map).min())
        s = s.replace(inventory=s.inventory.replace(pickaxe=jnp.ones(3, jnp.int32)))
    else:
        window = int(np.asarray(s.world.floors.coord).min())
        inv = s.players.inventory.at[:, PICKAXE].set(1)
        s = s.replace(players=s.players.replace(inventory=inv))
    s = _set_cells(name, s, cell, jnp.array([TREE]), jnp.array([window]))
    print(f"{name}: handover value {window} at cell (19, 10); player 1 initiates")
    step = jax.jit(side["step"])
    for i, acts in enumerate(
        ((NOOP, DO, NOOP), (DO, DO, NOOP), (DO, NOOP, NOOP), (NOOP, DO, NOOP))
    ):
        s = step(side["key"](i), s, jnp.array(acts, jnp.int32))[0]
        print(f"after actions {acts}: {_handover_view(name, s)}")


def _handover_view(name: str, s) -> str:
    if name == "peer":
        block, coord = int(s.map[0, 19, 10]), int(s.coordination_map[0, 19, 10])
        table = np.asarray(s.pending_handovers)
        rows = [(tuple(int(x) for x in r[1:3]), int(r[3]), int(r[4])) for r in table if r[0]]
    else:
        block, coord = int(s.world.block[19, 10]), int(s.world.coord[19, 10])
        t = s.handovers
        rows = [
            (tuple(np.asarray(t.pos[i]).tolist()), int(t.deadline[i]), int(t.initiator[i]))
            for i in np.flatnonzero(np.asarray(t.open))
        ]
    wood = np.asarray(_inventory(name, s, "wood")).tolist()
    entries = f"open entries (cell, deadline, initiator) {rows}"
    return f"block {block}, coord {coord}, {entries}, wood {wood}"


def _cows_on(name: str, s, cells):
    """Passive slots 0..K-1 of the overworld: live cows with 100 health on ``cells`` (K, 2)."""

    k = cells.shape[0]
    if name == "peer":
        m = s.passive_mobs
        m = m.replace(
            position=m.position.at[0, :k].set(cells),
            mask=m.mask.at[0, :k].set(True),
            health=m.health.at[0, :k].set(100.0),
            type_id=m.type_id.at[0, :k].set(0),
        )
        zero = {
            f: getattr(s, f).at[0, :k].set(0)
            for f in ("passive_mob_coordination", "passive_mob_agents_required")
        }
        return s.replace(passive_mobs=m, **zero)
    m = s.mobs.passive
    m = m.replace(
        pos=m.pos.at[0, :k].set(cells.astype(m.pos.dtype)),
        alive=m.alive.at[0, :k].set(True),
        health=m.health.at[0, :k].set(100.0),
        kind=m.kind.at[0, :k].set(0),
        elite=m.elite.at[0, :k].set(False),
        hard=m.hard.at[0, :k].set(False),
        required=m.required.at[0, :k].set(0),
    )
    return s.replace(mobs=s.mobs.replace(passive=m))


def sapling(name: str, n: int = 32, steps: int = 100) -> None:
    import jax
    import jax.numpy as jnp

    side = pf._side(name, n, steps + 2, 0)
    pos = jnp.array([[20, 10], [20, 14], [20, 18]])
    target = pos + jnp.array([-1, 0])
    step = jax.jit(jax.vmap(side["step"]))
    cases = ((TREE, "TREE", False), (GRASS, "GRASS", False), (GRASS, "a cow on GRASS", True))
    for block, label, cow in cases:

        def setup(s, block=block, cow=cow):
            s = _mobs_off(name, side["place"](s, jnp.int32(0), pos, jnp.full(3, 3, jnp.int32)))
            s = _set_cells(name, s, pos, jnp.full(3, GRASS))
            s = _set_cells(name, s, target, jnp.full(3, block), jnp.zeros(3, jnp.int32))
            return _cows_on(name, s, target) if cow else s

        prep, states = jax.jit(jax.vmap(setup)), side["states"]
        gained = {"sapling": np.zeros(3), "wood": np.zeros(3)}
        for k in jax.random.split(side["key"](7), steps):
            states = prep(states)
            before = {c: np.asarray(_inventory(name, states, c)) for c in gained}
            actions = jnp.full((n, 3), DO, jnp.int32)
            states = step(jax.random.split(k, n), states, actions)[0]
            for c in gained:
                gained[c] += (np.asarray(_inventory(name, states, c)) - before[c]).mean(0)
        per_do = {c: (v / steps).round(3).tolist() for c, v in gained.items()}
        print(f"{name}: Do on {label}, per player (0, 1, 2) per Do: {per_do}")


def _drink(name: str, s):
    return s.player_drink if name == "peer" else s.players.drink


def _set_health_drink(name: str, s, drink):
    """Every player at health 9 (a teammate hit last step is healed) and the given drink."""
    import jax.numpy as jnp

    health = jnp.full(3, 9.0)
    if name == "peer":
        return s.replace(player_health=health, player_drink=drink.astype(s.player_drink.dtype))
    pl = s.players
    return s.replace(players=pl.replace(health=health, drink=drink.astype(pl.drink.dtype)))


def blocked(name: str, n: int = 32, steps: int = 100) -> None:
    """Do the block effects under a teammate or a mob happen? Two cases, each player's gains per
    Do over n worlds x ``steps`` Do (cells, mobs and health re-set before every step):

    * teammate on grass: player 0 faces player 1, who stands on GRASS; player 2 faces free GRASS
      (the control); players 0 and 2 Do, player 1 NOOP. Saplings per Do.
    * mob in water: players 0 and 1 face a WATER cell holding a cow (100 health), player 2 free
      WATER; all Do at drink 0. Drink gained per Do."""
    import jax
    import jax.numpy as jnp

    side = pf._side(name, n, steps + 2, 0)
    step = jax.jit(jax.vmap(side["step"]))
    up = jnp.full(3, 3, jnp.int32)
    grass_pos = jnp.array([[20, 10], [19, 10], [20, 14]])
    water_pos = jnp.array([[20, 10], [20, 14], [20, 18]])

    def teammate(s):
        s = _mobs_off(name, side["place"](s, jnp.int32(0), grass_pos, up))
        cells = jnp.array([[20, 10], [19, 10], [20, 14], [19, 14], [18, 10]])
        blocks = jnp.array([GRASS, GRASS, GRASS, GRASS, STONE])
        s = _set_cells(name, s, cells, blocks, jnp.zeros(5, jnp.int32))
        return _set_health_drink(name, s, jnp.full(3, 5))

    def water(s):
        s = _mobs_off(name, side["place"](s, jnp.int32(0), water_pos, up))
        s = _set_cells(name, s, water_pos, jnp.full(3, GRASS))
        s = _set_cells(name, s, water_pos - jnp.array([1, 0]), jnp.full(3, WATER),
                       jnp.zeros(3, jnp.int32))  # fmt: skip
        return _cows_on(
            name, _set_health_drink(name, s, jnp.zeros(3)), water_pos[:2] - jnp.array([1, 0])
        )

    cases = (
        (
            "a teammate on GRASS (player 0; player 2 free GRASS)",
            teammate,
            (DO, NOOP, DO),
            "sapling",
        ),
        ("WATER holding a cow (players 0, 1; player 2 free WATER)", water, (DO, DO, DO), "drink"),
    )
    for label, setup, acts, what in cases:
        prep, states, gained = jax.jit(jax.vmap(setup)), side["states"], np.zeros(3)
        actions = jnp.tile(jnp.array(acts, jnp.int32), (n, 1))
        read = (lambda s: _inventory(name, s, "sapling")) if what == "sapling" else (
            lambda s: _drink(name, s))  # fmt: skip
        for k in jax.random.split(side["key"](11), steps):
            states = prep(states)
            before = np.asarray(read(states)).astype(float)
            states = step(jax.random.split(k, n), states, actions)[0]
            gained += (np.asarray(read(states)).astype(float) - before).mean(0)
        per_do = (gained / steps).round(3).tolist()
        print(f"{name}: Do on {label}: {what} per player (0, 1, 2) per step: {per_do}")


def arrival(name: str) -> None:
    import jax.numpy as jnp

    side = pf._side(name, 8, 20, 0)
    s = side["states"]
    if name == "peer":
        s = s.replace(
            player_alive=s.player_alive.at[:, 2].set(False),
            player_health=s.player_health.at[:, 2].set(0.0),
        )
        xp, ach = (lambda s: s.player_xp), (lambda s: s.achievements)
    else:
        pl = s.players
        dead = pl.replace(alive=pl.alive.at[:, 2].set(False), health=pl.health.at[:, 2].set(0.0))
        s = s.replace(players=dead)
        xp, ach = (lambda s: s.players.xp), (lambda s: s.players.achievements)
    s = pf.arrive(side, s, jnp.arange(1, 9, dtype=jnp.int32), side["key"](5))
    print(f"{name}: XP after arriving on floors 1-8 (player 2 dead): {np.asarray(xp(s)).tolist()}")
    got = np.asarray(ach(s))
    columns = [[np.flatnonzero(got[w, p]).tolist() for p in range(3)] for w in range(8)]
    print(f"{name}: achievement columns per player: {columns}")


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    side = parser.add_mutually_exclusive_group(required=True)
    side.add_argument("--peer", action="store_true")
    side.add_argument("--ours", action="store_true")
    parser.add_argument("scenario", choices=("handover", "sapling", "blocked", "arrival"))
    args = parser.parse_args()
    name = "peer" if args.peer else "ours"
    scenarios = {"handover": handover, "sapling": sapling, "blocked": blocked, "arrival": arrival}
    scenarios[args.scenario](name)
    return 0


if __name__ == "__main__":
    sys.exit(main())
