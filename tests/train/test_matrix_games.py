"""T0 matrix-game drills: payoffs, the N-agent generalisation, exact returns, the PZ wrapper."""

from __future__ import annotations

import itertools

import jax
import jax.numpy as jnp
import numpy as np
import pytest
from pettingzoo.test import parallel_api_test

from alem_train.matrix_games import (
    MatrixGameParallelEnv,
    climbing_game,
    expected_return,
    joint_payoff,
    optimal_joint_value,
    payoff_tensor,
    penalty_game,
    reset,
    step,
)


def test_two_agent_tables_are_the_classic_games():
    np.testing.assert_array_equal(
        payoff_tensor(climbing_game()), [[11, -30, 0], [-30, 7, 6], [0, 0, 5]]
    )
    np.testing.assert_array_equal(
        payoff_tensor(penalty_game(-25.0)), [[10, 0, -25], [0, 2, 0], [-25, 0, 10]]
    )


@pytest.mark.parametrize("n", [2, 3, 4])
def test_n_agent_reward_is_the_mean_pair_payoff_with_the_same_optimum(n):
    game = climbing_game(n)
    tensor = payoff_tensor(game)
    table = np.array(game.payoff)
    for joint in itertools.product(range(3), repeat=n):
        pairs = [table[joint[i], joint[j]] for i, j in itertools.combinations(range(n), 2)]
        assert tensor[joint] == pytest.approx(np.mean(pairs))
    assert optimal_joint_value(game) == 11.0
    assert np.argmax(tensor) == 0 and np.sum(tensor == 11.0) == 1  # unique: everybody on 0
    penalty = payoff_tensor(penalty_game(-10.0, n))
    assert penalty[(0,) * n] == penalty[(2,) * n] == 10.0 and np.sum(penalty == 10.0) == 2


@pytest.mark.parametrize("n", [2, 3, 4])
def test_safe_action_is_every_agents_best_reply_to_uniform_partners(n):
    uniform = jnp.full((n, 3), 1 / 3)
    for game, safe in ((climbing_game(n), 2), (penalty_game(-10.0, n), 1)):
        for agent in range(n):
            values = [
                float(expected_return(game, uniform.at[agent].set(jnp.eye(3)[a]))) for a in range(3)
            ]
            assert int(np.argmax(values)) == safe, (game.name, agent, values)
    mild = penalty_game(-2.0, n)  # above k = -8 the optimum is the best reply instead
    values = [float(expected_return(mild, uniform.at[0].set(jnp.eye(3)[a]))) for a in range(3)]
    assert int(np.argmax(values)) != 1


@pytest.mark.parametrize("n", [2, 3, 4])
def test_expected_return_is_exact_against_enumeration(n):
    game = penalty_game(-7.0, n)
    probs = jax.nn.softmax(jax.random.normal(jax.random.key(n), (5, n, 3)), axis=-1)
    tensor = payoff_tensor(game)
    for row, value in zip(np.asarray(probs), np.asarray(expected_return(game, probs)), strict=True):
        brute = sum(
            tensor[joint] * np.prod([row[i, a] for i, a in enumerate(joint)])
            for joint in itertools.product(range(3), repeat=n)
        )
        assert value == pytest.approx(brute, rel=1e-5, abs=1e-5)


def test_functional_env_is_one_step_and_vmaps():
    game = climbing_game(3)
    keys = jax.random.split(jax.random.key(0), 4)
    obs, state = jax.vmap(lambda k: reset(game, k))(keys)
    assert obs.shape == (4, 3, 3) and not bool(state.done.any())
    actions = jnp.array([[0, 0, 0], [2, 2, 2], [0, 1, 2], [1, 1, 2]], dtype=jnp.int32)
    _, state, rewards, done = jax.jit(jax.vmap(lambda s, a: step(game, s, a)))(state, actions)
    assert bool(done.all())
    np.testing.assert_allclose(rewards[:, 0], np.asarray(joint_payoff(game, actions)))
    np.testing.assert_allclose(rewards[:, 0], [11.0, 5.0, (-30 + 0 + 6) / 3, (7 + 6 + 6) / 3])
    np.testing.assert_array_equal(rewards, np.repeat(rewards[:, :1], 3, axis=1))
    _, _, again, _ = jax.vmap(lambda s, a: step(game, s, a))(state, actions)
    assert np.all(np.asarray(again) == 0.0)  # a finished episode pays nothing more


def test_bad_input_names_the_agent_and_value():
    game = climbing_game(3)
    _, state = reset(game, jax.random.key(0))
    with pytest.raises(ValueError, match=r"agent_1: action 3 is outside \[0, 3\)"):
        step(game, state, np.array([0, 3, 0]))
    with pytest.raises(ValueError, match="num_agents"):
        climbing_game(5)
    with pytest.raises(ValueError, match="k must be <= 0"):
        penalty_game(4.0)
    env = MatrixGameParallelEnv(game)
    env.reset(seed=1)
    with pytest.raises(ValueError, match="agent_2: action -1"):
        env.step({"agent_0": 0, "agent_1": 0, "agent_2": -1})


@pytest.mark.parametrize("n", [2, 3, 4])
def test_parallel_env_passes_the_pettingzoo_api_test(n):
    parallel_api_test(MatrixGameParallelEnv(penalty_game(-10.0, n)), num_cycles=20)


def test_parallel_env_pays_the_functional_reward():
    env = MatrixGameParallelEnv(climbing_game(2))
    obs, _ = env.reset(seed=0)
    np.testing.assert_array_equal(obs["agent_1"], [0.0, 1.0])
    _, rewards, terms, truncs, _ = env.step({"agent_0": 1, "agent_1": 2})
    assert rewards == {"agent_0": 6.0, "agent_1": 6.0}
    assert all(terms.values()) and not any(truncs.values()) and env.agents == []
