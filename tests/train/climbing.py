"""The climbing game's team of tabular policies, shared by the team-TR tests (one home, so
``test_team_tr_compiled.py`` imports no other test module)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_train.matrix_games import climbing_game, joint_payoff
from alem_train.objectives import Rollout


def tabular_logits(p, obs, agent):
    """One state: the agent's logits [A] at every (b, g, t)."""
    return jnp.broadcast_to(p, obs.shape[:3] + p.shape)


class ClimbingCollector:
    """Samples B=1, G=8 one-shot episodes of the team; records every team it is asked about."""

    def __init__(self, n, group=8):
        self.game, self.group, self.teams = climbing_game(n), group, []

    def __call__(self, team, key):
        self.teams.append([np.asarray(p).copy() for p in team])
        keys = jax.random.split(key, len(team))
        actions = jnp.stack(
            [
                jax.random.categorical(k, p, shape=(1, self.group, 1))
                for k, p in zip(keys, team, strict=True)
            ],
            axis=-1,
        )
        n = len(team)
        return Rollout(
            obs=jnp.zeros((1, self.group, 1, n)),
            actions=actions,
            act=jnp.ones((1, self.group, 1, n), bool),
            valid=jnp.ones((1, self.group, 1), bool),
            returns=joint_payoff(self.game, actions[:, :, 0, :]),
        )
