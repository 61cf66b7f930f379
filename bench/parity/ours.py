"""alem_core behind the same functions as ``peer.py``, so every parity tool is written once.

Each function here mirrors the one of the same name in ``peer.py`` (same arguments, same
returned names and shapes); only the state's field names and alem_core's calls differ. Imports
of alem_core stay inside the functions: the peer's interpreter loads the tools that import this
module without alem_core's dependencies.
"""

from __future__ import annotations

from typing import Any

from bench.parity.settings import CHEST, DIFFICULTY, PLAYERS, melee_hits

SAPLING, WOOD, PICKAXE = 7, 0, 11
"""Our inventory columns (``alem_core.constants.Inv``)."""


# --- episodes: the side bundle ------------------------------------------------------------------


def side(n: int, steps: int, seed: int) -> dict:
    """N worlds reset from ``split(key(seed), N)`` as ``peer.side``'s bundle (plus ``static``
    for the score)."""
    import jax

    import alem_core

    static = alem_core.StaticParams(player_count=PLAYERS)
    params = alem_core.make_params(DIFFICULTY, shared_reward=False, max_timesteps=steps)

    def step_fn(key, state, actions):
        obs, state, _, term, trunc, info = alem_core.step(key, state, actions, params, static)
        return state, {}, term[0] | trunc[0], obs, info["action_mask"]

    keys = jax.random.split(jax.random.key(seed), n)
    obs, states = jax.jit(jax.vmap(lambda k: alem_core.reset(k, params, static)))(keys)
    return {
        "name": "ours",
        "step": step_fn,
        "probe": probe,
        "states": states,
        "obs": obs,
        "mask": jax.vmap(lambda s: alem_core.action_mask(s, params, static))(states),
        "n_actions": static.num_actions,
        "key0": jax.random.key(0),
        "key": jax.random.key,
        "static": static,
        **_floor_edits(),
    }


def probe(s: Any) -> dict:
    """One world's per-step trace fields (plus our own mob-damage counter)."""
    import jax.numpy as jnp

    pl, mobs, lvl = s.players, s.mobs, s.world.floor
    m = mobs.melee
    return {
        "health": pl.health,
        "food": pl.food,
        "drink": pl.drink,
        "energy": pl.energy,
        "recover": pl.recover,
        "alive": pl.alive,
        "sleeping": pl.sleeping,
        "resting": pl.resting,
        "ff_dealt": s.stats.friendly_fire_damage,
        "cause": pl.death_cause,
        "melee_hits": melee_hits(m.pos, m.alive, m.cooldown, pl.pos),
        "floor": lvl,
        "mobs": jnp.stack([c.alive.sum() for c in (mobs.melee, mobs.passive, mobs.ranged)]),
        "pos": pl.pos,
        "facing": pl.facing,
        "mob_pos": jnp.concatenate([c.pos for c in (mobs.melee, mobs.passive, mobs.ranged)]),
        "mob_alive": jnp.concatenate([c.alive for c in (m, mobs.passive, mobs.ranged)]),
        "damage_taken": s.stats.damage_taken,
    }


def extras(s: Any) -> dict:
    """Per-floor kills, chests left on every floor, and the ``LOOT_ITEMS`` counts per player."""
    import jax.numpy as jnp

    from alem_core.constants import Inv
    from alem_core.systems.consumables import POTION_COLUMNS

    inv = s.players.inventory
    cols = (
        Inv.WOOD, Inv.STONE, Inv.COAL, Inv.IRON, Inv.DIAMOND, Inv.SAPPHIRE, Inv.RUBY, Inv.TORCH,
        Inv.ARROW, Inv.BOOK, Inv.PICKAXE, Inv.BOW,
    )  # fmt: skip
    loot = [inv[:, int(c)] for c in cols] + [inv[:, jnp.asarray(POTION_COLUMNS)].sum(-1)]
    return {
        "kills_all": s.world.kills,
        "chests_all": (s.world.stacked().block == CHEST).sum((1, 2)),
        "loot": jnp.stack(loot, -1),
    }


def _floor_edits() -> dict:
    """``peer._floor_edits`` for our state (the floor change also swaps in the hot maps and
    entities)."""

    def place(s, floor, pos, facing):
        pl = s.players
        players = pl.replace(pos=pos.astype(pl.pos.dtype), facing=facing.astype(pl.facing.dtype))
        return s.change_floor(floor).replace(players=players)

    def with_kills(s, floor, kills):
        return s.replace(world=s.world.replace(kills=s.world.kills.at[floor].set(kills)))

    return {
        "extras": extras,
        "place": place,
        "block": lambda s: s.world.block,
        "down_cells": lambda s, floor: s.world.ladders[floor, 0],
        "with_kills": with_kills,
        "kills": lambda s: s.world.kills,
        "facing": lambda s: s.players.facing,
    }


def terminal_score(side: dict, final: Any, info: Any) -> dict:
    """``alem_core.scoring.score.score`` of each world's final state, with ``done``."""
    import jax
    import numpy as np

    from alem_core.scoring.score import score as score_of

    score = jax.jit(jax.vmap(lambda s: score_of(s, side["static"], True)))(final)
    return {k: np.asarray(v) for k, v in score.items()}


def cause_names(score: dict) -> list[str]:
    """Our death-cause names by code (code 0 = "alive")."""
    from alem_core.systems.lifecycle import DEATH_CAUSES

    return DEATH_CAUSES


# --- probes: state edits of hand-built scenarios --------------------------------------------


