"""``check_core_api``: the conformance check of the functional API, for anyone who changes the
params or adds a system (jit, vmap and eager agree, no retracing, shapes and dtypes hold)."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

from alem_core import api
from alem_core.constants import Action
from alem_core.observation.masking import action_mask
from alem_core.observation.vector import obs_size
from alem_core.params import Params, StaticParams
from alem_core.testing.rollout import random_legal_actions


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
    traces = []

    def traced_step(key, state, actions, params):
        traces.append(None)  # runs once per trace, never per call
        return api.step(key, state, actions, params, static)

    reset = jax.jit(lambda key, params: api.reset(key, params, static))
    step = jax.jit(traced_step)
    key = jax.random.key(seed)
    obs, state = reset(key, params)
    if eager_steps > 0:
        with jax.disable_jit():
            eager = api.reset(key, params, static)
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
                eager_out = api.step(k_step, eager_state, actions, params, static)
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
