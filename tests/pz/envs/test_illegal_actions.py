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
