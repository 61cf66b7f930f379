"""Chest loot: a Do on a CHEST block opens it (docs/rules/interactions.md#the-do-action,
docs/rules/interactions.md#chest-loot; docs/rules/step.md#the-pipeline step 5, after mining).

Reads: actions, players (pos, facing, alive, inventory, chest_opened), world.block and
world.floor, mobs and players on the faced cell (a Do on them is not a Do on the chest).
Writes: world.block (CHEST -> PATH), players (inventory, chest_opened), achievement OPEN_CHEST.

The loot rows are the rule table ``CHEST_LOOT`` below. Every row draws three **shared**
uniforms per step (hit, option, amount), the same for every player, so two players opening
chests in one step get correlated loot (docs/rules/engine.md#keys-and-structure). Each row's
receiver gate (miner for wood, torches, ores and pickaxes; warrior for arrows and the bow; potions
and books ungated) uses one CHEST_LOOT draw per player per step (``specialisation.py``). A failed
gate only withholds that row: the chest still opens. Pickaxe and bow keep the better level; the rest
add (capped at 99 at the end of the step). The bow (floor 1) and the book (floors 3, 4) come from
the first chest a player opens on that floor, tracked per (floor, player) in
``players.chest_opened`` whether or not the gate let the item through.

Several players opening **one** chest in the same step: each of them receives loot
(docs/rules/step.md#shared-targets, "both get (correlated) loot"), and the block becomes PATH once.
Chests carry no coordination task, so the mining coordination gate does not apply to them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import NUM_INV, Achievement, Block, Inv
from alem_core.dense import raise_flags, set_column
from alem_core.draws import DrawBlock, Draws, per_player
from alem_core.grid import write_cells
from alem_core.params import Params, StaticParams
from alem_core.rules.specialisation import JOB_ROLE, NO_ROLE, passes_gate_with
from alem_core.rules.tables import FLOOR_ENTER_ACHIEVEMENT
from alem_core.state import State
from alem_core.systems.consumables import POTION_COLUMNS
from alem_core.systems.interaction import do_targets

NUM_FLOORS = len(FLOOR_ENTER_ACHIEVEMENT)
_ALL_FLOORS = tuple(range(NUM_FLOORS))
_POTIONS = tuple(int(c) for c in POTION_COLUMNS)
CHEST_LOOT = (
    # name, chance, options (column, weight, low, high), gate job ("" ungated),
    # keeps the better level instead of adding, floors, first chest per (floor, player) only.
    # Every row draws three shared scalars per step: hit, option, amount (uniform low..high).
    ("wood", 0.6, ((Inv.WOOD, 1.0, 1, 5),), "chest_tools", False, _ALL_FLOORS, False),
    ("torches", 0.6, ((Inv.TORCH, 1.0, 4, 7),), "chest_tools", False, _ALL_FLOORS, False),
    (
        "ore",
        0.6,
        (
            (Inv.COAL, 0.3, 1, 3),
            (Inv.IRON, 0.3, 1, 2),
            (Inv.DIAMOND, 0.15, 1, 1),
            (Inv.SAPPHIRE, 0.125, 1, 1),
            (Inv.RUBY, 0.125, 1, 1),
        ),
        "chest_tools",
        False,
        _ALL_FLOORS,
        False,
    ),
    ("potion", 0.5, tuple((c, 1.0, 1, 2) for c in _POTIONS), "", False, _ALL_FLOORS, False),
    ("arrows", 0.5, ((Inv.ARROW, 1.0, 4, 8),), "chest_weapons", False, _ALL_FLOORS, False),
    (
        "pickaxe",
        0.2 * 0.5,  # docs/rules/index.md's two independent chances, one draw
        tuple((Inv.PICKAXE, w, tier, tier) for tier, w in ((1, 0.4), (2, 0.3), (3, 0.2), (4, 0.1))),
        "chest_tools",
        True,
        _ALL_FLOORS,
        False,
    ),
    ("bow", 1.0, ((Inv.BOW, 1.0, 1, 1),), "chest_weapons", True, (1,), True),
    ("book", 1.0, ((Inv.BOOK, 1.0, 1, 1),), "", False, (3, 4), True),
)
"""The loot rows of docs/rules/interactions.md#chest-loot, read as the arrays ``LOOT`` and
``LOOT_ROLE``."""


def _loot_arrays() -> dict[str, np.ndarray]:
    rows, width = len(CHEST_LOOT), max(len(r[2]) for r in CHEST_LOOT)
    column = np.zeros((rows, width), np.int32)
    cdf = np.ones((rows, width), np.float32)  # padded options are never reached
    low = np.zeros((rows, width), np.int32)
    high = np.zeros((rows, width), np.int32)
    floors = np.zeros((rows, NUM_FLOORS), bool)
    for r, (_, _, options, _, _, on_floors, _) in enumerate(CHEST_LOOT):
        weights = np.array([o[1] for o in options], np.float64)
        cdf[r, : len(options)] = np.cumsum(weights) / weights.sum()
        cdf[r, len(options) - 1 :] = 1.0
        for k, (col, _, lo, hi) in enumerate(options):
            column[r, k], low[r, k], high[r, k] = col, lo, hi
        floors[r, list(on_floors)] = True
    return {
        "chance": np.array([r[1] for r in CHEST_LOOT], np.float32),
        "column": column,
        "cdf": cdf,
        "low": low,
        "high": high,
        "keeps_best": np.array([r[4] for r in CHEST_LOOT], bool),
        "floors": floors,
        "first_only": np.array([r[6] for r in CHEST_LOOT], bool),
    }


LOOT = _loot_arrays()
"""Chest loot rows as arrays: chance (R,), option column / cdf / low / high (R, K),
keeps_best (R,), floors (R, 9) and first_only (R,)."""
CHEST_DRAWS_PER_ROW = 3
"""Per loot row and step: hit, option, amount."""
DRAWS = {
    "chest_gate": per_player("Do phase: each agent's chest-loot role gate"),
    "chest_loot": DrawBlock(
        lambda s: (len(CHEST_LOOT), CHEST_DRAWS_PER_ROW),
        "Do phase: per loot row, hit, option and amount, shared by every opener",
    ),
}
"""The step's uniforms this system reads (``alem_core/draws.py``)."""
LOOT_ROLE = np.array([JOB_ROLE[row[3]] if row[3] else NO_ROLE for row in CHEST_LOOT], np.int32)
"""(R,) role gate of each loot row, from the one gate table (-1: anyone)."""


