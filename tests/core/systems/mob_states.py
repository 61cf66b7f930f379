"""Mobs placed by hand on a hand-built state, for the mob tests (a helper module, so no test
module imports another)."""

from __future__ import annotations

import jax.numpy as jnp

from alem_core.state import State

CLASSES = ("melee", "passive", "ranged", "mob_projectiles", "player_projectiles")
"""Entity classes in ``MobClass`` order, as named in ``state.mobs``."""


def place(state: State, mob_class: int, slot: int, pos, **fields) -> State:
    """Put a live entity of ``mob_class`` in ``slot`` on floor 0 (fields: health, kind, ...)."""
    name = CLASSES[mob_class]
    ents = getattr(state.mobs, name)
    changes = {
        "pos": ents.pos.at[slot].set(jnp.asarray(pos)),
        "alive": ents.alive.at[slot].set(True),
    }
    for field, value in fields.items():
        changes[field] = getattr(ents, field).at[slot].set(jnp.asarray(value))
    return state.replace(mobs=state.mobs.replace(**{name: ents.replace(**changes)}))
