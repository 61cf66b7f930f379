"""Illegal actions, one documented behaviour on every face: an in-range action that the mask
marks illegal changes the world exactly as NOOP does, except that a failed give counts in
``stats.give_attempts`` and an unfunded build in ``coordination.build_unfunded`` (the rules
count attempts); ``strict_actions=True`` raises a ValueError naming the agent and the action
before anything changes."""

from __future__ import annotations

import jax
import numpy as np
import pytest

from alem_core.constants import GIVE_BASE, Action

NOOP = 0
SEED = 3


def _state_after(env, warmup: list[dict], last: dict):
    env.reset(seed=SEED)
    for actions in warmup:
        env.step(actions)
    env.step(last)
    leaves = jax.tree_util.tree_flatten_with_path(env.core_state)[0]
    return {jax.tree_util.keystr(path): np.asarray(leaf) for path, leaf in leaves}


def _counted_attempt(action: int) -> set[str]:
    """The counters an illegal ``action`` may change (attempts the rules count)."""
    if Action.BUILD_SHELTER <= action <= Action.BUILD_BEACON:
        return {".coordination.build_unfunded"}
    if GIVE_BASE <= action < GIVE_BASE + 2:  # 3 players: 2 give slots
        return {".stats.give_attempts"}
    return set()


def _legal_warmup(env, rng, steps: int) -> tuple[list[dict], dict]:
    """Masked-random actions for ``steps`` steps; returns them and the masks after them."""
    _, infos = env.reset(seed=SEED)
    chosen = []
    for _ in range(steps):
        actions = {a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in env.agents}
        chosen.append(actions)
        _, _, _, _, infos = env.step(actions)
    return chosen, infos


@pytest.mark.parametrize("steps", [0, 6])
def test_every_masked_out_action_changes_the_world_as_noop_does(make_env, steps):
    env = make_env(max_steps=50)
    warmup, infos = _legal_warmup(env, np.random.default_rng(steps), steps)
    others = {a: NOOP for a in env.possible_agents[1:]}
    expected = _state_after(env, warmup, {"agent_0": NOOP, **others})
    illegal = np.flatnonzero(infos["agent_0"]["action_mask"] == 0)
    assert illegal.size > 10
    for action in illegal.tolist():
        got = _state_after(env, warmup, {"agent_0": action, **others})
        changed = {k for k in expected if not np.array_equal(expected[k], got[k])}
        assert changed <= _counted_attempt(action), (action, changed)


def test_strict_mode_names_the_agent_and_action_and_changes_nothing(make_env):
    env = make_env(max_steps=50, strict_actions=True)
    _, infos = env.reset(seed=0)
    illegal = int(np.flatnonzero(infos["agent_1"]["action_mask"] == 0)[0])
    before = int(env.core_state.timestep)
    actions = {"agent_0": NOOP, "agent_1": illegal, "agent_2": NOOP}
    with pytest.raises(ValueError, match=rf"illegal action {illegal} .*'agent_1'"):
        env.step(actions)
    assert int(env.core_state.timestep) == before
    env.step(dict.fromkeys(env.agents, NOOP))  # legal actions still step
    assert int(env.core_state.timestep) == before + 1


def test_without_strict_mode_illegal_actions_step(make_env):
    env = make_env(max_steps=50)
    _, infos = env.reset(seed=0)
    illegal = int(np.flatnonzero(infos["agent_1"]["action_mask"] == 0)[0])
    env.step({"agent_0": NOOP, "agent_1": illegal, "agent_2": NOOP})
    assert int(env.core_state.timestep) == 1


def test_the_aec_env_refuses_a_bad_value_at_its_own_turn_and_plays_on():
    """A bad value raised only at the last agent's turn, and then on every retry: now its own
    agent's step raises, naming it, and the turn stays there until a good value comes."""
    import alem_pz
    from tests.pz.conftest import small_kwargs

    aec, twin = alem_pz.env(**small_kwargs()), alem_pz.env(**small_kwargs())
    for env in (aec, twin):
        env.reset(seed=4)
    with pytest.raises(ValueError, match=r"'agent_0'.*'bad'"):
        aec.step("bad")
    assert aec.agent_selection == "agent_0"
    with pytest.raises(ValueError, match="'agent_0' is out of range: got 9999"):
        aec.step(9999)
    for env in (aec, twin):
        for action in (Action.DO, Action.LEFT, Action.NOOP):
            env.step(int(action))
    assert aec.agent_selection == twin.agent_selection == "agent_0"
    np.testing.assert_array_equal(aec.observe("agent_1"), twin.observe("agent_1"))
    assert aec.rewards == twin.rewards


def test_strict_aec_checks_legality_at_the_agents_turn():
    import alem_pz
    from tests.pz.conftest import small_kwargs

    aec = alem_pz.env(**small_kwargs(strict_actions=True))
    aec.reset(seed=0)
    illegal = int(np.flatnonzero(aec.infos["agent_0"]["action_mask"] == 0)[0])
    with pytest.raises(ValueError, match=r"illegal action .* for agent 'agent_0'"):
        aec.step(illegal)
    aec.step(int(Action.NOOP))
    assert aec.agent_selection == "agent_1"


@pytest.mark.parametrize(
    ("kwargs", "message"),
    [
        ({"max_steps": 2**31}, r"max_steps must be an int in \[1, 2,147,483,647\], got 2147483648"),
        ({"max_steps": 0}, "max_steps must be an int"),
        ({"mask_in_obs": "no"}, "mask_in_obs must be True or False, got 'no'"),
        ({"strict_actions": 1}, "strict_actions must be True or False, got 1"),
    ],
)
def test_constructor_arguments_are_checked_by_name(make_env, kwargs, message):
    with pytest.raises(ValueError, match=message):
        make_env(**kwargs)


def test_the_single_agent_env_names_the_entry_that_is_not_an_integer():
    import gymnasium

    import alem_pz  # noqa: F401  (registers the ids)
    from tests.pz.conftest import SMALL

    env = gymnasium.make("alem/Coop-v0", players=3, static=SMALL, max_steps=5)
    env.reset(seed=0)
    with pytest.raises(ValueError, match=r"agent 'agent_1' must be an integer id, got .*nan"):
        env.step(np.array([0, np.nan, 0]))
    env.step(np.array([0, 0, 0]))  # nothing was lost: the env plays on
