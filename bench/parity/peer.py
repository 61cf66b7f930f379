"""The one adapter for the published package ``alem-env`` (PyPI, v0.2.1), used as a black box.

Every parity tool reaches the published package through this module alone (its interpreter,
``/work/peer_venv`` or ``ALEM_PEER_PYTHON``; its env and params; reset, step and the public state
fields a tool reads or sets), so a change in the published API is fixed in one place.

Only the public API is used: ``alem.alem_env.make_alem_env_from_name``, ``EnvParams`` /
``get_coordination_params`` (``alem.alem_coop.alem_state``), the env's ``reset``, ``step_env``
(no auto-reset), ``step`` and ``get_avail_actions``, and ``replace`` on its state records.
``ours.py`` offers the same functions for alem_core, so a tool picks a side by name
(``protocol.adapter``) and is written once. The package pins its own JAX, so it lives in a venv
of its own, which this module starts.
"""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

from bench.parity.settings import CHEST, DIFFICULTY, LOOT_ITEMS, PLAYERS, melee_hits

PEER_PYTHON = "/work/peer_venv/bin/python"
"""Where the published package is installed; ``ALEM_PEER_PYTHON`` overrides it."""
PEER_ENV = "Alem-Coop-Symbolic"
"""The full 9-floor env, the one alem_core matches."""
DEBUG_ENV = "Alem-Coop-Symbolic-Debug"
"""The overworld-only variant (the speed check's ``--quick``)."""
PACKAGE = "alem-env==0.2.1"
_RELAUNCHED = "ALEM_PARITY_IN_PEER"
"""Set in the child process, so that a venv without the package fails instead of looping."""


def python() -> str:
    """The interpreter of the venv holding the published package."""
    return os.environ.get("ALEM_PEER_PYTHON", PEER_PYTHON)


def available() -> bool:
    """Whether this interpreter can import the published package."""
    return importlib.util.find_spec("alem") is not None


def relaunch(argv: list[str]) -> int:
    """Run ``python -m bench.parity ARGV`` in the peer's interpreter (same working directory,
    so relative output paths land where the caller expects) and return its exit status."""
    exe = python()
    if os.environ.get(_RELAUNCHED) or not Path(exe).exists():
        sys.exit(f"the published package is not importable here and {exe} cannot run it")
    root = Path(__file__).resolve().parents[2]
    # Only the repository goes on the path: the peer venv must not see alem's site-packages.
    env = {**os.environ, "PYTHONPATH": str(root), _RELAUNCHED: "1"}
    return subprocess.run([exe, "-m", "bench.parity", *argv], env=env, check=False).returncode


def make_env(name: str = PEER_ENV, difficulty: str = DIFFICULTY, full_info: bool | None = None,
             **params: Any) -> Any:  # fmt: skip
    """The published env ``name`` at ``difficulty`` with extra ``EnvParams`` fields; the
    ``compute_full_info`` switch is passed only when given (the package's default otherwise)."""
    from alem.alem_coop.alem_state import EnvParams, get_coordination_params
    from alem.alem_env import make_alem_env_from_name

    env_params = EnvParams().replace(**get_coordination_params(difficulty), **params)
    extra = {} if full_info is None else {"compute_full_info": full_info}
    return make_alem_env_from_name(name, env_params=env_params, **extra)


def _check_players(env: Any) -> None:
    if len(env.agents) != PLAYERS:
        raise RuntimeError(f"peer env has {len(env.agents)} agents, expected {PLAYERS}")


# --- episodes: the side bundle ------------------------------------------------------------------


