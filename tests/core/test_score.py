"""The score (docs/rules/score.md, docs/evaluation.md#metrics) on hand-made final states.

Every expected fraction is worked out by hand from the tables of
docs/rules/achievements.md#every-achievement (weights 1/3/5/8, 376 = 217 normal + 159 coordination)
rather than read back from ``score_tables``.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

from alem_core.constants import Achievement
from alem_core.params import StaticParams
from alem_core.scoring.score import HEADLINE_KEYS, score, score_keys
from alem_core.systems.lifecycle import ALIVE, MOB_COMBAT, STARVATION
from alem_core.testing import SMALL, hand_built_state, small

A = Achievement

FULL = small(num_levels=2)  # counts like 9 floors
DEBUG = SMALL
SOLO = small(num_levels=2, player_count=1)


def _state(static: StaticParams, unlocks: dict[int, list[int]]):
    """A step-0 state where agent k has unlocked exactly ``unlocks[k]``."""
    state = hand_built_state(["."], static)
    achievements = np.zeros((static.player_count, 93), bool)
    for agent, ids in unlocks.items():
        achievements[agent, ids] = True
    players = state.players.replace(achievements=jnp.asarray(achievements))
    return state.replace(players=players)


def _scalar(values: dict, key: str) -> float:
    row = np.asarray(values[key])
    assert np.allclose(row, row[0]), f"{key} should be broadcast, got {row}"
    return float(row[0])


def test_team_counts_each_achievement_once_with_its_weight():
    # Wood (basic, 1) by two agents counts once; COORD_2_AGENTS_HARD is sync-hard, weight 5.
    state = _state(FULL, {0: [A.COLLECT_WOOD], 1: [A.COORD_2_AGENTS_HARD], 2: [A.COLLECT_WOOD]})
    out = score(state, FULL)
    expected = {
        "Team/achievement_pct": 2 / 93,
        "Team/normal_achievement_pct": 1 / 66,
        "Team/coordination_achievement_pct": 1 / 27,
        "Team/total_achievements": 2,
        "Team/normal_achievements": 1,
        "Team/coordination_achievements": 1,
        "Team/reward_pct_of_max": 6 / 376,
        "Team/normal_reward_pct_of_max": 1 / 217,
        "Team/coord_reward_pct_of_max": 5 / 159,
        "Team/sync_hard_coordination_achievement_pct": 1 / 14,
        # sync-hard weights: 5 + 8 (2/3 agents) + 3+3+5+5+8+8 (mining) + 8+8 (elites)
        # + 3 (large passive) + 8+8+8 (diamond crafts) = 88
        "Team/sync_hard_coord_reward_pct_of_max": 5 / 88,
        "Team/hard_coordination_achievement_pct": 1 / 19,
        "Team/soft_coordination_achievement_pct": 0.0,
        "Team/handover_coord_reward_pct_of_max": 0.0,
        "Team/construction_coordination_achievements": 0.0,
    }
    for key, value in expected.items():
        assert _scalar(out, key) == pytest.approx(value, rel=1e-6), key


def test_per_agent_analogues_and_per_agent_achievement_rows():
    state = _state(FULL, {0: [A.COLLECT_WOOD], 1: [A.COORD_BUILD_FORGE, A.HANDOVER_COMPLETE]})
    out = score(state, FULL)
    assert _scalar(out, "Agent0/achievement_pct") == pytest.approx(1 / 93)
    assert _scalar(out, "Agent0/reward_pct_of_max") == pytest.approx(1 / 376)
    assert _scalar(out, "Agent1/coordination_achievement_pct") == pytest.approx(2 / 27)
    assert _scalar(out, "Agent1/coord_reward_pct_of_max") == pytest.approx(13 / 159)
    assert _scalar(out, "Agent1/construction_coord_reward_pct_of_max") == pytest.approx(8 / 21)
    assert _scalar(out, "Agent1/handover_coordination_achievement_pct") == pytest.approx(1 / 2)
    assert _scalar(out, "Agent2/total_achievements") == 0
    np.testing.assert_array_equal(out["Achievements/COLLECT_WOOD"], [100, 0, 0])
    np.testing.assert_array_equal(out["Achievements/COORD_BUILD_FORGE"], [0, 100, 0])


def test_one_agent_drops_coordination_from_every_denominator():
    state = _state(SOLO, {0: [A.COLLECT_WOOD, A.COORD_2_AGENTS_HARD, A.COLLECT_RUBY]})
    out = score(state, SOLO)
    assert _scalar(out, "Team/achievement_pct") == pytest.approx(2 / 66)
    assert _scalar(out, "Team/reward_pct_of_max") == pytest.approx(4 / 217)
    assert _scalar(out, "Team/normal_reward_pct_of_max") == pytest.approx(4 / 217)
    assert _scalar(out, "Team/coordination_achievement_pct") == 0.0
    assert _scalar(out, "Team/coord_reward_pct_of_max") == 0.0
    assert _scalar(out, "Team/total_achievements") == 2


def test_the_benchmark_world_counts_all_93_achievements():
    # The default shapes (nine floors, P = 3): every achievement is eligible, 376 reward points.
    default = StaticParams()
    assert default.num_levels == 9 and default.player_count == 3
    # Wood is basic (1), sapphire intermediate (3), the boss very advanced (8).
    state = _state(default, {0: [A.COLLECT_WOOD, A.DEFEAT_NECROMANCER, A.COLLECT_SAPPHIRE]})
    out = score(state, default)
    assert _scalar(out, "Team/achievement_pct") == pytest.approx(3 / 93)
    assert _scalar(out, "Team/reward_pct_of_max") == pytest.approx((1 + 8 + 3) / 376)
    assert _scalar(out, "Team/normal_reward_pct_of_max") == pytest.approx((1 + 8 + 3) / 217)
    solo = StaticParams(player_count=1)
    out = score(_state(solo, {0: [A.DEFEAT_NECROMANCER, A.COORD_2_AGENTS_HARD]}), solo)
    assert _scalar(out, "Team/achievement_pct") == pytest.approx(1 / 66)
    assert _scalar(out, "Team/reward_pct_of_max") == pytest.approx(8 / 217)


def test_overworld_only_world_counts_57_achievements():
    # Sapphire needs a deeper floor; the 30 normal overworld ones weigh 26 x 1 + 4 x 3 = 38.
    unlocks = {0: [A.COLLECT_WOOD, A.COLLECT_SAPPHIRE], 2: [A.COORD_BUILD_SHELTER]}
    out = score(_state(DEBUG, unlocks), DEBUG)
    assert _scalar(out, "Team/achievement_pct") == pytest.approx(2 / 57)
    assert _scalar(out, "Team/normal_achievement_pct") == pytest.approx(1 / 30)
    assert _scalar(out, "Team/reward_pct_of_max") == pytest.approx(6 / (38 + 159))
    assert _scalar(out, "Team/normal_reward_pct_of_max") == pytest.approx(1 / 38)
    assert _scalar(out, "Team/coord_reward_pct_of_max") == pytest.approx(5 / 159)
    diamond = _state(DEBUG, {1: [A.MAKE_DIAMOND_PICKAXE]})
    assert _scalar(score(diamond, DEBUG), "Team/achievement_pct") == pytest.approx(1 / 57)


def test_role_aligned_and_cross_role_counts():
    # Agent 0 warrior, 1 forager, 2 miner (docs/rules/roles.md).
    unlocks = {
        0: [A.MAKE_STONE_SWORD, A.COLLECT_DRINK, A.COLLECT_WOOD],  # aligned, cross, shared
        1: [A.EAT_COW],  # aligned
        2: [A.MAKE_WOOD_PICKAXE, A.MAKE_ARROW],  # aligned, cross
    }
    out = score(_state(FULL, unlocks), FULL)
    assert _scalar(out, "Agent0/role_aligned_achievements") == 1
    assert _scalar(out, "Agent0/cross_role_achievements") == 1
    assert _scalar(out, "Agent0/forager_aligned_achievements") == 1
    assert _scalar(out, "Agent2/warrior_aligned_achievements") == 1
    assert _scalar(out, "Team/specialization_ratio") == pytest.approx(3 / 5)


def test_cooperation_progression_deaths_and_agent_fields():
    state = _state(FULL, {1: [A.ENTER_DUNGEON]})
    stats = state.stats.replace(
        trades=jnp.array([2, 1, 0], jnp.int32),
        food_trades=jnp.array([1, 0, 0], jnp.int32),
        give_attempts=jnp.array([4, 1, 0], jnp.int32),
        actionable_steps=jnp.array([100, 50, 50], jnp.int32),
        monsters_killed=jnp.array([0, 3, 0], jnp.int32),
    )
    players = state.players.replace(
        death_cause=jnp.array([ALIVE, STARVATION, MOB_COMBAT], jnp.int32),
        death_floor=jnp.array([-1, 1, 0], jnp.int32),
        alive=jnp.array([True, False, False]),
        inventory=state.players.inventory.at[0, 0].set(7),
    )
    world = state.world.replace(kills=jnp.array([13, 2], jnp.int32))
    out = score(state.replace(stats=stats, players=players, world=world), FULL)
    assert _scalar(out, "Cooperation/trade_count") == 3
    assert _scalar(out, "Cooperation/resource_trades") == 2
    assert _scalar(out, "Cooperation/give_success_rate") == pytest.approx(3 / 5)
    assert _scalar(out, "Cooperation/trades_per_100_steps") == pytest.approx(1.5)
    assert _scalar(out, "Progression/total_monsters_killed") == 5  # 13 + 2 - the initial 10
    assert _scalar(out, "Progression/current_level_monsters_killed") == 3  # on the overworld
    assert _scalar(out, "Progression/max_level_reached") == 1
    assert _scalar(out, "Progression/player_level") == 0
    assert _scalar(out, "Deaths/total_deaths") == 2
    assert _scalar(out, "Deaths/starvation_count") == 1
    assert _scalar(out, "Deaths/mob_combat_count") == 1
    assert _scalar(out, "Agent2/died_from_mob_combat") == 1
    assert _scalar(out, "Agent1/died_from_starvation") == 1
    assert _scalar(out, "Agent1/level_at_death") == 1
    assert _scalar(out, "Agent2/level_at_death") == 0
    assert _scalar(out, "Agent0/level_at_death") == -1  # alive
    assert _scalar(out, "Progression/won") == 0
    assert _scalar(out, "Agent1/alive") == 0
    assert _scalar(out, "Agent0/inventory_wood") == 7
    assert _scalar(out, "Agent1/monsters_killed") == 3
    assert _scalar(out, "Agent0/give_success_rate") == pytest.approx(0.5)


def test_not_done_zeroes_every_value():
    state = _state(FULL, {0: [A.COLLECT_WOOD, A.COORD_BUILD_BEACON]})
    state = state.replace(alpha=jnp.float32(0.6))
    done = score(state, FULL, done=True)
    not_done = score(state, FULL, done=False)
    assert _scalar(done, "Coordination/sampled_alpha") == pytest.approx(0.6)
    assert all(not np.any(np.asarray(v)) for v in not_done.values())


def test_jit_equals_eager_and_vmap_batches():
    rng = np.random.default_rng(0)
    state = _state(FULL, {k: list(np.flatnonzero(rng.random(93) < 0.3)) for k in range(3)})
    eager = score(state, FULL)
    jitted = jax.jit(score, static_argnums=1)(state, FULL, jnp.bool_(True))
    assert set(jitted) == set(eager) == set(score_keys(FULL))
    for key in eager:
        np.testing.assert_allclose(jitted[key], eager[key], rtol=1e-6, err_msg=key)
    batch = jax.tree.map(lambda x: jnp.stack([x, x]), state)
    batched = jax.vmap(lambda s: score(s, FULL))(batch)
    np.testing.assert_allclose(batched["Team/achievement_pct"][1], eager["Team/achievement_pct"])
    assert set(HEADLINE_KEYS) <= set(eager)


def test_coordination_counters_and_the_overall_success_rate():
    state = _state(FULL, {})
    c = state.coordination.bump(
        sync_attempts=4,
        sync_successes=3,
        soft_sync_events=2,
        soft_bonus_events=1,
        handover_successes=2,
        handover_expiries=1,
        build_sync_attempts=2,
        build_sync_successes=1,
        elite_attempts=jnp.array([1, 0, 1]),
        elite_successes=jnp.array([1, 0, 0]),
        craft_attempts=1,
        craft_successes=1,
        builds=jnp.array([0, 1, 0]),
    )
    handovers = state.handovers.replace(
        open=state.handovers.open.at[:2].set(True), kind=state.handovers.kind.at[1].set(2)
    )
    out = score(state.replace(coordination=c, handovers=handovers), FULL)
    # successes 3 + 2 + 1 + 1 + 1 = 8 over attempts 4 + (2 + 1 resolved) + 2 + 2 + 1 = 12
    assert _scalar(out, "Coordination/coordination_success_rate") == pytest.approx(8 / 12)
    assert _scalar(out, "Coordination/mining_handover_success_rate") == pytest.approx(2 / 3)
    assert _scalar(out, "Coordination/sync_success_rate") == pytest.approx(3 / 4)
    assert _scalar(out, "Coordination/elite_success_rate") == pytest.approx(1 / 2)
    assert _scalar(out, "Coordination/builds_forge") == 1
    assert _scalar(out, "Coordination/mining_open_handovers") == 1
    assert _scalar(out, "Coordination/construction_open_handovers") == 1
    assert _scalar(out, "Team/soft_coordination_bonus_rate") == pytest.approx(1 / 2)
