"""The floor swap: the hot maps go back to the floor stack and another floor's come out.

A team changes floor a few times an episode, yet the swap sits in every step. Written as masked
array code it costs every step as much as a real swap: under ``vmap`` a ``lax.cond`` on a
batched flag becomes a select that runs both branches, so each step wrote the hot maps into the
(L, H, W) stacks of every world (a scatter) and read a floor back out (a gather over the stacks).

``swap_floor`` therefore says how it batches (``jax.custom_batching.custom_vmap``): over a batch
of worlds it branches once on "did any world move", and only then loops over the worlds that
moved, swapping one floor of each in place; one world alone branches on its own flag. Nested
``vmap``s still get the right answer: the outer one batches the inner rule's ``cond`` and loop
into selects, as ``vmap`` does with any control flow.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp
from jax import lax
from jax.custom_batching import custom_vmap

Maps = dict[str, jax.Array]
"""Map name -> the hot (H, W) map, or the (L, H, W) stack of every floor."""


def _masked_swap(
    hot: Maps, stack: Maps, floor: jax.Array, new_floor: jax.Array, moved: jax.Array
) -> tuple[Maps, Maps]:
    """One world: where ``moved``, write ``hot`` to ``stack[floor]`` and read ``stack[new_floor]``
    (an out-of-range write index is dropped, so a world that stays writes nothing)."""
    target = jnp.where(moved, floor, next(iter(stack.values())).shape[0])
    stack = {n: stack[n].at[target].set(hot[n], mode="drop") for n in stack}
    hot = {n: jnp.where(moved, stack[n][new_floor], hot[n]) for n in hot}
    return hot, stack


@custom_vmap
def swap_floor(
    hot: Maps, stack: Maps, floor: jax.Array, new_floor: jax.Array, moved: jax.Array
) -> tuple[Maps, Maps]:
    """``(hot, stack)`` after the team moves from ``floor`` to ``new_floor`` where ``moved``;
    unchanged otherwise. All arguments are one world's."""
    return lax.cond(
        moved,
        lambda: _masked_swap(hot, stack, floor, new_floor, moved),
        lambda: (hot, stack),
    )


@swap_floor.def_vmap
def _swap_floor_batched(axis_size: int, in_batched, hot, stack, floor, new_floor, moved):
    """A batch of worlds: under one branch on "any moved", a loop over the worlds that moved,
    each swapping one floor in place (a dynamic slice and update of one (H, W) map, not a
    scatter into or gather from every world's stack)."""
    args = (hot, stack, floor, new_floor, moved)
    full = jax.tree.map(
        lambda x, batched: x if batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x))),
        args,
        tuple(in_batched),
    )
    hot, stack, floor, new_floor, moved = full
    movers = jnp.nonzero(moved, size=axis_size, fill_value=0)[0]

    def swap_one(i: jax.Array, maps: tuple[Maps, Maps]) -> tuple[Maps, Maps]:
        world = movers[i]
        hot, stack = maps
        for name in hot:
            cell = (world, floor[world], 0, 0)
            stack[name] = lax.dynamic_update_slice(stack[name], hot[name][world][None, None], cell)
            loaded = lax.dynamic_index_in_dim(stack[name][world], new_floor[world], 0)
            hot[name] = lax.dynamic_update_slice(hot[name], loaded, (world, 0, 0))
        return hot, stack

    out = lax.cond(
        moved.any(),
        lambda: lax.fori_loop(0, moved.sum(), swap_one, (dict(hot), dict(stack))),
        lambda: (hot, stack),
    )
    return out, jax.tree.map(lambda _: True, out)
