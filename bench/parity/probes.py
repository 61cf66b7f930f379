"""Hand-built black-box scenarios behind the parity decisions (docs/decisions.md), either side.

Each scenario resets one (or N) worlds, sets a few public state fields the same way on both
sides (the adapters' ``place``: floor, positions, facing; plus the cells and counters named
below, through ``peer.py`` / ``ours.py``), plays a fixed action script and prints what changed::

    python -m bench.parity probe handover --peer
    python -m bench.parity probe handover --ours

* ``handover``: player 0 below and player 1 right of a tree with a handover task (mobs removed,
  pickaxes given). Script: player 1 starts the handover, then players 0 and 1 Do on the same
  step, then both again one after the other. Prints the block, the coordination value, the open
  handover entries (cell, deadline, initiator) and the wood of each player after each step.
* ``sapling``: 32 worlds, each player facing its own TREE cell, GRASS cell, or a cow (100
  health) on GRASS, re-set every step, Do for 100 steps: saplings and wood per player per Do.
* ``blocked``: 32 worlds; a Do on a teammate standing on GRASS (saplings per Do), and a Do on
  WATER holding a cow (drink per Do), each beside a free-cell control.
* ``arrival``: 8 worlds, player 2 dead, every team brought onto floors 1-8 by DESCEND
  (``floors.arrive``): XP and ENTER achievements of each player.
"""

from __future__ import annotations

import argparse

import numpy as np

from bench.parity.protocol import DO, GRASS, NOOP, STONE, TREE, WATER, adapter

HANDOVER_CELL = (19, 10)


def handover(name: str) -> None:
    """A handover started by player 1 and completed (or not) by player 0, step by step."""
    import jax
    import jax.numpy as jnp

    sides = adapter(name)
    side = sides.side(1, 50, 0)
    s = jax.tree.map(lambda a: a[0], side["states"])
    cell = jnp.array([HANDOVER_CELL])
    pos, facing = jnp.array([[20, 10], [19, 11], [30, 30]]), jnp.array([3, 1, 3])
    s = sides.mobs_off(side["place"](s, jnp.int32(0), pos, facing))
    s = sides.set_cells(s, pos[:2], jnp.array([GRASS, GRASS]))
    window = sides.handover_window(s)
    s = sides.give_pickaxes(s)
    s = sides.set_cells(s, cell, jnp.array([TREE]), jnp.array([window]))
    print(f"{name}: handover value {window} at cell (19, 10); player 1 initiates")
    step = jax.jit(side["step"])
    for i, acts in enumerate(
        ((NOOP, DO, NOOP), (DO, DO, NOOP), (DO, NOOP, NOOP), (NOOP, DO, NOOP))
    ):
        s = step(side["key"](i), s, jnp.array(acts, jnp.int32))[0]
        block, coord, rows = sides.handover_view(s, HANDOVER_CELL)
        wood = np.asarray(sides.inventory(s, "wood")).tolist()
        entries = f"open entries (cell, deadline, initiator) {rows}"
        print(f"after actions {acts}: block {block}, coord {coord}, {entries}, wood {wood}")


def sapling(name: str, n: int = 32, steps: int = 100) -> None:
    """Saplings and wood per Do on a TREE, on GRASS, and on a cow standing on GRASS."""
    import jax
    import jax.numpy as jnp

    sides = adapter(name)
    side = sides.side(n, steps + 2, 0)
    pos = jnp.array([[20, 10], [20, 14], [20, 18]])
    target = pos + jnp.array([-1, 0])
    step = jax.jit(jax.vmap(side["step"]))
    cases = ((TREE, "TREE", False), (GRASS, "GRASS", False), (GRASS, "a cow on GRASS", True))
    for block, label, cow in cases:

        def setup(s, block=block, cow=cow):
            s = sides.mobs_off(side["place"](s, jnp.int32(0), pos, jnp.full(3, 3, jnp.int32)))
            s = sides.set_cells(s, pos, jnp.full(3, GRASS))
            s = sides.set_cells(s, target, jnp.full(3, block), jnp.zeros(3, jnp.int32))
            return sides.cows_on(s, target) if cow else s

        prep, states = jax.jit(jax.vmap(setup)), side["states"]
        gained = {"sapling": np.zeros(3), "wood": np.zeros(3)}
        for k in jax.random.split(side["key"](7), steps):
            states = prep(states)
            before = {c: np.asarray(sides.inventory(states, c)) for c in gained}
            actions = jnp.full((n, 3), DO, jnp.int32)
            states = step(jax.random.split(k, n), states, actions)[0]
            for c in gained:
                gained[c] += (np.asarray(sides.inventory(states, c)) - before[c]).mean(0)
        per_do = {c: (v / steps).round(3).tolist() for c, v in gained.items()}
        print(f"{name}: Do on {label}, per player (0, 1, 2) per Do: {per_do}")


