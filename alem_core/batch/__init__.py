"""N worlds stepped by one jitted call, with auto-reset from a per-slot reserve.

* ``auto_reset.py``: the batched ``step`` and ``init`` (pure functions, scan-friendly).
* ``reserve.py``: the reserve of next-episode worlds and the per-slot keys.
* ``runner.py``: ``BatchRunner``, which drives the batch from Python (the Gymnasium vector env).
"""

from alem_core.batch.auto_reset import (
    BatchOutput,
    ended_score_table,
    init,
    init_from_keys,
    scores,
    step,
)
from alem_core.batch.reserve import Batch
from alem_core.batch.runner import BatchRunner

__all__ = [
    "Batch",
    "BatchOutput",
    "BatchRunner",
    "ended_score_table",
    "init",
    "init_from_keys",
    "scores",
    "step",
]
