"""Helpers for tests, benchmarks and notebooks; nothing here is game logic.

* ``hand_built.py``: states drawn in ASCII (``hand_built_state``, ``with_inventory``).
* ``rollout.py``: masked random play in ``lax.scan`` (``random_rollout``).
* ``api_check.py``: ``check_core_api``, the functional API's conformance check.
* ``worlds.py``: ``SMALL``, the small world tests share, and ``small(...)`` for its variants.
"""

from alem_core.testing.api_check import check_core_api
from alem_core.testing.hand_built import LEGEND, ascii_blocks, hand_built_state, with_inventory
from alem_core.testing.rollout import compiled, random_legal_actions, random_rollout
from alem_core.testing.worlds import SMALL, small

__all__ = [
    "LEGEND",
    "SMALL",
    "ascii_blocks",
    "check_core_api",
    "compiled",
    "hand_built_state",
    "random_legal_actions",
    "random_rollout",
    "small",
    "with_inventory",
]
