"""First call and per-step cost of alem under each RL library's documented pattern.

Each library runs in a fresh process (``python -m bench.rl_libraries NAME``; no name runs them
all, one process each) on the default world (48 x 48, 9 floors, 3 players) with
``max_steps=100``, so the 100th step ends an episode (the score's first compile). Printed per
library: import, construction + first reset ("first reset", TorchRL's wrapper resets while
building its specs), the first step, the mean step after that, and the episode-ending step.
For cold runs give each library its own empty cache: ``JAX_COMPILATION_CACHE_DIR=$(mktemp -d)
XDG_CACHE_HOME=$(mktemp -d) python -m bench.rl_libraries NAME``.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time

import numpy as np

MAX_STEPS = 100
LIBS = ("pettingzoo", "gymnasium_make", "make_vec", "sb3", "torchrl", "tianshou")


def _random_legal(mask, rng):
    return int(rng.choice(np.flatnonzero(mask)))


def _loop(first_reset, step, steps=MAX_STEPS):
    """Times: first reset, first step, mean of steps 2..steps-1, the last (episode-end) step."""
    t = time.perf_counter()
    first_reset()
    times = [time.perf_counter() - t]
    for _ in range(steps):
        t = time.perf_counter()
        step()
        times.append(time.perf_counter() - t)
    return {
        "first_reset_s": times[0],
        "first_step_s": times[1],
        "step_ms": 1e3 * float(np.mean(times[2:-1])),
        "episode_end_step_s": times[-1],
    }


def bench_pettingzoo(rng):
    import alem_pz

    env = alem_pz.parallel_env(max_steps=MAX_STEPS)
    state = {}

    def reset():
        state["obs"], state["infos"] = env.reset(seed=0)

    def step():
        infos = state["infos"]
        actions = {a: _random_legal(infos[a]["action_mask"], rng) for a in env.agents}
        state["obs"], _, _, _, state["infos"] = env.step(actions)

    return _loop(reset, step)


def bench_gymnasium_make(rng):
    import gymnasium

    import alem_pz  # noqa: F401

    env = gymnasium.make("alem/Coop-v0", max_steps=MAX_STEPS)
    state = {}

    def reset():
        state["info"] = env.reset(seed=0)[1]

    def step():
        mask = state["info"]["action_mask"]
        state["info"] = env.step(np.array([_random_legal(m, rng) for m in mask]))[-1]

    return _loop(reset, step)


def bench_make_vec(rng, num_worlds=8):
    import gymnasium

    import alem_pz  # noqa: F401

    envs = gymnasium.make_vec("alem/Coop-v0", num_envs=num_worlds, max_steps=MAX_STEPS)
    state = {}

    def reset():
        state["info"] = envs.reset(seed=0)[1]

    def step():
        mask = state["info"]["action_mask"]
        state["info"] = envs.step(np.array([_random_legal(m, rng) for m in mask]))[-1]

    return _loop(reset, step) | {"worlds": num_worlds}


def bench_sb3(rng, num_worlds=8):
    import alem_pz.envs.sb3

    env = alem_pz.envs.sb3.make_vec_env(num_worlds, max_steps=MAX_STEPS)

    def reset():
        env.seed(0)
        env.reset()

    def step():
        env.step(np.array([_random_legal(m, rng) for m in env.action_masks()]))

    return _loop(reset, step) | {"worlds": num_worlds}


def bench_torchrl(rng):
    import torch
    from torchrl.envs.libs.pettingzoo import PettingZooWrapper

    import alem_pz

    torch.manual_seed(0)
    state = {}

    def reset():
        base = alem_pz.parallel_env(max_steps=MAX_STEPS)
        state["env"] = PettingZooWrapper(env=base, use_mask=True)
        state["td"] = state["env"].reset()

    def step():
        env = state["env"]
        td = env.rand_action(state["td"])
        state["td"] = env.step_mdp(env.step(td))

    return _loop(reset, step)


def bench_tianshou(rng):
    from tianshou.env.pettingzoo_env import PettingZooEnv

    import alem_pz

    env = PettingZooEnv(alem_pz.env(mask_in_obs=True, max_steps=MAX_STEPS))
    state = {}

    def reset():
        state["obs"] = env.reset(seed=0)[0]

    def step():  # one team step = P agent turns
        for _ in range(3):
            state["obs"] = env.step(_random_legal(np.array(state["obs"]["mask"]), rng))[0]

    return _loop(reset, step)


def main() -> None:
    names = sys.argv[1:]
    if not names:
        for name in LIBS:
            subprocess.run([sys.executable, "-m", "bench.rl_libraries", name], check=False)
        return
    for name in names:
        t = time.perf_counter()
        rng = np.random.default_rng(0)
        result = globals()[f"bench_{name}"](rng)
        result = {"library": name, **{k: round(v, 3) for k, v in result.items()}}
        result["total_s"] = round(time.perf_counter() - t, 2)
        print(json.dumps(result), flush=True)


if __name__ == "__main__":
    main()
