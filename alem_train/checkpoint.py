"""Checkpoints of the JAX trainers, and trained policies as evaluation-protocol policies.

A run directory holds ``config.json`` (the ``PPOConfig`` and the git SHA), ``policy.npz`` (the
actor's weights, feed-forward or recurrent: what evaluation needs), ``state.npz`` (every leaf of
the ``TrainState``, to resume bit for bit) and ``metrics.csv`` (one row per update).

    alem-evaluate --policy runs/mappo/policy.npz --episodes 20     # scored like any policy
"""

from __future__ import annotations

import dataclasses
import json
import subprocess
from pathlib import Path
from typing import Any

import jax
import jax.numpy as jnp
import numpy as np

from alem_train import networks, recurrent


def git_sha() -> str:
    """The working tree's commit (with ``-dirty`` when it has changes), or ``unknown``."""
    try:
        sha = subprocess.run(
            ["git", "describe", "--always", "--dirty", "--abbrev=12"],
            capture_output=True, text=True, check=True, cwd=Path(__file__).parent,
        ).stdout.strip()  # fmt: skip
    except (OSError, subprocess.CalledProcessError):
        return "unknown"
    return sha or "unknown"


def _is_key(x: Any) -> bool:
    return jnp.issubdtype(jnp.asarray(x).dtype, jax.dtypes.prng_key)


def save_tree(path: Path, tree: Any) -> None:
    """Every leaf of ``tree`` in one ``.npz`` (``leaf_0``, ``leaf_1``, ... in flatten order;
    typed PRNG keys as their raw key data)."""
    leaves = [jax.random.key_data(x) if _is_key(x) else x for x in jax.tree.leaves(tree)]
    leaves = jax.device_get(leaves)
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, **{f"leaf_{i}": np.asarray(x) for i, x in enumerate(leaves)})
    tmp.replace(path)  # never leave a half-written checkpoint behind


def load_tree(path: Path, like: Any) -> Any:
    """The tree saved by ``save_tree``, with the structure, shapes and dtypes of ``like``."""
    leaves, treedef = jax.tree.flatten(like)
    with np.load(path) as saved:
        if len(saved.files) != len(leaves):
            raise ValueError(f"{path}: {len(saved.files)} arrays, expected {len(leaves)}")
        loaded = [saved[f"leaf_{i}"] for i in range(len(leaves))]
    leaves = [jax.random.key_data(x) if _is_key(x) else x for x in leaves]
    keys = [_is_key(x) for x in jax.tree.leaves(like)]
    for i, (old, new) in enumerate(zip(leaves, loaded, strict=True)):
        if np.shape(old) != new.shape or jnp.asarray(old).dtype != new.dtype:
            raise ValueError(f"{path}: leaf {i} is {new.dtype}{new.shape}, expected "
                             f"{jnp.asarray(old).dtype}{np.shape(old)}")  # fmt: skip
    arrays = [
        jax.random.wrap_key_data(x) if key else jnp.asarray(x)
        for x, key in zip(loaded, keys, strict=True)
    ]
    return jax.tree.unflatten(treedef, arrays)


def write_config(run_dir: Path, config: Any, extra: dict | None = None) -> None:
    body = {"config": dataclasses.asdict(config), "git_sha": git_sha(), **(extra or {})}
    (run_dir / "config.json").write_text(json.dumps(body, indent=1))


def save_policy(path: Path, actor: list[dict] | dict, players: int) -> None:
    """The actor's weights: a feed-forward actor as ``w{i}``/``b{i}`` per layer, a recurrent
    one (``alem_train.recurrent``) as ``network = "gru"`` and one array per parameter path
    (``embed.w``, ``gru.wh``, ``head.0.w``, ...)."""
    if isinstance(actor, list):
        arrays = {f"w{i}": np.asarray(layer["w"]) for i, layer in enumerate(actor)}
        arrays |= {f"b{i}": np.asarray(layer["b"]) for i, layer in enumerate(actor)}
    else:
        flat = jax.tree_util.tree_flatten_with_path(actor)[0]
        arrays = {_path_name(keys): np.asarray(x) for keys, x in flat}
        arrays["network"] = np.array("gru")
    tmp = path.with_suffix(".tmp.npz")
    np.savez(tmp, players=np.int64(players), **arrays)
    tmp.replace(path)


def _path_name(keys: tuple) -> str:
    return ".".join(str(getattr(k, "key", getattr(k, "idx", k))) for k in keys)


