"""The coordination drills (``alem_core.drills``, ``alem_core/drills/``): layouts, the rules they
exercise under the core's own step, and the faces they are reachable through.

One compiled reset and step per drill static (module-level jits, shared by the tests).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np
import pytest

import alem_core
from alem_core import Achievement, Action, Block, Inv
from alem_core.api import seed_key
from alem_core.batch import auto_reset as core_batch
from alem_core.constants import Facing
from alem_core.drills import drill_setup
from alem_core.drills.worlds import busy_players, chain_cells, drill_state, room_cells
from alem_core.observation.masking import acting, action_mask
from alem_core.params import StaticParams
from alem_core.rules.reward import reward_weights
from alem_core.rules.tables import ACHIEVEMENT_IS_COORD

RESET = jax.jit(alem_core.reset, static_argnums=2)
STEP = jax.jit(alem_core.step, static_argnums=4)
MASK = jax.jit(action_mask, static_argnums=2)
T1 = drill_setup("t1_sync", players=3, sync_agents=2)
WEIGHT = {
    name: float(reward_weights(None)[0][Achievement[name]]) for name in Achievement.__members__
}


def run(state, actions, setup, t=0):
    """One core step of ``setup``'s drill; (state, reward, info)."""
    static, params = setup
    key = jax.random.fold_in(jax.random.key(7), t)
    _, state, reward, _, _, info = STEP(key, state, jnp.asarray(actions, jnp.int32), params, static)
    return state, np.asarray(reward), info


def place(state, pos, facing):
    """The state with the team moved to ``pos`` facing ``facing`` (the world untouched)."""
    players = state.players.replace(
        pos=jnp.asarray(pos, jnp.int32), facing=jnp.asarray(facing, jnp.int32)
    )
    return state.replace(players=players)


def test_t1_layout_and_determinism():
    static, params = T1
    floor, inner = room_cells(static)
    seen = set()
    for seed in range(4):
        _, state = RESET(jax.random.key(seed), params, static)
        again = RESET(jax.random.key(seed), params, static)[1]
        for a, b in zip(jax.tree.leaves(state), jax.tree.leaves(again), strict=True):
            np.testing.assert_array_equal(np.asarray(a), np.asarray(b))
        block, coord = np.asarray(state.world.block), np.asarray(state.world.coord)
        stone = np.argwhere(block == Block.STONE)
        assert len(stone) == 1 and tuple(stone[0]) in set(map(tuple, inner))
        assert coord[tuple(stone[0])] == 2 and (coord != 0).sum() == 1
        assert not state.world.soft.any()
        expected = np.full(static.map_size, Block.WALL)
        expected[floor[:, 0], floor[:, 1]] = Block.PATH
        expected[tuple(stone[0])] = Block.STONE
        np.testing.assert_array_equal(block, expected)
        pos = np.asarray(state.players.pos)
        assert len(set(map(tuple, pos))) == 3
        assert (block[pos[:, 0], pos[:, 1]] == Block.PATH).all()
        inventory = np.asarray(state.players.inventory)
        assert (inventory[:, Inv.PICKAXE] == 1).all() and inventory.sum() == 3
        assert not state.mobs.melee.alive.size and not state.players.sleeping.any()
        seen.add((tuple(stone[0]), tuple(map(tuple, pos)), tuple(np.asarray(state.players.facing))))
    assert len(seen) == 4  # the key moves the block and the team


def _around_block(state):
    """Agents 0 and 1 west and east of the block facing it, agent 2 north of it facing it."""
    (r, c) = np.argwhere(np.asarray(state.world.block) == Block.STONE)[0]
    pos = [(r, c - 1), (r, c + 1), (r - 1, c)]
    return place(state, pos, [Facing.RIGHT, Facing.LEFT, Facing.DOWN]), (r, c)


def test_t1_sync_needs_m_agents_on_the_same_step():
    static, params = T1
    _, state = RESET(jax.random.key(3), params, static)
    state, cell = _around_block(state)
    alone, reward, _ = run(state, [Action.DO, Action.NOOP, Action.NOOP], T1)
    assert (reward == 0).all() and alone.world.block[cell] == Block.STONE
    # (Holding the pickaxe unlocks MAKE_WOOD_PICKAXE on the first step; the drill does not pay it.)
    assert not np.asarray(alone.players.achievements)[:, ACHIEVEMENT_IS_COORD].any()
    # One then the other, on different steps: still nothing.
    later, reward, _ = run(alone, [Action.NOOP, Action.DO, Action.NOOP], T1, t=1)
    assert (reward == 0).all() and later.world.block[cell] == Block.STONE
    both, reward, info = run(state, [Action.DO, Action.DO, Action.NOOP], T1)
    assert both.world.block[cell] == Block.PATH
    # Each co-miner unlocks the generic hard 2-agent achievement (plus COLLECT_STONE, which
    # this drill does not pay); the shared reward is the team's sum.
    np.testing.assert_allclose(reward, [2 * WEIGHT["COORD_2_AGENTS_HARD"]] * 3)
    got = np.asarray(both.players.achievements)
    assert (
        got[:2, Achievement.COORD_2_AGENTS_HARD].all() and got[:2, Achievement.COLLECT_STONE].all()
    )
    assert (np.asarray(both.players.inventory)[:2, Inv.STONE] == 3).all()  # k(k+1)/2 each
    assert float(np.asarray(info["reward_parts"]["health"]).sum()) == 0.0


