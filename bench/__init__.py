"""Benchmarks and parity checks, each run from the repository root as ``python -m bench.NAME``
(see each module's docstring); speed and memory targets live here, not in the unit tests."""