def side(n: int, steps: int, seed: int) -> dict:
    """N worlds of the full env reset from ``PRNGKey(seed + i)``, as the bundle the tools play:
    ``step`` (key, state, (P,) actions) -> (state, info, done, (P, ...) obs, (P, A) mask),
    ``probe`` (the per-step trace fields), ``extras`` (per-floor fields) and the state edits
    that put a team on a floor (``place``, ``down_cells``, ``with_kills``)."""
    import jax
    import jax.numpy as jnp

    env = make_env(shared_reward=False, max_timesteps=steps)
    _check_players(env)
    agents = env.agents

    def stack(d):
        return jnp.stack([d[a] for a in agents])

    def step_fn(key, state, actions):
        acts = {a: actions[i] for i, a in enumerate(agents)}
        obs, state, _, done, info = env.step_env(key, state, acts)
        mask = stack(env.get_avail_actions(state))
        return state, info["user_info"], done["__all__"], stack(obs), mask

    keys = jax.vmap(jax.random.PRNGKey)(jnp.arange(seed, seed + n))
    obs, states = jax.jit(jax.vmap(env.reset))(keys)
    return {
        "name": "peer",
        "step": step_fn,
        "probe": probe,
        "states": states,
        "obs": jax.vmap(stack)(obs),
        "mask": jax.vmap(lambda s: stack(env.get_avail_actions(s)))(states),
        "n_actions": int(env.action_space(agents[0]).n),
        "key0": jax.random.PRNGKey(0),
        "key": jax.random.PRNGKey,
        **_floor_edits(),
    }


def probe(s: Any) -> dict:
    """One world's per-step trace fields (the names ``ours.probe`` uses)."""
    import jax.numpy as jnp

    lvl = s.player_level
    m = s.melee_mobs
    return {
        "health": s.player_health,
        "food": s.player_food,
        "drink": s.player_drink,
        "energy": s.player_energy,
        "recover": s.player_recover,
        "alive": s.player_alive,
        "sleeping": s.is_sleeping,
        "resting": s.is_resting,
        "ff_dealt": s.ff_damage_dealt,
        "cause": s.player_death_cause,
        "melee_hits": melee_hits(
            m.position[lvl], m.mask[lvl], m.attack_cooldown[lvl], s.player_position
        ),
        "floor": lvl,
        "mobs": jnp.stack(
            [c.mask[lvl].sum() for c in (s.melee_mobs, s.passive_mobs, s.ranged_mobs)]
        ),
        "pos": s.player_position,
        "facing": s.player_direction,
        "mob_pos": jnp.concatenate([c.position[lvl] for c in (m, s.passive_mobs, s.ranged_mobs)]),
        "mob_alive": jnp.concatenate([c.mask[lvl] for c in (m, s.passive_mobs, s.ranged_mobs)]),
    }


def extras(s: Any) -> dict:
    """Per-floor kills, chests left on every floor, and the ``LOOT_ITEMS`` counts per player."""
    import jax.numpy as jnp

    inv = s.inventory
    loot = [getattr(inv, k) for k in LOOT_ITEMS[:-1]] + [inv.potions.sum(-1)]
    return {
        "kills_all": s.monsters_killed,
        "chests_all": (s.map == CHEST).sum((1, 2)),
        "loot": jnp.stack(loot, -1),
    }


def _floor_edits() -> dict:
    """State edits of one world: the team's floor, positions and facing; the current block map;
    a floor's down-ladder cells; its kill counter."""
    import jax.numpy as jnp

    def place(s, floor, pos, facing):
        return s.replace(
            player_level=floor.astype(jnp.int32),
            player_position=pos.astype(jnp.int32),
            player_direction=facing.astype(jnp.int32),
        )

    def with_kills(s, floor, kills):
        return s.replace(monsters_killed=s.monsters_killed.at[floor].set(kills))

    return {
        "extras": extras,
        "place": place,
        "block": lambda s: s.map[s.player_level],
        "down_cells": lambda s, floor: s.down_ladders[floor],
        "with_kills": with_kills,
        "kills": lambda s: s.monsters_killed,
        "facing": lambda s: s.player_direction,
    }


def terminal_score(side: dict, final: Any, info: Any) -> dict:
    """The score dictionary of each world's first done step (the env's ``user_info``)."""
    import numpy as np

    return {k: np.asarray(v) for k, v in info.items()}