def test_reward_weights_pay_only_the_named_achievements():
    full, health = reward_weights(StaticParams())
    assert health == 0.1 and full.sum() > 100
    static = T1[0]
    paid, health = reward_weights(static)
    assert health == 0.0
    assert np.flatnonzero(paid).tolist() == [Achievement.COORD_2_AGENTS_HARD]
    assert static.rewarded_achievements == ("COORD_2_AGENTS_HARD",)
    three = drill_setup("t1_sync", players=3, sync_agents=3)[0]
    assert three.rewarded_achievements == ("COORD_3_AGENTS_HARD",)


def test_acting_is_the_mask_rule():
    static, params = T1
    _, state = RESET(jax.random.key(0), params, static)
    players = state.players.replace(
        sleeping=jnp.array([True, False, False]),
        resting=jnp.array([False, True, False]),
    )
    state = state.replace(players=players)
    np.testing.assert_array_equal(np.asarray(acting(state)), [False, False, True])
    mask = np.asarray(MASK(state, params, static))
    assert (mask[:2].sum(axis=1) == 1).all() and mask[:2, Action.NOOP].all()
    assert mask[2].sum() > 1
    dead = state.replace(players=state.players.replace(alive=jnp.array([True, True, False])))
    assert not np.asarray(acting(dead)).any()


@pytest.mark.parametrize(
    ("kwargs", "named"),
    [
        ({"name": "t9_nothing"}, "t9_nothing"),
        ({"name": "t1_sync", "players": 3, "sync_agents": 4}, "sync_agents"),
        ({"name": "t1_sync", "players": 3, "sync_agents": 1}, "sync_agents"),
        ({"name": "t1_sync", "players": 3, "speed": 2}, "speed"),
        ({"name": "t1_sync", "players": 1}, "players"),
        ({"name": "t1_sync", "horizon": 0}, "horizon"),
    ],
)
def test_bad_setup_raises_naming_the_value(kwargs, named):
    with pytest.raises(ValueError, match=named):
        drill_setup(**kwargs)


def test_bad_static_raises_naming_the_value():
    with pytest.raises(ValueError, match="'t0_chaos'"):
        StaticParams(layout="t0_chaos")
    with pytest.raises(ValueError, match="'COORD_9_AGENTS'"):
        StaticParams(rewarded_achievements=("COORD_9_AGENTS",))
    with pytest.raises(ValueError, match="layout_knobs"):
        StaticParams(layout_knobs={"sync_agents": 2})
    with pytest.raises(ValueError, match="num_levels"):
        StaticParams(map_size=(12, 12), player_count=3, layout="t1_sync")
    # Knobs given as a mapping or partly default make the same static (one compile).
    a = StaticParams(map_size=(12, 12), num_levels=1, layout="t1_sync")
    b = StaticParams(
        map_size=(12, 12), num_levels=1, layout="t1_sync", layout_knobs={"sync_agents": 2}
    )
    assert a == b and hash(a) == hash(b)


@pytest.mark.slow  # ~60 s cold (the vmapped step compiles), ~10 s from the cache
def test_t1_through_the_batched_path():
    static, params = T1
    n = 3
    step = jax.jit(core_batch.step, static_argnums=(3, 4))
    batch, out = core_batch.init(
        jnp.asarray(seed_key(5)), n, params.replace(max_timesteps=2), static
    )
    assert out.obs.shape == (n, 3, alem_core.obs_size(static))
    for i in range(n):  # each slot's world is the drill's reset of that slot's episode key
        k_world, _ = jax.random.split(jax.random.fold_in(batch.slot_key[i], 0))
        single = RESET(k_world, params, static)[1]
        np.testing.assert_array_equal(batch.worlds.world.block[i], single.world.block)
        np.testing.assert_array_equal(batch.worlds.players.pos[i], single.players.pos)
    actions = jnp.zeros((n, 3), jnp.int32)
    for _ in range(3):  # the episode is truncated after 2 steps, and the slot resets
        batch, out = step(batch, actions, params.replace(max_timesteps=2), static, 1)
    assert out.info["reset"].all() and (np.asarray(out.reward) == 0).all()
    blocks = np.asarray(batch.worlds.world.block)
    assert ((blocks == Block.STONE).sum(axis=(1, 2)) == 1).all()


