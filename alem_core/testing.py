"""Hand-built states for tests and notebooks: draw a map in ASCII, place the team, go.

Legend: ``.`` grass, ``~`` water, ``#`` stone, ``T`` tree, ``c`` coal, ``i`` iron, ``d`` diamond,
``t`` crafting table, ``f`` furnace, ``s`` sand, ``p`` path, ``L`` lava, ``P`` plant,
``R`` ripe plant, ``S`` sapphire, ``r`` ruby, ``W`` wall, ``C`` chest, ``E`` fire enchantment
table, ``I`` ice enchantment table. Cells outside the drawing are grass.
"""

from __future__ import annotations

import dataclasses
from collections.abc import Sequence

import jax
import jax.numpy as jnp
import numpy as np

from alem_core.constants import Action, Block
from alem_core.initial import initial_state
from alem_core.observation import obs_size
from alem_core.params import Params, StaticParams
from alem_core.state import FloorMaps, State, World, to_light

LEGEND = {
    ".": Block.GRASS,
    "~": Block.WATER,
    "#": Block.STONE,
    "T": Block.TREE,
    "c": Block.COAL,
    "i": Block.IRON,
    "d": Block.DIAMOND,
    "t": Block.CRAFTING_TABLE,
    "f": Block.FURNACE,
    "s": Block.SAND,
    "p": Block.PATH,
    "L": Block.LAVA,
    "P": Block.PLANT,
    "R": Block.RIPE_PLANT,
    "S": Block.SAPPHIRE,
    "r": Block.RUBY,
    "W": Block.WALL,
    "C": Block.CHEST,
    "E": Block.ENCHANTMENT_TABLE_FIRE,
    "I": Block.ENCHANTMENT_TABLE_ICE,
}


def ascii_blocks(rows: Sequence[str], static: StaticParams) -> np.ndarray:
    """(H, W) int32 block map from an ASCII drawing placed at the top-left corner."""
    blocks = np.full(static.map_size, Block.GRASS, np.int32)
    for r, line in enumerate(rows):
        for c, char in enumerate(line):
            blocks[r, c] = LEGEND[char]
    return blocks


def hand_built_state(
    rows: Sequence[str],
    static: StaticParams,
    params: Params | None = None,
    positions: Sequence[tuple[int, int]] | None = None,
    facing: Sequence[int] | None = None,
) -> State:
    """A step-0 state on floor 0 of a hand-drawn map, daylight, no mobs.

    Args:
        rows: the ASCII map (see module docstring).
        static: shapes; ``static.map_size`` must cover the drawing.
        params: gameplay params (defaults: ``Params()``).
        positions: (row, col) per player; defaults to the normal spawn cells.
        facing: facing code per player (1 left, 2 right, 3 up, 4 down); default up.
    """
    params = Params() if params is None else params
    levels = static.num_levels
    block = np.full((levels, *static.map_size), Block.WALL, np.int32)
    block[0] = ascii_blocks(rows, static)
    shape = (levels, *static.map_size)
    floors = FloorMaps(
        block=jnp.asarray(block),
        item=jnp.zeros(shape, jnp.int32),
        light=to_light(jnp.ones(shape, jnp.float32)),
        coord=jnp.zeros(shape, jnp.int32),
        soft=jnp.zeros(shape, bool),
    )
    world = World.on_floor(
        floors,
        0,
        ladders=jnp.zeros((levels, 2, static.player_count, 2), jnp.int32),
        kills=jnp.zeros((levels,), jnp.int32).at[0].set(10),
        daylight=jnp.ones((), jnp.float32),
        potion_effect=jnp.arange(6, dtype=jnp.int32),
    )
    state = initial_state(world, None, params, static, jnp.float32(0.0))
    players = state.players
    if positions is not None:
        players = dataclasses.replace(players, pos=jnp.asarray(positions, jnp.int32))
    if facing is not None:
        players = dataclasses.replace(players, facing=jnp.asarray(facing, jnp.int32))
    return dataclasses.replace(state, players=players)


def with_inventory(state: State, agent: int, **counts: int) -> State:
    """Set inventory columns of one agent by ``Inv`` name, e.g. ``with_inventory(s, 0, wood=3)``."""
    from alem_core.constants import Inv

    inventory = state.players.inventory
    for name, value in counts.items():
        inventory = inventory.at[agent, Inv[name.upper()]].set(value)
    return dataclasses.replace(
        state, players=dataclasses.replace(state.players, inventory=inventory)
    )


