"""Fuzzed input to the env faces (hypothesis): any value as an action, any constructor argument.
Each is either taken or refused with a ValueError, and a refusal changes nothing: the episode
plays on from where it was."""

from __future__ import annotations

import hashlib

import jax
import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import alem_pz
from tests.pz.conftest import small_kwargs

ANY_VALUE = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(-(2**70), 2**70),
    st.floats(allow_nan=True, allow_infinity=True),
    st.text(max_size=8),
    st.lists(st.integers(-5, 60), max_size=4),
    st.integers(-3, 60).map(np.int64),
    st.integers(0, 55).map(lambda v: np.array(v, np.int32)),
    st.integers(0, 55).map(float),
)
FUZZ = settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])


def digest(env) -> str:
    leaves = jax.tree.leaves(jax.device_get(env.core_state))
    return hashlib.sha256(b"".join(np.asarray(x).tobytes() for x in leaves)).hexdigest()


@pytest.fixture(scope="module")
def env():
    built = alem_pz.parallel_env(**small_kwargs(max_steps=10_000))
    built.reset(seed=0)
    yield built
    built.close()


@FUZZ
@given(
    agent=st.sampled_from(["agent_0", "agent_1", "agent_2", "agent_9", 0, None]), value=ANY_VALUE
)
def test_any_action_value_is_taken_or_refused_and_a_refusal_changes_nothing(env, agent, value):
    actions = {a: 0 for a in env.agents}
    actions[agent] = value
    before = digest(env)
    try:
        env.step(actions)
    except ValueError as error:
        assert digest(env) == before
        assert repr(agent) in str(error) or "no action given" in str(error)
    env.step(dict.fromkeys(env.agents, 0))  # the episode plays on either way


@pytest.fixture(scope="module")
def aec():
    built = alem_pz.env(**small_kwargs(max_steps=10_000))
    built.reset(seed=0)
    yield built
    built.close()


@FUZZ
@given(value=ANY_VALUE)
def test_the_aec_env_keeps_the_turn_after_any_refused_value(aec, value):
    turn = aec.agent_selection
    try:
        aec.step(value)
    except ValueError as error:
        assert aec.agent_selection == turn and repr(turn) in str(error)
        aec.step(0)


CONSTRUCTOR = {
    "max_steps": st.one_of(ANY_VALUE, st.integers(-5, 2**40)),
    "mask_in_obs": ANY_VALUE,
    "strict_actions": ANY_VALUE,
    "difficulty": st.one_of(ANY_VALUE, st.sampled_from(["easy", "medium", "hard", "nope"])),
    "obs_type": st.one_of(ANY_VALUE, st.sampled_from(["symbolic", "pixels", "text", "x"])),
    "comm_channels": st.one_of(ANY_VALUE, st.integers(-2, 9)),
}


@FUZZ
@given(name=st.sampled_from(sorted(CONSTRUCTOR)), data=st.data())
def test_any_constructor_argument_is_taken_or_refused_by_name(name, data):
    value = data.draw(CONSTRUCTOR[name])
    try:
        alem_pz.parallel_env(**small_kwargs(**{name: value}))
    except ValueError as error:
        assert name in str(error) or repr(value) in str(error) or "StaticParams" in str(error)
