"""Fixtures for core tests: one tiny map size shared by every hand-built test."""

from __future__ import annotations

import pytest

from alem_core.params import Params, StaticParams
from alem_core.testing import SMALL


@pytest.fixture
def small() -> StaticParams:
    """16 x 16, one floor, three agents."""
    return SMALL


@pytest.fixture
def params() -> Params:
    """Raw defaults: hard role gates, no coordination, individual reward."""
    return Params(shared_reward=False)
