"""alem as a JaxMARL ``MultiAgentEnv``: reset and step are pure JAX, so JaxMARL-style trainers
``vmap`` them over environments and ``jit`` the whole update loop.

    from alem_pz.envs.jaxmarl import AlemJaxMARL
    env = AlemJaxMARL(players=3)   # the full game; a small one:
    small = alem_core.StaticParams(player_count=3, map_size=(16, 16), num_levels=1)
    env = AlemJaxMARL(static=small, max_steps=500)
    obs, state = env.reset(key)                       # obs: {agent: (D,) float32}
    obs, state, rewards, dones, info = env.step(key, state, {agent: action, ...})
    env.get_avail_actions(state)                      # {agent: (A,) bool}, the step's mask

What differs from JaxMARL's own environments, and why:

* **Auto-reset without a world per step.** JaxMARL's base ``step`` calls ``reset`` on every
  step and selects; world generation is several times the cost of a step, so it would run in
  every step. Here the state carries the next episode's world, generated ahead, and the
  auto-reset is ``alem_core.batch``'s own (``start_ended``, the one ``make_vec`` uses). Under
  ``vmap`` it runs behind one ``lax.cond`` on "did any env end" (a ``custom_vmap`` rule), and
  the used reserves are refilled a chunk at a time, so the steps where no episode ends neither
  generate nor copy a world, and a world is generated about once per episode. Episode ``e``
  of an env is the world of ``alem_core.batch.reserve.episode_keys(reset key, e)``, so
  batching changes no episode. Under two nested ``vmap`` the outer one turns the ``cond`` into
  a select: correct, slower.
* **Masks without params.** ``get_avail_actions(state)`` (and its alias ``get_legal_moves``,
  the name the Hanabi baselines use) reads the mask the step stored in the state, so it equals
  the step's mask, right after an auto-reset too.
* **Info leaves are per agent**, shape (P,), because JaxMARL's baselines reshape every leaf to
  ``NUM_ENVS * P``: ``alive``, ``terminated`` and ``truncated`` (termination and truncation
  told apart; ``dones`` is their union), ``illegal_action`` (the action was masked out in the
  state it was taken in: a trainer can count them), ``won``, ``timestep`` and ``alpha`` (the
  same for every agent) and the ``cooperation`` and ``reward_parts`` groups.
  ``full_info=True`` gives the core's info as it is instead (``achievements`` (P, 93),
  ``action_mask`` (P, A), scalars), plus those three.
* ``observation_space(agent).shape`` is ``(D,)`` and also reads as the int ``D`` where a
  baseline builds ``jnp.zeros((space.shape,))`` (the Hanabi baselines do).

JaxMARL is optional: this module imports without it, and building the env says what to install.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import partial
from typing import Any

import jax
import jax.numpy as jnp
from jax.custom_batching import custom_vmap

import alem_core
from alem_core.api import check_actions, observe, transition
from alem_core.batch.auto_reset import start_ended
from alem_core.batch.reserve import Batch, generate
from alem_core.batch.runner import default_chunk
from alem_core.state import State
from alem_pz.envs.arguments import gameplay_params, static_params
from alem_pz.envs.parallel import DEFAULT_MAX_STEPS, OBS_HIGH, obs_low

try:
    from jaxmarl.environments import spaces
    from jaxmarl.environments.multi_agent_env import MultiAgentEnv
except ImportError:  # the module still imports; AlemJaxMARL() says what to install
    spaces = None
    MultiAgentEnv = object

INSTALL_HINT = 'JaxMARL is not installed: pip install -e ".[jaxmarl]" (from a clone of alem)'


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class Reserve:
    """The next episode's world, generated ahead. Episode ``e`` of an env is always the world
    of ``alem_core.batch.reserve.episode_keys(seed, e)``, whenever its reserve is filled:
    batching changes no episode, and ``make_vec`` plays the same worlds from the same key."""

    world: State
    """The first state of episode ``episode + 1`` (valid where ``fresh``)."""
    fresh: jax.Array
    """() bool: ``world`` holds the next episode (False once swapped in, until refilled)."""
    seed: jax.Array
    """The key given to ``reset``."""
    episode: jax.Array
    """() int32: the running episode's index (0 after ``reset``)."""


@jax.tree_util.register_dataclass
@dataclass(frozen=True)
class AlemJaxMARLState:
    """One environment's state: the running world, the reserve, and what JaxMARL's ``State``
    holds (``done``, ``step``)."""

    world: State
    reserve: Reserve
    avail: jax.Array
    """(P, A) bool: the action mask of ``world`` (``get_avail_actions``)."""
    done: jax.Array
    """() bool: the last step ended an episode (``world`` is then the next one's start)."""
    step: jax.Array
    """() int32: steps taken in the running episode."""


