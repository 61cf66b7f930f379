"""The coordination-difficulty knob inside jit: sampled α and the parameters derived from it.

GAME.md §1.3, §6.6-§6.7 and decision 6. ``make_params`` derives the execution parameters from a
fixed α in plain Python. With ``randomize_alpha`` each episode samples its own α at reset
(stored in ``state.alpha``) and *every* α-derived parameter follows it, in world generation
and in the step alike: ``episode_params`` is applied at the top of both.

Derived values (the same rounding as ``params.alpha_overrides``):
p_max_agents = α, soft_solo_fail_prob = α, non_specialist_efficiency = 1 - α,
handover window = [max(3, ceil(12 (1 - α))), max(6, ceil(24 (1 - α)))] steps, and with
``scale_base_difficulty`` mob health x (1 + α/3) and starting resources x (1 - α/3).
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.params import Params


def _round4(x: jax.Array) -> jax.Array:
    return jnp.round(x * 1e4) / 1e4


def sample_alpha(key: jax.Array, params: Params) -> jax.Array:
    """() float32 α of a new episode: U[alpha_min, alpha_max] if randomised, else params.alpha."""
    drawn = jax.random.uniform(key, (), jnp.float32, params.alpha_min, params.alpha_max)
    return jnp.where(params.randomize_alpha, drawn, jnp.asarray(params.alpha, jnp.float32))


def derived_values(alpha: jax.Array, params: Params) -> dict[str, jax.Array]:
    """Every α-derived ``Params`` field for this α (traced)."""
    alpha = _round4(jnp.asarray(alpha, jnp.float32))
    values = {
        "alpha": alpha,
        "p_max_agents": alpha,
        "soft_solo_fail_prob": alpha,
        "non_specialist_efficiency": _round4(1.0 - alpha),
        "handover_window_min": jnp.maximum(3, jnp.ceil(_round4(12 * (1 - alpha)))),
        "handover_window_max": jnp.maximum(6, jnp.ceil(_round4(24 * (1 - alpha)))),
    }
    values["handover_window_min"] = values["handover_window_min"].astype(jnp.int32)
    values["handover_window_max"] = values["handover_window_max"].astype(jnp.int32)
    scaled = {
        "mob_health_multiplier": _round4(1 + alpha / 3),
        "starting_resource_multiplier": _round4(1 - alpha / 3),
    }
    for name, value in scaled.items():
        values[name] = jnp.where(params.scale_base_difficulty, value, getattr(params, name))
    return values


def episode_params(params: Params, alpha: jax.Array) -> Params:
    """``params`` with the α-derived fields taken from the episode's α when randomised.

    Without ``randomize_alpha`` the params are returned unchanged (the preset already holds
    the values derived from its fixed α), so a hand-set field such as
    ``non_specialist_efficiency=0.2`` is honoured.
    """
    derived = derived_values(alpha, params)
    changes = {
        name: jnp.where(params.randomize_alpha, value, jnp.asarray(getattr(params, name))).astype(
            jnp.asarray(value).dtype
        )
        for name, value in derived.items()
    }
    return params.replace(**changes)
