"""Chest loot (docs/rules/interactions.md#chest-loot): every loot row from hand-made draws, the role
gates (docs/rules/roles.md), the first-chest bow and book per (floor, player), and opening through
the Do phase.

The loot is a pure function of the step's shared draws (``chest_loot``), so each row is forced
by choosing its three uniforms (hit, option, amount); rows not under test get a miss.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import NUM_INV, Achievement, Action, Block, Facing, Inv
from alem_core.params import Params
from alem_core.pipeline import step_draws
from alem_core.systems.chests import CHEST_LOOT, chest_loot, open_chests
from alem_core.testing import hand_built_state, small, with_inventory
from alem_core.testing.rollout import compiled

from ..conftest import SMALL

ROW = {row[0]: r for r, row in enumerate(CHEST_LOOT)}
FLOORS5 = small(num_levels=5)
HARD = Params(shared_reward=False)
SOFT_ALL = Params(
    shared_reward=False,
    soft_specialization=True,
    specialist_efficiency=1.0,
    non_specialist_efficiency=1.0,
)
DO, NOOP = Action.DO, Action.NOOP
POTIONS = list(range(Inv.POTION_RED, Inv.POTION_YELLOW + 1))

loot = jax.jit(chest_loot)
open_run = jax.jit(
    lambda state, actions, key, params: open_chests(
        state, actions, step_draws(key, FLOORS5), params, FLOORS5
    )
)


def draws(**rows: tuple[float, float, float]) -> jnp.ndarray:
    """Uniforms where every row misses (hit draw 0.999) except the ones given."""
    u = np.full((len(CHEST_LOOT), 3), 0.999, np.float32)
    for name, values in rows.items():
        u[ROW[name]] = values
    return jnp.asarray(u)


def one_player(u, floor=0, first=True, receives=True):
    """Loot of player 0 alone: (added, level) as numpy (NUM_INV,)."""
    recv = jnp.zeros((1, len(CHEST_LOOT)), bool) | receives
    added, level = loot(u, jnp.int32(floor), jnp.array([first]), recv)
    return np.asarray(added[0]), np.asarray(level[0])


def only(column: int, amount: int) -> list[int]:
    gains = [0] * NUM_INV
    gains[column] = amount
    return gains


@pytest.mark.parametrize(
    ("row", "column", "low", "high"),
    [("wood", Inv.WOOD, 1, 5), ("torches", Inv.TORCH, 4, 7), ("arrows", Inv.ARROW, 4, 8)],
)
def test_count_rows_give_their_range(row, column, low, high):
    chance = {"wood": 0.6, "torches": 0.6, "arrows": 0.5}[row]
    assert one_player(draws(**{row: (0.0, 0.0, 0.0)}))[0].tolist() == only(column, low)
    assert one_player(draws(**{row: (chance - 0.01, 0.5, 0.999)}))[0].tolist() == only(column, high)
    assert not one_player(draws(**{row: (chance + 0.01, 0.0, 0.999)}))[0].any()


@pytest.mark.parametrize(
    ("option", "column", "high"),
    [
        (0.0, Inv.COAL, 3),
        (0.29, Inv.COAL, 3),
        (0.31, Inv.IRON, 2),
        (0.61, Inv.DIAMOND, 1),
        (0.76, Inv.SAPPHIRE, 1),
        (0.88, Inv.RUBY, 1),
        (0.999, Inv.RUBY, 1),
    ],
)
def test_one_ore_by_its_odds_and_amount(option, column, high):
    assert one_player(draws(ore=(0.5, option, 0.0)))[0].tolist() == only(column, 1)
    assert one_player(draws(ore=(0.5, option, 0.999)))[0].tolist() == only(column, high)
    assert not one_player(draws(ore=(0.61, option, 0.0)))[0].any()


@pytest.mark.parametrize("colour", range(6))
def test_potion_of_one_random_colour(colour):
    option = (colour + 0.5) / 6
    assert one_player(draws(potion=(0.4, option, 0.0)))[0].tolist() == only(POTIONS[colour], 1)
    assert one_player(draws(potion=(0.4, option, 0.9)))[0].tolist() == only(POTIONS[colour], 2)
    assert not one_player(draws(potion=(0.5, option, 0.0)))[0].any()


@pytest.mark.parametrize(("option", "tier"), [(0.0, 1), (0.45, 2), (0.75, 3), (0.95, 4)])
def test_pickaxe_tier_by_its_odds_as_a_level(option, tier):
    added, level = one_player(draws(pickaxe=(0.09, option, 0.5)))
    assert not added.any() and level.tolist() == only(Inv.PICKAXE, tier)
    assert not one_player(draws(pickaxe=(0.11, option, 0.5)))[1].any()


def test_every_row_at_once_and_a_failed_gate_withholds_its_row():
    u = draws(wood=(0, 0, 0), torches=(0, 0, 0), ore=(0, 0, 0), potion=(0, 0, 0), arrows=(0, 0, 0))
    added, _ = one_player(u)
    expected = np.zeros(NUM_INV, int)
    expected[[Inv.WOOD, Inv.TORCH, Inv.COAL, Inv.POTION_RED, Inv.ARROW]] = [1, 4, 1, 1, 4]
    assert added.tolist() == expected.tolist()
    receives = jnp.ones((1, len(CHEST_LOOT)), bool).at[0, ROW["arrows"]].set(False)
    withheld = loot(u, jnp.int32(0), jnp.array([True]), receives)[0][0]
    assert int(withheld[Inv.ARROW]) == 0 and int(withheld[Inv.WOOD]) == 1


@pytest.mark.parametrize("floor", range(5))
def test_bow_on_floor_one_and_book_on_floors_three_and_four_from_the_first_chest(floor):
    u = draws(bow=(0.5, 0.5, 0.5), book=(0.5, 0.5, 0.5))
    added, level = one_player(u, floor=floor, first=True)
    assert int(level[Inv.BOW]) == (1 if floor == 1 else 0)
    assert int(added[Inv.BOOK]) == (1 if floor in (3, 4) else 0)
    later_added, later_level = one_player(u, floor=floor, first=False)
    assert not later_added.any() and not later_level.any()


# --- Opening chests in the Do phase ------------------------------------------------------------

CHEST_ROWS = ["", "", "", "", "", "...C...C", "", "", "...C"]
POSITIONS = [(5, 2), (5, 6), (8, 2)]


def chest_team(floor=0, positions=POSITIONS, facing=Facing.RIGHT):
    state = hand_built_state(CHEST_ROWS, FLOORS5, HARD, positions, [facing] * 3)
    return state.replace(world=state.world.replace(floor=jnp.int32(floor)))


def acts(*actions):
    return jnp.array(actions, jnp.int32)


def gains(before, after):
    return np.asarray(after.players.inventory - before.players.inventory)


def test_opening_leaves_path_unlocks_open_chest_and_records_the_floor():
    state = chest_team(floor=2)
    out = open_run(state, acts(DO, NOOP, DO), jax.random.key(0), HARD)
    blocks = np.asarray(out.world.block)
    assert blocks[5, 3] == Block.PATH and blocks[8, 3] == Block.PATH
    assert blocks[5, 7] == Block.CHEST
    assert out.players.achievements[:, Achievement.OPEN_CHEST].tolist() == [True, False, True]
    opened = np.asarray(out.players.chest_opened)
    assert opened[:, 2].tolist() == [True, False, True] and opened.sum() == 2


def test_hard_gates_give_each_role_only_its_rows():
    """Over several steps' draws: warriors get only arrows and potions, foragers only potions,
    miners only tools, ores and potions; every role gets something at some point."""
    tools = {Inv.WOOD, Inv.TORCH, Inv.COAL, Inv.IRON, Inv.DIAMOND, Inv.SAPPHIRE, Inv.RUBY}
    allowed = [{Inv.ARROW, *POTIONS}, set(POTIONS), tools | {Inv.PICKAXE, *POTIONS}]
    seen = [set(), set(), set()]
    state = chest_team(floor=2)
    for seed in range(8):
        out = open_run(state, acts(DO, DO, DO), jax.random.key(seed), HARD)
        for agent, gained in enumerate(gains(state, out)):
            got = set(np.flatnonzero(gained).tolist())
            assert got <= allowed[agent], (seed, agent, got)
            seen[agent] |= got
    assert all(seen), seen


def test_two_players_on_one_chest_both_get_the_same_loot():
    positions = [(5, 2), (5, 4), (8, 2)]  # 0 faces the chest at (5,3) from the west
    state = chest_team(floor=2, positions=positions)
    state = state.replace(
        players=state.players.replace(facing=jnp.array([Facing.RIGHT, Facing.LEFT, Facing.RIGHT]))
    )
    total = 0
    for seed in range(4):
        out = open_run(state, acts(DO, DO, NOOP), jax.random.key(seed), SOFT_ALL)
        gained = gains(state, out)
        assert (gained[0] == gained[1]).all() and not gained[2].any()
        assert int(out.world.block[5, 3]) == Block.PATH
        total += int(gained[0].sum())
    assert total > 0


def test_first_chest_bow_per_floor_and_player():
    state = chest_team(floor=1)
    out = open_run(state, acts(DO, DO, NOOP), jax.random.key(0), HARD)
    # hard gate: the warrior gets the bow; the forager's first chest is spent without one
    assert out.players.inventory[:, Inv.BOW].tolist() == [1, 0, 0]
    again = out.replace(world=state.world)  # fresh chests, same floor, already opened one
    again = with_inventory(again, 0, bow=0)
    out = open_run(again, acts(DO, NOOP, NOOP), jax.random.key(1), HARD)
    assert int(out.players.inventory[0, Inv.BOW]) == 0
    elsewhere = chest_team(floor=2)
    out = open_run(elsewhere, acts(DO, NOOP, NOOP), jax.random.key(0), HARD)
    assert int(out.players.inventory[0, Inv.BOW]) == 0


@pytest.mark.parametrize("floor", [3, 4])
def test_first_chest_book_on_floors_three_and_four_for_anyone(floor):
    state = chest_team(floor=floor)
    out = open_run(state, acts(DO, DO, DO), jax.random.key(0), HARD)
    assert out.players.inventory[:, Inv.BOOK].tolist() == [1, 1, 1]
    out = open_run(out.replace(world=state.world), acts(DO, DO, DO), jax.random.key(1), HARD)
    assert out.players.inventory[:, Inv.BOOK].tolist() == [1, 1, 1]


def test_no_do_or_a_teammate_in_the_way_opens_nothing():
    state = chest_team(floor=1)
    out = open_run(state, acts(NOOP, Action.LEFT, NOOP), jax.random.key(0), HARD)
    assert jax.tree.all(jax.tree.map(lambda a, b: bool((a == b).all()), out, state))
    blocked = chest_team(floor=1, positions=[(5, 2), (5, 3), (8, 2)])  # 1 on the chest cell
    out = open_run(blocked, acts(DO, NOOP, NOOP), jax.random.key(0), HARD)
    assert int(out.world.block[5, 3]) == Block.CHEST and int(out.players.inventory[0, Inv.BOW]) == 0


def test_chest_opens_through_the_step():
    state = hand_built_state(["...C"], SMALL, HARD, [(0, 2), (5, 6), (8, 2)], [Facing.RIGHT] * 3)
    step = compiled(SMALL)[1]
    _, out, *_ = step(jax.random.key(0), state, acts(DO, NOOP, NOOP), HARD)
    assert int(out.world.block[0, 3]) == Block.PATH
    assert bool(out.players.achievements[0, Achievement.OPEN_CHEST])
    assert bool(out.players.chest_opened[0, 0])
