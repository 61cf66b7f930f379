"""Pack a pytree into one flat buffer per dtype, and back, inside ``jit``.

Calling a jitted function from Python costs time per array argument and result: the state has
about a hundred leaves, which made dispatch cost ten times the step itself for one world.
Adapters that step one world at a time therefore pass a handful of packed buffers instead.
Packing is pure layout (slices, reshapes, one concatenate per dtype); it holds no game logic.
"""

from __future__ import annotations

from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


class PyTreePacker:
    """Flattens pytrees shaped like ``example`` into ``(buffer per dtype)`` and back.

    Example:
        packer = PyTreePacker(jax.eval_shape(make_state))
        buffers = packer.pack(state)      # tuple of 1-D arrays, one per dtype
        state = packer.unpack(buffers)    # the same pytree again
    """

    def __init__(self, example: Any) -> None:
        leaves, self.treedef = jax.tree.flatten(example)
        self.shapes = [tuple(leaf.shape) for leaf in leaves]
        self.dtypes = sorted({np.dtype(leaf.dtype).name for leaf in leaves})
        self.slots: list[tuple[int, int, int]] = []  # (buffer, start, size) per leaf
        sizes = dict.fromkeys(self.dtypes, 0)
        for leaf, shape in zip(leaves, self.shapes, strict=True):
            name = np.dtype(leaf.dtype).name
            size = int(np.prod(shape, dtype=np.int64))
            self.slots.append((self.dtypes.index(name), sizes[name], size))
            sizes[name] += size
        self.sizes = tuple(sizes[name] for name in self.dtypes)

    def pack(self, tree: Any) -> tuple[jax.Array, ...]:
        """One 1-D buffer per dtype holding every leaf, raveled, in tree order."""
        return self._pack(tree, jnp)

    def pack_host(self, tree: Any) -> tuple[np.ndarray, ...]:
        """``pack`` in numpy, for host values: no device op, nothing to compile."""
        return self._pack(tree, np)

    def _pack(self, tree: Any, xp: Any) -> tuple[Any, ...]:
        parts: list[list[Any]] = [[] for _ in self.dtypes]
        for leaf, (buffer, _, _) in zip(jax.tree.leaves(tree), self.slots, strict=True):
            parts[buffer].append(xp.ravel(xp.asarray(leaf, self.dtypes[buffer])))
        return tuple(
            xp.concatenate(group) if group else xp.zeros((0,), name)
            for group, name in zip(parts, self.dtypes, strict=True)
        )

    def unpack(self, buffers: tuple[jax.Array, ...]) -> Any:
        """The pytree back from ``pack``'s buffers."""
        leaves = [
            buffers[buffer][start : start + size].reshape(shape)
            for (buffer, start, size), shape in zip(self.slots, self.shapes, strict=True)
        ]
        return jax.tree.unflatten(self.treedef, leaves)
