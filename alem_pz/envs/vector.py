"""alem as a natively batched Gymnasium ``VectorEnv``: N worlds x P agents, parameter sharing.

    import gymnasium, alem_pz  # importing alem_pz registers "alem/Coop-v0"
    envs = gymnasium.make_vec("alem/Coop-v0", num_envs=64, vectorization_mode="vector_entry_point",
                              players=3, difficulty="medium")
    obs, infos = envs.reset(seed=0)              # obs (64 * 3, D) float32
    obs, rewards, terminations, truncations, infos = envs.step(actions)   # actions (64 * 3,)

``num_envs`` passed to ``make_vec`` is the number of worlds N; the env's sub-envs are the N x P
(world, agent) pairs, world-major (sub-env ``w * P + i`` is agent ``i`` of world ``w``), so
``envs.num_envs == N * P`` and one policy serves every agent (as CleanRL's PettingZoo PPO
does). All N worlds step in one jitted call (``alem_core.batch.auto_reset``) with no Python
loop over worlds; arrays come back as numpy.

* ``single_observation_space``: ``Box(low, 100, (D,), float32)``, as the ParallelEnv's;
  ``single_action_space``: ``Discrete(A)``.
* ``metadata["autoreset_mode"]`` is ``AutoresetMode.NEXT_STEP`` by default: the step after a
  world ends resets it; the actions of its sub-envs are ignored and their reward is 0.
  ``autoreset_mode=AutoresetMode.SAME_STEP`` (or ``"SameStep"``) resets it in the step where it
  ends, as Gymnasium's ``SAME_STEP`` mode does: that step returns the next episode's first
  observation and mask, with the last ones in ``infos["final_obs"]`` and
  ``infos["final_info"]["action_mask"]`` (masks ``_final_obs``, ``_final_info``: the sub-envs
  that ended). Both modes play the same episodes (one auto-reset, ``alem_core.batch``).
* The same infos on every step, each key ``k`` with its all-True ``_k`` mask (Gymnasium's dict
  infos): ``infos["action_mask"]`` (N·P, A) int8, ``infos["alive"]`` (N·P,) bool (dead agents
  stay, with only NOOP legal), ``infos["world"]`` (N·P,) the world of each sub-env, and
  ``infos["score"]`` (N·P, K) float32: the episode score (docs/rules/score.md) of the sub-envs whose
  episode ended on this step (``terminations | truncations``), zero elsewhere; columns named
  by ``envs.score_keys``.
* No ``infos["episode"]``: episode statistics are Gymnasium's ``RecordEpisodeStatistics``'
  job, which works unchanged (as do ``ClipReward`` and ``NormalizeReward``: every array
  returned is writable).

Illegal actions behave as in ``AlemParallelEnv`` (see its env card); ``strict_actions=True``
raises naming the sub-env, its (world, agent) and the action. Keyword arguments: those of
``AlemParallelEnv`` except the rendering and observation options (``players``, ``difficulty``,
``comm_channels``, ``max_steps``, ``params``, ``static``, ``strict_actions``), plus ``chunk``
(reserve refresh size, default N / 8), ``shard`` (split the worlds over all local devices,
default True) and ``autoreset_mode``.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import jax
import numpy as np
from gymnasium import spaces
from gymnasium.vector import AutoresetMode, VectorEnv
from gymnasium.vector.utils import batch_space

import alem_core
from alem_core.batch.runner import BatchRunner
from alem_core.constants import action_label
from alem_core.scoring.score import score_keys
from alem_pz.envs.arguments import gameplay_params, positive_int, static_params, switch
from alem_pz.envs.parallel import DEFAULT_MAX_STEPS, OBS_HIGH, obs_low


class AlemVectorEnv(VectorEnv):
    """N alem worlds as N x P Gymnasium sub-envs (see the module docstring)."""

    metadata: dict[str, Any] = {  # noqa: RUF012 (an instance may set its autoreset_mode)
        "autoreset_mode": AutoresetMode.NEXT_STEP,
        "render_modes": [],
    }

    def __init__(
        self,
        num_envs: int = 1,
        players: int = 3,
        difficulty: str | float = "medium",
        comm_channels: int = 0,
        max_steps: int = DEFAULT_MAX_STEPS,
        params: Mapping[str, Any] | None = None,
        static: alem_core.StaticParams | None = None,
        chunk: int | None = None,
        shard: bool = True,
        max_episode_steps: int | None = None,
        strict_actions: bool = False,
        autoreset_mode: AutoresetMode | str = AutoresetMode.NEXT_STEP,
    ) -> None:
        """Build the env; nothing is compiled before the first ``reset``.

        Raises:
            ValueError: ``num_envs`` < 1, an ``autoreset_mode`` other than ``NEXT_STEP`` and
                ``SAME_STEP``, and whatever ``AlemParallelEnv`` rejects.
        """
        mode = _autoreset_mode(autoreset_mode)
        self.metadata = {**self.metadata, "autoreset_mode": mode}
        self.num_worlds = positive_int("num_envs", num_envs)
        if max_episode_steps is not None:  # gymnasium.make_vec's spelling of the horizon
            max_steps = positive_int("max_episode_steps", max_episode_steps)
        positive_int("max_steps", max_steps)
        self.static = static_params(players, comm_channels, static)
        self.params = gameplay_params(difficulty, int(max_steps), params)
        self.players = self.static.player_count
        self.num_envs = self.num_worlds * self.players
        self.num_actions = self.static.num_actions
        size = alem_core.obs_size(self.static)
        low = obs_low(self.params)
        self.single_observation_space = spaces.Box(low, OBS_HIGH, (size,), np.float32)
        self.single_action_space = spaces.Discrete(self.num_actions)
        self.observation_space = batch_space(self.single_observation_space, self.num_envs)
        self.action_space = batch_space(self.single_action_space, self.num_envs)
        self.render_mode = None
        timing = "same_step" if mode is AutoresetMode.SAME_STEP else "next_step"
        self.runner = BatchRunner(self.num_worlds, self.params, self.static, chunk, shard, timing)
        self._world = np.repeat(np.arange(self.num_worlds), self.players)
        self._seed_rng = np.random.default_rng()
        self.strict_actions = switch("strict_actions", strict_actions)
        self._mask: np.ndarray | None = None  # (N·P, A) of the last observation (strict mode)

    @property
    def score_keys(self) -> tuple[str, ...]:
        """Names of the K columns of ``infos["score"]`` (docs/rules/score.md)."""
        return score_keys(self.static)

    def reset(self, *, seed: int | None = None, options: dict | None = None):
        """Start every world's first episode.

        Args:
            seed: one int for the whole batch (world ``w`` gets its own stream derived from it);
                the same seed gives the same sequence of episodes. None draws a fresh seed.
            options: accepted and ignored.

        Returns:
            ``(obs (N·P, D) float32, infos)``.
        """
        if seed is None:
            seed = int(self._seed_rng.integers(2**63))
        elif isinstance(seed, (list, tuple, np.ndarray)):
            raise ValueError(
                f"seed must be one int for the whole batch (or None), got {seed!r}: every world "
                "derives its own stream from it"
            )
        out = self.runner.reset(seed)
        obs, _, _, _, infos = self._host(out, fetch_score=False)
        return obs, infos

    def step(self, actions):
        """Step every world with (N·P,) integer actions.

        Raises:
            RuntimeError: before ``reset``.
            ValueError: actions of the wrong shape or dtype, or ids outside [0, A); the message
                names the value and its (world, agent); nothing changes when this is raised.
        """
        if self.runner.batch is None:
            raise RuntimeError("step() called before reset(); call reset(seed=...) first")
        per_world = self._validate(actions).reshape(self.num_worlds, self.players)
        return self._host(self.runner.step(per_world), fetch_score=True)

    def _validate(self, actions) -> np.ndarray:
        array = np.asarray(actions)
        if array.shape != (self.num_envs,):
            raise ValueError(
                f"actions must have shape ({self.num_envs},) (num_envs = {self.num_worlds} worlds "
                f"x {self.players} agents), got shape {array.shape}"
            )
        if array.dtype.kind not in "iu":
            raise ValueError(f"actions must be integers, got dtype {array.dtype}")
        bad = np.flatnonzero((array < 0) | (array >= self.num_actions))
        if bad.size:
            i = int(bad[0])
            raise ValueError(
                f"action {array[i].item()!r} for sub-env {i} (world {i // self.players}, agent_"
                f"{i % self.players}) is out of range: expected an integer in "
                f"[0, {self.num_actions - 1}] ({bad.size} bad ids in all)"
            )
        if self.strict_actions and self._mask is not None:
            illegal = np.flatnonzero(self._mask[np.arange(self.num_envs), array] == 0)
            if illegal.size:
                i, a = int(illegal[0]), int(array[illegal[0]])
                raise ValueError(
                    f"illegal action {a} ({action_label(a, self.players)}) for sub-env {i} (world "
                    f"{i // self.players}, agent_{i % self.players}): its action mask allows "
                    f"only {np.flatnonzero(self._mask[i]).tolist()} now (strict_actions=True; "
                    f"{illegal.size} illegal in all)"
                )
        return array.astype(np.int32)

    def _host(self, out, fetch_score: bool):
        """numpy (obs, rewards, terminations, truncations, infos) from a ``BatchOutput``."""
        info = out.info
        obs, reward, term, trunc, mask, alive, done = jax.device_get(
            (out.obs, out.reward, out.terminated, out.truncated, info["action_mask"],
             info["alive"], info["done"])
        )  # fmt: skip
        n = self.num_envs
        obs = _writable(obs.reshape(n, -1))
        mask = mask.reshape(n, -1).astype(np.int8)
        self._mask = mask.copy()
        if fetch_score and done.any():
            score = np.array(self.runner.score_table(), np.float32).reshape(n, -1)
        else:
            score = np.zeros((n, len(self.score_keys)), np.float32)
        infos: dict[str, Any] = {
            "action_mask": mask,
            "alive": _writable(alive.reshape(n)),
            "world": self._world.copy(),
            "score": score,
        }
        infos.update({f"_{k}": np.ones(n, bool) for k in list(infos)})
        if "final_obs" in info:  # same-step timing, a world ended on this call
            infos |= self._final(info, np.repeat(done, self.players))
        flows = (reward.reshape(n), term.reshape(n), trunc.reshape(n))
        return (obs, *(_writable(x) for x in flows), infos)

    def _final(self, info: dict, ended: np.ndarray) -> dict[str, Any]:
        """Gymnasium's same-step keys: the last observation and mask of the ended sub-envs."""
        obs, mask = jax.device_get((info["final_obs"], info["final_action_mask"]))
        n = self.num_envs
        final_info = {"action_mask": mask.reshape(n, -1).astype(np.int8), "_action_mask": ended}
        final_obs = _writable(obs.reshape(n, -1))
        return {"final_obs": final_obs, "_final_obs": ended, "final_info": final_info,
                "_final_info": ended}  # fmt: skip

    def close_extras(self, **kwargs: Any) -> None:
        """Nothing to release (compiled functions stay cached for other envs)."""


def _autoreset_mode(mode: AutoresetMode | str) -> AutoresetMode:
    """``NEXT_STEP`` or ``SAME_STEP`` from the enum or its value; ValueError for the rest."""
    allowed = (AutoresetMode.NEXT_STEP, AutoresetMode.SAME_STEP)
    try:
        chosen = AutoresetMode(mode)
    except ValueError:
        chosen = None
    if chosen not in allowed:
        raise ValueError(
            f"autoreset_mode must be one of {[m.value for m in allowed]}, got {mode!r}"
        )
    return chosen


def _writable(array: np.ndarray) -> np.ndarray:
    """``array`` itself if numpy may write to it, else a copy (``jax.device_get`` returns
    read-only views, which ``ClipReward`` and other in-place wrappers cannot use)."""
    return array if array.flags.writeable else array.copy()


def make_vector_env(num_envs: int = 1, **kwargs: Any) -> AlemVectorEnv:
    """The ``vector_entry_point`` of ``alem/Coop-v0`` (``gymnasium.make_vec``)."""
    return AlemVectorEnv(num_envs=num_envs, **kwargs)


__all__ = ["AlemVectorEnv", "make_vector_env"]
