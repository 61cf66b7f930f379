"""Mobs and projectiles: the current floor's slots as records, every floor's as packed rows.

Only the team's floor is simulated, so the step reads and writes one floor's slots (``Mobs``,
(S, ...) per field, ``State.mobs``) and never indexes a floor: under ``vmap`` a read at
``[floor]`` is a gather kernel, a write a scatter, and the step paid one per field and system.
The other floors wait in ``MobStack`` (``State.mob_floors``): each floor's fields flattened and
concatenated into one row per dtype, so a floor change writes and reads three rows
(``change_floor``) instead of fifty fields; it still selects each of the fifty hot fields
(about 50 of the step's kernels at N = 64: bench/records/HISTORY.md).
"""

from __future__ import annotations

from dataclasses import dataclass

import jax
import jax.numpy as jnp

from alem_core.state.base import Record


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Entities(Record):
    """One class of mob or projectile: ``S`` slots of one floor (a leading (L,) axis where a
    ``Mobs`` holds every floor, as ``State.all_mobs`` returns)."""

    pos: jax.Array
    """(S, 2) int32 (row, col)."""
    alive: jax.Array
    """(S,) bool slot in use."""
    health: jax.Array
    """(S,) float32 (mobs only)."""
    kind: jax.Array
    """(S,) int32 type id 0-7 (mob type or projectile id)."""
    cooldown: jax.Array
    """(S,) int32 attack cooldown (melee, ranged)."""
    direction: jax.Array
    """(S, 2) int32 unit step (projectiles)."""
    owner: jax.Array
    """(S,) int32 shooter index (player projectiles), -1 otherwise."""
    elite: jax.Array
    """(S,) bool slot pre-rolled elite (hostile) or large (passive) at reset."""
    hard: jax.Array
    """(S,) bool elite/large slot is hard (else soft)."""
    required: jax.Array
    """(S,) int32 attackers required for an elite/large slot (0 for normal slots)."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Mobs(Record):
    """All entity classes, in the order of ``MobClass``."""

    melee: Entities
    passive: Entities
    ranged: Entities
    mob_projectiles: Entities
    player_projectiles: Entities

    def on_floor(self, floor: int | jax.Array) -> Mobs:
        """One floor's slots (S, ...) of every floor's (L, S, ...)."""
        return jax.tree.map(lambda leaf: leaf[floor], self)


ROW_DTYPES: dict[str, jnp.dtype] = {"ints": jnp.int32, "floats": jnp.float32, "flags": jnp.bool_}
"""A ``MobStack`` row per dtype: every ``Entities`` field is int32, float32 or bool."""


def _row_of(leaf: jax.Array) -> str:
    for name, dtype in ROW_DTYPES.items():
        if leaf.dtype == dtype:
            return name
    raise TypeError(f"an entity field of dtype {leaf.dtype}: a MobStack row holds {ROW_DTYPES}")


def pack(mobs: Mobs, lead: tuple[int, ...] = ()) -> dict[str, jax.Array]:
    """``mobs``' fields (``lead`` + (S, ...)) as one row per dtype, ``lead`` + (K,): each field
    flattened, in tree order."""
    rows: dict[str, list[jax.Array]] = {name: [] for name in ROW_DTYPES}
    for leaf in jax.tree.leaves(mobs):
        rows[_row_of(leaf)].append(leaf.reshape((*lead, -1)))
    return {
        name: jnp.concatenate(parts, axis=-1) if parts else jnp.zeros((*lead, 0), ROW_DTYPES[name])
        for name, parts in rows.items()
    }


def unpack(rows: dict[str, jax.Array], like: Mobs) -> Mobs:
    """The inverse of ``pack``: ``rows`` (lead + (K,)) cut into fields shaped as ``like``'s
    (S, ...), with the rows' leading axes in front."""
    start = dict.fromkeys(ROW_DTYPES, 0)
    leaves, tree = jax.tree.flatten(like)
    out = []
    for leaf in leaves:
        name = _row_of(leaf)
        row = rows[name]
        out.append(
            row[..., start[name] : start[name] + leaf.size].reshape(row.shape[:-1] + leaf.shape)
        )
        start[name] += leaf.size
    for name, row in rows.items():
        if start[name] != row.shape[-1]:  # slots of another shape would be read silently wrong
            raise ValueError(
                f"{name}: the fields take {start[name]} values, the row has {row.shape[-1]}"
            )
    return jax.tree.unflatten(tree, out)


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class MobStack(Record):
    """Every floor's entities, (L, K) per dtype (``pack``); the team's floor's row is stale
    while the team is on it (``State.mobs`` is the truth) and written back when it leaves."""

    ints: jax.Array
    floats: jax.Array
    flags: jax.Array

    @classmethod
    def of(cls, mobs: Mobs) -> MobStack:
        """The stack of every floor's entities ``mobs`` (L, S, ...)."""
        levels = jax.tree.leaves(mobs)[0].shape[0]
        return cls(**pack(mobs, (levels,)))

    def rows(self) -> dict[str, jax.Array]:
        return {name: getattr(self, name) for name in ROW_DTYPES}

    def unpack(self, like: Mobs) -> Mobs:
        """Every floor's entities (L, S, ...), shaped as the floor slots ``like``."""
        return unpack(self.rows(), like)

    def put(self, hot: Mobs, floor: int | jax.Array) -> MobStack:
        """This stack with ``floor``'s row written from ``hot``."""
        packed = pack(hot)
        return MobStack(**{n: row.at[floor].set(packed[n]) for n, row in self.rows().items()})

    def change_floor(
        self, hot: Mobs, floor: jax.Array, new_floor: jax.Array, moved: jax.Array
    ) -> tuple[Mobs, MobStack]:
        """``(hot, stack)`` after a floor change, like ``World.change_floor``: where ``moved``,
        the hot slots go back to the stack at ``floor`` and ``new_floor``'s come out; elsewhere
        the write goes past the stack and is dropped, and the hot slots are kept (a select
        over them, not a branch: under ``vmap`` a ``lax.cond`` is a select over both sides)."""
        target = jnp.where(moved, floor, self.ints.shape[0])
        packed = pack(hot)
        stack = MobStack(
            **{n: row.at[target].set(packed[n], mode="drop") for n, row in self.rows().items()}
        )
        loaded = unpack({n: row[new_floor] for n, row in stack.rows().items()}, hot)
        # A select per field: one per packed row instead, with the fields cut from it, saves a
        # few kernels but every reader of a field then counts the whole row in XLA's bytes.
        return jax.tree.map(lambda new, old: jnp.where(moved, new, old), loaded, hot), stack


def zeros_entities(levels: int, slots: int) -> Entities:
    """Empty slots (L, S, ...) for one entity class on every floor."""
    return Entities(
        pos=jnp.zeros((levels, slots, 2), jnp.int32),
        alive=jnp.zeros((levels, slots), bool),
        health=jnp.zeros((levels, slots), jnp.float32),
        kind=jnp.zeros((levels, slots), jnp.int32),
        cooldown=jnp.zeros((levels, slots), jnp.int32),
        direction=jnp.zeros((levels, slots, 2), jnp.int32),
        owner=jnp.full((levels, slots), -1, jnp.int32),
        elite=jnp.zeros((levels, slots), bool),
        hard=jnp.zeros((levels, slots), bool),
        required=jnp.zeros((levels, slots), jnp.int32),
    )


__all__ = ["ROW_DTYPES", "Entities", "MobStack", "Mobs", "pack", "unpack", "zeros_entities"]
