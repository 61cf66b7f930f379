"""SuperSuit's vector path over the ParallelEnv: ``pettingzoo_env_to_vec_env_v1`` +
``concat_vec_envs_v1``, for several episodes, in-process and with two worker processes.

Dead agents stay in ``agents`` until the episode ends, so no black-death wrapper is needed.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap
from pathlib import Path

import numpy as np
import pytest

supersuit = pytest.importorskip("supersuit")

HORIZON = 4
EPISODES = 3


def play_episodes(venv, steps: int, seed: int = 0):
    """Masked random play; returns the steps on which every sub-env was truncated."""
    obs, _ = venv.reset(seed=seed)
    n = obs.shape[0]
    actions = np.zeros(n, np.int64)  # NOOP is always legal
    rng, ends = np.random.default_rng(seed), []
    for t in range(steps):
        obs, rewards, terms, truncs, infos = venv.step(actions)
        assert obs.shape[0] == rewards.shape[0] == n and not np.asarray(terms).any()
        if np.asarray(truncs).all():
            ends.append(t)
            assert all("terminal_observation" in info for info in infos)
            last = np.stack([info["terminal_observation"] for info in infos])
            assert not np.array_equal(last, obs)  # obs is already the next episode's
        actions = np.array([rng.choice(np.flatnonzero(i["action_mask"])) for i in infos])
    return ends


def test_concat_vec_envs_in_process_for_several_episodes(make_env):
    vec = supersuit.pettingzoo_env_to_vec_env_v1(make_env(max_steps=HORIZON))
    venv = supersuit.concat_vec_envs_v1(vec, 2, num_cpus=0, base_class="gymnasium")
    assert venv.num_envs == 6
    ends = play_episodes(venv, EPISODES * HORIZON)
    assert ends == [HORIZON * (e + 1) - 1 for e in range(EPISODES)]
    venv.close()


WORKERS_SCRIPT = textwrap.dedent(
    f"""
    import supersuit
    from jax._src import xla_bridge
    import alem_pz
    from tests.pz.conftest import small_kwargs
    from tests.pz.envs.test_supersuit import play_episodes

    env = alem_pz.parallel_env(**small_kwargs(max_steps={HORIZON}))
    vec = supersuit.pettingzoo_env_to_vec_env_v1(env)
    venv = supersuit.concat_vec_envs_v1(vec, 2, num_cpus=2, base_class="gymnasium")
    assert not xla_bridge._backends, "JAX started in the parent before the workers forked"
    ends = play_episodes(venv, {EPISODES * HORIZON})
    venv.close()
    print("episode ends", ends)
    """
)


@pytest.mark.slow
def test_concat_vec_envs_with_two_worker_processes():
    """Used to hang in reset: the env constructor ran jitted code in the parent before fork.
    Runs in a fresh interpreter, as a user script would (this test process has started JAX)."""
    root = str(Path(__file__).resolve().parents[3])
    cache = os.environ.get("ALEM_JAX_CACHE", os.path.join(root, ".jax_cache"))
    env = dict(os.environ, PYTHONPATH=root, JAX_PLATFORMS="cpu", JAX_COMPILATION_CACHE_DIR=cache)
    done = subprocess.run(
        [sys.executable, "-c", WORKERS_SCRIPT],
        cwd=root,
        env=env,
        capture_output=True,
        text=True,
        timeout=900,
    )
    assert done.returncode == 0, done.stderr[-3000:]
    expected = [HORIZON * (e + 1) - 1 for e in range(EPISODES)]
    assert f"episode ends {expected}" in done.stdout
    assert "os.fork() was called" not in done.stderr
