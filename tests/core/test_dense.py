"""The dense writes compute exactly what the indexed updates they replace compute."""

import jax.numpy as jnp
import numpy as np

from alem_core.dense import add_at, add_to_column, column_table, raise_flags, set_column, set_row


def test_dense_writes_match_indexed_updates():
    rng = np.random.default_rng(0)
    flags = jnp.asarray(rng.random((3, 7)) < 0.5)
    raise_by = jnp.asarray([True, False, True])
    assert (raise_flags(flags, 4, raise_by) == flags.at[:, 4].max(raise_by)).all()
    assert (raise_flags(flags, 2, jnp.asarray(True)) == flags.at[:, 2].max(True)).all()
    table = jnp.asarray(rng.integers(-5, 5, (3, 7)), jnp.int32)
    amounts = jnp.asarray([2, -1, 3], jnp.int32)
    per_row = jnp.asarray([0, 6, 3])
    assert (add_to_column(table, 5, amounts) == table.at[:, 5].add(amounts)).all()
    assert (
        add_to_column(table, per_row, amounts) == table.at[jnp.arange(3), per_row].add(amounts)
    ).all()
    assert (set_column(table, 1, amounts) == table.at[:, 1].set(amounts)).all()
    dropped = jnp.asarray([0, 7, 3])  # 7 is past the table: written nowhere, as mode="drop"
    expected = table.at[jnp.arange(3), dropped].set(amounts, mode="drop")
    assert (set_column(table, dropped, amounts) == expected).all()
    stack = jnp.asarray(rng.random((9, 4, 2)), jnp.float32)
    assert (set_row(stack, jnp.asarray(5), stack[0]) == stack.at[5].set(stack[0])).all()
    kills = jnp.zeros(9, jnp.int32)
    assert (add_at(kills, jnp.asarray(8), 3) == kills.at[8].add(3)).all()
    later_wins = column_table(3, 4, {1: True, 2: raise_by, 3: raise_by})
    assert (
        later_wins == jnp.zeros((3, 4), bool).at[:, 1].set(True).at[:, 2:].set(raise_by[:, None])
    ).all()
