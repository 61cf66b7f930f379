"""Fixtures for the PettingZoo adapter tests: one small world shape shared by most tests.

Compiling the real core costs tens of seconds per distinct ``StaticParams``, so nearly every test
uses ``SMALL`` (16 x 16, one floor, 3 players); ``alem_pz`` caches the compiled functions per
``StaticParams`` at module level, so they compile once per session.
"""

from __future__ import annotations

import functools

import pytest

import alem_pz
from alem_core.testing import SMALL


def small_kwargs(**overrides):
    """Env kwargs for the shared small world (``players`` must match ``static``)."""
    kwargs = dict(players=SMALL.player_count, static=SMALL)
    kwargs.update(overrides)
    return kwargs


@pytest.fixture
def make_env():
    """Factory for small parallel envs: ``make_env(max_steps=50, mask_in_obs=True)``."""
    envs = []

    def factory(**overrides):
        env = alem_pz.parallel_env(**small_kwargs(**overrides))
        envs.append(env)
        return env

    yield factory
    for env in envs:
        env.close()


@pytest.fixture
def module_shim():
    """A module-like object with ``env``/``parallel_env`` bound to the small world."""

    class Shim:
        env = functools.partial(alem_pz.alem_coop_v0.env, **small_kwargs())
        parallel_env = functools.partial(alem_pz.alem_coop_v0.parallel_env, **small_kwargs())
        raw_env = functools.partial(alem_pz.alem_coop_v0.raw_env, **small_kwargs())

    return Shim
