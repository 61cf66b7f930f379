"""The rules as data: every number and table the systems read, and the rules that are formulas.

* ``tables.py``: recipes, blocks' Do effects, mob stats, coordination blocks, floors.
* ``item_tables.py``, ``boss_tables.py``, ``survival_tables.py``: items, the boss floor, needs.
* ``specialisation.py``: roles, their perks and the forager gate.
* ``difficulty.py``: the coordination difficulty α and the values derived from it.
* ``reward.py``: the per-step reward from the achievements and health.

The systems (``alem_core/systems/``) read these; nothing here reads the state's evolution.
"""
