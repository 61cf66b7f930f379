"""Chest loot: a Do on a CHEST block opens it (GAME.md §4.1, §4.5; §5.1 step 5, after mining).

Reads: actions, players (pos, facing, alive, inventory, chest_opened), world.block and
world.floor, mobs and players on the faced cell (a Do on them is not a Do on the chest).
Writes: world.block (CHEST -> PATH), players (inventory, chest_opened), achievement OPEN_CHEST.

The loot rows are the rule table ``tables.CHEST_LOOT``. Every row draws three **shared**
uniforms per step (hit, option, amount), the same for every player, so two players opening
chests in one step get correlated loot (GAME.md §10.1). Each row's receiver gate (miner for wood,
torches, ores and pickaxes; warrior for arrows and the bow; potions and books ungated) uses one
CHEST_LOOT draw per player per step (``specialisation.py``). A failed gate only withholds that
row: the chest still opens. Pickaxe and bow keep the better level; the rest add (capped at 99 at
the end of the step). The bow (floor 1) and the book (floors 3, 4) come from the first chest a
player opens on that floor, tracked per (floor, player) in ``players.chest_opened`` whether or
not the gate let the item through.

Several players opening **one** chest in the same step: each of them receives loot (GAME.md §5.3,
"both get (correlated) loot"), and the block becomes PATH once. Chests carry no coordination
task, so the mining coordination gate does not apply to them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_INV, Achievement, Block
from alem_core.grid import write_cells
from alem_core.params import Params, StaticParams
from alem_core.specialisation import JOB_ROLE, NO_ROLE, gate_draws, passes_gate_with
from alem_core.state import State
from alem_core.systems.interaction import do_targets
from alem_core.tables import LOOT, LOOT_JOB

LOOT_ROLE = np.array([JOB_ROLE[job] if job else NO_ROLE for job in LOOT_JOB], np.int32)
"""(R,) role gate of each loot row, from the one gate table (-1: anyone)."""
DRAWS_PER_ROW = 3


def draw_chest_loot(key: jax.Array) -> jax.Array:
    """(R, 3) shared uniforms of one step: per loot row, hit, option and amount."""
    return jax.random.uniform(key, (len(LOOT_ROLE), DRAWS_PER_ROW))


def chest_loot(
    draws: jax.Array, floor: jax.Array, first: jax.Array, receives: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """The loot of one step, a pure function of the draws.

    Args:
        draws: (R, 3) uniforms in [0, 1) (``draw_chest_loot``).
        floor: () current floor.
        first: (P,) bool this is the player's first chest on ``floor``.
        receives: (P, R) bool the player opens a chest and passes row r's gate.

    Returns:
        ``(added, level)``, both (P, NUM_INV) int32: counts to add, and levels to keep the
        better of (0 where the row gives nothing).
    """
    hit = draws[:, 0] < jnp.asarray(LOOT["chance"])
    cdf = jnp.asarray(LOOT["cdf"])
    option = jnp.minimum((draws[:, 1:2] >= cdf).sum(1), cdf.shape[1] - 1)
    rows = jnp.arange(cdf.shape[0])
    low = jnp.asarray(LOOT["low"])[rows, option]
    high = jnp.asarray(LOOT["high"])[rows, option]
    amount = jnp.minimum(low + jnp.floor(draws[:, 2] * (high - low + 1)).astype(jnp.int32), high)
    column = jnp.asarray(LOOT["column"])[rows, option]
    applies = hit & jnp.asarray(LOOT["floors"])[:, floor]
    once = jnp.asarray(LOOT["first_only"])
    granted = receives & applies[None] & (~once[None] | first[:, None])
    value = jnp.where(granted, amount[None], 0)  # (P, R)
    onehot = column[:, None] == jnp.arange(NUM_INV)[None]  # (R, NUM_INV)
    best = jnp.asarray(LOOT["keeps_best"])
    added = (value * ~best[None])[:, :, None] * onehot[None]
    level = (value * best[None])[:, :, None] * onehot[None]
    return added.sum(1).astype(jnp.int32), level.max(1).astype(jnp.int32)


def open_chests(
    state: State, actions: jax.Array, key: jax.Array, params: Params, static: StaticParams
) -> State:
    """Resolve every player's Do on a chest: loot, first-chest tracking, CHEST -> PATH."""
    facts = do_targets(state, actions, static)
    opens = facts["on"] & (facts["block"] == Block.CHEST)
    loot_key, gate_key = jax.random.split(key)
    u = gate_draws(gate_key, static)
    passes = jnp.stack([passes_gate_with(int(r), u, params, static) for r in LOOT_ROLE], axis=1)
    players, floor = state.players, state.world.floor
    first = ~players.chest_opened[:, floor]
    added, level = chest_loot(draw_chest_loot(loot_key), floor, first, opens[:, None] & passes)
    players = players.replace(
        inventory=jnp.maximum(players.inventory + added, level),
        chest_opened=players.chest_opened.at[:, floor].set(~first | opens),
        achievements=players.achievements.at[:, Achievement.OPEN_CHEST].max(opens),
    )
    block = write_cells(
        state.world.block, facts["cell"], jnp.full_like(opens, Block.PATH, jnp.int32), opens
    )
    return state.replace(players=players, world=state.world.replace(block=block))
