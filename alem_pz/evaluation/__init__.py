"""Evaluation: the published protocol and what turns its runs into numbers and pictures.

``protocol`` (episodes, seeds and scores as a library), ``cli`` (``alem-evaluate``),
``policies`` (policies by name, for every runner), ``baselines`` (masked random and the scripted
greedy team), ``symbolic_view`` (the observation as the greedy team reads and walks it),
``stats`` (aggregates and bootstrap intervals), ``report`` (tables and comparisons), ``plots``
(bar charts with intervals).
"""
