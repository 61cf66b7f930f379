"""Cooperation metrics from the episode counters (docs/rules/step.md, docs/rules/score.md
"Cooperation").

Read from ``state.stats`` and the players' open requests; never read by the game rules. Every
metric is a (P,) float32 array in the core (one value per agent, running totals for the
episode so far) and a plain number per agent in the PettingZoo adapter.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.state import State

COOPERATION_METRICS: tuple[str, ...] = (
    "trades",
    "food_trades",
    "drink_trades",
    "resource_trades",
    "give_attempts",
    "give_success_rate",
    "received",
    "requests",
    "request_expiries",
    "open_request",
    "revives",
    "times_revived",
    "friendly_fire_damage",
    "comms",
    "alive_steps",
    "actionable_steps",
)
"""Names, in the order ``cooperation_metrics`` returns them (and the adapter packs them)."""


def cooperation_metrics(state: State) -> dict[str, jax.Array]:
    """(P,) float32 per metric of ``COOPERATION_METRICS``.

    ``give_success_rate`` is successful gives / GIVE actions (0 before any give);
    ``open_request`` is 1 while the agent's request is open.
    """
    stats, players = state.stats, state.players
    attempts = stats.give_attempts
    values = {
        "trades": stats.trades,
        "food_trades": stats.food_trades,
        "drink_trades": stats.drink_trades,
        "resource_trades": stats.trades - stats.food_trades - stats.drink_trades,
        "give_attempts": attempts,
        "give_success_rate": stats.trades / jnp.maximum(attempts, 1),
        "received": stats.received,
        "requests": stats.requests,
        "request_expiries": stats.request_expiries,
        "open_request": players.request_timer > 0,
        "revives": stats.revives,
        "times_revived": stats.times_revived,
        "friendly_fire_damage": stats.friendly_fire_damage,
        "comms": stats.comms,
        "alive_steps": stats.alive_steps,
        "actionable_steps": stats.actionable_steps,
    }
    return {name: values[name].astype(jnp.float32) for name in COOPERATION_METRICS}
