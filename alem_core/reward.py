"""Per-agent reward (GAME.md §7.1, §5.8) with its named parts.

r_i = sum of tier weights of achievements newly unlocked by i + 0.1 x (health after - before);
with ``shared_reward`` every agent receives the team sum.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.params import Params
from alem_core.state import State
from alem_core.tables import ACHIEVEMENT_WEIGHT

HEALTH_REWARD_SCALE = 0.1


def reward_parts(before: State, after: State, params: Params) -> dict[str, jax.Array]:
    """(P,) float32 arrays: "achievement", "health", "individual" and "reward" (what is paid)."""
    new = after.players.achievements & ~before.players.achievements
    achievement = (new * jnp.asarray(ACHIEVEMENT_WEIGHT)[None]).sum(axis=1)
    health = HEALTH_REWARD_SCALE * (after.players.health - before.players.health)
    individual = (achievement + health).astype(jnp.float32)
    team = jnp.broadcast_to(individual.sum(), individual.shape)
    return {
        "achievement": achievement.astype(jnp.float32),
        "health": health.astype(jnp.float32),
        "individual": individual,
        "reward": jnp.where(params.shared_reward, team, individual),
    }