def cause_names(score: dict) -> list[str]:
    """Name each death-cause code by the ``died_from_<name>`` key set on agents with that code
    (the package names its codes nowhere else)."""
    import numpy as np

    names = {0: "alive"}
    for k in range(PLAYERS):
        code = score[f"Agent{k}/death_cause"][:, 0].astype(int)
        for key, flag in score.items():
            if key.startswith(f"Agent{k}/died_from_"):
                for c in np.unique(code[flag[:, 0] > 0]):
                    names[int(c)] = key.split("died_from_")[1]
    return [names.get(c, f"code{c}") for c in range(max(names) + 1)]


# --- probes: state edits of hand-built scenarios --------------------------------------------


def mobs_off(s: Any) -> Any:
    """Every melee, passive and ranged mob of every floor removed."""
    import jax.numpy as jnp

    kinds = ("melee_mobs", "passive_mobs", "ranged_mobs")
    return s.replace(
        **{k: getattr(s, k).replace(mask=jnp.zeros_like(getattr(s, k).mask)) for k in kinds}
    )


def set_cells(s: Any, cells: Any, blocks: Any, coord: Any = None) -> Any:
    """Blocks (and coordination values) of overworld cells (K, 2)."""
    rows, cols = cells[:, 0], cells[:, 1]
    cmap = s.coordination_map if coord is None else s.coordination_map.at[0, rows, cols].set(coord)
    return s.replace(map=s.map.at[0, rows, cols].set(blocks), coordination_map=cmap)


def inventory(s: Any, column: str) -> Any:
    """(..., P) count of one inventory entry ("sapling", "wood" or "pickaxe")."""
    return getattr(s.inventory, column)


def handover_window(s: Any) -> int:
    """The handover deadline value a generated handover cell holds (the most negative one)."""
    import numpy as np

    return int(np.asarray(s.coordination_map).min())


def give_pickaxes(s: Any) -> Any:
    import jax.numpy as jnp

    return s.replace(inventory=s.inventory.replace(pickaxe=jnp.ones(3, jnp.int32)))


def handover_view(s: Any, cell: tuple[int, int]) -> tuple[int, int, list]:
    """Block and coordination value of an overworld cell, and the open handover entries as
    (cell, deadline, initiator)."""
    import numpy as np

    block, coord = int(s.map[0, cell[0], cell[1]]), int(s.coordination_map[0, cell[0], cell[1]])
    table = np.asarray(s.pending_handovers)
    rows = [(tuple(int(x) for x in r[1:3]), int(r[3]), int(r[4])) for r in table if r[0]]
    return block, coord, rows


def cows_on(s: Any, cells: Any) -> Any:
    """Passive slots 0..K-1 of the overworld: live cows with 100 health on ``cells`` (K, 2)."""
    k = cells.shape[0]
    m = s.passive_mobs
    m = m.replace(
        position=m.position.at[0, :k].set(cells),
        mask=m.mask.at[0, :k].set(True),
        health=m.health.at[0, :k].set(100.0),
        type_id=m.type_id.at[0, :k].set(0),
    )
    zero = {
        f: getattr(s, f).at[0, :k].set(0)
        for f in ("passive_mob_coordination", "passive_mob_agents_required")
    }
    return s.replace(passive_mobs=m, **zero)


def drink(s: Any) -> Any:
    return s.player_drink


def set_health_drink(s: Any, drink: Any) -> Any:
    """Every player at health 9 (a teammate hit last step is healed) and the given drink."""
    import jax.numpy as jnp

    health = jnp.full(3, 9.0)
    return s.replace(player_health=health, player_drink=drink.astype(s.player_drink.dtype))


def kill_player(s: Any, p: int) -> Any:
    """Player ``p`` of every world (states batched) dead at health 0."""
    return s.replace(
        player_alive=s.player_alive.at[:, p].set(False),
        player_health=s.player_health.at[:, p].set(0.0),
    )


