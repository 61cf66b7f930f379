"""Checkpoints of the JAX trainers: run directories, trainer states saved and loaded whole.

A run directory holds ``config.json`` (the ``PPOConfig`` and the git SHA), ``policy.npz`` (the
actor's weights, feed-forward or recurrent: what evaluation needs, ``alem_train.policy_file``),
``state.npz`` (every leaf of the ``TrainState``, to resume bit for bit) and ``metrics.csv``
(one row per update).

    alem-evaluate --policy runs/mappo/policy.npz --episodes 20     # scored like any policy
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np


def git_sha() -> str:
    """The working tree's commit (with ``-dirty`` when it has changes), or ``unknown``."""
    try:
        sha = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True, text=True, check=True, cwd=Path(__file__).parent,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha or "unknown"


def _is_key(x: Any) -> bool:
    return jnp.issubdtype(jnp.asarray(x).dtype, jax.dtypes.prng_key)


def save_tree(path: Path, tree: Any) -> None:
    """Every leaf of ``tree`` in one ``.npz`` (``leaf_0``, ``leaf_1``, ... in flatten order;
    typed PRNG keys as their raw key data)."""
    leaves = [jax.random.key_data(x) if _is_key(x) else x for x in jax.tree.leaves(tree)]
    leaves = jax.device_get(leaves)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **{f"leaf_{i}": np.asarray(x) for i, x in enumerate(leaves)})
    tmp.replace(path)  # never leave a half-written checkpoint behind


def load_tree(path: Path, like: Any) -> Any:
    """The tree saved by ``save_tree``, with the structure, shapes and dtypes of ``like``."""
    leaves, treedef = jax.tree.flatten(like)
    with np.load(path) as saved:
        if len(saved.files) != len(leaves):
            raise ValueError(f"{path}: {len(saved.files)} arrays, expected {len(leaves)}")
        loaded = [saved[f"leaf_{i}"] for i in range(len(leaves))]
    leaves = [jax.random.key_data(x) if _is_key(x) else x for x in leaves]
    keys = [_is_key(x) for x in jax.tree.leaves(like)]
    for i, (old, new) in enumerate(zip(leaves, loaded, strict=True)):
        if np.shape(old) != new.shape or jnp.asarray(old).dtype != new.dtype:
            raise ValueError(f"{path}: leaf {i} is {new.dtype}{new.shape}, expected "
                             f"{jnp.asarray(old).dtype}{np.shape(old)}")  # fmt: skip
    arrays = [
        jax.random.wrap_key_data(x) if key else jnp.asarray(x)
        for x, key in zip(loaded, keys, strict=True)
    ]
    return jax.tree.unflatten(treedef, arrays)


def write_config(run_dir: Path, config: Any, extra: dict | None = None) -> None:
    body = {"config": dataclasses.asdict(config), "git_sha": git_sha(), **(extra or {})}
    (run_dir / "config.json").write_text(json.dumps(body, indent=1))


__all__ = ["git_sha", "load_tree", "save_tree", "write_config"]