class ShapeSize(tuple):
    """``(D,)`` that also works as the int ``D`` (``operator.index``), for baselines that
    treat an observation space's shape as a number."""

    def __index__(self) -> int:
        return int(self[0])

    __int__ = __index__


def _select(flag: jax.Array, a: Any, b: Any) -> Any:
    return jax.tree.map(lambda x, y: jnp.where(flag, x, y), a, b)


def _as_batch(world: State, reserve: Reserve, over: jax.Array) -> Batch:
    """N envs (leading axis on every leaf) as ``alem_core.batch``'s record: the ones ``over``
    ended on this step."""
    n = over.shape[0]
    players = world.players.alive.shape[1]
    zeros = jnp.zeros((n,), jnp.int32)
    return Batch(
        world, reserve.world, reserve.fresh, reserve.seed, reserve.episode, zeros,
        jnp.zeros((n, players), jnp.float32), over, jnp.zeros_like(over),
    )  # fmt: skip


def _auto_reset_rule(params: alem_core.Params, static: alem_core.StaticParams):
    """``auto_reset(world, reserve, over) -> (world, reserve)``: where ``over``, the next
    episode's world replaces ``world``, through ``alem_core.batch``'s one auto-reset
    (``start_ended``: reserves refilled a chunk at a time, then swapped in).

    One env is a batch of one. Batched (``custom_vmap``), the whole upkeep runs under one
    ``lax.cond`` taken only on steps where some env ended, with ``default_chunk(N)``, so a world
    is generated about once per episode and a step where no episode ends copies no world.
    """

    def start(world, reserve, over, chunk):
        def upkeep():
            batch = start_ended(_as_batch(world, reserve, over), params, static, chunk)
            return batch.worlds, Reserve(
                batch.reserve, batch.reserve_fresh, batch.slot_key, batch.episode
            )

        return jax.lax.cond(over.any(), upkeep, lambda: (world, reserve))

    @custom_vmap
    def auto_reset(world, reserve, over):
        one = jax.tree.map(lambda x: x[None], (world, reserve, over))
        return jax.tree.map(lambda x: x[0], start(*one, chunk=1))

    @auto_reset.def_vmap
    def auto_reset_batched(axis_size, in_batched, world, reserve, over):
        def batched(x, is_batched):
            return x if is_batched else jnp.broadcast_to(x, (axis_size, *jnp.shape(x)))

        args = (world, reserve, over)
        world, reserve, over = (
            jax.tree.map(batched, a, b) for a, b in zip(args, in_batched, strict=True)
        )
        out = start(world, reserve, over, default_chunk(axis_size))
        return out, jax.tree.map(lambda _: True, out)

    return auto_reset