def load_actor(path: str | Path) -> tuple[list[dict] | dict, int]:
    """(actor, players) from a ``policy.npz``: a list of layers (feed-forward) or the
    recurrent actor's nested dict."""
    with np.load(path) as saved:
        players = int(saved["players"])
        if "network" not in saved.files:
            depth = sum(name.startswith("w") for name in saved.files)
            return [{"w": saved[f"w{i}"], "b": saved[f"b{i}"]} for i in range(depth)], players
        actor: dict = {}
        for name in saved.files:
            if name in ("network", "players"):
                continue
            *parents, leaf = name.split(".")
            node = actor
            for part in parents:
                node = node.setdefault(part, {})
            node[leaf] = saved[name]
    actor["head"] = [actor["head"][str(i)] for i in range(len(actor["head"]))]
    return actor, players


def _sampler(seed: int, greedy: bool):
    """``(sample(logits (P, A)) -> (P,) actions, reseed(world_seed))``: inverse-CDF draws from
    the masked softmax, one per agent, from a numpy generator reseeded per episode."""
    rng = [np.random.default_rng(seed)]

    def sample(logits: np.ndarray) -> np.ndarray:
        logits = np.asarray(logits, np.float64)
        if greedy:
            return logits.argmax(-1)
        probs = np.exp(logits - logits.max(-1, keepdims=True))
        cumulative = probs.cumsum(-1) / probs.sum(-1, keepdims=True)
        drawn = rng[0].random((len(probs), 1))
        last_legal = probs.shape[-1] - 1 - np.argmax(probs[:, ::-1] > 0, axis=-1)
        return np.minimum((cumulative <= drawn).sum(-1), last_legal)  # rounding never lands past it

    def reseed(world_seed: int) -> None:
        rng[0] = np.random.default_rng([seed, int(world_seed)])

    return sample, reseed


def _check_team(path: str | Path, players: int, observations: np.ndarray) -> None:
    if observations.shape[0] != players:
        raise ValueError(f"{path} was trained for {players} agents, got {observations.shape[0]}")


def load_policy(path: str | Path, seed: int = 0, greedy: bool = False):
    """A batched evaluation policy (``alem_pz.evaluation.cli``) from a ``policy.npz``: it samples
    from the masked policy (or takes its argmax with ``greedy``), reseeded per episode. A
    recurrent policy keeps each agent's memory, zeroed at every episode start (``reset``) and
    kept at zero while the agent is dead (the infos' ``alive``), as in training."""
    actor, players = load_actor(path)
    actor = jax.tree.map(jnp.asarray, actor)
    sample, reseed = _sampler(seed, greedy)
    if isinstance(actor, dict):
        return _recurrent_policy(path, actor, players, sample, reseed)
    logits_of = jax.jit(lambda obs, mask: networks.masked_logits(actor, obs, mask))

    def policy(observations: np.ndarray, masks: np.ndarray) -> np.ndarray:
        _check_team(path, players, observations)
        return sample(logits_of(observations, masks.astype(bool)))

    policy.batched = True
    policy.reset = reseed
    return policy


def _recurrent_policy(path, actor: dict, players: int, sample, reseed):
    @jax.jit
    def forward(memory, obs, mask, alive):
        memory = jnp.where(alive[:, None], memory, 0.0)
        keep = alive[None, None]
        logits, outs = recurrent.actor_logits(actor, memory[None], obs[None, None],
                                              mask[None, None], keep)  # fmt: skip
        return logits[0, 0], jnp.where(alive[:, None], outs[0, 0], 0.0)

    size = actor["gru"]["wh"].shape[0]
    memory = [jnp.zeros((players, size), jnp.float32)]

    def policy(observations: np.ndarray, masks: np.ndarray, infos=None) -> np.ndarray:
        """``infos`` (one dict per agent, with ``alive``) as ``alem_pz.episode.seat_actions``
        passes them; without them every agent counts as alive."""
        _check_team(path, players, observations)
        alive = np.ones(players, bool) if infos is None else np.array([i["alive"] for i in infos])
        logits, memory[0] = forward(memory[0], observations, masks.astype(bool), alive)
        return sample(logits)

    def reset(world_seed: int) -> None:
        memory[0] = jnp.zeros_like(memory[0])
        reseed(world_seed)

    policy.batched = True
    policy.wants_infos = True
    policy.reset = reset
    return policy


__all__ = ["git_sha", "load_policy", "load_tree", "save_policy", "save_tree", "write_config"]
