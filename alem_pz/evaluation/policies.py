"""Policies by name: the one loader behind ``alem-evaluate``, ``alem-play`` and recordings.

A policy is ``policy(observation, action_mask) -> int`` (one agent per call) or, with
``batched = True``, ``policy(observations (P, D), masks (P, A)) -> (P,) ints``; an optional
``reset(seed)`` is called at each episode start. Names:

* ``random``: a uniform draw among the legal actions (``baselines.MaskedRandom``);
* ``greedy``: the scripted team (``baselines.GreedyCoordinator``, symbolic observations);
* a name another module registers under the ``alem.policies`` entry-point group, called as
  ``factory(players=, seed=, comm_channels=)``: alem_pz's text track registers ``text-rule``
  (the rule agent on text observations, ``alem_pz.text.rule_agent``), so evaluation imports no
  text agent;
* a file ``PATH.SUFFIX``: the loader another package registers for that suffix under the
  ``alem.policy_loaders`` entry-point group (``alem_train`` registers ``npz`` for its trained
  IPPO/MAPPO policies), called as ``loader(path, seed=seed)``;
* ``module:function``: any importable callable, returned as it is.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable, Sequence
from importlib.metadata import entry_points
from pathlib import Path

from alem_pz.episode import Policy
from alem_pz.evaluation.baselines import GreedyCoordinator, MaskedRandom

LOADER_GROUP = "alem.policy_loaders"
NAME_GROUP = "alem.policies"
BUILT_IN = ("random", "greedy")


def named_policies() -> dict[str, Callable[..., Policy]]:
    """{policy name: factory} registered under ``NAME_GROUP``."""
    return {ep.name: ep.load() for ep in entry_points(group=NAME_GROUP)}


def policy_names() -> list[str]:
    """Every name ``load_policy`` accepts as it is: the built-in ones, then the registered."""
    return [*BUILT_IN, *sorted(set(named_policies()) - set(BUILT_IN))]


def file_loaders() -> dict[str, Callable[..., Policy]]:
    """{file suffix without the dot: loader} registered under ``LOADER_GROUP``."""
    return {ep.name: ep.load() for ep in entry_points(group=LOADER_GROUP)}


def load_policy(
    spec: str, players: int = 3, seed: int = 0, comm_channels: int = 0, greedy: bool = False
) -> Policy:
    """The policy ``spec`` names (module docstring) for a team of ``players``; ``greedy`` asks a
    policy file for its most likely legal action (its loader called with ``greedy=True``).

    Raises:
        ValueError: naming ``spec`` when it is none of the forms above, or no installed package
            registers a loader for its file suffix, or ``greedy`` is asked of a policy that is
            no file.
    """
    suffix = Path(spec).suffix.lstrip(".")
    is_file = bool(suffix) and ":" not in spec and spec not in BUILT_IN
    if greedy and not is_file:
        raise ValueError(f"greedy play is a policy file's option; {spec!r} is no policy file")
    if spec == "random":
        return MaskedRandom(seed)
    if spec == "greedy":
        return GreedyCoordinator(players=players, comm_channels=comm_channels, seed=seed)
    named = named_policies()
    if spec in named:
        return named[spec](players=players, seed=seed, comm_channels=comm_channels)
    if is_file:
        loaders = file_loaders()
        if suffix not in loaders:
            raise ValueError(
                f"no policy loader for .{suffix} files ({spec!r}); registered: "
                f"{sorted(loaders) or 'none'} (entry-point group {LOADER_GROUP!r})"
            )
        return loaders[suffix](spec, seed=seed, **({"greedy": True} if greedy else {}))
    module, sep, name = spec.partition(":")
    if not sep or not module or not name:
        raise ValueError(
            f"policy must be one of {', '.join(policy_names())}, a registered file or "
            "module:function, "
            f"got {spec!r}"
        )
    policy = getattr(importlib.import_module(module), name)
    if not callable(policy):
        raise ValueError(f"{spec!r} is not callable")
    return policy


def load_seat_policy(spec: str, players: int = 3, seed: int = 0, comm_channels: int = 0) -> Policy:
    """``load_policy`` for one seat of a game played on symbolic observations (``alem-play``,
    ``alem-serve``); call it with ``alem_pz.episode.seat_actions``.

    Raises:
        ValueError: naming ``spec`` when the policy reads text observations (``text-rule``),
            which those games do not produce.
    """
    policy = load_policy(spec, players=players, seed=seed, comm_channels=comm_channels)
    if getattr(policy, "needs_text", False):
        raise ValueError(
            f"policy {spec!r} reads text observations; a seat here sees the symbolic ones: use "
            "random, greedy, a checkpoint file or module:function (text policies play in "
            "alem-evaluate with --obs text)"
        )
    return policy


def load_seat_policies(
    spec: str, seats: Sequence[int], players: int = 3, seed: int = 0, comm_channels: int = 0
) -> dict[int, Policy]:
    """``load_seat_policy`` for every seat in ``seats`` ({seat: policy}): a one-agent policy is
    loaded per seat with seed ``seed + seat`` (independent draws); a batched (team) policy is
    loaded once, with the first seat's seed, and shared, so
    ``alem_pz.episode.seat_actions`` asks it once a step.
    """
    policies: dict[int, Policy] = {}
    for seat in seats:
        shared = next(iter(policies.values()), None)
        if shared is not None and getattr(shared, "batched", False):
            policies[seat] = shared
        else:
            policies[seat] = load_seat_policy(spec, players, seed + seat, comm_channels)
    return policies


__all__ = [
    "BUILT_IN",
    "LOADER_GROUP",
    "NAME_GROUP",
    "Policy",
    "file_loaders",
    "load_policy",
    "load_seat_policies",
    "load_seat_policy",
    "named_policies",
    "policy_names",
]