@pytest.mark.slow  # ~50 s cold (the env's packed step compiles), ~6 s from the cache
def test_t1_through_pettingzoo():
    from pettingzoo.test import parallel_api_test

    import alem_pz

    env = alem_pz.drill_env("t1_sync", players=3, horizon=8)
    assert env.static == T1[0]
    obs, infos = env.reset(seed=0)
    assert set(obs) == {"agent_0", "agent_1", "agent_2"}
    assert (np.asarray(env.core_state.world.block) == Block.STONE).sum() == 1
    rng = np.random.default_rng(0)
    steps = 0
    while env.agents:
        actions = {a: rng.choice(np.flatnonzero(infos[a]["action_mask"])) for a in env.agents}
        _, rewards, _, _, infos = env.step(actions)
        steps += 1
        assert all(r in (0.0, 10.0) for r in rewards.values())
    assert steps == 8
    parallel_api_test(alem_pz.drill_env("t1_sync", players=3, horizon=8), num_cycles=10)


T3 = drill_setup("t3_chain", players=3, window=8)
LINK = WEIGHT["HANDOVER_COMPLETE"] + WEIGHT["COORD_MINE_HANDOVER"]


def _sealed(block: np.ndarray, cell, only) -> bool:
    """Every neighbour of ``cell`` is WALL except ``only``."""
    r, c = cell
    others = [(r + dr, c + dc) for dr, dc in ((0, 1), (0, -1), (1, 0), (-1, 0))]
    return all(block[x] == Block.WALL for x in others if x != tuple(only))


@pytest.mark.parametrize("players", [3, 8])
def test_t3_layout(players):
    static, params = drill_setup("t3_chain", players=players)
    state = drill_state(jax.random.key(0), params, static)  # eager: no compile per size
    other = drill_state(jax.random.key(1), params, static)
    np.testing.assert_array_equal(state.world.block, other.world.block)  # nothing random
    block, coord = np.asarray(state.world.block), np.asarray(state.world.coord)
    cells = chain_cells(static)
    corridor, alcoves = cells["corridor"], cells["alcoves"]
    hand = [tuple(x) for x in corridor[1:]]
    assert [Block(block[h]) for h in hand] == [Block.STONE] * (players - 1)
    assert [int(coord[h]) for h in hand] == [-8] * (players - 1)
    assert (coord != 0).sum() == players - 1 and (block == Block.PATH).sum() == players
    pos, facing = np.asarray(state.players.pos), np.asarray(state.players.facing)
    np.testing.assert_array_equal(pos, np.concatenate([corridor[:1], alcoves]))
    assert _sealed(block, corridor[0], hand[0])
    for k in range(1, players):  # agent k faces H_k from its sealed alcove
        assert _sealed(block, pos[k], hand[k - 1])
        step = {Facing.DOWN: (1, 0), Facing.UP: (-1, 0)}[Facing(facing[k])]
        assert tuple(pos[k] + step) == hand[k - 1]
    assert facing[0] == Facing.RIGHT and tuple(pos[0] + (0, 1)) == hand[0]
    assert (np.asarray(state.players.inventory)[:, Inv.PICKAXE] == 1).all()


def test_t3_chain_of_three_handovers():
    static, params = T3
    _, state = RESET(jax.random.key(0), params, static)
    hand = [tuple(x) for x in chain_cells(static)["corridor"][1:]]
    noop, do = Action.NOOP, Action.DO
    script = [
        ([do, noop, noop], 0.0),  # agent 0 starts H_1
        ([noop, do, noop], LINK),  # agent 1 completes it from its alcove
        ([noop, Action.DOWN, noop], 0.0),  # steps into the corridor
        ([noop, Action.RIGHT, noop], 0.0),  # faces H_2 (solid: it stays)
        ([noop, do, noop], 0.0),  # starts H_2
        ([noop, noop, do], LINK),  # agent 2 completes it
    ]
    total = 0.0
    for t, (actions, paid) in enumerate(script):
        state, reward, _ = run(state, actions, T3, t)
        np.testing.assert_allclose(reward, [paid] * 3)
        total += reward[0]
        if t == 1:
            assert state.world.block[hand[0]] == Block.PATH
            assert state.world.block[hand[1]] == Block.STONE
    assert tuple(np.asarray(state.players.pos[1])) == hand[0]
    assert [int(state.world.block[h]) for h in hand] == [Block.PATH] * 2
    assert total == 2 * LINK