class AlemJaxMARL(MultiAgentEnv):
    """The alem world as a JaxMARL ``MultiAgentEnv`` (see the module docstring)."""

    def __init__(
        self,
        players: int = 3,
        difficulty: str | float = "medium",
        comm_channels: int = 0,
        max_steps: int = DEFAULT_MAX_STEPS,
        params: Mapping[str, Any] | None = None,
        static: alem_core.StaticParams | None = None,
        full_info: bool = False,
        world_state: bool = False,
    ) -> None:
        """Build the env; the arguments mean what they mean for ``AlemParallelEnv``, and:

        Args:
            full_info: the core's info as it is instead of per-agent leaves (module docstring).
            world_state: the observation dict also holds ``"world_state"``, every agent's
                observation in agent order (P * D,), as ``AlemParallelEnv.state()``; with
                ``state_size`` and ``num_allies`` it is what JaxMARL's MAPPO baselines read
                for their centralised critic.

        Raises:
            ImportError: JaxMARL is not installed (the message says how to install it).
            ValueError: for the values ``AlemParallelEnv`` refuses.
        """
        if spaces is None:
            raise ImportError(INSTALL_HINT)
        static = static_params(players, comm_channels, static)
        super().__init__(num_agents=static.player_count)
        self.static = static
        self.params = gameplay_params(difficulty, int(max_steps), params)
        self.full_info = bool(full_info)
        self.world_state = bool(world_state)
        self.num_allies = static.player_count
        self.state_size = static.player_count * alem_core.obs_size(static)
        size = ShapeSize((alem_core.obs_size(static),))
        box = spaces.Box(obs_low(self.params), OBS_HIGH, size, jnp.float32)
        self.observation_spaces = {agent: box for agent in self.agents}
        self.action_spaces = {a: spaces.Discrete(static.num_actions) for a in self.agents}
        self._auto_reset = _auto_reset_rule(self.params, static)

    @property
    def agent_classes(self) -> dict[str, list[str]]:
        return {"player": list(self.agents)}

    def _dict(self, x: jax.Array) -> dict[str, jax.Array]:
        return {agent: x[i] for i, agent in enumerate(self.agents)}

    def _obs(self, obs: jax.Array) -> dict[str, jax.Array]:
        extra = {"world_state": obs.reshape(-1)} if self.world_state else {}
        return {**self._dict(obs), **extra}

    @partial(jax.jit, static_argnums=(0,))
    def reset(self, key: jax.Array) -> tuple[dict[str, jax.Array], AlemJaxMARLState]:
        # Episodes 0 and 1 of the key, made where alem_core.batch makes every world.
        obs, worlds, mask = generate(jnp.stack([key, key]), jnp.arange(2), self.params, self.static)
        world, after = (jax.tree.map(lambda x, e=e: x[e], worlds) for e in (0, 1))
        reserve = Reserve(after, jnp.bool_(True), key, jnp.int32(0))
        obs, mask = obs[0], mask[0]
        state = AlemJaxMARLState(world, reserve, mask, jnp.bool_(False), jnp.int32(0))
        return self._obs(obs), state

    @partial(jax.jit, static_argnums=(0,))
    def step(
        self,
        key: jax.Array,
        state: AlemJaxMARLState,
        actions: Mapping[str, jax.Array],
        reset_state: AlemJaxMARLState | None = None,
    ) -> tuple[dict, AlemJaxMARLState, dict, dict, dict]:
        """One step for every agent; when the episode ends, the returned observation and state
        are the next episode's first: the reserve's, or ``reset_state``'s if given."""
        world, reward, terminated, truncated, info = self._transition(key, state, actions)
        over = terminated.any() | truncated.any()  # the team's episode ends for all at once
        if reset_state is None:
            world, reserve = self._auto_reset(world, state.reserve, over)
        else:
            world, reserve = _select(over, reset_state.world, world), state.reserve
        return self._outputs(world, reserve, state.step, reward, terminated, truncated, info)

    def step_env(self, key, state, actions):
        """One step without the auto-reset (JaxMARL's contract for ``step_env``): a finished
        episode's last state is returned as it is."""
        world, reward, terminated, truncated, info = self._transition(key, state, actions)
        return self._outputs(world, state.reserve, state.step, reward, terminated, truncated, info)

    def _transition(self, key, state: AlemJaxMARLState, actions: Mapping[str, jax.Array]):
        acts = jnp.stack([jnp.asarray(actions[agent]) for agent in self.agents])
        check_actions(acts, self.static)  # names the shapes at trace time
        world, reward, terminated, truncated, info = transition(
            key, state.world, acts, self.params, self.static
        )
        in_range = (acts >= 0) & (acts < self.static.num_actions)
        allowed = jnp.take_along_axis(state.avail, jnp.clip(acts, 0)[:, None], axis=1)[:, 0]
        info = {**info, "illegal_action": ~(in_range & allowed)}
        return world, reward, terminated, truncated, info

    def _outputs(self, world, reserve, steps, reward, terminated, truncated, info):
        over = terminated.any() | truncated.any()
        obs, mask = observe(world, self.params, self.static)
        steps = jnp.where(over, 0, steps + 1).astype(jnp.int32)
        state = AlemJaxMARLState(world, reserve, mask, over, steps)
        dones = {**self._dict(terminated | truncated), "__all__": over}
        info = self._info(info, terminated, truncated)
        return self._obs(obs), state, self._dict(reward), dones, info

    def _info(self, info: dict, terminated: jax.Array, truncated: jax.Array) -> dict:
        extra = {
            "terminated": terminated,
            "truncated": truncated,
            "illegal_action": info["illegal_action"],
        }
        if self.full_info:
            return {**info, **extra}
        per_agent = (self.static.player_count,)
        same = {k: jnp.broadcast_to(info[k], per_agent) for k in ("won", "timestep", "alpha")}
        groups = {k: info[k] for k in ("alive", "cooperation", "reward_parts")}
        return {**groups, **same, **extra}

    def get_obs(self, state: AlemJaxMARLState) -> dict[str, jax.Array]:
        return self._obs(observe(state.world, self.params, self.static)[0])

    @partial(jax.jit, static_argnums=(0,))
    def get_avail_actions(self, state: AlemJaxMARLState) -> dict[str, jax.Array]:
        return self._dict(state.avail)

    get_legal_moves = get_avail_actions


__all__ = ["INSTALL_HINT", "AlemJaxMARL", "AlemJaxMARLState", "ShapeSize"]
