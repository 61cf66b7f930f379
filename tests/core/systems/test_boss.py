"""The boss floor (docs/rules/mobs.md#behaviour, docs/rules/survival.md#needs-and-regeneration,
docs/rules/interactions.md#the-do-action, docs/rules/rewards.md#termination-and-truncation,
docs/rules/observations.md#symbolic-observation) on hand-built graveyards.

Tiny worlds (16 x 16, nine floors: the boss is on floor 8) with the team put straight onto
the boss floor's hot maps; one test steps the default world through the whole pipeline.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core.constants import Achievement, Action, Block
from alem_core.observation.vector import floor_info
from alem_core.params import Params, StaticParams
from alem_core.pipeline import step_draws
from alem_core.pixels import pixel_observation
from alem_core.pixels.view import shown_blocks
from alem_core.rules.boss_tables import BOSS_FLOOR, BOSS_WAVE_TIMER
from alem_core.rules.tables import FLOOR_MELEE_TYPE, FLOOR_RANGED_TYPE
from alem_core.scoring.score import score
from alem_core.systems.boss import (
    boss_bookkeeping,
    boss_vulnerable,
    hit_boss,
    wave_in_progress,
)
from alem_core.systems.intrinsics import update_intrinsics
from alem_core.systems.spawning import spawn_mobs
from alem_core.testing import hand_built_state, small
from alem_core.testing.rollout import compiled

A = Achievement
STATIC = small(num_levels=9)
PARAMS = Params()
UP = 3
NECROMANCERS = [(5, 5), (5, 7)]
BESIDE = [(6, 5), (6, 7), (12, 12)]
"""Players 0 and 1 stand below a necromancer block (facing up it), player 2 far away."""
NEAR_GRAVES = [(3, 3), (2, 5), (8, 9), (12, 14)]
"""Grave tiles within Euclidean distance 6 of an alive player (the first three: of player 0 or
1; the last: of player 2)."""
FAR_GRAVES = [(0, 15), (15, 0)]
"""Grave tiles farther than 6 from every player."""


def boss_state(
    progress: int = 0,
    timer: int = 0,
    positions=BESIDE,
    graves=(),
    static: StaticParams = STATIC,
    necromancers=NECROMANCERS,
):
    """The team on the boss floor (all PATH, necromancer blocks, graves), facing up, no mobs."""
    state = hand_built_state([], static, positions=positions, facing=[UP] * 3)
    block = np.full(static.map_size, Block.PATH, np.int32)
    for r, c in necromancers:
        block[r, c] = Block.NECROMANCER
    for i, (r, c) in enumerate(graves):
        block[r, c] = (Block.GRAVE, Block.GRAVE2, Block.GRAVE3)[i % 3]
    world = state.world.replace(
        block=jnp.asarray(block, state.world.block.dtype),
        floor=jnp.int32(BOSS_FLOOR),
        deepest=jnp.int32(BOSS_FLOOR),
        boss_progress=jnp.int32(progress),
        boss_timer=jnp.int32(timer),
    )
    return state.replace(world=world)


def with_mob(state, mob_class: str, cell=(10, 2)):
    """One live mob of ``mob_class`` in slot 0 of the boss floor (the team's floor)."""
    ents = getattr(state.mobs, mob_class)
    ents = ents.replace(
        alive=ents.alive.at[0].set(True),
        pos=ents.pos.at[0].set(jnp.asarray(cell)),
        health=ents.health.at[0].set(5.0),
    )
    return state.replace(mobs=state.mobs.replace(**{mob_class: ents}))


def do(*acts):
    return jnp.asarray(acts, jnp.int32)


DO, NOOP = Action.DO, Action.NOOP


def achieved(state, ach) -> list[bool]:
    return np.asarray(state.players.achievements[:, ach]).tolist()


def test_timer_counts_down_on_the_boss_floor_only():
    state = boss_state(timer=BOSS_WAVE_TIMER)
    for expected in (6, 5, 4, 3, 2, 1, 0, -1):
        state = boss_bookkeeping(state, None, None, None, None)
        assert int(state.world.boss_timer) == expected
    overworld = hand_built_state([], STATIC)
    assert int(overworld.world.boss_timer) == BOSS_WAVE_TIMER == 7
    assert int(overworld.world.boss_progress) == 0
    assert int(boss_bookkeeping(overworld, None, None, None, None).world.boss_timer) == 7


def test_vulnerable_only_without_hostile_mobs_and_with_the_timer_run_out():
    assert bool(boss_vulnerable(boss_state(timer=0)))
    assert bool(boss_vulnerable(boss_state(timer=-3)))
    assert not bool(boss_vulnerable(boss_state(timer=1)))
    assert not bool(boss_vulnerable(with_mob(boss_state(timer=0), "melee")))
    assert not bool(boss_vulnerable(with_mob(boss_state(timer=0), "ranged")))
    assert bool(boss_vulnerable(with_mob(boss_state(timer=0), "passive")))  # passive don't guard
    elsewhere = boss_state(timer=0).world.replace(floor=jnp.int32(7))
    assert not bool(boss_vulnerable(boss_state(timer=0).replace(world=elsewhere)))
    # The observation's floor info reads the same test.
    assert float(floor_info(boss_state(timer=0), STATIC)[3]) == 1.0
    assert float(floor_info(boss_state(timer=2), STATIC)[3]) == 0.0


@pytest.mark.parametrize("guard", ["timer", "melee", "ranged"])
def test_do_on_the_invulnerable_boss_does_nothing(guard):
    state = boss_state(progress=3, timer=2 if guard == "timer" else 0)
    if guard != "timer":
        state = with_mob(state, guard)
    out = hit_boss(state, do(DO, DO, DO), STATIC)
    assert int(out.world.boss_progress) == 3
    assert int(out.world.boss_timer) == int(state.world.boss_timer)
    assert not any(achieved(out, A.DAMAGE_NECROMANCER))


def test_several_hitters_advance_progress_once_and_all_get_damage_necromancer():
    out = hit_boss(boss_state(progress=2, timer=-1), do(DO, DO, DO), STATIC)
    assert int(out.world.boss_progress) == 3
    assert int(out.world.boss_timer) == BOSS_WAVE_TIMER
    # Player 2 does Do too, but faces plain path.
    assert achieved(out, A.DAMAGE_NECROMANCER) == [True, True, False]
    one = hit_boss(boss_state(progress=2, timer=0), do(NOOP, DO, NOOP), STATIC)
    assert int(one.world.boss_progress) == 3
    assert achieved(one, A.DAMAGE_NECROMANCER) == [False, True, False]


def test_dead_players_and_other_actions_do_not_hit():
    state = boss_state(timer=0)
    players = state.players.replace(alive=jnp.array([False, True, True]))
    out = hit_boss(state.replace(players=players), do(DO, NOOP, DO), STATIC)
    assert int(out.world.boss_progress) == 0
    assert not any(achieved(out, A.DAMAGE_NECROMANCER))


def test_eighth_hit_defeats_the_boss_for_everyone():
    state = boss_state(progress=7, timer=0)
    players = state.players.replace(alive=jnp.array([True, True, False]))  # a dead one too
    out = boss_bookkeeping(
        hit_boss(state.replace(players=players), do(DO, NOOP, NOOP), STATIC), None, None, None, None
    )
    assert int(out.world.boss_progress) == 8
    assert achieved(out, A.DEFEAT_NECROMANCER) == [True, True, True]
    assert achieved(out, A.DAMAGE_NECROMANCER) == [True, False, False]
    not_yet = boss_bookkeeping(
        hit_boss(boss_state(progress=6, timer=0), do(DO, DO, DO), STATIC), None, None, None, None
    )
    assert not any(achieved(not_yet, A.DEFEAT_NECROMANCER))


def test_defeat_ends_the_episode_as_a_win_through_the_pipeline():
    # The default world (48 x 48, nine floors), so this shares its step compile with
    # test_default_world.py.
    static, params = alem_core.StaticParams(), alem_core.make_params("medium")
    beside = [(20, 24), (24, 30), (30, 30)]
    state = boss_state(7, 0, beside, static=static, necromancers=[(19, 24), (23, 30)])
    _, step = compiled(static)
    actions = do(DO, DO, NOOP)
    _, out, reward, terminated, truncated, info = step(jax.random.key(0), state, actions, params)
    assert bool(info["won"]) and np.asarray(terminated).all() and not np.asarray(truncated).any()
    assert int(out.world.boss_progress) == 8
    assert achieved(out, A.DEFEAT_NECROMANCER) == [True, True, True]
    assert achieved(out, A.DAMAGE_NECROMANCER) == [True, True, False]
    # DAMAGE and DEFEAT (8 each) for the hitters, DEFEAT alone for the third; no health change.
    own = np.array([16.0, 16.0, 8.0])
    expected = np.full(3, own.sum()) if bool(params.shared_reward) else own
    np.testing.assert_allclose(reward, expected)
    final = score(out, static, info["won"])
    assert float(final["Progression/won"][0]) == 1.0
    assert float(final["Progression/boss_progress"][0]) == 8.0
    # One hit short: the fight goes on, and the hit starts the next wave.
    short = boss_state(5, 0, beside, static=static, necromancers=[(19, 24)])
    _, on, _, terminated, _, info = step(jax.random.key(0), short, actions, params)
    assert not bool(info["won"]) and not np.asarray(terminated).any()
    assert int(on.world.boss_progress) == 6 and int(on.world.boss_timer) == BOSS_WAVE_TIMER - 1
    assert float(score(on, static)["Progression/won"][0]) == 0.0


@pytest.fixture(scope="module")
def spawn():
    return jax.jit(
        lambda k, s, p, st: spawn_mobs(s, None, step_draws(k, st), p, st), static_argnums=3
    )


def live_cells(state, mob_class: str) -> list[tuple[int, int]]:
    ents = getattr(state.mobs, mob_class)
    alive = np.asarray(ents.alive)
    return [tuple(map(int, cell)) for cell in np.asarray(ents.pos)[alive]]


@pytest.mark.parametrize("progress", [0, 5, 7])
def test_a_wave_spawns_its_types_on_graves_near_players(spawn, progress):
    state = boss_state(progress=progress, timer=6, graves=NEAR_GRAVES + FAR_GRAVES)
    assert bool(wave_in_progress(state))
    spawned = {"melee": set(), "ranged": set()}
    for i in range(2):  # certain spawns: one per class per step, on distinct graves
        state = spawn(jax.random.key(i), state, PARAMS, STATIC)
        for name in spawned:
            assert len(live_cells(state, name)) == i + 1
    for name, types in (("melee", FLOOR_MELEE_TYPE), ("ranged", FLOOR_RANGED_TYPE)):
        cells = live_cells(state, name)
        assert set(cells) <= set(NEAR_GRAVES)
        ents = getattr(state.mobs, name)
        kinds = np.asarray(ents.kind)[np.asarray(ents.alive)]
        assert (kinds == types[progress]).all()
    assert not np.asarray(state.mobs.passive.alive).any()


def test_no_spawns_outside_a_wave_nor_on_plain_ground(spawn):
    quiet = boss_state(timer=0, graves=NEAR_GRAVES)  # the wave is over
    assert not bool(wave_in_progress(quiet))
    no_graves = boss_state(timer=7)  # a wave, but nowhere to come from
    won = boss_state(progress=8, timer=7, graves=NEAR_GRAVES)  # the boss is down
    for state in (quiet, no_graves, won):
        for i in range(20):
            state = spawn(jax.random.key(i), state, PARAMS, STATIC)
        for name in ("melee", "passive", "ranged"):
            assert not np.asarray(getattr(state.mobs, name).alive).any(), name


def test_needs_do_not_decay_on_the_boss_floor():
    state = boss_state()
    players = state.players.replace(food=jnp.array([9, 0, 9]), drink=jnp.array([9, 9, 0]))
    state = state.replace(players=players)
    intrinsics = jax.jit(lambda s, p, st: update_intrinsics(s, None, None, p, st), static_argnums=2)
    for _ in range(40):
        state = intrinsics(state, PARAMS, STATIC)
    np.testing.assert_array_equal(state.players.food, [9, 0, 9])
    np.testing.assert_array_equal(state.players.drink, [9, 9, 0])
    np.testing.assert_array_equal(state.players.energy, [9, 9, 9])
    # Unmet needs cost no health there (player 0, needs met, heals as anywhere).
    np.testing.assert_array_equal(state.players.health[1:], [9.0, 9.0])
    # Off the boss floor the same 40 steps cost food and drink.
    overworld = state.replace(world=state.world.replace(floor=jnp.int32(0)))
    for _ in range(40):
        overworld = intrinsics(overworld, PARAMS, STATIC)
    assert int(overworld.players.food[0]) < 9 and int(overworld.players.drink[0]) < 9


def test_pixels_draw_the_render_only_vulnerable_variant():
    blocks = jnp.array([Block.NECROMANCER, Block.PATH, Block.GRAVE], jnp.int32)
    drawn = shown_blocks(blocks, jnp.bool_(True))
    assert drawn.tolist() == [Block.NECROMANCER_VULNERABLE, Block.PATH, Block.GRAVE]
    assert shown_blocks(blocks, jnp.bool_(False)).tolist() == blocks.tolist()


@pytest.mark.slow  # compiles the renderer for a nine-floor world
def test_the_vulnerable_boss_looks_different_in_pixels_only_where_it_stands():
    render = jax.jit(pixel_observation, static_argnums=(2, 3))
    guarded = np.asarray(render(boss_state(timer=1), None, STATIC, 10))
    open_ = np.asarray(render(boss_state(timer=0), None, STATIC, 10))
    changed = np.argwhere((guarded != open_).any(axis=-1))  # (agent, row, col)
    assert len(changed) > 0
    # Agent 2 (at (12, 12)) sees neither necromancer; the others see both, above them.
    assert set(changed[:, 0].tolist()) == {0, 1}
