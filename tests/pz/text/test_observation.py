"""The text observation on hand-built states (no compile) and through ``obs_type="text"``."""

from __future__ import annotations

import dataclasses

import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
import alem_pz
from alem_core.constants import Action, MobClass
from alem_core.testing import hand_built_state, with_inventory
from alem_pz.envs.observers import SymbolicObserver
from alem_pz.text import view
from alem_pz.text.observation import Context, Feedback, TextConfig, long_term, short_term
from alem_pz.text.wording import LocationStyle, relative

from ..conftest import SMALL

MAP = [
    "................",
    "................",
    "....T...........",
    "......~~~.......",
    "......~~~.......",
    "......~~~.......",
    "........#.......",
    "................",
]
PARAMS = alem_core.make_params("easy")


def _state(**kw):
    positions = kw.pop("positions", [(6, 5), (6, 6), (14, 14)])
    return hand_built_state(MAP, SMALL, PARAMS, positions=positions, facing=[2, 3, 3], **kw)


def _text(state, agent=0, feedback=None, config=None, mask=None):
    ctx = Context(agent, PARAMS, SMALL, feedback, 0, config or TextConfig())
    s = view.snapshot(state)
    return long_term(s, ctx), short_term(s, ctx, mask)


def test_wording():
    style = LocationStyle()
    assert relative(-2, 3, style) == "2 steps north and 3 steps east"
    assert relative(1, 0, style) == "1 step south"
    assert relative(-2, 3, LocationStyle(precise=False)) == "5 steps north-east"
    assert relative(-2, 0, LocationStyle(egocentric=True), facing=4) == "2 steps behind"
    assert relative(0, 1, LocationStyle(egocentric=True), facing=2) == "1 step ahead"


def test_active_sections_and_filters():
    state = with_inventory(_state(), 0, wood=3, pickaxe=1)
    long, short = _text(state)
    lines = long.split("\n")
    assert "Position: (x=5, y=6)" in lines and "Role: warrior" in lines
    assert "Location: Overworld (surface)" in lines
    assert "- tree 4 steps north and 1 step west (x=4, y=2)" in lines
    # water: only the edge of the region, nearest instance only
    assert sum(line.startswith("- water") for line in lines) == 1
    assert not any(line.startswith("- grass") for line in lines)
    assert "Facing: east." in lines and " Do target: Agent 1 (on grass) (x=6, y=6)." in lines
    assert "Agent 1 (forager): 1 step east (x=6, y=6), health=9" in lines
    assert "Agent 2 (miner): off-screen south-east (x=14, y=14), health=9" in lines
    assert "- wood: 3" in short and "- pickaxe: wood" in short


def test_darkness_hides_cells():
    state = _state()
    light = state.world.light.at[2, 4].set(0)
    state = dataclasses.replace(state, world=dataclasses.replace(state.world, light=light))
    long, _ = _text(state)
    assert "tree" not in long


def test_feedback_and_affordances():
    mask = np.zeros(SMALL.num_actions, np.int8)
    mask[[Action.NOOP, Action.DO, 54, 55]] = 1
    fb = Feedback("Place Table", False, 1.5, (0,), ("Your last reply was empty.",))
    long, short = _text(_state(), agent=1, feedback=fb, mask=mask)
    lines = long.split("\n")
    assert lines[0] == "Your last reply was empty."
    assert "Last action: Place Table (had no effect — not currently available)" in lines
    assert "Reward: +1.500" in lines and "Achievements unlocked: Collect Wood" in lines
    assert short.endswith(" - Noop\n - Do\n - Give to Agent 0\n - Give to Agent 2")


def test_coordination_cues_read_the_task_maps():
    state = _state()
    world = state.world
    coord = world.coord.at[6, 8].set(2).at[2, 4].set(-7)
    state = dataclasses.replace(state, world=dataclasses.replace(world, coord=coord))
    long, _ = _text(state)
    assert "Coordination:" in long
    assert "- stone 3 steps east (x=8, y=6): needs 2 agents to select Do on it at once" in long
    assert "another agent completes it within 7 steps" in long
    state = dataclasses.replace(
        state, world=dataclasses.replace(state.world, coord=coord.at[6, 8].set(3))
    )
    assert "needs 3 agents" in _text(state)[0]  # the value, not the wording, changes


