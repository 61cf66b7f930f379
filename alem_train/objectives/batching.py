"""Event-atomic mini-batching for SRPO (docs/training.md#objectives 2.3 item 5 and 4.2 item 8).

SRPO's set ratio needs every member of an event in the same mini-batch, so rows are partitioned
by event, never by (event, agent). This is host-side index bookkeeping (numpy), not traced code.
"""

from __future__ import annotations

import numpy as np


def member_rows(act: np.ndarray, valid: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Flat member rows of a [B,G,T,N] batch and the event id of each.

    Returns ``(rows, keys)``: ``rows`` indexes ``act.reshape(-1)`` at every active member of a
    valid step; ``keys`` is the flat (b, g, t) index of its event, so rows with equal keys belong
    to one event.
    """
    act = np.asarray(act, dtype=bool)
    valid = np.asarray(valid, dtype=bool)
    if act.ndim != 4 or act.shape[:3] != valid.shape:
        raise ValueError(
            f"act must be [B,G,T,N] over valid [B,G,T], got {act.shape}, {valid.shape}"
        )
    mask = act & valid[..., None]
    rows = np.flatnonzero(mask.reshape(-1))
    return rows, rows // act.shape[3]


def check_events_unsplit(keys: np.ndarray, batches: list[np.ndarray]) -> None:
    """Raise ``AssertionError`` if some event's rows fall in two batches or are missing.

    ``batches`` hold positions into ``keys``; together they must cover every row exactly once.
    """
    keys = np.asarray(keys)
    seen = np.concatenate(batches) if batches else np.zeros(0, dtype=int)
    if np.sort(seen).tolist() != list(range(len(keys))):
        raise AssertionError("mini-batches must cover every row exactly once")
    owner: dict[int, int] = {}
    for batch_index, batch in enumerate(batches):
        for key in np.unique(keys[batch]).tolist():
            if owner.setdefault(key, batch_index) != batch_index:
                raise AssertionError(
                    f"event {key} is split between mini-batches {owner[key]} and {batch_index}"
                )


def event_minibatches(
    keys: np.ndarray, n: int, rng: np.random.Generator | None = None
) -> list[np.ndarray]:
    """Partition row positions into ``n`` mini-batches of whole events.

    Args:
        keys: [M] event id of each member row (e.g. the second output of ``member_rows``).
        n: number of mini-batches, 1 <= n <= number of distinct events.
        rng: if given, events are shuffled before splitting; otherwise kept in key order.

    Returns:
        ``n`` int arrays of positions into ``keys``; events are split as evenly as possible
        (by event count), and the partition is checked with ``check_events_unsplit``.
    """
    keys = np.asarray(keys)
    events = np.unique(keys)
    if isinstance(n, bool) or not isinstance(n, (int, np.integer)) or not 1 <= n <= len(events):
        raise ValueError(f"n must be an int in [1, {len(events)}] (the event count), got {n!r}")
    if rng is not None:
        events = rng.permutation(events)
    batches = [np.flatnonzero(np.isin(keys, chunk)) for chunk in np.array_split(events, int(n))]
    check_events_unsplit(keys, batches)
    return batches
