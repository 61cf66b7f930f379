"""Writes into small tables (per-agent columns, per-floor rows) as elementwise selects.

Why not ``x.at[:, column].max(flag)``: in the batched step every such indexed update becomes a
scatter, and XLA:CPU compiles each scatter into a kernel of its own, apart from its neighbours.
The first step's compile time grows with the number of kernels (each is an LLVM module), and so
does the step's run time at small batches (each kernel is one dispatch). A compare-and-select
over a few dozen columns fuses with the code around it, so these helpers cost nothing at run
time and one kernel less each. They compute exactly what the indexed update computed.
"""

from __future__ import annotations

from collections.abc import Iterable

import jax
import jax.numpy as jnp


def one_hot_columns(table: jax.Array, column: jax.Array | int) -> jax.Array:
    """(C,) bool True at ``column`` of ``table``'s last axis, or (P, C) for one column per row
    when ``column`` is (P,); static or traced."""
    return jnp.arange(table.shape[-1]) == jnp.asarray(column)[..., None]


def raise_flags(table: jax.Array, column: jax.Array | int, flags: jax.Array) -> jax.Array:
    """``table`` (P, C) bool with ``flags`` (P,) or one flag for all rows or-ed into one column
    (``.at[:, c].max``)."""
    return table | (jnp.expand_dims(flags, -1) & one_hot_columns(table, column))


def add_to_column(table: jax.Array, column: jax.Array | int, amounts: jax.Array) -> jax.Array:
    """``table`` (P, C) with ``amounts`` (P,) added to one column, or to each row's own column
    when ``column`` is (P,) (``.at[rows, column].add``)."""
    hot = one_hot_columns(table, column)
    return table + jnp.where(hot, amounts[:, None], 0).astype(table.dtype)


def set_column(table: jax.Array, column: jax.Array | int, values: jax.Array) -> jax.Array:
    """``table`` (P, C) with one column set to ``values`` (P,), or each row's own column when
    ``column`` is (P,) (``.at[rows, column].set``; a column outside the table writes nothing,
    as ``mode="drop"``)."""
    hot = one_hot_columns(table, column)
    return jnp.where(hot, jnp.asarray(values)[:, None].astype(table.dtype), table)


def add_at(vector: jax.Array, index: jax.Array | int, amount: jax.Array) -> jax.Array:
    """``vector`` (L,) with ``amount`` added at ``index`` (``.at[index].add``)."""
    return vector + jnp.where(jnp.arange(vector.shape[0]) == index, amount, 0).astype(vector.dtype)


def set_row(table: jax.Array, row: jax.Array | int, values: jax.Array) -> jax.Array:
    """``table`` (R, ...) with row ``row`` set to ``values`` (...) (``.at[row].set``); e.g. one
    floor's entry of a per-floor table, with the floor a traced index."""
    hot = (jnp.arange(table.shape[0]) == row).reshape((-1,) + (1,) * (table.ndim - 1))
    return jnp.where(hot, values[None].astype(table.dtype), table)


def take_row(table: jax.Array, row: jax.Array | int) -> jax.Array:
    """``table[row]`` (the rest of the shape) for a traced ``row``, as a chain of selects over
    the leading axis; a row outside the table reads row 0.

    For per-floor values read at the team's floor (a kill count, a floor's spawn chances): under
    ``vmap`` ``table[row]`` is a gather, a kernel of its own, whereas the selects fuse into their
    reader. Not for arrays many fusions read (the entity slots, when they were (L, S)): XLA copies
    the chain into each of them, and the compile time grows with the fusions (the mob update
    compiled in 5.0 s with it, 3.0 s with the gather; bench/records/HISTORY.md, "A leaner step").
    Exact for every dtype.
    """
    table = jnp.asarray(table)
    out = table[0]
    for r in range(1, table.shape[0]):
        out = jnp.where(row == r, table[r], out)
    return out


def spread(columns: Iterable[int], values: jax.Array) -> dict[int, jax.Array]:
    """{column: values[:, i]} for the static ``columns`` (k,) and ``values`` (P, k)."""
    return {int(c): values[:, i] for i, c in enumerate(columns)}


def column_table(rows: int, width: int, columns: dict) -> jax.Array:
    """(rows, width) bool assembled column by column in one stack: ``columns`` maps a static
    column index to a (rows,) bool array or a Python bool; missing columns are False. Later
    entries of the dict replace earlier ones, as successive ``.at[:, c].set`` would."""
    blank = jnp.zeros(rows, bool)
    filled = [
        jnp.broadcast_to(jnp.asarray(columns.get(c, blank), bool), (rows,)) for c in range(width)
    ]
    return jnp.stack(filled, axis=1)
