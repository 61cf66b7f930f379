"""The paper's recurrent presets: one update, bit-exact resume, the memory rule, the policy file."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_train import policy_file, recurrent
from alem_train.models import Recurrent
from alem_train.ppo import init_train_state, make_train_call, rollout
from alem_train.presets import PRESETS, preset_config
from tests.train.ppo_world import TINY, reloaded
from tests.train.ppo_world import same as _same

# The paper's network at toy widths on the tests' small world: every preset setting but the sizes.
SMALL = {**TINY, "hidden": 16, "gru_size": 8, "head": 16}


@pytest.fixture(scope="module")
def paper_ippo():
    config = preset_config("paper-ippo", **SMALL)
    return config, make_train_call(config)


def test_preset_update_runs_and_resume_is_bit_exact(paper_ippo, tmp_path):
    config, call = paper_ippo
    assert config.network == "gru" and config.learning_rate == 2e-4 and config.gae_lambda == 0.8
    first, metrics = call(init_train_state(jax.random.key(3), config))
    assert np.isfinite(np.asarray(metrics["actor_loss"])).all()
    assert float(metrics["episodes"].sum()) > 0  # worlds ended and reset inside the rollouts
    loaded = reloaded(first, config, tmp_path / "state.npz")
    live, _ = call(first)
    resumed, _ = call(loaded)
    assert _same(live.params, resumed.params) and _same(live.memory, resumed.memory)


def test_learning_replays_the_rollout_from_its_first_memory(paper_ippo):
    """The learner's sequences, replayed from the rollout's first memory with the keep rule,
    give back the rollout's own log-probabilities and values, across resets and deaths."""
    config, _ = paper_ippo
    roll = jax.jit(lambda s: rollout(s, config))
    state, _, _ = roll(init_train_state(jax.random.key(5), config))  # steps 0-7: memory built
    new, traj, _ = roll(state)  # steps 8-15: the episodes of 12 steps end and restart
    assert bool((traj.end & traj.valid).any())  # some chain ended inside the rollout
    keep = traj.valid & ~traj.end
    logits, values = Recurrent.unroll(state.params, state.memory, traj.obs, traj.mask, keep, False)
    logp = jnp.take_along_axis(jax.nn.log_softmax(logits), traj.action[..., None], -1)[..., 0]
    np.testing.assert_allclose(logp, traj.logp, atol=1e-5)
    np.testing.assert_allclose(values, traj.value, atol=1e-5)
    ended = np.asarray(~keep[-1])
    assert not np.asarray(new.memory["actor"])[ended].any()  # no memory past an end or a death


@pytest.mark.parametrize("central", [False, True])
def test_step_by_step_equals_the_sequence(central):
    """One step at a time with the keep rule (the rollout) equals one unroll (the learner), for
    IPPO's shared trunk and MAPPO's separate critic."""
    params = recurrent.init_actor_critic(jax.random.key(0), 6, 3, 5, (4, 8, 4), central)
    rng = np.random.default_rng(0)
    obs = jnp.asarray(rng.normal(size=(7, 2, 3, 6)), jnp.float32)
    mask = jnp.asarray(rng.random((7, 2, 3, 5)) < 0.7).at[..., 0].set(True)
    keep = jnp.asarray(rng.random((7, 2, 3)) < 0.7)
    memory = Recurrent.memory(params, (2, 3))
    assert set(memory) == ({"actor", "critic"} if central else {"actor"})
    whole = Recurrent.unroll(params, memory, obs, mask, keep, central)
    steps = []
    for t in range(7):
        logits, value, out = Recurrent.step(params, memory, obs[t], mask[t], central)
        memory = recurrent.carry(out, keep[t])
        steps.append((logits, value))
    for got, want in zip(zip(*steps, strict=True), whole, strict=True):
        np.testing.assert_allclose(jnp.stack(got), want, atol=1e-5)