def chest_loot(
    draws: jax.Array, floor: jax.Array, first: jax.Array, receives: jax.Array
) -> tuple[jax.Array, jax.Array]:
    """The loot of one step, a pure function of the draws.

    Args:
        draws: (R, 3) uniforms in [0, 1): per loot row, hit, option and amount
            (the step's ``chest_loot`` block, ``alem_core/draws.py``).
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
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """Resolve every player's Do on a chest: loot, first-chest tracking, CHEST -> PATH."""
    facts = do_targets(state, actions, static)
    opens = facts["on"] & (facts["block"] == Block.CHEST)
    u = draws["chest_gate"]
    passes = jnp.stack([passes_gate_with(int(r), u, params, static) for r in LOOT_ROLE], axis=1)
    players, floor = state.players, state.world.floor
    first = ~players.chest_opened[:, floor]
    added, level = chest_loot(draws["chest_loot"], floor, first, opens[:, None] & passes)
    players = players.replace(
        inventory=jnp.maximum(players.inventory + added, level),
        chest_opened=set_column(players.chest_opened, floor, ~first | opens),
        achievements=raise_flags(players.achievements, Achievement.OPEN_CHEST, opens),
    )
    block = write_cells(
        state.world.block, facts["cell"], jnp.full_like(opens, Block.PATH, jnp.int32), opens
    )
    return state.replace(players=players, world=state.world.replace(block=block))
