"""IPPO and MAPPO on the batched alem world, end to end under ``jit`` (PureJaxRL style).

One compiled function runs ``updates_per_call`` PPO updates, each a ``lax.scan`` rollout of
``num_steps`` steps over ``num_worlds`` worlds x P agents (``alem_core.batch.auto_reset``:
auto-reset from pre-generated reserves, refreshed inside the scan) followed by ``update_epochs``
epochs of minibatch updates. Python only loops over those calls to log, checkpoint and resume.

* IPPO: one actor and one critic shared by all agents, each reading its own observation plus a
  one-hot agent id.
* MAPPO: the same actor; the critic is centralised, reading the global state (every agent's
  observation in agent order, as ``AlemParallelEnv.state()``) plus the agent id.

``network`` picks the networks (``alem_train.models``): ``mlp``, two tanh layers each, or
``gru``, the paper's recurrent network (``alem_train.recurrent``), whose memory is carried
through the rollout and reset at episode ends and deaths. Feed-forward minibatches are shuffled
rows; recurrent ones are whole worlds, every step of the rollout in order, replayed from the
memory the rollout started with (``alem_train.presets`` holds the paper's settings).

Rows carry no decision, and are left out of every loss, where the agent was dead (only NOOP is
legal) or its world was resetting or waiting (the batch ignores those actions). An agent's
death ends its GAE chain like a termination; truncation is treated as termination.
The losses are ``alem_train.objectives.actor_critic``'s (GAE, PPO clip, clipped value loss,
entropy), with advantages normalised per minibatch over the active rows.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, NamedTuple

import jax
import jax.numpy as jnp
import optax
from jax import Array

import alem_core
from alem_core.batch import auto_reset as core_batch
from alem_core.batch.runner import default_chunk
from alem_core.params import PROTOCOL_PARAMS
from alem_core.scoring.score import score_columns
from alem_train import recurrent
from alem_train.models import MODELS, model_for
from alem_train.objectives.actor_critic import (
    entropy,
    gae,
    log_prob,
    ppo_actor_loss,
    value_loss,
)

EPISODE_KEYS = ("episode_return", "Team/achievement_pct", "Team/coord_reward_pct_of_max")


@dataclass(frozen=True)
class PPOConfig:
    """Everything a run depends on (hashable: it is static under ``jit``); ``presets`` holds
    the paper's. Each field's ``help`` is its ``run_ppo`` flag's."""

    algo: str = field(
        default="ippo",
        metadata={"help": "ippo: a critic per agent; mappo: one critic over every agent's view"},
    )
    difficulty: str = field(
        default="medium",
        metadata={"help": "coordination difficulty trained on: easy, medium or hard"},
    )
    players: int = field(default=3, metadata={"help": "agents per world"})
    map_size: int = field(default=48, metadata={"help": "map side in cells"})
    num_levels: int = field(default=9, metadata={"help": "floors per world"})
    max_steps: int = field(
        default=10_000, metadata={"help": "episode length cap (the protocol's 10,000)"}
    )
    num_worlds: int = field(default=32, metadata={"help": "worlds stepped side by side"})
    num_steps: int = field(default=64, metadata={"help": "rollout steps per update"})
    update_epochs: int = field(default=4, metadata={"help": "passes over each rollout"})
    num_minibatches: int = field(
        default=4, metadata={"help": "minibatches per pass (recurrent: whole worlds each)"}
    )
    learning_rate: float = field(default=3e-4, metadata={"help": "Adam's step size"})
    anneal_lr: bool = field(
        default=True, metadata={"help": "anneal the step size linearly to 0 over the run"}
    )
    total_env_steps: int = field(
        default=1_000_000, metadata={"help": "the run's budget in world-steps"}
    )
    gamma: float = field(default=0.99, metadata={"help": "discount"})
    gae_lambda: float = field(default=0.8, metadata={"help": "GAE's lambda"})
    clip_eps: float = field(default=0.2, metadata={"help": "PPO's ratio clip"})
    value_clip: float | None = field(
        default=0.2, metadata={"help": "clip of the value update around the rollout's value"}
    )
    ent_coef: float = field(default=0.01, metadata={"help": "entropy bonus"})
    vf_coef: float = field(default=0.5, metadata={"help": "value loss weight"})
    max_grad_norm: float = field(default=0.5, metadata={"help": "global gradient norm clip"})
    hidden: int = field(default=128, metadata={"help": "width of the first dense layer"})
    updates_per_call: int = field(
        default=4,
        metadata={"help": "updates per compiled trainer call (checkpoints are whole calls)"},
    )
    network: str = field(
        default="mlp",
        metadata={
            "help": "mlp (feed-forward) or gru (the paper's recurrent network, alem_train.models)"
        },
    )
    gru_size: int = field(default=512, metadata={"help": "the GRU's memory (gru only)"})
    head: int = field(
        default=512,
        metadata={"help": "the actor head's width, and MAPPO's critic head's (gru only)"},
    )

    def __post_init__(self) -> None:
        if self.algo not in ("ippo", "mappo"):
            raise ValueError(f"algo must be 'ippo' or 'mappo', got {self.algo!r}")
        if self.network not in MODELS:
            raise ValueError(f"network must be one of {sorted(MODELS)}, got {self.network!r}")
        sizes = ("hidden", "gru_size", "head")
        for name in ("num_worlds", "num_steps", "update_epochs", "num_minibatches", *sizes):
            value = getattr(self, name)
            if not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive int, got {value!r}")
        if (self.num_worlds * self.num_steps) % self.num_minibatches:
            raise ValueError(
                f"num_worlds x num_steps = {self.num_worlds * self.num_steps} must divide into "
                f"num_minibatches = {self.num_minibatches} equal minibatches"
            )
        if self.recurrent and self.num_worlds % self.num_minibatches:
            raise ValueError(
                f"a recurrent minibatch is whole worlds: num_worlds = {self.num_worlds} must "
                f"divide into num_minibatches = {self.num_minibatches}"
            )

    @property
    def central_critic(self) -> bool:
        return self.algo == "mappo"

    @property
    def recurrent(self) -> bool:
        return self.network != "mlp"

    @property
    def steps_per_update(self) -> int:
        """World steps (env-steps) collected per update."""
        return self.num_worlds * self.num_steps

    @property
    def num_updates(self) -> int:
        return max(1, self.total_env_steps // self.steps_per_update)

    @property
    def chunk(self) -> int:
        return default_chunk(self.num_worlds)

    def static(self) -> alem_core.StaticParams:
        size = (self.map_size, self.map_size)
        return alem_core.StaticParams(
            player_count=self.players, map_size=size, num_levels=self.num_levels
        )

    def env_params(self) -> alem_core.Params:
        """The evaluation protocol's gameplay settings (individual rewards, soft roles)."""
        return alem_core.make_params(
            self.difficulty, max_timesteps=self.max_steps, **PROTOCOL_PARAMS
        ).as_arrays()


class TrainState(NamedTuple):
    """Everything that changes during training (checkpointed whole to resume)."""

    params: dict
    opt_state: Any
    batch: core_batch.Batch
    out: core_batch.BatchOutput
    key: Array
    update: Array
    memory: dict  # (N, P, gru_size) per trunk, for the next step; {} without memory


class Transition(NamedTuple):
    obs: Array  # (N, P, D)
    mask: Array  # (N, P, A)
    action: Array  # (N, P)
    logp: Array
    value: Array
    reward: Array
    end: Array  # the agent's chain ends after this step (world ended or agent died)
    valid: Array  # the row carries a decision


def make_optimizer(config: PPOConfig) -> optax.GradientTransformation:
    total = config.num_updates * config.update_epochs * config.num_minibatches
    rate = (
        optax.linear_schedule(config.learning_rate, 0.0, total)
        if config.anneal_lr
        else config.learning_rate
    )
    return optax.chain(optax.clip_by_global_norm(config.max_grad_norm), optax.adam(rate, eps=1e-5))


def init_train_state(key: Array, config: PPOConfig) -> TrainState:
    """Fresh networks, optimiser and batch of worlds (episode 0 of every slot)."""
    model = model_for(config.network)
    k_net, k_env, k_run = jax.random.split(key, 3)
    params = model.init(k_net, config)
    opt_state = make_optimizer(config).init(params)
    batch, out = core_batch.init(k_env, config.num_worlds, config.env_params(), config.static())
    memory = model.memory(params, (config.num_worlds, config.players))
    state = TrainState(params, opt_state, batch, out, k_run, jnp.zeros((), jnp.int32), memory)
    return jax.tree.map(jnp.copy, state)  # distinct buffers: the train call donates them all


def _policy_step(params: dict, memory: dict, out: core_batch.BatchOutput, key: Array,
                 config: PPOConfig):  # fmt: skip
    mask = out.info["action_mask"]
    step = model_for(config.network).step
    logits, value, memory = step(params, memory, out.obs, mask, config.central_critic)
    action = jax.random.categorical(key, logits).astype(jnp.int32)
    return action, log_prob(logits, action), value, memory


def _episode_sums(nxt: core_batch.BatchOutput, static) -> Array:
    """(1 + len(EPISODE_KEYS),) count of worlds that ended and the sums of their team means."""
    done = nxt.info["done"]
    team = [nxt.info["episode_return"].mean(axis=1)]
    scores = score_columns(nxt.info["score"], static)
    team += [scores[k].mean(axis=1) for k in EPISODE_KEYS[1:]]
    sums = [jnp.where(done, x, 0.0).sum() for x in team]
    return jnp.stack([done.sum().astype(jnp.float32), *sums])


def rollout(state: TrainState, config: PPOConfig):
    """``num_steps`` steps of every world; returns the new state, transitions and episode sums.
    The rollout's first memory stays in ``state.memory`` of the input: ``update`` replays from
    it."""
    static, env_params, chunk = config.static(), config.env_params(), config.chunk

    def one(carry, _):
        batch, out, memory, key = carry
        key, k_act = jax.random.split(key)
        action, logp, value, memory = _policy_step(state.params, memory, out, k_act, config)
        batch, nxt = core_batch.step(batch, action, env_params, static, chunk)
        skipped = (nxt.info["reset"] | nxt.info["waiting"])[:, None]
        alive = out.info["alive"]
        ended = nxt.terminated | nxt.truncated | (alive & ~nxt.info["alive"])
        valid = alive & ~skipped
        step = Transition(
            out.obs, out.info["action_mask"], action, logp, value, nxt.reward, ended, valid
        )
        memory = recurrent.carry(memory, valid & ~ended)
        return (batch, nxt, memory, key), (step, _episode_sums(nxt, static))

    (batch, out, memory, key), (traj, sums) = jax.lax.scan(
        one, (state.batch, state.out, state.memory, state.key), None, config.num_steps
    )
    new = state._replace(batch=batch, out=out, key=key, memory=memory)
    return new, traj, sums.sum(axis=0)


def _loss(params: dict, mb: dict, memory: dict, config: PPOConfig):
    """PPO loss on a minibatch of (T, B) world-step sequences, each step with its P agents,
    replayed from ``memory`` (B, P, ...)."""
    keep = mb["valid"] & ~mb["end"]
    unroll = model_for(config.network).unroll
    logits, value = unroll(params, memory, mb["obs"], mb["mask"], keep, config.central_critic)
    rows = lambda x: x.reshape(-1, *x.shape[2:])  # noqa: E731  (T, B, P, ...) -> (T·B, P, ...)
    logits, value, mb = rows(logits), rows(value), jax.tree.map(rows, mb)
    logp = log_prob(logits, mb["action"])
    act = mb["valid"][None, None]  # [B=1, G=1, T=M, N=P] for the objectives' contract
    everyone = jnp.ones(act.shape[:-1], bool)
    actor, stats = ppo_actor_loss(
        logp[None, None], mb["logp"][None, None], mb["adv"][None, None], act, everyone,
        eps=config.clip_eps, normalise=True,
    )  # fmt: skip
    critic = value_loss(value, mb["value"], mb["ret"], config.value_clip, mb["valid"])
    bonus = entropy(logits, mb["valid"])
    loss = actor + config.vf_coef * critic - config.ent_coef * bonus
    return loss, {"actor_loss": actor, "value_loss": critic, "entropy": bonus, **stats}


def learn(params: dict, opt_state: Any, key: Array, traj: Transition, last_value: Array,
          config: PPOConfig, memory: dict | None = None) -> tuple[dict, Any, dict]:  # fmt: skip
    """GAE, then ``update_epochs`` passes of shuffled minibatches over ``traj`` (T, N, P, ...),
    bootstrapped from ``last_value`` (N, P), the critic's value after the last step; returns
    the new params, optimiser state and mean metrics. A recurrent network replays whole worlds
    from ``memory``, the memory the rollout started with; a feed-forward one shuffles rows. Any
    rollout that fills a ``Transition`` can call it (the batched one below,
    ``examples/jaxmarl_ippo.py``'s over the JaxMARL env)."""
    values_ = jnp.concatenate([traj.value, last_value[None]])
    adv, ret = gae(traj.reward, values_, traj.end, config.gamma, config.gae_lambda, time_axis=0)
    samples = {**traj._asdict(), "adv": adv, "ret": ret}
    if memory is None and config.recurrent:
        raise ValueError("a recurrent network's learn needs the memory its rollout started from")
    memory = {} if memory is None else memory
    if not config.recurrent:  # one sequence per row: (1, T·N, P, ...)
        samples = jax.tree.map(lambda x: x.reshape(1, -1, *x.shape[2:]), samples)
    sequences = samples["valid"].shape[1]
    optimizer = make_optimizer(config)
    grad_fn = jax.value_and_grad(_loss, has_aux=True)

    def epoch(carry, key):
        params, opt_state = carry
        order = jax.random.permutation(key, sequences)
        batches = order.reshape(config.num_minibatches, -1)

        def minibatch(carry, rows):
            params, opt_state = carry
            mb = jax.tree.map(lambda x: x[:, rows], samples)
            mb_memory = jax.tree.map(lambda h: h[rows], memory)
            (_, stats), grads = grad_fn(params, mb, mb_memory, config)
            updates, opt_state = optimizer.update(grads, opt_state, params)
            stats["grad_norm"] = optax.tree.norm(grads)
            return (optax.apply_updates(params, updates), opt_state), stats

        return jax.lax.scan(minibatch, (params, opt_state), batches)

    keys = jax.random.split(key, config.update_epochs)
    (params, opt_state), stats = jax.lax.scan(epoch, (params, opt_state), keys)
    return params, opt_state, jax.tree.map(jnp.mean, stats)


def last_values(state: TrainState, config: PPOConfig) -> Array:
    """(N, P) the critic's values of the worlds as the rollout left them."""
    step = model_for(config.network).step
    mask = state.out.info["action_mask"]
    return step(state.params, state.memory, state.out.obs, mask, config.central_critic)[1]


def update(state: TrainState, traj: Transition, memory: dict, config: PPOConfig):
    """``learn`` on the batch's rollout, which started from ``memory``; returns the new state
    and mean metrics."""
    key, k_epochs = jax.random.split(state.key)
    params, opt_state, stats = learn(
        state.params, state.opt_state, k_epochs, traj, last_values(state, config), config, memory
    )
    return state._replace(params=params, opt_state=opt_state, key=key), stats


def make_train_call(config: PPOConfig):
    """A jitted ``state -> (state, metrics)`` running ``updates_per_call`` full PPO updates.

    ``metrics`` are per update (leading axis ``updates_per_call``): the loss statistics, and
    ``episodes`` with the sums of ``EPISODE_KEYS`` over the worlds that ended in its rollout.
    """

    def one_update(state: TrainState, _):
        memory = state.memory
        state, traj, sums = rollout(state, config)
        state, stats = update(state, traj, memory, config)
        stats["episodes"] = sums[0]
        for i, name in enumerate(EPISODE_KEYS):
            stats[f"sum/{name}"] = sums[i + 1]
        stats["valid_fraction"] = traj.valid.mean()
        return state._replace(update=state.update + 1), stats

    def call(state: TrainState):
        return jax.lax.scan(one_update, state, None, config.updates_per_call)

    return jax.jit(call, donate_argnums=0)


__all__ = [
    "EPISODE_KEYS",
    "PPOConfig",
    "TrainState",
    "Transition",
    "init_train_state",
    "last_values",
    "learn",
    "make_train_call",
]
