"""alem as a PettingZoo ``ParallelEnv``: one cooperative team in one ``alem_core`` world.

| | |
|---|---|
| Import | `alem_pz.make()` or `pettingzoo.make("parallel", "alem/Coop-v0")` |
| AEC | `alem_pz.make(parallel=False)`, i.e. `parallel_to_aec(parallel env)` |
| Agents | `agents = ["agent_0", ..., "agent_{P-1}"]`, P = `players` (default 3) |
| Actions | `Discrete(A)`, A = 55 + max(0, P - 2) + `comm_channels` (56 for P = 3) |
| Action mask | `infos[agent]["action_mask"]`, `np.int8` (A,), always (and in obs: `mask_in_obs`) |
| Illegal actions | masked-out ids act as NOOP would (below); `strict_actions=True` raises |
| Observation shape | `(D,)`, D = 99·(P + 94) + P·(22 + nc) + 49 (9718 for P = 3, nc = 0) |
| Pixel observations | `obs_type="pixels"`: `(H, W, 3)` float32 in [0, 1], 150 x 110 x 3 for P = 3 |
| Text observations | `obs_type="text"`: `spaces.Text` strings; parts in `infos[agent]["text"]` |
| Observation values | float32 in [low, 100], low = -max(1, handover window / 20) (below) |
| State shape | `(P·D,)`: every agent's observation, concatenated in agent order |
| Rewards | per agent, float (team sum if `shared_reward`); docs/rules/rewards.md#per-step-reward |
| Termination | every agent, when the whole team is dead or the game is won |
| Truncation | every agent, once `max_steps` steps have been taken |
| Dead agents | stay in `agents` (a teammate can revive them) with only NOOP (0) legal |
| Infos | the same flat keys every step: `action_mask`, `alive`, `cooperation/*`, `score` |
| Score | `infos[agent]["score"]` (K,) float32, 0 until the last step; `env.score_keys` names it |

Observations are the core's symbolic vector (docs/rules/observations.md#symbolic-observation); the
Box bounds contain every value. Most entries lie in [0, 1]; raw counts reach 99 (books), so ``high``
is 100. The only negative entry is the handover channel, -W / 20 for a handover window of W steps,
so ``low`` is -max(1, max(handover_window_min, handover_window_max) / 20): -1 for "none", "medium"
and "hard", -1.2 at α = 0 (windows up to 24 steps). The state space has the same bounds.

Infos (``alem_pz.envs.infos``): every ``infos[agent]`` has the same keys with fixed shapes from
``reset`` on, so wrappers that build specs from the first infos work unchanged. The episode
score is ``infos[agent]["score"]``, zeros until the episode's last step; ``env.episode_score()``
gives ``{agent: {key: float}}`` (the score so far, before the end).

Illegal actions: an in-range action that the mask marks illegal is passed to the rules, whose
condition for it is then unmet, so the world changes as under NOOP, except that the rules count
the attempt: a give in ``give_attempts`` (so in ``give_success_rate``), an unfunded build in
the coordination counter ``build_unfunded``. ``strict_actions=True`` raises a ``ValueError``
naming the agent and the action instead, before anything changes. Ids outside ``[0, A)``
always raise. The same holds on every face (``make_vec``, ``alem_pz.envs.sb3``, the team env).

Keyword arguments, the same for ``AlemParallelEnv``, ``alem_pz.make``, ``pettingzoo.make`` and
the ``alem_pz.alem_coop_v0`` functions:

| kwarg | default | meaning |
|---|---|---|
| `players` | 3 | team size P |
| `difficulty` | "medium" | "none", "easy", "medium", "hard" or α in [0, 1] |
| `comm_channels` | 0 | one-hot communication channels (more actions and observations) |
| `max_steps` | 10000 | truncation horizon (`Params.max_timesteps`); alias `max_cycles` |
| `obs_type` | "symbolic" | "pixels" or "text" (docs/rules/observations.md, language-agents.md) |
| `text_config` | None | an `alem_pz.text.observation.TextConfig` (text mode only) |
| `mask_in_obs` | False | obs become `{"observation", "action_mask"}` dicts (infos keep the mask) |
| `strict_actions` | False | a masked-out action raises `ValueError` naming agent and action |
| `params` | None | dict of `alem_core.Params` overrides (use `max_steps`, not `max_timesteps`) |
| `render_mode` | None | "rgb_array" (team frame, uint8) or "human" (a pygame window) |
| `static` | None | an `alem_core.StaticParams` for other shapes (see below) |

``static`` exists for tests and experiments with other shapes (e.g. a 16 x 16 single-floor map,
which compiles faster). Its ``player_count`` and ``num_comm_channels`` must equal ``players`` and
``comm_channels``. The default is ``StaticParams(player_count=players,
num_comm_channels=comm_channels)``: a 48 x 48 map with 9 floors.

Compilation: the jitted reset and step are cached per ``StaticParams`` at module level, so every
env with the same shapes shares them (``Params`` are traced arguments, never baked in). Each step
does one jitted call and one ``jax.device_get`` of a single stacked array.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping
from typing import Any, ClassVar

import jax
import jax.numpy as jnp
import numpy as np
from gymnasium import spaces
from pettingzoo import ParallelEnv

import alem_core
from alem_core.observation.map_view import HANDOVER_WINDOW_SCALE
from alem_pz.envs import episode_score, rendering
from alem_pz.envs.arguments import (
    action_array,
    check_legal,
    gameplay_params,
    positive_int,
    static_params,
    switch,
)
from alem_pz.envs.infos import agent_infos
from alem_pz.envs.kernels import compiled_core
from alem_pz.envs.observers import OBSERVERS, Frame, Observer, make_observer

OBS_HIGH = 100.0
"""Upper bound of every observation entry (raw counts are capped at 99)."""
OBS_TYPES = OBSERVERS
DEFAULT_MAX_STEPS = 10000


def obs_low(params: alem_core.Params) -> float:
    """Lower bound of every observation entry: the handover channel, -W / 20 at the longest W."""
    longest = max(float(params.handover_window_min), float(params.handover_window_max))
    return -max(1.0, longest / HANDOVER_WINDOW_SCALE)


class AlemParallelEnv(ParallelEnv):
    """The alem cooperative world as a PettingZoo ``ParallelEnv`` (see the module env card)."""

    metadata: ClassVar[dict[str, Any]] = {
        "name": "alem_coop_v0",
        "render_modes": ["human", "rgb_array"],
        "render_fps": 10,
        "is_parallelizable": True,
    }

    def __init__(
        self,
        players: int = 3,
        difficulty: str | float = "medium",
        comm_channels: int = 0,
        max_steps: int = DEFAULT_MAX_STEPS,
        obs_type: str = "symbolic",
        mask_in_obs: bool = False,
        params: Mapping[str, Any] | None = None,
        render_mode: str | None = None,
        static: alem_core.StaticParams | None = None,
        text_config: Any = None,
        strict_actions: bool = False,
        observer: Observer | None = None,
    ) -> None:
        """Build the env (no compilation happens before the first ``reset``). ``observer``, if
        given, replaces the observer ``obs_type`` names (``alem_pz.envs.observers``).

        Raises:
            ValueError: for an unknown ``obs_type`` or ``render_mode``, a bad ``max_steps``,
                ``params`` or ``static`` (including a ``static`` whose sizes disagree with
                ``players``/``comm_channels``), and anything ``alem_core`` rejects.
        """
        if obs_type not in OBS_TYPES:
            raise ValueError(f"obs_type must be one of {OBS_TYPES}, got {obs_type!r}")
        if render_mode is not None and render_mode not in self.metadata["render_modes"]:
            raise ValueError(
                f"render_mode {render_mode!r} is not supported "
                f"(supported: None and {self.metadata['render_modes']})"
            )
        max_steps = positive_int("max_steps", max_steps)
        self.static = static_params(players, comm_channels, static)
        self.params = gameplay_params(difficulty, int(max_steps), params)
        self.obs_type = obs_type
        self.mask_in_obs = switch("mask_in_obs", mask_in_obs)
        self.strict_actions = switch("strict_actions", strict_actions)
        self.render_mode = render_mode
        self.max_steps = int(max_steps)
        bounds = (obs_low(self.params), OBS_HIGH)
        self.observer: Observer = observer or make_observer(
            obs_type, self.params, self.static, bounds, text_config
        )
        self.renderer = rendering.Renderer(self.static, render_mode, self.metadata["render_fps"])
        self._masks: np.ndarray | None = None
        self._score: np.ndarray | None = None  # (P, K) of the episode that ended, else None

        self.possible_agents = [f"agent_{i}" for i in range(self.static.player_count)]
        self.agents: list[str] = []
        self._index = {agent: i for i, agent in enumerate(self.possible_agents)}
        self._build_spaces()
        # No JAX work before the first reset(): a process that forks workers after building
        # envs (SuperSuit's concat_vec_envs_v1 with num_cpus >= 2) must not have started JAX.
        self._params_buffers = None
        self._key: jax.Array | None = None
        self._state = None
        self._obs: np.ndarray | None = None

    def _build_spaces(self) -> None:
        size = alem_core.obs_size(self.static)
        n = self.static.num_actions
        low = obs_low(self.params)

        def obs_space() -> spaces.Space:
            box = copy.deepcopy(self.observer.space())
            if not self.mask_in_obs:
                return box
            return spaces.Dict({"observation": box, "action_mask": spaces.Box(0, 1, (n,), np.int8)})

        # One object per agent (each seeds its own sampler), returned by identity on every
        # call, as PettingZoo requires.
        self.observation_spaces = {agent: obs_space() for agent in self.possible_agents}
        self.action_spaces = {agent: spaces.Discrete(n) for agent in self.possible_agents}
        self._state_space = spaces.Box(
            low, OBS_HIGH, (size * self.static.player_count,), np.float32
        )
        self._obs_dim = size
        self._num_actions = n
        self._flag_column = size + n  # packed columns: obs | mask | reward, term, trunc, ...
        self._zero_score: np.ndarray | None = None  # (P, K) zeros, made at the first reset

    def observation_space(self, agent: str) -> spaces.Space:
        """The (cached) observation space of ``agent``."""
        try:
            return self.observation_spaces[agent]
        except KeyError:
            raise ValueError(
                f"unknown agent {agent!r}; agents are {self.possible_agents}"
            ) from None

    def action_space(self, agent: str) -> spaces.Discrete:
        """The (cached) ``Discrete(A)`` action space of ``agent``."""
        try:
            return self.action_spaces[agent]
        except KeyError:
            raise ValueError(
                f"unknown agent {agent!r}; agents are {self.possible_agents}"
            ) from None

    @property
    def state_space(self) -> spaces.Box:
        """Box of ``state()``: every agent's observation concatenated, same bounds."""
        return self._state_space

    # ---- episode ---------------------------------------------------------------------------

    def reset(self, seed: int | None = None, options: dict | None = None):
        """Start an episode.

        Args:
            seed: builds the PRNG key; the same seed gives the same episode. Without a seed the
                env continues its own key sequence (seeded from OS entropy if never seeded).
            options: accepted for API compatibility and ignored.

        Returns:
            ``(observations, infos)`` dicts keyed by agent.
        """
        if seed is not None:
            self._key = jnp.asarray(alem_core.seed_key(seed))
        elif self._key is None:
            self._key = jnp.asarray(np.random.SeedSequence().generate_state(2, dtype=np.uint32))
        core = compiled_core(self.static)
        if self._params_buffers is None:
            self._params_buffers = core.pack_params(self.params)
        self._key, self._state, packed = core.reset(self._key, self._params_buffers)
        self.agents = self.possible_agents[:]
        self._score = None
        if self._zero_score is None:  # score_keys traces shapes: not before the first reset
            self._zero_score = np.zeros(
                (self.static.player_count, len(self.score_keys)), np.float32
            )
        obs, _, _, _, infos = self._unpack(jax.device_get(packed), self.agents)
        return obs, infos

    def step(self, actions: Mapping[str, Any]):
        """Advance the world one step with one action per agent in ``agents``.

        Raises:
            RuntimeError: before ``reset`` or after the episode ended.
            ValueError: a missing, unknown or departed agent, or an action that is not an
                integer in the action space (with ``strict_actions``, also an action the
                mask marks illegal). The world is unchanged when this is raised.

        Returns:
            ``(observations, rewards, terminations, truncations, infos)`` keyed by the agents
            that acted; flags are Python ``bool``, rewards Python ``float``.
        """
        action_array = self._validate(actions)
        core = compiled_core(self.static)
        self._key, self._state, packed = core.step(
            self._key, self._state, action_array, self._params_buffers
        )
        acting = self.agents
        host = jax.device_get(packed)
        if (host[:, self._flag_column + 1 : self._flag_column + 3] > 0.5).any():  # last step
            self._score = episode_score.score_rows(self._state, self.static)
        obs, rewards, terms, truncs, infos = self._unpack(host, acting, action_array)
        self.agents = [a for a in acting if not (terms[a] or truncs[a])]
        return obs, rewards, terms, truncs, infos

    def _validate(self, actions: Mapping[str, Any]) -> np.ndarray:
        """(P,) int32 actions, NOOP for departed agents; raises before anything changes."""
        if self._state is None:
            raise RuntimeError(f"step({actions!r}) called before reset(); call reset() first")
        if not self.agents:
            raise RuntimeError(
                f"step({actions!r}) called after the episode ended (env.agents is empty); "
                "call reset() to start a new episode"
            )
        chosen = action_array(actions, self.agents, self.possible_agents, self._num_actions)
        if self.strict_actions:
            check_legal(chosen, self._masks, self.agents, self.possible_agents)
        return chosen

    def _unpack(self, packed: np.ndarray, acting: list[str], actions: np.ndarray | None = None):
        """Per-agent dicts from the host copy of the packed step's array; the observer turns
        the frame into observations (``actions`` None after a reset)."""
        d, n = self._obs_dim, self._num_actions
        self._obs = packed[:, :d]  # kept for state(); users get their own copy
        mask = packed[:, d : d + n].astype(np.int8)
        self._masks = mask.copy()  # strict mode checks against this, not the users' copy
        reward, term, trunc, alive = (packed[:, d + n + j] for j in range(4))
        metrics = packed[:, d + n + 4 :]
        score = self._score if self._score is not None else self._zero_score
        assert score is not None  # reset() made the zero row
        infos = agent_infos(acting, self._index, mask, alive, metrics, score.copy())
        rewards_row = None
        if actions is not None:  # departed agents earn nothing they could see
            here = np.isin(self.possible_agents, acting)
            rewards_row = np.where(here, reward, 0.0).astype(np.float32)
        frame = Frame(self._obs, self._masks, self._state, actions, rewards_row)
        obs, extras = self.observer.observe(frame)
        observations, rewards, terms, truncs = {}, {}, {}, {}
        for agent in acting:
            i = self._index[agent]
            infos[agent].update(extras[i])
            rewards[agent] = float(reward[i])
            terms[agent] = bool(term[i] > 0.5)
            truncs[agent] = bool(trunc[i] > 0.5)
            if self.mask_in_obs:
                observations[agent] = {"observation": obs[i], "action_mask": mask[i].copy()}
            else:
                observations[agent] = obs[i]
        return observations, rewards, terms, truncs, infos

    @property
    def score_keys(self) -> tuple[str, ...]:
        """Names of the K columns of ``infos[agent]["score"]`` (docs/rules/score.md), in order."""
        return episode_score.score_keys(self.static)

    def episode_score(self) -> dict[str, dict[str, float]]:
        """``{agent: {score key: float}}``: the score of the episode that just ended, or, before
        it ends, the score so far (the same values the last step's ``infos[agent]["score"]``
        holds). Raises RuntimeError before ``reset``."""
        if self._state is None:
            raise RuntimeError("episode_score() called before reset(); call reset() first")
        table = (
            self._score
            if self._score is not None
            else episode_score.score_rows(self._state, self.static)
        )
        return episode_score.named_scores(table, self.static, self.possible_agents)

    @property
    def core_state(self) -> alem_core.State:
        """The ``alem_core.State`` of the running episode (a copy: edit it and assign it back)."""
        if self._state is None:
            raise RuntimeError("core_state read before reset(); call reset() first")
        return compiled_core(self.static).unpack_state(self._state)

    @core_state.setter
    def core_state(self, state: alem_core.State) -> None:
        """Replace the running episode's state (scenario set-up, tests)."""
        if self._state is None:
            raise RuntimeError("core_state set before reset(); call reset() first")
        self._state = compiled_core(self.static).pack_state(state)

    def state(self) -> np.ndarray:
        """(P·D,) float32 global state: every agent's latest observation, in agent order."""
        if self._obs is None:
            raise RuntimeError("state() called before reset(); call reset() first")
        return self._obs.reshape(-1).copy()

    @property
    def packed_state(self) -> Any:
        """The running episode's state as the compiled step holds it (device buffers, read by
        the pixel observer and the renderer; ``core_state`` is the ``alem_core.State``)."""
        if self._state is None:
            raise RuntimeError("nothing to draw before reset(); call reset() first")
        return self._state

    @property
    def action_masks(self) -> np.ndarray:
        """(P, A) int8: every agent's action mask now (a copy), what ``strict_actions`` checks
        the next actions against."""
        if self._masks is None:
            raise RuntimeError("action_masks read before reset(); call reset() first")
        return self._masks.copy()

    def render(self) -> np.ndarray | None:
        """The team frame: for "rgb_array" (H, W, 3) uint8, every agent's view side by side;
        for "human" shown in a window at ``metadata["render_fps"]`` (returns None)."""
        if self.render_mode is None:
            return None
        return self.renderer.render(self.packed_state)

    def close(self) -> None:
        """Close the render window if one is open (compiled functions stay shared)."""
        self.renderer.close()
