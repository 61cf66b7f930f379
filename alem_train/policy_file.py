"""Trained policies as files, and those files as evaluation-protocol policies.

``policy.npz`` holds the actor's weights and the team size: a feed-forward actor as
``w{i}``/``b{i}`` per layer, a recurrent one (``alem_train.recurrent``) as ``network = "gru"``
and one array per parameter path. ``load_policy`` is the loader alem_train registers for
``.npz`` files (the ``alem.policy_loaders`` entry point), so every face that takes a policy
plays one:

    alem-evaluate --policy runs/mappo/policy.npz --greedy --episodes 20
"""

from __future__ import annotations

from pathlib import Path

import jax
import jax.numpy as jnp
import numpy as np

from alem_train import networks, recurrent


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
        memory = recurrent.carry(memory, alive)
        keep = alive[None, None]
        logits, outs = recurrent.actor_logits(actor, memory[None], obs[None, None],
                                              mask[None, None], keep)  # fmt: skip
        return logits[0, 0], recurrent.carry(outs[0, 0], alive)

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


__all__ = ["load_actor", "load_policy", "save_policy"]
