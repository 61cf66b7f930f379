"""T0 drills: one-shot matrix coordination games as a pure JAX functional env
(docs/training.md#objectives 5.1).

Two-agent games (A = 3 actions, rows = agent 0, columns = agent 1):

- **Climbing game** (Claus and Boutilier 1998): payoffs
  ``[[11, -30, 0], [-30, 7, 6], [0, 0, 5]]``. The optimum (0, 0) pays 11 but sits next to -30
  miscoordination penalties, so independent learners that average over a partner's exploration
  drift to the safe (2, 2) = 5: relative overgeneralisation.
- **Penalty game** with k <= 0: ``[[10, 0, k], [0, 2, 0], [k, 0, 10]]``: two optimal equilibria
  (0, 0) and (2, 2), a safe (1, 1) = 2, and penalty k when agents pick different optima.

**N-agent generalisation (ours, N = 2..4):** the team reward of a joint action is the mean of the
two-agent payoff over all N (N - 1) / 2 pairs of agents i < j, the lower-index agent playing the
row: ``R(a) = mean_{i<j} M[a_i, a_j]`` (the climbing table is not symmetric: M[1, 2] = 6 but
M[2, 1] = 0). For N = 2 this is exactly the two-agent game. The structure survives: everybody on the
optimal action is the unique best joint action of the climbing game (each pair attains its
maximum 11 only at (0, 0)), the penalty game keeps its two "all on one optimum" maxima, and
every agent's best reply to uniformly exploring partners is the same as in the two-agent game:
the safe action 2 in the climbing game (it has the best row *and* column mean) and the safe
action 1 in the penalty game when k < -8 (below that, (10 + k) / 3 < 2 / 3). Because R is a mean
of pair terms, the expected return of a product policy is exact and cheap:
``E[R] = mean_{i<j} p_i^T M p_j`` (``expected_return``).

Env: horizon 1. ``reset`` gives every agent a one-hot of its own index (there is nothing else to
see); ``step`` pays every agent the team reward and ends the episode. Everything is a pure
function of a static ``MatrixGame`` and arrays, so it jits and vmaps.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass

import jax
import jax.numpy as jnp
import numpy as np
from jax import Array

CLIMBING = ((11.0, -30.0, 0.0), (-30.0, 7.0, 6.0), (0.0, 0.0, 5.0))
MIN_AGENTS, MAX_AGENTS = 2, 4


def _penalty_table(k: float) -> tuple[tuple[float, ...], ...]:
    return ((10.0, 0.0, k), (0.0, 2.0, 0.0), (k, 0.0, 10.0))


@dataclass(frozen=True)
class MatrixGame:
    """A square two-agent payoff table played by ``num_agents`` agents (pairwise mean)."""

    name: str
    payoff: tuple[tuple[float, ...], ...]
    num_agents: int = 2

    def __post_init__(self) -> None:
        table = np.asarray(self.payoff, dtype=float)
        if table.ndim != 2 or table.shape[0] != table.shape[1]:
            raise ValueError(f"payoff must be a square table, got {self.payoff!r}")
        n = self.num_agents
        if isinstance(n, bool) or not isinstance(n, int) or not MIN_AGENTS <= n <= MAX_AGENTS:
            raise ValueError(
                f"num_agents must be an int in [{MIN_AGENTS}, {MAX_AGENTS}], got {n!r}"
            )

    @property
    def num_actions(self) -> int:
        return len(self.payoff)

    @property
    def obs_size(self) -> int:
        return self.num_agents


def climbing_game(num_agents: int = 2) -> MatrixGame:
    """The climbing game, pairwise-mean generalised to ``num_agents``."""
    return MatrixGame("climbing", CLIMBING, num_agents)


def penalty_game(k: float = -10.0, num_agents: int = 2) -> MatrixGame:
    """The penalty game with miscoordination penalty ``k`` <= 0."""
    if not k <= 0:
        raise ValueError(f"the penalty game's k must be <= 0, got {k!r}")
    return MatrixGame(f"penalty(k={k:g})", _penalty_table(float(k)), num_agents)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class GameState:
    """Episode state: whether the single step has been played, and its joint action."""

    done: Array  # bool scalar
    joint_action: Array  # [N] int32, -1 before the step


def observations(game: MatrixGame) -> Array:
    """[N, N] float32: agent i sees the one-hot of its own index."""
    return jnp.eye(game.num_agents, dtype=jnp.float32)


def reset(game: MatrixGame, key: Array) -> tuple[Array, GameState]:
    """Start an episode. The game has no randomness; ``key`` keeps the env API uniform."""
    del key
    state = GameState(done=jnp.array(False), joint_action=jnp.full(game.num_agents, -1, jnp.int32))
    return observations(game), state


def joint_payoff(game: MatrixGame, actions: Array) -> Array:
    """Team reward of joint action(s) ``actions`` [..., N]: the mean pair payoff."""
    table = jnp.asarray(game.payoff, dtype=jnp.float32)
    pairs = list(itertools.combinations(range(game.num_agents), 2))
    terms = [table[actions[..., i], actions[..., j]] for i, j in pairs]
    return sum(terms) / len(pairs)


def validate_actions(game: MatrixGame, actions) -> None:
    """Raise ``ValueError`` naming the first agent whose action is not an int in [0, A)."""
    values = np.asarray(actions)
    if values.shape != (game.num_agents,):
        raise ValueError(f"actions must have shape ({game.num_agents},), got {values.shape}")
    for agent, value in enumerate(values.tolist()):
        if isinstance(value, bool) or not isinstance(value, int):
            raise ValueError(f"agent_{agent}: action must be an int, got {value!r}")
        if not 0 <= value < game.num_actions:
            raise ValueError(f"agent_{agent}: action {value} is outside [0, {game.num_actions})")


def step(
    game: MatrixGame, state: GameState, actions: Array
) -> tuple[Array, GameState, Array, Array]:
    """Play the one step: ``(obs, state, rewards [N], done)``; every agent gets the team reward.

    Concrete (non-traced) actions are validated (``validate_actions``); inside jit/vmap the
    caller owns validation, as the PettingZoo wrapper does. Stepping a finished episode pays 0.
    """
    if not isinstance(actions, jax.core.Tracer):
        validate_actions(game, actions)
    actions = jnp.asarray(actions, dtype=jnp.int32)
    reward = jnp.where(state.done, 0.0, joint_payoff(game, actions))
    new_state = GameState(
        done=jnp.array(True), joint_action=jnp.where(state.done, state.joint_action, actions)
    )
    rewards = jnp.full(game.num_agents, reward, dtype=jnp.float32)
    return observations(game), new_state, rewards, new_state.done


def expected_return(game: MatrixGame, probs: Array) -> Array:
    """Exact expected team reward of the product policy ``probs`` [..., N, A] (rows sum to 1)."""
    table = jnp.asarray(game.payoff, dtype=probs.dtype)
    pairs = list(itertools.combinations(range(game.num_agents), 2))
    terms = [
        jnp.einsum("...a,ab,...b->...", probs[..., i, :], table, probs[..., j, :]) for i, j in pairs
    ]
    return sum(terms) / len(pairs)


def payoff_tensor(game: MatrixGame) -> np.ndarray:
    """[A]*N numpy array of the team reward of every joint action (brute force, for checks)."""
    shape = (game.num_actions,) * game.num_agents
    joints = np.array(list(np.ndindex(*shape)), dtype=np.int32)
    return np.asarray(joint_payoff(game, jnp.asarray(joints))).reshape(shape)


def optimal_joint_value(game: MatrixGame) -> float:
    """The best team reward any joint action reaches (the coordinated optimum)."""
    return float(payoff_tensor(game).max())
