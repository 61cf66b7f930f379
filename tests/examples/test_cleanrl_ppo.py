"""The CleanRL-style PPO example: its GAE, its masking and a tiny end-to-end run."""

from __future__ import annotations

import importlib.util
import json
from pathlib import Path

import numpy as np
import pytest

torch = pytest.importorskip("torch")

pytestmark = pytest.mark.torch  # CI's second stage selects it (.ci/run)

SCRIPT = Path(__file__).resolve().parents[2] / "examples" / "cleanrl_ppo.py"


@pytest.fixture(scope="module")
def ppo():
    spec = importlib.util.spec_from_file_location("cleanrl_ppo", SCRIPT)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def test_gae_matches_hand_computation_and_cuts_at_ends(ppo):
    rewards = torch.tensor([[1.0], [0.0], [2.0]])
    values = torch.tensor([[0.5], [1.0], [0.25]])
    ends = torch.tensor([[0.0], [1.0], [0.0]])  # the chain is cut after step 1
    next_value = torch.tensor([4.0])
    gamma, lam = 0.9, 0.5
    adv, ret = ppo.advantages(rewards, values, next_value, ends, gamma, lam)
    d2 = 2.0 + gamma * 4.0 - 0.25
    d1 = 0.0 - 1.0  # no bootstrap past an end
    d0 = 1.0 + gamma * 1.0 - 0.5
    expected = [d0 + gamma * lam * d1, d1, d2]
    np.testing.assert_allclose(adv[:, 0].numpy(), expected, rtol=1e-6)
    np.testing.assert_allclose(ret.numpy(), (adv + values).numpy())


def test_masked_actions_are_never_sampled(ppo):
    agent = ppo.Agent(obs_size=8, num_actions=5, hidden=16)
    obs = torch.randn(64, 8)
    mask = torch.zeros(64, 5, dtype=torch.bool)
    mask[torch.arange(64), torch.arange(64) % 5] = True  # exactly one legal action per row
    action, logp, _, _ = agent.get_action_and_value(obs, mask)
    assert (action == torch.arange(64) % 5).all()
    assert torch.allclose(logp, torch.zeros(64), atol=1e-5)


@pytest.mark.slow
def test_tiny_training_run_writes_curve_checkpoint_and_both_evaluations(ppo, tmp_path):
    # Two worlds, as tests/pz/envs/test_vector.py: the vector env's step comes from the cache.
    args = "--small --total-timesteps 256 --num-worlds 2 --num-steps 64 --update-epochs 1"
    args += f" --eval-episodes 1 --eval-max-steps 10 --out {tmp_path}"
    assert ppo.main([*args.split(), "--runs-dir", str(tmp_path / "runs")]) == 0
    report = json.loads((tmp_path / "results.json").read_text())
    assert [p["env_steps"] for p in report["curve"]] == [128, 256]
    # TensorBoard in CleanRL's layout; the logged losses are the curve's
    if importlib.util.find_spec("tensorboardX"):
        from alem_train.tensorboard import read_scalars

        (run,) = (tmp_path / "runs").iterdir()
        assert run.name.startswith("alem-medium__cleanrl_ppo__1__")
        scalars = read_scalars(run)
        assert [s for s, _ in scalars["charts/SPS"]] == [128, 256]
        logged = [v for _, v in scalars["losses/value_loss"]]
        assert logged == pytest.approx([p["value_loss"] for p in report["curve"]], rel=1e-6)
    assert set(report["eval"]) == {"PPO", "masked-random"}
    assert (tmp_path / "learning_curve.png").stat().st_size > 1000
    policy = ppo.load_policy(tmp_path / "agent.pt")
    masks = np.zeros((3, 56), np.int8)
    masks[:, 0] = 1
    size = torch.load(tmp_path / "agent.pt", weights_only=False)["obs_size"]
    assert policy(np.zeros((3, size), np.float32), masks).tolist() == [0, 0, 0]
