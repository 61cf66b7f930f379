"""Team policy-optimisation objectives as pure JAX functions (docs/training.md#objectives 4).

Conventions and caveats: ``alem_train/README.md``.
"""

from alem_train.objectives.actor_critic import (
    entropy,
    gae,
    normalise_batch_adv,
    ppo_actor_loss,
    value_loss,
)
from alem_train.objectives.advantages import (
    agentwise_group_norm_adv,
    broadcast_outcome_adv,
    group_norm_adv,
    reward_to_go_norm,
)
from alem_train.objectives.batching import check_events_unsplit, event_minibatches, member_rows
from alem_train.objectives.divergences import kl_exact, kl_k1, kl_k2, kl_k3
from alem_train.objectives.losses import (
    aggregate,
    clipped_surrogate,
    event_log_ratio,
    igrpo_loss,
    srpo_loss,
)
from alem_train.objectives.sequential import agent_rows, happo_factor, seq_tr_agent_loss
from alem_train.objectives.team_tr import (
    AgentUpdateLog,
    Rollout,
    SeqTRSettings,
    StageLog,
    team_tr_stage,
)

__all__ = [
    "AgentUpdateLog",
    "Rollout",
    "SeqTRSettings",
    "StageLog",
    "agent_rows",
    "agentwise_group_norm_adv",
    "aggregate",
    "broadcast_outcome_adv",
    "check_events_unsplit",
    "clipped_surrogate",
    "entropy",
    "event_log_ratio",
    "event_minibatches",
    "gae",
    "group_norm_adv",
    "happo_factor",
    "igrpo_loss",
    "kl_exact",
    "kl_k1",
    "kl_k2",
    "kl_k3",
    "member_rows",
    "normalise_batch_adv",
    "ppo_actor_loss",
    "reward_to_go_norm",
    "seq_tr_agent_loss",
    "srpo_loss",
    "team_tr_stage",
    "value_loss",
]
