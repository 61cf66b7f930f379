"""Per-agent reward (docs/rules/rewards.md#per-step-reward, docs/rules/step.md#shared-reward) with
its named parts.

r_i = sum of tier weights of achievements newly unlocked by i + 0.1 x (health after - before);
with ``shared_reward`` every agent receives the team sum.

``StaticParams.rewarded_achievements`` narrows what pays (the coordination drills): only the
named achievements keep their tier weight and the health term is dropped, so the reward is a pure
sparse team signal. ``reward_weights`` is the one place that rule lives.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Achievement
from alem_core.params import Params, StaticParams
from alem_core.rules.tables import ACHIEVEMENT_WEIGHT
from alem_core.state import State

HEALTH_REWARD_SCALE = 0.1


def reward_weights(static: StaticParams | None) -> tuple[np.ndarray, float]:
    """((93,) float32 weight per achievement, health scale) that ``static`` pays.

    All tier weights and ``HEALTH_REWARD_SCALE`` when ``static`` is None or names no
    ``rewarded_achievements``; else the named achievements' weights only, and no health term.
    """
    names = None if static is None else static.rewarded_achievements
    if names is None:
        return ACHIEVEMENT_WEIGHT, HEALTH_REWARD_SCALE
    paid = np.zeros_like(ACHIEVEMENT_WEIGHT)
    ids = [Achievement[name] for name in names]
    paid[ids] = ACHIEVEMENT_WEIGHT[ids]
    return paid, 0.0


def reward_parts(
    before: State, after: State, params: Params, static: StaticParams | None = None
) -> dict[str, jax.Array]:
    """(P,) float32 arrays: "achievement", "health", "individual" and "reward" (what is paid).

    ``static`` selects what pays (``reward_weights``); None pays as the full game.
    """
    weights, health_scale = reward_weights(static)
    new = after.players.achievements & ~before.players.achievements
    achievement = (new * jnp.asarray(weights)[None]).sum(axis=1)
    health = health_scale * (after.players.health - before.players.health)
    individual = (achievement + health).astype(jnp.float32)
    team = jnp.broadcast_to(individual.sum(), individual.shape)
    return {
        "achievement": achievement.astype(jnp.float32),
        "health": health.astype(jnp.float32),
        "individual": individual,
        "reward": jnp.where(params.shared_reward, team, individual),
    }
