"""What each agent sees and may do, computed from a state (never stored in it).

* ``vector.py``: the flat (P, D) observation and its layout (``observation``, ``obs_size``).
* ``map_view.py``: the local map view inside it (cells, markers, light).
* ``masking.py``: the legal-action mask, built from the systems' own predicates.

``alem_core.observe`` (``api.py``) returns the observation and the mask together.
"""