def xp(s: Any) -> Any:
    return s.player_xp


def achievements(s: Any) -> Any:
    return s.achievements


_PLAYER_FIELDS = {
    "food": "player_food", "drink": "player_drink", "energy": "player_energy",
    "sleeping": "is_sleeping", "resting": "is_resting", "health": "player_health",
    "recover": "player_recover",
}  # fmt: skip
"""alem's player field name -> the published state field."""


def set_players(s: Any, values: dict) -> Any:
    """Per-player fields by alem's names (``_PLAYER_FIELDS``), cast to the state's dtypes."""
    f = _PLAYER_FIELDS
    return s.replace(**{f[k]: v.astype(getattr(s, f[k]).dtype) for k, v in values.items()})


# --- the death probe: replays of a step -----------------------------------------------------


def replay_side(steps: int) -> tuple:
    """(reset, step, fields, no_need, no_mobs, cause names) of one world: ``step`` returns the
    state only; ``no_need`` zeroes every recovery counter; ``no_mobs`` removes every melee and
    ranged mob and projectile of every floor."""
    import jax.numpy as jnp

    env = make_env(shared_reward=False, max_timesteps=steps + 1)
    agents = env.agents

    def step(key, state, actions):
        _, state, _, _, _ = env.step_env(key, state, {a: actions[i] for i, a in enumerate(agents)})
        return state

    def fields(s):
        return {
            "alive": s.player_alive, "health": s.player_health, "cause": s.player_death_cause,
            "recover": s.player_recover, "drink": s.player_drink, "food": s.player_food,
        }  # fmt: skip

    def no_mobs(s):
        off = {
            name: getattr(s, name).replace(mask=jnp.zeros_like(getattr(s, name).mask))
            for name in ("melee_mobs", "ranged_mobs", "mob_projectiles")
        }
        return s.replace(**off)

    def no_need(s):
        return s.replace(player_recover=jnp.zeros_like(s.player_recover))

    names = ["alive", "code1", "code2", "code3", "code4", "code5"]
    return lambda k: env.reset(k)[1], step, fields, no_need, no_mobs, names


# --- the census and the speed check ---------------------------------------------------------


def census_maps(n_seeds: int) -> dict:
    """Every floor's maps of worlds reset from ``PRNGKey(s)``, s < n: (N, L, H, W) ``block``,
    ``item``, ``coord``, ``soft`` (None where the state lacks the field) and (N,) ``alpha``."""
    import jax
    import numpy as np

    env = make_env()
    _check_players(env)
    keys = jax.vmap(jax.random.PRNGKey)(jax.numpy.arange(n_seeds))
    _, state = jax.jit(jax.vmap(env.reset))(keys)

    def field(name):
        value = getattr(state, name, None)
        return None if value is None else np.asarray(value)

    names = {"block": "map", "item": "item_map", "coord": "coordination_map",
             "soft": "soft_coordination_mask", "alpha": "sampled_alpha"}  # fmt: skip
    return {ours: field(theirs) for ours, theirs in names.items()} | {"env": PEER_ENV}


def timed_imports() -> tuple[float, float]:
    """Wall seconds to import JAX, then the published package's env modules."""
    t0 = time.perf_counter()
    import jax.numpy  # noqa: F401

    t_jax = time.perf_counter() - t0
    t0 = time.perf_counter()
    import alem.alem_coop.alem_state
    import alem.alem_env  # noqa: F401

    return t_jax, time.perf_counter() - t0


def speed_env(name: str, difficulty: str, full_info: bool) -> dict:
    """The env methods the speed check times, with the env's agents and floor count."""
    env = make_env(name, difficulty, full_info=full_info)
    return {
        "agents": env.agents,
        "num_levels": env.static_env_params.num_levels,
        "reset": env.reset,
        "step_env": env.step_env,
        "step": env.step,
        "avail": env.get_avail_actions,
    }