def without(s: Any, kinds: tuple[str, ...]) -> Any:
    """``s`` with every slot of the entity classes ``kinds`` freed, on every floor (the hot copy
    of the team's floor and the stack)."""
    import jax.numpy as jnp

    every = s.all_mobs()
    return s.with_all_mobs(
        every.replace(
            **{k: getattr(every, k).replace(alive=jnp.zeros_like(getattr(every, k).alive))
               for k in kinds}
        )
    )  # fmt: skip


def mobs_off(s: Any) -> Any:
    return without(s, ("melee", "passive", "ranged"))


def set_cells(s: Any, cells: Any, blocks: Any, coord: Any = None) -> Any:
    import jax.numpy as jnp

    rows, cols = cells[:, 0], cells[:, 1]
    w = s.world
    cmap = (
        w.coord if coord is None else w.coord.at[rows, cols].set(jnp.asarray(coord, w.coord.dtype))
    )
    return s.replace(world=w.replace(block=w.block.at[rows, cols].set(blocks), coord=cmap))


def inventory(s: Any, column: str) -> Any:
    return s.players.inventory[..., {"sapling": SAPLING, "wood": WOOD, "pickaxe": PICKAXE}[column]]


def handover_window(s: Any) -> int:
    import numpy as np

    return int(np.asarray(s.world.floors.coord).min())


def give_pickaxes(s: Any) -> Any:
    inv = s.players.inventory.at[:, PICKAXE].set(1)
    return s.replace(players=s.players.replace(inventory=inv))


def handover_view(s: Any, cell: tuple[int, int]) -> tuple[int, int, list]:
    import numpy as np

    block, coord = int(s.world.block[cell[0], cell[1]]), int(s.world.coord[cell[0], cell[1]])
    t = s.handovers
    rows = [
        (tuple(np.asarray(t.pos[i]).tolist()), int(t.deadline[i]), int(t.initiator[i]))
        for i in np.flatnonzero(np.asarray(t.open))
    ]
    return block, coord, rows


def cows_on(s: Any, cells: Any) -> Any:
    k = cells.shape[0]
    m = s.mobs.passive
    m = m.replace(
        pos=m.pos.at[:k].set(cells.astype(m.pos.dtype)),
        alive=m.alive.at[:k].set(True),
        health=m.health.at[:k].set(100.0),
        kind=m.kind.at[:k].set(0),
        elite=m.elite.at[:k].set(False),
        hard=m.hard.at[:k].set(False),
        required=m.required.at[:k].set(0),
    )
    return s.replace(mobs=s.mobs.replace(passive=m))


def drink(s: Any) -> Any:
    return s.players.drink


def set_health_drink(s: Any, drink: Any) -> Any:
    import jax.numpy as jnp

    health = jnp.full(3, 9.0)
    pl = s.players
    return s.replace(players=pl.replace(health=health, drink=drink.astype(pl.drink.dtype)))


def kill_player(s: Any, p: int) -> Any:
    pl = s.players
    dead = pl.replace(alive=pl.alive.at[:, p].set(False), health=pl.health.at[:, p].set(0.0))
    return s.replace(players=dead)


def xp(s: Any) -> Any:
    return s.players.xp


def achievements(s: Any) -> Any:
    return s.players.achievements


def set_players(s: Any, values: dict) -> Any:
    pl = s.players
    return s.replace(
        players=pl.replace(**{k: v.astype(getattr(pl, k).dtype) for k, v in values.items()})
    )


# --- the death probe: replays of a step -----------------------------------------------------


def replay_side(steps: int) -> tuple:
    import jax.numpy as jnp

    import alem_core
    from alem_core.systems.lifecycle import DEATH_CAUSES

    static = alem_core.StaticParams(player_count=PLAYERS)
    params = alem_core.make_params(DIFFICULTY, shared_reward=False, max_timesteps=steps + 1)

    def step(key, state, actions):
        return alem_core.step(key, state, actions, params, static)[1]

    def fields(s):
        p = s.players
        return {
            "alive": p.alive, "health": p.health, "cause": p.death_cause,
            "recover": p.recover, "drink": p.drink, "food": p.food,
        }  # fmt: skip

    def no_mobs(s):
        return without(s, ("melee", "ranged", "mob_projectiles"))

    def no_need(s):
        return s.replace(players=s.players.replace(recover=jnp.zeros_like(s.players.recover)))

    return (
        lambda k: alem_core.reset(k, params, static)[1], step, fields, no_need, no_mobs,
        list(DEATH_CAUSES),
    )  # fmt: skip


# --- the census -----------------------------------------------------------------------------


def census_maps(n_seeds: int, block_names: tuple, item_names: tuple) -> dict:
    """``peer.census_maps`` for worlds generated from ``split(key(0), N)``, after checking that
    our block and item ids follow the published tables ``block_names`` and ``item_names``."""
    import jax

    import alem_core
    from alem_core.constants import Block, Item
    from alem_core.worldgen import generate_world

    for names, enum in ((block_names, Block), (item_names, Item)):
        ours = tuple(m.name for m in sorted(enum, key=int))
        if ours[: len(names)] != names:
            raise RuntimeError(f"{enum.__name__} ids differ from the published table")
    static = alem_core.StaticParams(player_count=PLAYERS)
    params = alem_core.make_params(DIFFICULTY)
    keys = jax.random.split(jax.random.key(0), n_seeds)
    # ``World`` keeps the current floor's maps apart (hot); ``stacked`` gives all nine floors.
    maps = jax.jit(jax.vmap(lambda k: generate_world(k, params, static).stacked()))(keys)
    return {"block": maps.block, "item": maps.item, "coord": maps.coord, "soft": maps.soft,
            "alpha": None}  # fmt: skip
