"""Trainers' building blocks for alem: policy-optimisation objectives, trainers, T0 matrix games.

Kept apart from ``alem_core`` (the world) and ``alem_pz`` (its adapters): nothing here defines
game rules. See ``alem_train/README.md`` for the conventions of every objective.
"""