def _blocked_cases(sides, side: dict) -> tuple:
    """(label, setup, actions, what is counted) of the two ``blocked`` cases."""
    import jax.numpy as jnp

    up = jnp.full(3, 3, jnp.int32)
    grass_pos = jnp.array([[20, 10], [19, 10], [20, 14]])
    water_pos = jnp.array([[20, 10], [20, 14], [20, 18]])

    def teammate(s):
        s = sides.mobs_off(side["place"](s, jnp.int32(0), grass_pos, up))
        cells = jnp.array([[20, 10], [19, 10], [20, 14], [19, 14], [18, 10]])
        blocks = jnp.array([GRASS, GRASS, GRASS, GRASS, STONE])
        s = sides.set_cells(s, cells, blocks, jnp.zeros(5, jnp.int32))
        return sides.set_health_drink(s, jnp.full(3, 5))

    def water(s):
        s = sides.mobs_off(side["place"](s, jnp.int32(0), water_pos, up))
        s = sides.set_cells(s, water_pos, jnp.full(3, GRASS))
        s = sides.set_cells(s, water_pos - jnp.array([1, 0]), jnp.full(3, WATER),
                            jnp.zeros(3, jnp.int32))  # fmt: skip
        return sides.cows_on(
            sides.set_health_drink(s, jnp.zeros(3)), water_pos[:2] - jnp.array([1, 0])
        )

    teammate_label = "a teammate on GRASS (player 0; player 2 free GRASS)"
    water_label = "WATER holding a cow (players 0, 1; player 2 free WATER)"
    return (
        (teammate_label, teammate, (DO, NOOP, DO), "sapling"),
        (water_label, water, (DO, DO, DO), "drink"),
    )


def blocked(name: str, n: int = 32, steps: int = 100) -> None:
    """Do the block effects under a teammate or a mob happen? Two cases, each player's gains per
    Do over n worlds x ``steps`` Do (cells, mobs and health re-set before every step):

    * teammate on grass: player 0 faces player 1, who stands on GRASS; player 2 faces free GRASS
      (the control); players 0 and 2 Do, player 1 NOOP. Saplings per Do.
    * mob in water: players 0 and 1 face a WATER cell holding a cow (100 health), player 2 free
      WATER; all Do at drink 0. Drink gained per Do."""
    import jax
    import jax.numpy as jnp

    sides = adapter(name)
    side = sides.side(n, steps + 2, 0)
    step = jax.jit(jax.vmap(side["step"]))
    for label, setup, acts, what in _blocked_cases(sides, side):
        prep, states, gained = jax.jit(jax.vmap(setup)), side["states"], np.zeros(3)
        actions = jnp.tile(jnp.array(acts, jnp.int32), (n, 1))
        read = (lambda s: sides.inventory(s, "sapling")) if what == "sapling" else sides.drink
        for k in jax.random.split(side["key"](11), steps):
            states = prep(states)
            before = np.asarray(read(states)).astype(float)
            states = step(jax.random.split(k, n), states, actions)[0]
            gained += (np.asarray(read(states)).astype(float) - before).mean(0)
        per_do = (gained / steps).round(3).tolist()
        print(f"{name}: Do on {label}: {what} per player (0, 1, 2) per step: {per_do}")


def arrival(name: str) -> None:
    """XP and achievements of teams (player 2 dead) brought onto floors 1-8 by DESCEND."""
    import jax.numpy as jnp

    from bench.parity.floors import arrive

    sides = adapter(name)
    side = sides.side(8, 20, 0)
    s = sides.kill_player(side["states"], 2)
    s = arrive(side, s, jnp.arange(1, 9, dtype=jnp.int32), side["key"](5))
    xp = np.asarray(sides.xp(s)).tolist()
    print(f"{name}: XP after arriving on floors 1-8 (player 2 dead): {xp}")
    got = np.asarray(sides.achievements(s))
    columns = [[np.flatnonzero(got[w, p]).tolist() for p in range(3)] for w in range(8)]
    print(f"{name}: achievement columns per player: {columns}")


SCENARIOS = {"handover": handover, "sapling": sapling, "blocked": blocked, "arrival": arrival}


def main(args: argparse.Namespace) -> int:
    """``probe handover|sapling|blocked|arrival``: one scenario on one side."""
    SCENARIOS[args.scenario]("peer" if args.peer else "ours")
    return 0