def _assert_trees_close(a: object, b: object, what: str) -> None:
    for x, y in zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True):
        if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
            x, y = jax.random.key_data(x), jax.random.key_data(y)
        np.testing.assert_allclose(np.asarray(x), np.asarray(y), rtol=1e-5, atol=1e-5, err_msg=what)


def _assert_signature(out: tuple, static: StaticParams) -> None:
    """The arrays ``step`` returns have the shapes and dtypes the spaces declare."""
    obs, _, reward, terminated, truncated, info = out
    p, a = static.player_count, static.num_actions
    assert obs.shape == (p, obs_size(static)) and obs.dtype == jnp.float32, obs.shape
    assert reward.shape == (p,) and reward.dtype == jnp.float32, "reward"
    assert terminated.shape == truncated.shape == (p,), "terminated / truncated shape"
    assert terminated.dtype == truncated.dtype == jnp.bool_, "terminated / truncated dtype"
    mask = info["action_mask"]
    assert mask.shape == (p, a) and mask.dtype == jnp.bool_, "action mask"


def check_core_api(
    static: StaticParams, params: Params, steps: int = 20, seed: int = 0, eager_steps: int = 2
) -> None:
    """Check the functional API on ``static`` and ``params``; raise AssertionError on a break.

    For anyone who changes params or adds a system: jit, vmap and eager agree (eager for the
    reset and the first ``eager_steps`` steps; 0 skips the eager runs, which compile every
    primitive one by one: about 85 s of the check's time on a 2-core CPU); ``step`` traces
    once however the state, actions and param values change; over ``steps`` masked random
    steps every leaf keeps its shape and dtype and stays finite; the arrays match the spaces
    (observation (P, D) float32, mask (P, A)).
    """
    from alem_core.api import reset as core_reset
    from alem_core.api import step as core_step
    from alem_core.masking import action_mask
    from alem_core.rollout import random_legal_actions

    traces = []

    def traced_step(key, state, actions, params):
        traces.append(None)  # runs once per trace, never per call
        return core_step(key, state, actions, params, static)

    reset = jax.jit(lambda key, params: core_reset(key, params, static))
    step = jax.jit(traced_step)
    key = jax.random.key(seed)
    obs, state = reset(key, params)
    if eager_steps > 0:
        with jax.disable_jit():
            eager = core_reset(key, params, static)
        _assert_trees_close((obs, state), eager, "reset: jit != eager")
        eager_state = eager[1]
    signature = jax.tree.map(lambda x: (x.shape, x.dtype), state)
    for t in range(steps):
        k_act, k_step = jax.random.split(jax.random.fold_in(key, t))
        actions = random_legal_actions(k_act, action_mask(state, params, static))
        out = step(k_step, state, actions, params)
        _assert_signature(out, static)
        if t < eager_steps:
            with jax.disable_jit():
                eager_out = core_step(k_step, eager_state, actions, params, static)
            _assert_trees_close(out, eager_out, f"step {t}: jit != eager")
            eager_state = eager_out[1]
        state = out[1]
        assert jax.tree.map(lambda x: (x.shape, x.dtype), state) == signature, f"step {t}"
        for leaf in jax.tree.leaves(state):
            if jnp.issubdtype(leaf.dtype, jnp.floating):
                assert np.isfinite(np.asarray(leaf)).all(), f"step {t}: non-finite leaf"
    other = params.replace(friendly_fire=not bool(params.friendly_fire))
    step(key, state, jnp.zeros(static.player_count, jnp.int32), other)
    assert len(traces) == 1, f"step traced {len(traces)} times"
    _check_vmap(reset, step, params, static, seed)


def _check_vmap(reset, step, params: Params, static: StaticParams, seed: int) -> None:
    """Two worlds stepped by one vmapped call equal the same worlds stepped one by one."""
    keys = jax.random.split(jax.random.key(seed + 1), 2)
    batch_obs, batch_states = jax.vmap(lambda k: reset(k, params))(keys)
    actions = jnp.full((2, static.player_count), int(Action.DO), jnp.int32)
    step_keys = jax.random.split(jax.random.key(seed + 2), 2)
    batch_out = jax.vmap(lambda k, s, a: step(k, s, a, params))(step_keys, batch_states, actions)
    for i in range(2):
        single = reset(keys[i], params)
        _assert_trees_close(
            single, jax.tree.map(lambda x, i=i: x[i], (batch_obs, batch_states)), "vmap reset"
        )
        out = step(step_keys[i], single[1], actions[i], params)
        _assert_trees_close(out, jax.tree.map(lambda x, i=i: x[i], batch_out), "vmap step")