def test_creatures_and_elite_tags():
    state = _state()
    melee = state.mobs.melee
    melee = dataclasses.replace(
        melee,
        alive=melee.alive.at[0].set(True),
        pos=melee.pos.at[0].set(jnp.array([4, 3])),
        elite=melee.elite.at[0].set(True),
        hard=melee.hard.at[0].set(True),
        health=melee.health.at[0].set(3.25),
    )
    state = dataclasses.replace(state, mobs=dataclasses.replace(state.mobs, melee=melee))
    long, _ = _text(state)
    assert (
        "- zombie 2 steps north and 2 steps west (x=3, y=4) [elite — must be fought together]"
        in long
    )
    assert "3.25" not in long  # mob health is not in the symbolic observation either
    plain, _ = _text(state, config=TextConfig(collaborative=False))
    assert "elite" not in plain and "Coordination:" not in plain
    assert view.entities(view.snapshot(state), MobClass.MELEE)[0].kind == 0


def test_inactive_agents_get_the_compressed_form():
    state = _state()
    players = dataclasses.replace(
        state.players,
        alive=state.players.alive.at[2].set(False),
        sleeping=state.players.sleeping.at[1].set(True),
    )
    state = dataclasses.replace(state, players=players)
    sleeper, short = _text(state, agent=1)
    assert "Condition: sleeping" in sleeper and "You see" not in sleeper
    assert "Level info" not in sleeper and "Teammates:" in sleeper and "Your status:" in short
    assert "Agent 2 is dead." in _text(state, agent=0)[0]
    assert "Condition: dead" in _text(state, agent=2)[0]


def test_ascii_map_option():
    long, _ = _text(_state(), config=TextConfig(ascii_map=True))
    lines = long.split("\n")
    start = lines.index("  " + " " * 10 + "N")
    grid = lines[start + 1 : start + 10]
    assert grid[4][2 + 2 * 5] == "@" and grid[4][2 + 2 * 6] == "1"
    assert "@=you" in grid[0] and "(Do target: Agent 1 (on grass))" in long
    assert "You see:" not in long


@pytest.fixture(scope="module")
def text_env():
    env = alem_pz.parallel_env(
        players=3, static=SMALL, obs_type="text", difficulty="easy", max_steps=30
    )
    yield env
    env.close()


def test_text_env_space_mask_and_same_world(text_env):
    obs, infos = text_env.reset(seed=9999)
    state = view.snapshot(text_env.core_state)
    for i, agent in enumerate(text_env.agents):
        assert text_env.observation_space(agent).contains(obs[agent])
        assert infos[agent]["action_mask"].shape == (SMALL.num_actions,)
        me = view.player(state, i)
        assert f"Position: (x={me.col}, y={me.row})" in obs[agent]
    obs2, *_, infos2 = text_env.step(dict.fromkeys(text_env.agents, int(Action.PLACE_TABLE)))
    assert "Last action: Place Table (had no effect" in obs2["agent_0"]
    assert infos2["agent_0"]["text"]["long"] in obs2["agent_0"]


def test_rl_parity_nothing_beyond_the_symbolic_observation():
    state = _state()
    shots = state.mobs.mob_projectiles
    shots = dataclasses.replace(
        shots,
        alive=shots.alive.at[0].set(True),
        pos=shots.pos.at[0].set(jnp.array([6, 8])),
        direction=shots.direction.at[0].set(jnp.array([0, -1])),
    )
    players = dataclasses.replace(
        state.players,
        request=state.players.request.at[1].set(2),
        request_timer=state.players.request_timer.at[1].set(7),
    )
    handovers = dataclasses.replace(
        state.handovers,
        open=state.handovers.open.at[0].set(True),
        pos=state.handovers.pos.at[0].set(jnp.array([2, 4])),
        deadline=state.handovers.deadline.at[0].set(9),
        initiator=state.handovers.initiator.at[0].set(1),
    )
    state = dataclasses.replace(
        state,
        players=players,
        handovers=handovers,
        mobs=dataclasses.replace(state.mobs, mob_projectiles=shots),
    )
    long, _ = _text(state)
    assert "Incoming projectiles:\n- arrow 3 steps east (x=8, y=6)" in long
    assert "moving" not in long and "west" not in long.split("Incoming projectiles:")[1][:40]
    assert "  -> Requesting wood" in long and "7" not in long.split("Requesting wood")[1][:20]
    assert "Active handover" in long and "within 9 steps" in long  # the timer channel shows it
    assert "Agent 1 started" not in long and "initiat" not in long
    assert "kill" not in long.split("Level info:")[1].split("\n\n")[0].replace("kill more", "")


def test_symbolic_env_builds_no_text():
    env = alem_pz.parallel_env(players=3, static=SMALL, difficulty="easy", max_steps=5)
    obs, infos = env.reset(seed=9999)
    obs, *_, infos = env.step(dict.fromkeys(env.agents, 0))
    assert isinstance(env.observer, SymbolicObserver) and "text" not in infos["agent_0"]
    assert isinstance(obs["agent_0"], np.ndarray)
    env.close()
