"""Rendering and pixel observations through PettingZoo (headless).

``SDL_VIDEODRIVER=dummy`` (tests/conftest.py) lets pygame open its window without a screen.
Everything runs on the small 16 x 16 world of ``tests/pz/conftest.py``.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import jax
import numpy as np
import pytest
from pettingzoo.test import render_test

import alem_core
import alem_pz
from tests.pz.conftest import SMALL, small_kwargs

ROOT = Path(__file__).resolve().parents[3]


def test_pettingzoo_render_test():
    render_test(
        lambda render_mode: alem_pz.alem_coop_v0.env(**small_kwargs(render_mode=render_mode))
    )


def test_rgb_array_is_the_team_side_by_side(make_env):
    env = make_env(render_mode="rgb_array")
    env.reset(seed=0)
    frame = env.render()
    h, w, _ = alem_core.pixels.pixel_shape(SMALL, 16)
    assert frame.dtype == np.uint8 and frame.shape == (h, 3 * w + 2 * 4, 3)


@pytest.mark.parametrize("mask_in_obs", [False, True])
def test_pixel_observations_match_the_declared_space(make_env, mask_in_obs):
    env = make_env(obs_type="pixels", mask_in_obs=mask_in_obs)
    symbolic = make_env()
    obs, infos = env.reset(seed=1)
    _, sym_infos = symbolic.reset(seed=1)
    for _ in range(2):
        for agent in env.agents:
            space = env.observation_space(agent)
            assert space.contains(obs[agent])
            image = obs[agent]["observation"] if mask_in_obs else obs[agent]
            assert image.shape == (150, 110, 3) == space.shape if not mask_in_obs else True
            mask = obs[agent]["action_mask"] if mask_in_obs else infos[agent]["action_mask"]
            np.testing.assert_array_equal(mask, sym_infos[agent]["action_mask"])
            assert mask.sum() < mask.size  # a real mask, not all-legal
        actions = {a: 0 for a in env.agents}
        obs, _, _, _, infos = env.step(actions)
        _, _, _, _, sym_infos = symbolic.step(actions)


def test_rendering_does_not_change_the_episode(make_env):
    plain, drawn = make_env(), make_env(render_mode="rgb_array")
    rng = np.random.default_rng(0)
    obs_a, infos = plain.reset(seed=5)
    obs_b, _ = drawn.reset(seed=5)
    for _ in range(4):
        actions = {
            a: int(rng.choice(np.flatnonzero(infos[a]["action_mask"]))) for a in plain.agents
        }
        drawn.render()
        obs_a, _, _, _, infos = plain.step(actions)
        obs_b, _, _, _, _ = drawn.step(actions)
        for agent in plain.agents:
            np.testing.assert_array_equal(obs_a[agent], obs_b[agent])


def test_render_mode_none_never_imports_pygame():
    code = (
        "import sys, alem_core, alem_pz\n"
        "from alem_core.testing import SMALL as static\n"
        "env = alem_pz.make(players=3, static=static)\n"
        "env.reset(seed=0); env.step({a: 0 for a in env.agents})\n"
        "assert env.render() is None\n"
        "env.close()\n"
        "import alem_pz.envs.rendering, alem_pz.play.keyboard, alem_pz.play.gif\n"
        "assert 'pygame' not in sys.modules, 'pygame was imported'\n"
    )
    # The suite's own cache directory, so the child loads what this process compiled.
    cache = jax.config.jax_compilation_cache_dir or str(ROOT / ".jax_cache")
    env = dict(os.environ, JAX_PLATFORMS="cpu", JAX_COMPILATION_CACHE_DIR=cache)
    env.pop("SDL_VIDEODRIVER", None)
    result = subprocess.run([sys.executable, "-c", code], cwd=ROOT, env=env, capture_output=True)
    assert result.returncode == 0, result.stderr.decode()[-2000:]
