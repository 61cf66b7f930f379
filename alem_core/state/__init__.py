"""The world state: nested frozen pytrees (``jax.tree_util.register_dataclass``).

* ``records.py``: ``State`` and its records (``World``, ``Players``, ``Plants`` ...), the map
  dtypes and how light is stored.
* ``entities.py``: mobs and projectiles, ``Entities`` per class, ``Mobs`` for the team's floor
  and ``MobStack``, every floor's packed into rows.
* ``counters.py``: the episode counters the metrics read (``Stats``, ``CoordinationStats``).
* ``base.py``: ``Record``, the ``replace`` mixin every record shares.

Axes: ``L`` floors (``StaticParams.num_levels``), ``H x W`` map, ``P`` players, ``S`` slots of an
entity class on one floor. Only the current floor's entities are simulated; the rest stay frozen.
"""

from alem_core.state.base import Record
from alem_core.state.counters import COORDINATION_COUNTERS, CoordinationStats, Stats
from alem_core.state.entities import Entities, Mobs, MobStack, zeros_entities
from alem_core.state.records import (
    LIGHT_SCALE,
    MAP_DTYPES,
    FloorMaps,
    Handovers,
    Plants,
    Players,
    State,
    World,
    light_level,
    to_light,
)

__all__ = [
    "COORDINATION_COUNTERS",
    "LIGHT_SCALE",
    "MAP_DTYPES",
    "CoordinationStats",
    "Entities",
    "FloorMaps",
    "Handovers",
    "MobStack",
    "Mobs",
    "Plants",
    "Players",
    "Record",
    "State",
    "Stats",
    "World",
    "light_level",
    "to_light",
    "zeros_entities",
]
