"""The batched core with auto-reset (``alem_core.batch.auto_reset``, ``alem_core.batch.runner``).

Every test shares one compiled set (SMALL world, N = 2 slots, chunk 1); episodes last
``max_timesteps`` = 4 steps, so a short run crosses several episode ends.
"""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

import jax
import numpy as np
import pytest

import alem_core
from alem_core.api import seed_key
from alem_core.batch import auto_reset as core_batch
from alem_core.batch.runner import BatchRunner, default_chunk
from alem_core.scoring.score import score_columns
from alem_core.testing.rollout import compiled

from .conftest import SMALL

N = 2
HORIZON = 4
PARAMS = alem_core.make_params("medium", max_timesteps=HORIZON)
CALLS = 11  # episode 0 ends on call 4, resets on call 5, episode 1 ends on call 9, ...


def masked_random(mask: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """(N, P) int32 uniform legal actions."""
    return np.array([[rng.choice(np.flatnonzero(m)) for m in world] for world in mask], np.int32)


def play(seed: int, calls: int = CALLS, action_seed: int = 0, worlds: int = N) -> list[dict]:
    """Host copies of the reset output and of ``calls`` steps of masked random play."""
    runner = BatchRunner(worlds, PARAMS, SMALL)
    outs = [jax.device_get(runner.reset(seed)._asdict())]
    rng = np.random.default_rng(action_seed)
    for _ in range(calls):
        actions = masked_random(outs[-1]["info"]["action_mask"], rng)
        outs.append(jax.device_get(runner.step(actions)._asdict()))
        outs[-1]["actions"] = actions
        if outs[-1]["info"]["ended"]:
            outs[-1]["score"] = jax.device_get(runner.scores())
    return outs


@pytest.fixture(scope="module")
def played() -> list[dict]:
    return play(seed=0)


def test_episode_end_then_reset_next_call(played):
    for t in range(1, HORIZON):
        assert not played[t]["info"]["done"].any()
    end, reset = played[HORIZON], played[HORIZON + 1]
    assert end["truncated"].all() and end["info"]["done"].all()
    np.testing.assert_array_equal(end["info"]["episode_length"], [HORIZON] * N)
    summed = sum(played[t]["reward"] for t in range(1, HORIZON + 1))
    np.testing.assert_allclose(end["info"]["episode_return"], summed, rtol=1e-6)
    for k in range(SMALL.player_count):  # the score of the final state reached the caller
        alive = np.broadcast_to(end["info"]["alive"][:, k : k + 1], (N, SMALL.player_count))
        np.testing.assert_array_equal(end["score"][f"Agent{k}/alive"], alive)
    assert reset["info"]["reset"].all() and not reset["info"]["done"].any()
    np.testing.assert_array_equal(reset["info"]["episode"], [1] * N)
    assert not reset["reward"].any() and not reset["truncated"].any()
    assert "score" not in played[HORIZON - 1]  # nothing ended, nothing asked
    assert played[2 * HORIZON + 1]["info"]["done"].all()  # episode 1 is HORIZON steps too


def test_reset_observation_is_the_next_episode_world(played):
    keys = core_batch.slot_keys(jax.numpy.asarray(seed_key(0)), N)
    generate = jax.jit(lambda k, e, p: core_batch.generate(k, e, p, SMALL))
    for slot in range(N):
        obs, _, mask = generate(keys[slot : slot + 1], np.array([1], np.int32), PARAMS.as_arrays())
        # The step observes the swapped-in state in its own executable: 1-ulp differences.
        np.testing.assert_allclose(
            played[HORIZON + 1]["obs"][slot], np.asarray(obs[0]), rtol=1e-6, atol=1e-6
        )
        np.testing.assert_array_equal(
            played[HORIZON + 1]["info"]["action_mask"][slot], np.asarray(mask[0])
        )
    assert not np.array_equal(played[0]["obs"], played[HORIZON + 1]["obs"])


def test_slot_is_the_core_world_with_its_keys(played):
    """Slot 1, episode 0 is ``alem_core.reset`` / ``step`` with the documented keys."""
    reset, step = compiled(SMALL)
    slot_key = core_batch.slot_keys(jax.numpy.asarray(seed_key(0)), N)[1]
    k_world, k_steps = core_batch.episode_keys(slot_key, 0)
    params = PARAMS.as_arrays()
    obs, state = reset(k_world, params)
    # The runner observes the new worlds in its own executable: 1-ulp differences.
    np.testing.assert_allclose(np.asarray(obs), played[0]["obs"][1], rtol=1e-6, atol=1e-6)
    for t in range(HORIZON):
        actions = played[t + 1]["actions"][1]
        obs, state, reward, *_ = step(jax.random.fold_in(k_steps, t), state, actions, params)
        np.testing.assert_array_equal(np.asarray(obs), played[t + 1]["obs"][1])
        np.testing.assert_array_equal(np.asarray(reward), played[t + 1]["reward"][1])


def test_same_seed_same_episodes_other_seed_other_worlds(played):
    again = play(seed=0)
    for a, b in zip(played, again, strict=True):
        jax.tree.map(np.testing.assert_array_equal, a, b)
    other = play(seed=1, calls=0)
    assert not np.array_equal(other[0]["obs"], played[0]["obs"])


def test_without_refresh_a_world_waits_instead_of_replaying_then_resets_to_the_same_world(
    played,
):
    """``step(..., refresh=False)`` regenerates nothing: once the reserves consumed at the first
    reset are needed again the worlds wait (zero observation, NOOP only) until ``refresh``."""
    chunk, params = default_chunk(N), PARAMS.as_arrays()
    call = jax.jit(lambda b, a, p: core_batch.step(b, a, p, SMALL, chunk, refresh=False))
    refresh = jax.jit(lambda b, p: core_batch.refresh(b, p, SMALL, chunk))
    batch, _ = core_batch.init(jax.numpy.asarray(seed_key(0)), N, params, SMALL)
    for t in range(1, 2 * HORIZON + 2):
        batch, out = call(batch, played[t]["actions"], params)
        # Another executable may fuse float arithmetic differently: 1-ulp obs differences.
        np.testing.assert_allclose(out.obs, played[t]["obs"], rtol=1e-6, atol=1e-6)
        np.testing.assert_array_equal(out.reward, played[t]["reward"])
    assert out.info["done"].all() and int(out.info["reserve_needed"]) == N
    batch, out = call(batch, played[2 * HORIZON + 2]["actions"], params)
    assert np.asarray(out.info["waiting"]).all() and not np.asarray(out.info["reset"]).any()
    assert not np.asarray(out.obs).any()
    assert (np.asarray(out.info["action_mask"]).sum(-1) == 1).all()  # NOOP only
    for _ in range(-(-N // chunk)):
        batch = refresh(batch, params)
    batch, out = call(batch, played[2 * HORIZON + 2]["actions"], params)
    assert np.asarray(out.info["reset"]).all() and not np.asarray(out.info["waiting"]).any()
    np.testing.assert_array_equal(np.asarray(out.info["episode"]), [2] * N)
    np.testing.assert_allclose(out.obs, played[2 * HORIZON + 2]["obs"], rtol=1e-6, atol=1e-6)


def test_runner_rejects_bad_sizes():
    with pytest.raises(ValueError, match="num_worlds must be a positive int, got 0"):
        BatchRunner(0, PARAMS, SMALL)
    with pytest.raises(ValueError, match="chunk must be an int in"):
        BatchRunner(2, PARAMS, SMALL, chunk=3)
    with pytest.raises(RuntimeError, match="before reset"):
        BatchRunner(2, PARAMS, SMALL).step(np.zeros((2, 3), np.int32))


SHARDED_SCRIPT = textwrap.dedent(
    """
    import sys
    from pathlib import Path
    import jax, numpy as np
    from tests.conftest import _CACHE  # noqa: F401  (persistent cache settings)
    import alem_core
    from alem_core.batch.runner import BatchRunner
    from alem_core.testing import SMALL
    assert jax.local_device_count() == 2, jax.local_devices()
    folder = Path(sys.argv[1])
    runner = BatchRunner(4, alem_core.make_params("medium", max_timesteps=4), SMALL)
    outs = [runner.reset(3)]
    for actions in np.load(folder / "actions.npy"):
        outs.append(runner.step(actions))
    assert len(runner.batch.worlds.players.alive.sharding.device_set) == 2
    assert len(outs[-1].obs.sharding.device_set) == 2
    leaves = jax.tree.leaves(jax.device_get([out._asdict() for out in outs]))
    np.savez(folder / "sharded.npz", *leaves)
    """
)


@pytest.mark.slow
def test_sharded_over_two_cpu_devices_equals_unsharded(tmp_path):
    """Four worlds on two CPU devices (two on each) give the outputs one device gives for the
    same seed and actions. Two devices need a fresh process (XLA's host-device-count flag); the
    one-device reference runs here, so only the sharded programs compile there."""
    plain = play(seed=3, worlds=4)
    np.save(tmp_path / "actions.npy", np.stack([out["actions"] for out in plain[1:]]))
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    flags = os.environ.get("XLA_FLAGS", "") + " --xla_force_host_platform_device_count=2"
    env = dict(os.environ, XLA_FLAGS=flags.strip(), PYTHONPATH=root)
    done = subprocess.run(
        [sys.executable, "-c", SHARDED_SCRIPT, str(tmp_path)],
        cwd=root, env=env, capture_output=True, text=True, check=False,
    )  # fmt: skip
    assert done.returncode == 0, done.stderr[-3000:]
    outputs = [{k: v for k, v in out.items() if k not in ("actions", "score")} for out in plain]
    expected = jax.tree.leaves(outputs)
    with np.load(tmp_path / "sharded.npz") as sharded:
        assert len(sharded.files) == len(expected)
        for i, leaf in enumerate(expected):
            np.testing.assert_array_equal(sharded[f"arr_{i}"], leaf)


@pytest.mark.slow
def test_on_device_step_with_score_matches_the_runner(played):
    """``batch.step`` with ``info["score"]`` (as ``lax.scan`` loops call it) gives the runner's
    outputs, and on the calls where worlds end the score ``BatchRunner.scores()`` gave."""
    chunk, params = default_chunk(N), PARAMS.as_arrays()
    call = jax.jit(lambda b, a, p: core_batch.step(b, a, p, SMALL, chunk))
    batch, _ = core_batch.init(jax.numpy.asarray(seed_key(0)), N, params, SMALL)
    for t in range(1, CALLS + 1):
        batch, out = call(batch, played[t]["actions"], params)
        out = jax.device_get(out._asdict())
        np.testing.assert_allclose(out["obs"], played[t]["obs"], rtol=1e-6, atol=1e-6)
        for name in ("reward", "terminated", "truncated"):
            np.testing.assert_array_equal(out[name], played[t][name])
        for name in ("action_mask", "reset", "episode", "episode_return", "episode_length"):
            np.testing.assert_array_equal(out["info"][name], played[t]["info"][name])
        expected = played[t].get("score")
        for key, value in score_columns(out["info"]["score"], SMALL).items():
            want = np.zeros_like(value) if expected is None else expected[key]
            np.testing.assert_allclose(value, want, rtol=1e-6, atol=1e-6)
