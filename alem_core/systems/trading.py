"""Trading: GIVE transfers, then the request countdown, then new requests
(docs/rules/step.md#trading).

Reads: actions, players (alive, food, drink, inventory, dexterity, request, request_timer).
Writes: players (food, drink, hunger, thirst, inventory, achievements COLLECT_FOOD /
COLLECT_DRINK, request, request_timer), stats (trades, food_trades, drink_trades,
give_attempts, received, requests, request_expiries).

Rules worth stating:
* Give slot k of agent i serves "the k-th other player in index order", at any distance.
* A give moves exactly one unit of the target's requested resource when the request is open,
  the target is alive and below its cap (max food / max drink, 99 for materials) and the giver
  has one. Caps and stocks are read before the step's trades, so several givers can serve one
  target in one step; the excess is clipped by the end-of-step clamp.
* Trades run before this step's new requests, so a request made at step t is served at
  t+1 ... t+10. Serving does not close it; a request whose countdown reaches 0 without being
  renewed this step is an expiry and closes.
"""

from __future__ import annotations

import dataclasses

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import (
    GIVE_BASE,
    MAX_INVENTORY,
    REQUEST_DURATION,
    Achievement,
    Action,
    Inv,
    Request,
    give_target,
    num_give_slots,
)
from alem_core.dense import add_to_column, raise_flags, set_column
from alem_core.draws import Draws
from alem_core.params import Params, StaticParams
from alem_core.state import Players, State
from alem_core.systems.intrinsics import capacities

REQUEST_COLUMN = np.array(
    [-1, -1, Inv.WOOD, Inv.STONE, Inv.IRON, Inv.COAL, Inv.DIAMOND, Inv.RUBY, Inv.SAPPHIRE],
    np.int32,
)
"""Inventory column of each ``Request`` resource; food and drink (-1) are intrinsics."""


def give_slot_targets(static: StaticParams) -> np.ndarray:
    """(P, P-1) int32: the teammate each agent's give slot k serves."""
    p = static.player_count
    return np.array(
        [[give_target(i, k) for k in range(num_give_slots(p))] for i in range(p)], np.int32
    ).reshape(p, num_give_slots(p))


def _stock(players: Players) -> jax.Array:
    """(P, 9) how much of each tradable resource every player holds."""
    materials = players.inventory[:, jnp.maximum(jnp.asarray(REQUEST_COLUMN), 0)]
    return set_column(
        set_column(materials, Request.FOOD, players.food), Request.DRINK, players.drink
    )


def _caps(players: Players, static: StaticParams) -> jax.Array:
    """(P, 9) the most of each tradable resource a player may hold."""
    caps = capacities(players, static)
    materials = jnp.full((static.player_count, len(Request)), MAX_INVENTORY, jnp.int32)
    return set_column(
        set_column(materials, Request.FOOD, caps["food"]), Request.DRINK, caps["drink"]
    )


def feasible_gives(players: Players, static: StaticParams) -> jax.Array:
    """(P, P) bool [giver, target]: a give now would move one unit (the mask's exact rule)."""
    p = static.player_count
    is_open = (players.request >= 0) & (players.request_timer > 0) & players.alive
    wanted = jnp.maximum(players.request, 0)
    rows = jnp.arange(p)
    stock = _stock(players)
    room = stock[rows, wanted] < _caps(players, static)[rows, wanted]
    giver_has = stock[:, wanted] >= 1  # [giver, target]
    others = ~jnp.eye(p, dtype=bool)
    return giver_has & (is_open & room)[None, :] & players.alive[:, None] & others


def give_mask(players: Players, static: StaticParams) -> jax.Array:
    """(P, P-1) bool: each give slot would succeed now."""
    targets = jnp.asarray(give_slot_targets(static))
    return feasible_gives(players, static)[jnp.arange(static.player_count)[:, None], targets]


def _chosen_gives(actions: jax.Array, static: StaticParams) -> jax.Array:
    """(P, P) bool [giver, target] from the GIVE slot actions."""
    p = static.player_count
    slot = actions - GIVE_BASE
    giving = (slot >= 0) & (slot < num_give_slots(p))
    targets = jnp.asarray(give_slot_targets(static))
    target = targets[jnp.arange(p), jnp.clip(slot, 0, max(num_give_slots(p) - 1, 0))]
    return giving[:, None] & (target[:, None] == jnp.arange(p)[None, :])


def give(state: State, actions: jax.Array, static: StaticParams) -> State:
    """Resolve every GIVE of this step (pre-step stocks and caps; several givers per target)."""
    players, stats = state.players, state.stats
    if num_give_slots(static.player_count) == 0:
        return state
    chosen = _chosen_gives(actions, static)
    moved = chosen & feasible_gives(players, static)  # [giver, target]
    resource = jax.nn.one_hot(jnp.maximum(players.request, 0), len(Request), dtype=jnp.int32)
    sent = moved.astype(jnp.int32) @ resource  # (P, 9) units each giver sends
    got = moved.sum(axis=0)[:, None] * resource  # (P, 9) units each target gets
    delta = got - sent
    column = jnp.asarray(REQUEST_COLUMN)
    inventory = players.inventory
    for r in range(Request.WOOD, len(Request)):
        inventory = add_to_column(inventory, column[r], delta[:, r])
    fed, watered = got[:, Request.FOOD] > 0, got[:, Request.DRINK] > 0
    achievements = raise_flags(players.achievements, Achievement.COLLECT_FOOD, fed)
    players = dataclasses.replace(
        players,
        inventory=inventory,
        food=players.food + delta[:, Request.FOOD],
        drink=players.drink + delta[:, Request.DRINK],
        hunger=jnp.where(fed, 0.0, players.hunger),
        thirst=jnp.where(watered, 0.0, players.thirst),
        achievements=raise_flags(achievements, Achievement.COLLECT_DRINK, watered),
    )
    stats = dataclasses.replace(
        stats,
        trades=stats.trades + sent.sum(axis=1),
        food_trades=stats.food_trades + sent[:, Request.FOOD],
        drink_trades=stats.drink_trades + sent[:, Request.DRINK],
        give_attempts=stats.give_attempts + chosen.any(axis=1),
        received=stats.received + got.sum(axis=1),
    )
    return dataclasses.replace(state, players=players, stats=stats)


def update_requests(state: State, actions: jax.Array) -> State:
    """Count open requests down, close the expired, then open this step's new requests."""
    players, stats = state.players, state.stats
    new = (actions >= Action.REQUEST_FOOD) & (actions <= Action.REQUEST_SAPPHIRE)
    was_open = players.request_timer > 0
    timer = jnp.maximum(players.request_timer - 1, 0)
    expired = was_open & (timer == 0) & ~new
    request = jnp.where(expired, -1, players.request)
    request = jnp.where(new, actions - Action.REQUEST_FOOD, request)
    timer = jnp.where(new, REQUEST_DURATION, timer)
    players = dataclasses.replace(players, request=request, request_timer=timer)
    stats = dataclasses.replace(
        stats,
        requests=stats.requests + new,
        request_expiries=stats.request_expiries + expired,
    )
    return dataclasses.replace(state, players=players, stats=stats)


def trade(
    state: State, actions: jax.Array, draws: Draws, params: Params, static: StaticParams
) -> State:
    """docs/rules/step.md#the-pipeline steps 15-16: GIVE transfers, then requests."""
    return update_requests(give(state, actions, static), actions)
