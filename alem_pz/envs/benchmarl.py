"""alem as a BenchMARL task: its algorithms (MAPPO, IPPO, QMIX, ...) train on alem from Python.

    from benchmarl.experiment import Experiment, ExperimentConfig
    from benchmarl.algorithms import MappoConfig
    from benchmarl.models.mlp import MlpConfig
    from alem_pz.envs.benchmarl import AlemTask

    experiment = Experiment(
        task=AlemTask.COOP.get_task(),          # or get_task(config={...}): see TASKS
        algorithm_config=MappoConfig.get_from_yaml(),
        model_config=MlpConfig.get_from_yaml(),
        critic_model_config=MlpConfig.get_from_yaml(),
        seed=0,
        config=ExperimentConfig.get_from_yaml(),
    )
    experiment.run()

The env is TorchRL's own ``PettingZooWrapper`` over ``alem_pz.parallel_env`` with
``use_mask=True`` (docs/libraries/torchrl.md): one group, ``"agent"``; the mask reaches the
algorithms through ``action_mask_spec``; the per-agent infos (``alive``, the ``cooperation``
counters, ``score``) through ``info_spec``. ``log_info`` logs the episode score of the episodes
that ended in each collected batch as ``collection/score/<key>`` (the mean over those episodes
and the agents), since the ``score`` row is zero until an episode's last step and BenchMARL's
own info means average it over every step.

A task's config holds the env's arguments (``TASKS`` lists them with their defaults): yaml
files are not needed, ``get_task()`` uses the defaults and ``get_task(config={...})`` takes
any subset.
"""

from __future__ import annotations

from typing import Any

import alem_core
from alem_pz.envs.episode_score import score_keys

try:
    import torch
    from benchmarl.environments.common import Task, TaskClass
    from tensordict import is_tensor_collection
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper
except ImportError as error:  # say what to install, not which import failed deep down
    raise ImportError(
        f'BenchMARL is not installed ({error.name}): pip install -e ".[benchmarl]" '
        "(from a clone of alem)"
    ) from error

TASKS: dict[str, dict[str, Any]] = {
    "COOP": dict(players=3, difficulty="medium", comm_channels=0, max_steps=10_000,
                 map_size=48, num_levels=9),
    "COOP_SMALL": dict(players=3, difficulty="medium", comm_channels=0, max_steps=500,
                       map_size=16, num_levels=1),
}  # fmt: skip
"""Each task's config with its defaults: the full game, and a 16 x 16 one-floor world."""


class AlemTaskClass(TaskClass):
    """How BenchMARL builds and reads an alem env (see the module docstring)."""

    def __init__(self, name: str, config: dict[str, Any] | None) -> None:
        unknown = set(config or {}) - set(TASKS[name])
        if unknown:
            raise ValueError(f"unknown alem task config keys {sorted(unknown)}; known: "
                             f"{sorted(TASKS[name])}")  # fmt: skip
        super().__init__(name, {**TASKS[name], **(config or {})})

    def static(self) -> alem_core.StaticParams:
        c = self.config
        return alem_core.StaticParams(
            player_count=c["players"], num_comm_channels=c["comm_channels"],
            map_size=(c["map_size"], c["map_size"]), num_levels=c["num_levels"],
        )  # fmt: skip

    def get_env_fun(self, num_envs: int, continuous_actions: bool, seed: int | None, device):
        import alem_pz

        c = self.config
        kwargs = dict(players=c["players"], difficulty=c["difficulty"],
                      comm_channels=c["comm_channels"], max_steps=c["max_steps"],
                      static=self.static())  # fmt: skip
        return lambda: PettingZooWrapper(
            env=alem_pz.parallel_env(**kwargs), use_mask=True, categorical_actions=True,
            seed=seed, device=device,
        )  # fmt: skip

    def supports_continuous_actions(self) -> bool:
        return False

    def supports_discrete_actions(self) -> bool:
        return True

    def has_render(self, env) -> bool:
        return False  # frames come from alem-record or render_mode="rgb_array" on the env

    def max_steps(self, env) -> int:
        return int(self.config["max_steps"])

    def group_map(self, env) -> dict[str, list[str]]:
        return env.group_map

    def _group_entries(self, env, keep: str):
        """The observation spec with only ``keep`` under each group (None if none has it)."""
        spec = env.observation_spec.clone()
        for group in self.group_map(env):
            for key in list(spec[group].keys()):
                if key != keep:
                    del spec[group][key]
            if spec[group].is_empty():
                del spec[group]
        return None if spec.is_empty() else spec

    def observation_spec(self, env):
        return self._group_entries(env, "observation")

    def action_mask_spec(self, env):
        return self._group_entries(env, "action_mask")

    def info_spec(self, env):
        return self._group_entries(env, "info")

    def state_spec(self, env):
        return None

    def action_spec(self, env):
        return env.full_action_spec

    @staticmethod
    def env_name() -> str:
        return "alem"

    def log_info(self, batch) -> dict[str, float]:
        """``collection/score/<key>``: the mean score of the episodes that ended in ``batch``."""
        logged, keys = {}, score_keys(self.static())
        following = batch.get("next")
        for _, entry in following.items():  # iterating a TensorDict walks its batch, not keys
            if not is_tensor_collection(entry) or ("info", "score") not in entry.keys(True):
                continue
            ended = entry.get("done").squeeze(-1)  # (..., P): the team's episode ended
            if ended.any():
                mean = entry.get(("info", "score"))[ended].to(torch.float32).mean(0)
                logged |= {
                    f"collection/score/{k}": float(v) for k, v in zip(keys, mean, strict=True)
                }
        return logged


class AlemTask(Task):
    """The alem tasks (``TASKS``): ``AlemTask.COOP.get_task()`` for ``Experiment(task=...)``."""

    COOP = None
    COOP_SMALL = None

    @staticmethod
    def associated_class():
        return AlemTaskClass

    def get_from_yaml(self, path: str | None = None) -> AlemTaskClass:
        """The defaults in ``TASKS`` (alem ships no yaml in BenchMARL's tree), or ``path``."""
        if path is None:
            return self.get_task(config={})
        return super().get_from_yaml(path)


__all__ = ["TASKS", "AlemTask", "AlemTaskClass"]