@pytest.mark.parametrize(("wait", "completes"), [(7, True), (8, False)])
def test_t3_completion_window(wait, completes):
    """Started at t, H_1 can be completed at t + 1 .. t + W (W = 8) and not later."""
    static, params = T3
    _, state = RESET(jax.random.key(0), params, static)
    hand = tuple(chain_cells(static)["corridor"][1])
    state, _, _ = run(state, [Action.DO, Action.NOOP, Action.NOOP], T3)
    for t in range(wait):
        state, _, _ = run(state, [Action.NOOP] * 3, T3, t + 1)
    state, reward, _ = run(state, [Action.NOOP, Action.DO, Action.NOOP], T3, wait + 1)
    assert (reward > 0).all() == completes and (reward == 0).all() != completes
    assert (state.world.block[hand] == Block.PATH) == completes


def test_t3_bad_knobs():
    with pytest.raises(ValueError, match="window"):
        drill_setup("t3_chain", players=3, window=0)
    with pytest.raises(ValueError, match="P = 9"):
        drill_setup("t3_chain", players=9)


T2 = drill_setup("t2_busy", players=4)


def test_t2_sleepers_wake_after_exactly_their_ticks():
    """``busy_players`` sets energy and fatigue so that the core's own wake rule ends the sleep
    after exactly the chosen number of steps; until then only NOOP is legal and nothing pays."""
    static, params = T2
    _, state = RESET(jax.random.key(0), params, static)
    ticks = np.array([1, 11, 12, 16])
    state = busy_players(state, jnp.array([True, True, True, False]), jnp.asarray(ticks), static)
    awake_at = np.full(4, -1)
    awake_at[3] = 0
    for t in range(17):
        mask = np.asarray(MASK(state, params, static))
        now = np.asarray(acting(state))
        np.testing.assert_array_equal(mask.sum(axis=1) > 1, now)  # acting == the mask rule
        assert mask[~now, Action.NOOP].all()
        awake_at[(awake_at < 0) & now] = t
        state, reward, info = run(state, [Action.DO] * 4, T2, t)
        assert (reward == 0).all()  # waking up (WAKE_UP) does not pay in the drill
        np.testing.assert_array_equal(np.asarray(info["action_mask"]).sum(1) > 1, acting(state))
    np.testing.assert_array_equal(awake_at[:3], ticks[:3])
    assert np.asarray(state.players.achievements)[:3, Achievement.WAKE_UP].all()


def test_t2_reset_puts_some_agents_to_sleep():
    static, params = T2
    asleep = []
    for seed in range(6):
        _, state = RESET(jax.random.key(seed), params, static)
        sleeping = np.asarray(state.players.sleeping)
        asleep.append(sleeping)
        energy = np.asarray(state.players.energy)
        assert (energy[~sleeping] == 9).all() and (energy[sleeping] >= 9 - 2).all()
        assert (np.asarray(state.world.block) == Block.STONE).sum() == 1
    asleep = np.array(asleep)
    assert 0 < asleep.mean() < 1  # busy_prob 0.5: some asleep, some awake


def test_t2_bad_knobs():
    with pytest.raises(ValueError, match="busy_prob"):
        drill_setup("t2_busy", busy_prob=1.5)
    with pytest.raises(ValueError, match="max_busy"):
        drill_setup("t2_busy", max_busy=40)  # more than horizon // 2 = 32
    with pytest.raises(ValueError, match="max_busy"):
        drill_setup("t2_busy", max_busy=0)


def test_t1_room_and_start_adjacent_knobs():
    static, params = drill_setup("t1_sync", players=3, room=5, start_adjacent=1)
    floor, inner = room_cells(static, 5)
    assert len(floor) == 25 and len(inner) == 9
    for seed in range(3):
        _, state = RESET(jax.random.key(seed), params, static)
        block = np.asarray(state.world.block)
        assert (block == Block.PATH).sum() == 24  # the 5 x 5 floor less the stone
        stone = np.argwhere(block == Block.STONE)[0]
        pos = np.asarray(state.players.pos)
        assert len(set(map(tuple, pos))) == 3
        assert (np.abs(pos - stone).sum(axis=1) == 1).all()  # every agent beside the block


@pytest.mark.parametrize(
    "knobs, message",
    [
        ({"room": 4}, "room must be odd"),
        ({"room": 11}, r"room must be an int in \[3, 9\]"),
        ({"start_adjacent": 2}, r"start_adjacent must be an int in \[0, 1\]"),
    ],
)
def test_t1_bad_room_knobs_are_named(knobs, message):
    with pytest.raises(ValueError, match=message):
        drill_setup("t1_sync", players=2, **knobs)


def test_start_adjacent_needs_at_most_four_agents():
    with pytest.raises(ValueError, match="start_adjacent needs P <= 4, got 5"):
        drill_setup("t2_busy", players=5, start_adjacent=1)
