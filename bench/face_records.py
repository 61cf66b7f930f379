"""What ``bench.faces_digest`` keeps of a face's output, and how two runs are compared.

A face's output at each reset or step becomes one record: leaf path -> a 16-hex digest of the
leaf (arrays: SHA-256 of dtype, shape and bytes, through ``bench.digest``; other values: JSON,
sorted keys, floats as raw bytes). ``totals`` folds a run's records into one digest per face and
one overall; ``compare`` names, per face, the first record where two runs part. Kept apart from
the faces that play, so the file format is defined once and the players only call ``record``.
"""

from __future__ import annotations

import hashlib
import json
import struct
from typing import Any

import jax

from bench.digest import hash_arrays, leaf_arrays, total

Record = dict[str, str]
WIDE = 32
"""Wider dicts and lists (a score's ~460 keys, the key table) are one leaf: a smaller file."""


def _plain(value: Any) -> Any:
    """``value`` for JSON: floats as their raw bytes, arrays and bytes as their digests."""
    if isinstance(value, dict):
        return {str(k): _plain(v) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [_plain(v) for v in value]
    if isinstance(value, float):
        return "f64:" + struct.pack("<d", value).hex()
    if isinstance(value, bytes):
        return "bytes:" + hashlib.sha256(value).hexdigest()
    if hasattr(value, "dtype") and hasattr(value, "shape"):
        return "array:" + hash_arrays(leaf_arrays(value, ""))[""]
    return value


def _leaf(x: Any) -> bool:
    """None, and containers of more than ``WIDE`` items, are hashed whole (one leaf each)."""
    return x is None or (isinstance(x, dict | list | tuple) and len(x) > WIDE)


def record(tree: Any) -> Record:
    """Leaf path -> digest of every leaf of ``tree`` (dicts, lists, tuples and JAX pytrees are
    walked; arrays and typed keys by ``bench.digest``'s hash, other leaves as JSON)."""
    leaves = jax.tree_util.tree_leaves_with_path(tree, is_leaf=_leaf)
    return {
        jax.tree_util.keystr(path): hashlib.sha256(
            json.dumps(_plain(leaf), sort_keys=True).encode()
        ).hexdigest()[:16]
        for path, leaf in leaves
    }


def totals(digests: dict[str, list[Record]]) -> dict[str, str]:
    """Face -> one digest over its records, and ``"total"`` over every face's."""
    per_face = {name: total(records) for name, records in digests.items()}
    return per_face | {"total": total([per_face])}


def compare(a: dict[str, list[Record]], b: dict[str, list[Record]]) -> int:
    """Print, per face, where two runs part; 0 when they agree everywhere."""
    status = 0
    for face in [*a, *(f for f in b if f not in a)]:
        x, y = a.get(face), b.get(face)
        if x is None or y is None:
            print(f"{face}: only in {'A' if y is None else 'B'}")
            status = 1
            continue
        parted = next((t for t, (r, s) in enumerate(zip(x, y, strict=False)) if r != s), None)
        if parted is not None:
            r, s = x[parted], y[parted]
            names = sorted(n for n in r.keys() | s.keys() if r.get(n) != s.get(n))
            print(f"{face}: first difference at record {parted} in {len(names)} leaves:")
            print("\n".join(f"  {n}" for n in names[:20]))
            status = 1
        elif len(x) != len(y):
            print(f"{face}: the first {min(len(x), len(y))} records agree; {len(x)} vs {len(y)}")
            status = 1
        else:
            print(f"{face}: identical over {len(x)} records: {total(x)}")
    return status
