"""A behaviour digest: proof that a mechanical rewrite of the step plays the same episodes.

Run from the repository root::

    python -m bench.digest [--worlds 16] [--steps 300] [--out FILE]
    python -m bench.digest --compare A.json B.json

N worlds of the default map (nine floors, P = 3, "medium") are reset from fixed keys and played
``--steps`` steps of masked random actions (the actions drawn on the device from each step's
action mask, as ``alem_core.testing.rollout`` plays). Every step's observation bits, action
mask, reward, termination flags, actions and every leaf of the state are hashed (SHA-256 of the
raw bytes, leaf by leaf), so two commits that print the same final digest played bit-identical
episodes. ``--out`` keeps the per-step, per-leaf digests; ``--compare`` names the first step and
the leaves where two such files part, which is where a rewrite changed behaviour.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys

import jax
import numpy as np

import alem_core
from alem_core.testing.rollout import random_legal_actions
from bench.common import world


def leaf_arrays(tree, prefix: str) -> dict[str, np.ndarray]:
    """Path -> host array of every leaf (typed keys as their raw data)."""
    out = {}
    for path, leaf in jax.tree_util.tree_leaves_with_path(tree):
        if jax.dtypes.issubdtype(leaf.dtype, jax.dtypes.prng_key):
            leaf = jax.random.key_data(leaf)
        out[prefix + jax.tree_util.keystr(path)] = np.asarray(leaf)
    return out


def hash_arrays(arrays: dict[str, np.ndarray]) -> dict[str, str]:
    """Name -> SHA-256 (16 hex digits) of each array's dtype, shape and raw bytes."""
    return {
        name: hashlib.sha256(
            f"{a.dtype}{a.shape}".encode() + np.ascontiguousarray(a).tobytes()
        ).hexdigest()[:16]
        for name, a in arrays.items()
    }


def play(worlds: int, steps: int) -> list[dict[str, str]]:
    """Per step (the reset first), leaf name -> digest of that leaf over all worlds."""
    params, static = world()
    params = params.as_arrays()
    keys = jax.random.split(jax.random.key(20261207), worlds)
    reset = jax.jit(jax.vmap(lambda k: alem_core.reset(k, params, static)))
    masks = jax.jit(jax.vmap(lambda s: alem_core.observe(s, params, static)[1]))

    def one(key, t, state, mask):
        k_act, k_step = jax.random.split(jax.random.fold_in(key, t))
        actions = random_legal_actions(k_act, mask)
        obs, state, reward, terminated, truncated, info = alem_core.step(
            k_step, state, actions, params, static
        )
        out = {"obs": obs, "reward": reward, "terminated": terminated, "truncated": truncated}
        return state, info["action_mask"], out | {"actions": actions, "info": info}

    step = jax.jit(jax.vmap(one, in_axes=(0, None, 0, 0)))
    unpacked = jax.jit(jax.vmap(alem_core.State.unpacked))  # the digest's form of every layout
    obs, state = reset(keys)
    mask = masks(state)
    digests = [
        hash_arrays(
            leaf_arrays({"obs": obs, "mask": mask}, "") | leaf_arrays(unpacked(state), "state")
        )
    ]
    for t in range(steps):
        state, mask, out = step(keys, t, state, mask)
        digests.append(hash_arrays(leaf_arrays(out, "") | leaf_arrays(unpacked(state), "state")))
    return digests


def total(digests: list[dict[str, str]]) -> str:
    """One digest over every step and leaf."""
    text = json.dumps(digests, sort_keys=True).encode()
    return hashlib.sha256(text).hexdigest()


def compare(a: list[dict[str, str]], b: list[dict[str, str]]) -> int:
    """Print where two runs part; 0 when they agree everywhere."""
    for t, (x, y) in enumerate(zip(a, b, strict=False)):
        if x != y:
            names = sorted(n for n in x.keys() | y.keys() if x.get(n) != y.get(n))
            print(f"first difference at step {t} (0 = reset) in {len(names)} leaves:")
            print("\n".join(f"  {n}" for n in names[:40]))
            return 1
    if len(a) != len(b):
        print(f"runs differ in length: {len(a)} vs {len(b)} steps")
        return 1
    print(f"identical over {len(a) - 1} steps and every leaf: {total(a)}")
    return 0


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worlds", type=int, default=16)
    parser.add_argument("--steps", type=int, default=300)
    parser.add_argument("--out", help="write the per-step digests here (json)")
    parser.add_argument("--compare", nargs=2, metavar=("A", "B"), help="two --out files")
    args = parser.parse_args()
    if args.compare:
        runs = []
        for path in args.compare:
            with open(path) as f:
                runs.append(json.load(f))
        sys.exit(compare(*runs))
    digests = play(args.worlds, args.steps)
    if args.out:
        with open(args.out, "w") as f:
            json.dump(digests, f)
    leaves = len(digests[-1])
    print(f"{args.worlds} worlds x {args.steps} steps, {leaves} leaves a step: {total(digests)}")


if __name__ == "__main__":
    main()
