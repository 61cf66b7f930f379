"""``examples/rllib_ppo.py`` and ``alem_pz.envs.rllib`` with Ray: two PPO iterations with a remote
env runner (twice: same seed, same figures), the masking module on alem's masks, agent order and
``render()`` through RLlib's wrapper.

Runs only where ``ray[rllib]`` and torch are installed (their own venv: ray 2.60 pins gymnasium
1.2.2); it is skipped in the main venv. About 75 s on 2 cores with a warm JAX cache.
"""

from __future__ import annotations

import importlib.util
import math
import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ray = pytest.importorskip("ray")
pytest.importorskip("ray.rllib")  # not just any "ray" directory on sys.path (e.g. /tmp/ray)
torch = pytest.importorskip("torch")

from alem_core.testing import SMALL  # noqa: E402
from alem_pz.envs.rllib import MASK_KEY, OBS_KEY, rllib_env, rllib_parallel_env  # noqa: E402
from alem_pz.envs.rllib_module import MaskedPPOTorchModule  # noqa: E402
from tests.libraries.conftest import run_snippet, snippet  # noqa: E402

REPO = Path(__file__).resolve().parent.parent
EXAMPLE = REPO / "examples" / "rllib_ppo.py"
TRAIN_BATCH = 200
pytestmark = pytest.mark.slow


@pytest.fixture(scope="module")
def example():
    """The example script as a module (``examples/`` is not a package)."""
    spec = importlib.util.spec_from_file_location("rllib_ppo", EXAMPLE)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_two_seeded_iterations_with_a_remote_env_runner(example, monkeypatch):
    # Env runners are other processes: hand them the suite's persistent JAX cache.
    cache = os.environ.get("ALEM_JAX_CACHE", str(REPO / ".jax_cache"))
    monkeypatch.setenv("JAX_COMPILATION_CACHE_DIR", cache)
    monkeypatch.setenv("RAY_AUTH_MODE", "disabled")
    args = ["--iterations", "2", "--num-env-runners", "1", "--num-cpus", "2"]
    args += ["--max-steps", "50", "--train-batch", str(TRAIN_BATCH), "--minibatch", "100"]
    results = example.main(args)
    assert not ray.is_initialized()  # main() shuts Ray down
    assert [r["iteration"] for r in results] == [1, 2]
    for r in results:
        assert r["env_steps_sampled"] >= TRAIN_BATCH
        assert r["episodes"] >= 1  # 50-step episodes in >= 200 steps
        assert math.isfinite(r["episode_return_mean"])
        assert r["env_steps_per_s"] > 0
    # Same --seed, same run: episodes sampled before (1) and after (2) a learner update.
    again = example.main(args)
    assert [_seeded(r) for r in again] == [_seeded(r) for r in results]


def test_masking_module_gives_illegal_actions_no_probability(example):
    env = rllib_parallel_env(**example.env_config(example.parse_args([])))
    agent = env.possible_agents[0]
    spec = example.module_spec(example.parse_args([]))
    spec.observation_space = env.observation_space(agent)
    spec.action_space = env.action_space(agent)
    module = spec.build()
    obs, _ = env.reset(seed=1)
    masks = np.stack([obs[a][MASK_KEY] for a in env.possible_agents])
    assert 0 < masks.sum() < masks.size  # some actions are illegal, some legal
    batch = {
        "obs": {
            OBS_KEY: torch.from_numpy(np.stack([obs[a][OBS_KEY] for a in env.possible_agents])),
            MASK_KEY: torch.from_numpy(masks),
        }
    }
    with torch.no_grad():
        logits = module.forward_exploration(batch)["action_dist_inputs"].numpy()
    assert np.all(logits[masks == 0] < -1e30)
    assert np.all(np.isfinite(logits[masks == 1]))
    env.close()


def test_the_docs_snippets_register_the_env_and_build_a_masking_module():
    """docs/libraries/rllib.md as written: the creator registered, then the module spec, built
    for the env's spaces, samples no illegal action."""
    from ray.tune.registry import ENV_CREATOR, _global_registry

    scope = run_snippet("rllib.md", 0, max_steps=20)
    exec(compile(snippet("rllib.md", 1), "docs/libraries/rllib.md", "exec"), scope)
    env = _global_registry.get(ENV_CREATOR, "alem")({})
    spec = scope["module"]
    spec.observation_space = env.get_observation_space("agent_0")
    spec.action_space = env.get_action_space("agent_0")
    module = spec.build()
    assert isinstance(module, MaskedPPOTorchModule)
    obs, _ = env.reset(seed=2)
    batch = {
        "obs": {
            k: torch.from_numpy(np.stack([o[k] for o in obs.values()])) for k in (OBS_KEY, MASK_KEY)
        }
    }
    with torch.no_grad():
        logits = module.forward_exploration(batch)["action_dist_inputs"]
        actions = torch.distributions.Categorical(logits=logits).sample((200,))
    legal = batch["obs"][MASK_KEY].bool()
    assert legal.gather(1, actions.T).all()  # 200 draws per agent, all legal
    env.close()


def test_rllib_env_has_a_fixed_agent_order_and_renders():
    config = {**_small_world(), "render_mode": "rgb_array"}
    env = rllib_env(config)
    assert env.agents == env.possible_agents == ["agent_0", "agent_1", "agent_2"]
    obs, _ = env.reset(seed=0)
    assert list(obs) == env.agents
    frame = env.render()  # RLlib's wrapper passes render_mode positionally
    assert frame.dtype == np.uint8 and frame.ndim == 3 and frame.shape[2] == 3
    space = env.get_observation_space("agent_1")
    assert set(space.spaces) == {OBS_KEY, MASK_KEY} and space.contains(obs["agent_1"])
    env.close()


def test_importing_the_helper_does_not_import_ray():
    code = "import sys, alem_pz.envs.rllib; assert 'ray' not in sys.modules, 'ray imported'"
    done = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True)
    assert done.returncode == 0, done.stderr


def _seeded(summary: dict) -> tuple:
    """The parts of an iteration summary that the seed fixes (not the timings)."""
    return summary["env_steps_sampled"], summary["episodes"], summary["episode_return_mean"]


def _small_world() -> dict:

    static = SMALL
    return {"players": 3, "max_steps": 20, "static": static}
