"""How an episode is measured; nothing here is read by the game rules.

* ``score.py``: the episode score (``score``, ``score_keys``), one function for every face.
* ``score_tables.py``: eligibility and category tables behind it.
* ``score_coordination.py``: its ``Coordination/*`` section, from the team's coordination
  counters.
* ``metrics.py``: the running cooperation metrics in every step's info.
"""
