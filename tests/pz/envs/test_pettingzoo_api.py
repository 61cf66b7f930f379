"""PettingZoo's own conformance tests on the alem adapter (parallel, AEC, seeds, cycles, state)."""

from __future__ import annotations

import warnings

import pytest
from pettingzoo.test import (
    api_test,
    max_cycles_test,
    parallel_api_test,
    seed_test,
    state_test,
)
from pettingzoo.utils import parallel_to_aec

import alem_pz
from tests.pz.conftest import small_kwargs

# api_test warns about agent-name format, all-zero observations and the like; not failures.
pytestmark = pytest.mark.filterwarnings("ignore::UserWarning")


def test_parallel_api(make_env):
    parallel_api_test(make_env(max_steps=150), num_cycles=200)


def test_aec_api_via_parallel_to_aec(make_env):
    api_test(parallel_to_aec(make_env(max_steps=150)), num_cycles=200)


def test_aec_api_via_module_env():
    api_test(alem_pz.alem_coop_v0.env(**small_kwargs(max_steps=60)), num_cycles=80)


def test_aec_api_with_mask_in_observation():
    env = alem_pz.alem_coop_v0.env(**small_kwargs(max_steps=60, mask_in_obs=True))
    api_test(env, num_cycles=80)


def test_seed(module_shim):
    seed_test(lambda: module_shim.env(max_steps=60), num_cycles=70)


def test_max_cycles(module_shim):
    max_cycles_test(module_shim)


def test_state(module_shim):
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        state_test(module_shim.env(max_steps=30), module_shim.parallel_env(max_steps=30))
