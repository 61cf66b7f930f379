"""The coordination drills: small hand-built worlds holding one coordination rule each.

* ``setup.py``: ``drill_setup(name, players)`` gives a drill's ``(static, params)``.
* ``knobs.py``: each drill's settings and their checks.
* ``worlds.py``: the step-0 state of each drill (the reset; the step is the core's).
"""

from alem_core.drills.setup import (
    DEFAULT_HORIZON,
    DRILL_PARAMS,
    DRILL_SHAPES,
    drill_names,
    drill_setup,
)

__all__ = ["DEFAULT_HORIZON", "DRILL_PARAMS", "DRILL_SHAPES", "drill_names", "drill_setup"]
