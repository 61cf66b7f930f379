"""The score's ``Coordination/*`` section (docs/rules/score.md "Coordination",
docs/evaluation.md#metrics): mining sync, handovers, construction, elite mobs and crafting, as
counts and success rates, plus ``Team/soft_coordination_bonus_rate``.

It reads only the team's coordination counters (``state.coordination``), the open handovers and
the sampled alpha, none of the per-agent or achievement columns the rest of ``score.py``
assembles, so this long, flat list of keys lives apart from the table's construction.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.params import StaticParams
from alem_core.state import State


def _rate(successes: jax.Array, attempts: jax.Array) -> jax.Array:
    """successes / attempts, 0 when nothing was attempted."""
    return successes / jnp.maximum(attempts, 1)


def coordination_metrics(state: State, static: StaticParams) -> dict[str, jax.Array]:
    """``Coordination/*`` keys (docs/rules/score.md "Coordination", docs/evaluation.md#metrics).

    Reads ``state.coordination`` (team counters; event counts are "any agent this step",
    ``builds``, ``elite_kills`` and ``diamond_items`` count things), the open rows of
    ``state.handovers`` and ``state.alpha``. Handover success rates are over resolved ones
    (successes + expiries). ``coordination_success_rate`` = (sync + handover + construction-sync
    + elite + craft successes) / (the same attempts, handovers only when resolved), mining and
    construction handovers both counted. Also ``Team/soft_coordination_bonus_rate``.
    """
    del static
    c, ho = state.coordination, state.handovers
    mining_open = (ho.open & (ho.kind == 0)).sum()
    handover_ok = c.handover_successes + c.build_handover_successes
    handover_resolved = handover_ok + c.handover_expiries + c.build_handover_expiries
    out = {
        "mining_sync_soft": c.sync_soft_successes,
        "mining_sync_hard": c.sync_hard_successes,
        "sync_attempts": c.sync_attempts,
        "sync_successes": c.sync_successes,
        "sync_success_rate": _rate(c.sync_successes, c.sync_attempts),
        "sync_2_agent": c.sync_2_agents,
        "sync_3plus_agent": c.sync_3plus_agents,
        "soft_sync_events": c.soft_sync_events,
        "soft_bonus_events": c.soft_bonus_events,
        "solo_soft_attempts": c.solo_soft_attempts,
        "solo_soft_successes": c.solo_soft_successes,
        "solo_soft_success_rate": _rate(c.solo_soft_successes, c.solo_soft_attempts),
        "mining_handover_setups": c.handover_setups,
        "mining_handover_successes": c.handover_successes,
        "mining_handover_expiries": c.handover_expiries,
        "mining_open_handovers": mining_open,
        "mining_handover_success_rate": _rate(
            c.handover_successes, c.handover_successes + c.handover_expiries
        ),
        "construction_sync_attempts": c.build_sync_attempts,
        "construction_sync_successes": c.build_sync_successes,
        "construction_sync_success_rate": _rate(c.build_sync_successes, c.build_sync_attempts),
        "construction_unfunded_attempts": c.build_unfunded,
        "construction_handover_setups": c.build_handover_setups,
        "construction_handover_successes": c.build_handover_successes,
        "construction_handover_expiries": c.build_handover_expiries,
        "construction_open_handovers": (ho.open & (ho.kind > 0)).sum(),
        "construction_handover_success_rate": _rate(
            c.build_handover_successes, c.build_handover_successes + c.build_handover_expiries
        ),
        "open_handovers": ho.open.sum(),
        "handover_success_rate": _rate(handover_ok, handover_resolved),
        "craft_attempts": c.craft_attempts,
        "craft_successes": c.craft_successes,
        "craft_success_rate": _rate(c.craft_successes, c.craft_attempts),
        "diamond_items_crafted": c.diamond_items,
        "coordination_success_rate": _overall_success_rate(c, handover_ok, handover_resolved),
        "sampled_alpha": state.alpha,
    }
    out.update(_per_class_counts(c))
    result = {f"Coordination/{k}": v for k, v in out.items()}
    result["Team/soft_coordination_bonus_rate"] = _rate(c.soft_bonus_events, c.soft_sync_events)
    return result


def _overall_success_rate(c, handover_ok: jax.Array, handover_resolved: jax.Array) -> jax.Array:
    """(sync + handover + construction-sync + elite + craft successes) / the same attempts."""
    successes = c.sync_successes + handover_ok + c.build_sync_successes
    successes = successes + c.elite_successes.sum() + c.craft_successes
    attempts = c.sync_attempts + handover_resolved + c.build_sync_attempts
    attempts = attempts + c.elite_attempts.sum() + c.craft_attempts
    return _rate(successes, attempts)


def _per_class_counts(c) -> dict[str, jax.Array]:
    """Builds by structure and elite/large counters by class (melee, ranged, passive)."""
    out = {}
    for i, name in enumerate(("shelter", "forge", "beacon")):
        out[f"builds_{name}"] = c.builds[i]
    for i, name in enumerate(("melee", "ranged", "passive")):
        out[f"elite_{name}_attempts"] = c.elite_attempts[i]
        out[f"elite_{name}_successes"] = c.elite_successes[i]
    out["elite_attempts"] = c.elite_attempts.sum()
    out["elite_successes"] = c.elite_successes.sum()
    out["elite_success_rate"] = _rate(c.elite_successes.sum(), c.elite_attempts.sum())
    out["elite_melee_kills"] = c.elite_kills[0]
    out["elite_ranged_kills"] = c.elite_kills[1]
    out["large_passive_kills"] = c.elite_kills[2]
    return out
