"""alem's PettingZoo faces: a ``ParallelEnv`` over one ``alem_core`` world, and its AEC twin.

Importing ``alem_pz`` registers ``"alem/Coop-v0"`` with PettingZoo, so both of these work::

    import alem_pz, pettingzoo
    env = alem_pz.make(players=3)                       # ParallelEnv (parallel=False: AEC)
    env = pettingzoo.make("aec", "alem/Coop-v0", players=3)

It also registers ``"alem/Coop-v0"`` with Gymnasium: ``gymnasium.make_vec(...)`` gives the
batched ``VectorEnv`` (``alem_pz.envs.vector``), ``gymnasium.make(...)`` and the ``sync`` /
``async`` modes the team env (``alem_pz.envs.single_agent``). On PettingZoo < 1.27 (no
registry) the PettingZoo registration is skipped with a warning. ``alem_pz.envs.sb3``
(Stable-Baselines3) is imported on demand. docs/libraries/ has a page per RL library.

``alem_pz.alem_coop_v0`` offers the classic ``env()``, ``parallel_env()`` and ``raw_env()``.
``alem_pz.drill_env("t1_sync", players=3)`` is a coordination drill (``alem_core.drills``).
"""

from alem_core import __version__
from alem_pz import alem_coop_v0
from alem_pz.alem_coop_v0 import env, parallel_env, raw_env
from alem_pz.envs.drills import drill_env
from alem_pz.envs.parallel import AlemParallelEnv
from alem_pz.envs.registration import ENV_IDS, make, register, register_gymnasium
from alem_pz.envs.single_agent import AlemTeamEnv
from alem_pz.envs.vector import AlemVectorEnv

register()
register_gymnasium()

__all__ = [
    "ENV_IDS",
    "AlemParallelEnv",
    "AlemTeamEnv",
    "AlemVectorEnv",
    "__version__",
    "alem_coop_v0",
    "drill_env",
    "env",
    "make",
    "parallel_env",
    "raw_env",
]
