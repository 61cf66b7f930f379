"""The PPO trainer tests' one small run, and how they compare trees of arrays."""

from __future__ import annotations

import jax
import jax.numpy as jnp
import numpy as np

# test_tensorboard passes the same run as run_ppo's flags: one compiled train call for both.
TINY = dict(map_size=16, num_levels=1, num_worlds=4, num_steps=8, updates_per_call=2,
            hidden=16, num_minibatches=2, update_epochs=1, max_steps=12, difficulty="easy",
            total_env_steps=256)  # fmt: skip


def _host(x) -> np.ndarray:
    if jnp.issubdtype(x.dtype, jax.dtypes.prng_key):
        x = jax.random.key_data(x)
    return np.asarray(jax.device_get(x))


def same(a, b) -> bool:
    """Every leaf of ``a`` and ``b`` bit-equal (typed PRNG keys by their key data)."""
    pairs = zip(jax.tree.leaves(a), jax.tree.leaves(b), strict=True)
    return all(np.array_equal(_host(x), _host(y)) for x, y in pairs)


def reloaded(state, config, path):
    """``state`` saved to ``path`` and loaded back into a fresh state's structure, as a resumed
    run loads it."""
    from alem_train import checkpoint
    from alem_train.ppo import init_train_state

    checkpoint.save_tree(path, state)
    return checkpoint.load_tree(path, init_train_state(jax.random.key(0), config))