def test_recurrent_policy_file_plays_as_trained(tmp_path):
    """``policy.npz`` of a recurrent actor loads through the evaluation loader; its memory goes
    on between steps, is zeroed by ``reset`` and stays zero for a dead agent."""
    from alem_pz.evaluation.policies import load_policy

    players, size, actions = 3, 9718, 56
    params = recurrent.init_actor_critic(
        jax.random.key(1), size, players, actions, (8, 4, 8), False
    )
    policy_file.save_policy(tmp_path / "policy.npz", params["actor"], players)
    loaded, _ = policy_file.load_actor(tmp_path / "policy.npz")
    assert _same(loaded, params["actor"])
    policy = load_policy(str(tmp_path / "policy.npz"))
    assert policy.batched and policy.wants_infos
    rng = np.random.default_rng(2)
    obs = rng.random((5, players, size)).astype(np.float32)
    masks = np.ones((5, players, actions), np.int8)
    alive = np.ones((5, players), bool)
    alive[2, 1] = False  # agent 1 dead at step 2, alive again after

    def play() -> list[list[int]]:
        policy.reset(9999)
        infos = [[{"alive": bool(a)} for a in row] for row in alive]
        return [policy(obs[t], masks[t], infos[t]).tolist() for t in range(5)]

    first = play()
    assert play() == first  # reset zeroes the memory and reseeds the draws
    keep = jnp.asarray(alive)[:, None]
    h0 = recurrent.initial_memory(params, (1, players))["actor"]
    logits, _ = recurrent.actor_logits(params["actor"], h0, obs[:, None], masks[:, None] > 0, keep)
    greedy = policy_file.load_policy(tmp_path / "policy.npz", greedy=True)
    greedy.reset(0)
    infos = [[{"alive": bool(a)} for a in row] for row in alive]
    got = [greedy(obs[t], masks[t], infos[t]).tolist() for t in range(5)]
    assert got[:2] == np.asarray(logits[:2, 0].argmax(-1)).tolist()
    # Step 3 follows a death: its memory starts at zero, as the keep rule makes it in training.
    assert got[3:] == np.asarray(logits[3:, 0].argmax(-1)).tolist()


def test_run_ppo_takes_a_preset_and_overrides_it(tmp_path):
    from alem_train import run_ppo

    argv = ["--preset", "paper-mappo", "--num-worlds", "64", "--out", str(tmp_path)]
    config, _ = run_ppo.parse_args(argv)
    assert config.algo == "mappo" and config.network == "gru" and config.num_worlds == 64
    assert config.max_grad_norm == PRESETS["paper-mappo"]["max_grad_norm"] == 1.0
    with pytest.raises(SystemExit):
        run_ppo.parse_args(["--preset", "paper-qmix", "--out", str(tmp_path)])
    with pytest.raises(SystemExit):  # a usage error naming the value, not a traceback
        run_ppo.parse_args(["--preset", "paper-ippo", "--network", "lstm", "--out", "x"])
    with pytest.raises(ValueError, match="no field 'hiden'"):
        preset_config("paper-ippo", hiden=3)


def test_run_ppo_help_says_what_each_flag_sets_and_the_presets_value(capsys):
    import dataclasses

    from alem_train import run_ppo
    from alem_train.ppo import PPOConfig

    with pytest.raises(SystemExit):
        run_ppo.parse_args(["--preset", "paper-ippo", "--help"])
    text = " ".join(capsys.readouterr().out.split())  # argparse wraps at the terminal's width
    for field in dataclasses.fields(PPOConfig):
        flag = "--" + field.name.replace("_", "-")
        assert f"{flag} {field.name.upper()} {field.metadata['help']} (default:" in text
    assert "Adam's step size (default: 0.0002)" in text  # the preset's, not PPOConfig's 3e-4


def test_a_play_seat_plays_a_recurrent_policy_file(tmp_path):
    """``alem-play --ai PATH/policy.npz`` (and the browser's AI seats, the same session): legal
    actions, and the same actions again for the same seed (memory and draws reset per episode)."""
    import alem_core
    from alem_core.testing import SMALL
    from alem_pz.play.session import PlaySession, SessionConfig

    size = alem_core.obs_size(SMALL)
    params = recurrent.init_actor_critic(
        jax.random.key(2), size, SMALL.player_count, SMALL.num_actions, (8, 4, 8), False
    )
    policy_file.save_policy(tmp_path / "policy.npz", params["actor"], SMALL.player_count)
    config = SessionConfig(humans=(), ai=str(tmp_path / "policy.npz"), seed=4, static=SMALL,
                           max_steps=20)  # fmt: skip

    def play() -> list[dict[int, int]]:
        session, chosen = PlaySession(config), []
        for _ in range(6):
            masks = [session.current.infos[f"agent_{i}"]["action_mask"] for i in range(3)]
            actions = session.ask(range(3))
            assert all(masks[i][a] for i, a in actions.items())
            chosen.append(actions)
            session.step(actions)
        return chosen

    assert play() == play()


def test_a_team_policy_hears_every_step_of_a_play_session():
    """The session asks a team (batched) policy each step, even when none of its seats can act,
    so a recurrent memory moves on as it did in training; one-agent policies only when asked."""
    from alem_core.testing import SMALL
    from alem_pz.play.session import PlaySession, SessionConfig

    calls = []

    def team(observations, masks):
        calls.append(len(observations))
        return np.zeros(len(observations), int)

    team.batched = True
    session = PlaySession(SessionConfig(humans=(), ai="random", seed=1, static=SMALL))
    session.policies = dict.fromkeys(range(3), team)
    assert session.ask([]) == {} and calls == [3]
    assert session.ask([0, 2]) == {0: 0, 2: 0} and calls == [3, 3]
