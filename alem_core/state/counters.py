"""Episode counters for metrics (``Stats``, ``CoordinationStats``): part of the state, never
read by the game rules."""

from __future__ import annotations

import dataclasses
from dataclasses import dataclass
from typing import TYPE_CHECKING, Self

import jax
import jax.numpy as jnp

from alem_core.state.base import Record


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Stats(Record):
    """Episode counters for metrics; never read by the game rules."""

    alive_steps: jax.Array
    """(P,) int32 agent-steps alive."""
    actionable_steps: jax.Array
    """(P,) int32 agent-steps able to choose an action."""
    monsters_killed: jax.Array
    """(P,) int32 kills credited to each player."""
    damage_taken: jax.Array
    """(P,) float32 health lost to mobs."""
    friendly_fire_damage: jax.Array
    """(P,) float32 damage dealt to teammates, per attacker."""
    trades: jax.Array
    """(P,) int32 successful gives, by giver (food, drink and materials)."""
    food_trades: jax.Array
    """(P,) int32 successful gives of food, by giver."""
    drink_trades: jax.Array
    """(P,) int32 successful gives of drink, by giver."""
    give_attempts: jax.Array
    """(P,) int32 GIVE actions taken, successful or not."""
    received: jax.Array
    """(P,) int32 units received through gives, by receiver."""
    requests: jax.Array
    """(P,) int32 REQUEST actions taken (a renewal counts again)."""
    request_expiries: jax.Array
    """(P,) int32 requests that ran out without being renewed."""
    revives: jax.Array
    """(P,) int32 teammates revived, by reviver."""
    times_revived: jax.Array
    """(P,) int32 times this player was brought back."""
    comms: jax.Array
    """(P,) int32 comm messages sent."""

    @classmethod
    def zeros(cls, player_count: int) -> Stats:
        """All counters at 0 for ``player_count`` players."""
        floats = {"damage_taken", "friendly_fire_damage"}
        return cls(
            **{
                f.name: jnp.zeros((player_count,), jnp.float32 if f.name in floats else jnp.int32)
                for f in dataclasses.fields(cls)
            }
        )


COORDINATION_COUNTERS: dict[str, tuple[int, ...]] = {
    # synchronous mining (docs/rules/coordination.md#synchronous-mining)
    "sync_attempts": (),
    "sync_successes": (),
    "sync_soft_successes": (),
    "sync_hard_successes": (),
    "sync_2_agents": (),
    "sync_3plus_agents": (),
    "soft_sync_events": (),
    "soft_bonus_events": (),
    "solo_soft_attempts": (),
    "solo_soft_successes": (),
    # handover mining (docs/rules/coordination.md#handovers)
    "handover_setups": (),
    "handover_successes": (),
    "handover_expiries": (),
    # construction (docs/rules/coordination.md#construction-sites); builds by structure: shelter,
    # forge, beacon
    "build_sync_attempts": (),
    "build_sync_successes": (),
    "build_unfunded": (),
    "build_handover_setups": (),
    "build_handover_successes": (),
    "build_handover_expiries": (),
    "builds": (3,),
    # elite / large mobs by class: melee, ranged, passive
    # (docs/rules/coordination.md#elite-and-large-mobs)
    "elite_attempts": (3,),
    "elite_successes": (3,),
    "elite_kills": (3,),
    # coordinated diamond crafting (docs/rules/coordination.md#coordinated-diamond-crafting)
    "craft_attempts": (),
    "craft_successes": (),
    "diamond_items": (),
}
"""Team event counters and their shapes. Each counts steps in which any agent had the event
(docs/rules/score.md: "any agent this step" counts), except ``builds``, ``elite_kills`` and
``diamond_items``, which count structures, mobs and items."""


class _CoordinationMethods(Record):
    @classmethod
    def zeros(cls) -> Self:
        """Every counter at 0."""
        zeros = {n: jnp.zeros(shape, jnp.int32) for n, shape in COORDINATION_COUNTERS.items()}
        return cls(**zeros)

    def bump(self, **events: jax.Array) -> Self:
        """Add each event (bool or count, scalar or per class) to its counter."""
        return self.replace(
            **{n: getattr(self, n) + jnp.asarray(v).astype(jnp.int32) for n, v in events.items()}
        )


if TYPE_CHECKING:  # a type checker sees the methods and one jax.Array per counter name

    class CoordinationStats(_CoordinationMethods):
        def __getattr__(self, name: str) -> jax.Array: ...

else:
    CoordinationStats = jax.tree_util.register_dataclass(
        dataclasses.make_dataclass(
            "CoordinationStats",
            [(name, jax.Array) for name in COORDINATION_COUNTERS],
            bases=(_CoordinationMethods,),
            frozen=True,
        )
    )
    CoordinationStats.__module__ = __name__
    CoordinationStats.__doc__ = (
        "Team coordination counters for metrics, one int32 field per entry of "
        "``COORDINATION_COUNTERS`` (generated from that table); never read by rules."
    )


__all__ = [
    "COORDINATION_COUNTERS",
    "CoordinationStats",
    "Stats",
]
