"""REQUEST / GIVE trading (docs/rules/step.md#trading) on a hand-built map: transfers, caps, timing,
expiry.

Agents stand far apart (trades work at any distance): 0 warrior, 1 forager, 2 miner. Slots for
P = 3: agent 0 -> (1, 2), agent 1 -> (0, 2), agent 2 -> (0, 1).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import GIVE_BASE, Achievement, Action, Inv, Request
from alem_core.systems.intrinsics import capacities, clamp_intrinsics
from alem_core.systems.trading import (
    feasible_gives,
    give,
    give_mask,
    give_slot_targets,
    trade,
    update_requests,
)
from alem_core.testing import hand_built_state

NOOP = Action.NOOP
POSITIONS = [(1, 1), (14, 14), (1, 14)]


def slot_to(agent: int, target: int) -> int:
    """The GIVE action id with which ``agent`` serves ``target``."""
    return GIVE_BASE + (target if target < agent else target - 1)


def state_with(small, params, **player_fields):
    state = hand_built_state(["."], small, params, POSITIONS)
    changes = {k: jnp.asarray(v, getattr(state.players, k).dtype) for k, v in player_fields.items()}
    return state.replace(players=state.players.replace(**changes))


def open_request(state, agent: int, resource: Request, timer: int = 10):
    players = state.players
    return state.replace(
        players=players.replace(
            request=players.request.at[agent].set(int(resource)),
            request_timer=players.request_timer.at[agent].set(timer),
        )
    )


def set_inv(state, agent: int, column: Inv, value: int):
    inventory = state.players.inventory.at[agent, column].set(value)
    return state.replace(players=state.players.replace(inventory=inventory))


def acts(*actions):
    return jnp.array(actions, jnp.int32)


def test_slot_targets_are_the_other_players_in_index_order(small):
    np.testing.assert_array_equal(give_slot_targets(small), [[1, 2], [0, 2], [0, 1]])


def test_request_opens_counts_down_and_expires(small, params):
    state = state_with(small, params)
    state = update_requests(state, acts(Action.REQUEST_WOOD, NOOP, NOOP))
    assert int(state.players.request[0]) == Request.WOOD
    assert int(state.players.request_timer[0]) == 10
    assert int(state.stats.requests[0]) == 1
    for step in range(1, 11):
        state = update_requests(state, acts(NOOP, NOOP, NOOP))
        assert int(state.players.request_timer[0]) == 10 - step
    assert int(state.stats.request_expiries[0]) == 1
    assert int(state.players.request[0]) == -1  # closed
    state = update_requests(state, acts(NOOP, NOOP, NOOP))
    assert int(state.stats.request_expiries[0]) == 1  # counted once


def test_renewal_on_the_last_step_is_not_an_expiry(small, params):
    state = open_request(state_with(small, params), 0, Request.STONE, timer=1)
    state = update_requests(state, acts(Action.REQUEST_IRON, NOOP, NOOP))
    assert int(state.stats.request_expiries[0]) == 0
    assert int(state.players.request[0]) == Request.IRON
    assert int(state.players.request_timer[0]) == 10
    assert int(state.stats.requests[0]) == 1


def test_give_moves_one_unit_at_any_distance(small, params):
    state = set_inv(open_request(state_with(small, params), 1, Request.WOOD), 2, Inv.WOOD, 5)
    out = give(state, acts(NOOP, NOOP, slot_to(2, 1)), small)
    assert int(out.players.inventory[2, Inv.WOOD]) == 4
    assert int(out.players.inventory[1, Inv.WOOD]) == 1
    assert out.stats.trades.tolist() == [0, 0, 1]
    assert out.stats.received.tolist() == [0, 1, 0]
    assert out.stats.give_attempts.tolist() == [0, 0, 1]


def test_give_without_stock_or_request_moves_nothing_but_counts_the_attempt(small, params):
    state = open_request(state_with(small, params), 1, Request.WOOD)
    out = give(state, acts(slot_to(0, 1), NOOP, slot_to(2, 0)), small)  # 0 has no wood
    assert out.players.inventory.sum() == state.players.inventory.sum()
    assert out.stats.trades.tolist() == [0, 0, 0]
    assert out.stats.give_attempts.tolist() == [1, 0, 1]  # 2 gave to 0, who requested nothing


def test_food_and_drink_come_from_the_givers_stats(small, params):
    state = state_with(small, params, food=[5, 5, 5], drink=[5, 5, 5], hunger=[9.0, 9.0, 9.0])
    state = open_request(open_request(state, 0, Request.FOOD), 2, Request.DRINK)
    out = give(state, acts(NOOP, slot_to(1, 0), slot_to(2, 0)), small)  # 2 gives 0 food too
    assert out.players.food.tolist() == [7, 4, 4]
    assert float(out.players.hunger[0]) == 0.0 and float(out.players.hunger[1]) == 9.0
    assert bool(out.players.achievements[0, Achievement.COLLECT_FOOD])
    assert out.stats.food_trades.tolist() == [0, 1, 1]
    out = give(state, acts(slot_to(0, 2), NOOP, NOOP), small)
    assert out.players.drink.tolist() == [4, 5, 6]
    assert float(out.players.thirst[2]) == 0.0
    assert bool(out.players.achievements[2, Achievement.COLLECT_DRINK])
    assert out.stats.drink_trades.tolist() == [1, 0, 0]


def test_two_givers_at_the_cap_both_pass_then_the_excess_is_clipped(small, params):
    state = open_request(state_with(small, params), 0, Request.STONE)
    state = set_inv(set_inv(set_inv(state, 0, Inv.STONE, 98), 1, Inv.STONE, 3), 2, Inv.STONE, 3)
    out = give(state, acts(NOOP, slot_to(1, 0), slot_to(2, 0)), small)
    assert out.stats.trades.tolist() == [0, 1, 1]  # cap checked on pre-step values
    assert int(out.players.inventory[0, Inv.STONE]) == 100
    clamped = clamp_intrinsics(out, None, None, params, small)
    assert int(clamped.players.inventory[0, Inv.STONE]) == 99
    full = set_inv(state, 0, Inv.STONE, 99)
    out = give(full, acts(NOOP, slot_to(1, 0), slot_to(2, 0)), small)
    assert out.stats.trades.tolist() == [0, 0, 0]


def test_food_cap_is_the_receivers_max_food(small, params):
    caps = capacities(state_with(small, params).players, small)
    full = [int(caps["food"][0]), 5, 5]
    state = open_request(state_with(small, params, food=full), 0, Request.FOOD)
    out = give(state, acts(NOOP, slot_to(1, 0), NOOP), small)
    assert out.players.food.tolist() == full


def test_give_to_a_dead_teammate_does_nothing(small, params):
    state = open_request(state_with(small, params, alive=[True, False, True]), 1, Request.WOOD)
    state = set_inv(state, 0, Inv.WOOD, 3)
    out = give(state, acts(slot_to(0, 1), NOOP, NOOP), small)
    assert out.players.inventory[:, Inv.WOOD].tolist() == [3, 0, 0]
    assert not bool(give_mask(state.players, small)[0, 0])


def test_request_expiring_on_the_step_it_is_served(small, params):
    state = set_inv(
        open_request(state_with(small, params), 1, Request.COAL, timer=1), 0, Inv.COAL, 2
    )
    out = trade(state, acts(slot_to(0, 1), NOOP, NOOP), None, None, small)
    assert int(out.players.inventory[1, Inv.COAL]) == 1  # served with its last step
    assert int(out.stats.request_expiries[1]) == 1  # and then it expired
    assert int(out.players.request_timer[1]) == 0


def test_a_new_request_is_served_from_the_next_step(small, params):
    state = set_inv(state_with(small, params), 0, Inv.WOOD, 2)
    out = trade(state, acts(slot_to(0, 1), Action.REQUEST_WOOD, NOOP), None, None, small)
    assert int(out.players.inventory[1, Inv.WOOD]) == 0  # gives run before new requests
    out = trade(out, acts(slot_to(0, 1), NOOP, NOOP), None, None, small)
    assert int(out.players.inventory[1, Inv.WOOD]) == 1


@pytest.mark.parametrize("seed", range(3))
def test_mask_is_exact_for_every_slot(small, params, seed):
    """Random requests, timers, stocks and alive flags: a slot is legal iff the give moves."""
    rng = np.random.default_rng(seed)
    for _ in range(8):
        state = state_with(
            small,
            params,
            alive=rng.random(3) < 0.8,
            food=rng.integers(0, 3, 3),
            drink=rng.integers(0, 3, 3),
            request=rng.integers(-1, 9, 3),
            request_timer=rng.integers(0, 3, 3),
        )
        inventory = state.players.inventory.at[:, :7].set(rng.integers(0, 2, (3, 7)))
        inventory = inventory.at[:, Inv.WOOD].set(rng.choice([0, 1, 99], 3))
        state = state.replace(players=state.players.replace(inventory=inventory))
        mask = np.asarray(give_mask(state.players, small))
        for agent in range(3):
            for slot in range(2):
                actions = jnp.full(3, NOOP).at[agent].set(GIVE_BASE + slot)
                moved = int(give(state, actions, small).stats.trades[agent])
                assert moved == int(mask[agent, slot]), (agent, slot)
    assert feasible_gives(state.players, small).shape == (3, 3)


def test_trading_under_jit_and_vmap_matches_eager(small, params):
    state = set_inv(open_request(state_with(small, params), 1, Request.WOOD), 0, Inv.WOOD, 4)
    actions = acts(slot_to(0, 1), NOOP, Action.REQUEST_FOOD)
    eager = trade(state, actions, None, None, small)
    jitted = jax.jit(lambda s, a, st: trade(s, a, None, None, st), static_argnums=2)(
        state, actions, small
    )
    batched = jax.vmap(lambda s, a: trade(s, a, None, None, small), in_axes=(None, 0))(
        state, jnp.stack([actions, actions])
    )
    for a, b in zip(jax.tree.leaves(eager), jax.tree.leaves(jitted), strict=True):
        np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
    np.testing.assert_array_equal(batched.players.inventory[1], eager.players.inventory)
