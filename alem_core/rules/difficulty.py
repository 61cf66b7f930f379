"""The coordination-difficulty knob inside jit: sampled α and the parameters derived from it.

docs/rules/difficulty.md#the-presets, docs/rules/difficulty.md#how-alpha-shapes-coordination to
docs/rules/difficulty.md#randomised-alpha and decision 6. ``make_params`` derives the execution
parameters from a fixed α in plain Python. With ``randomize_alpha`` each episode samples its own α
at reset (stored in ``state.alpha``) and *every* α-derived parameter follows it, in world generation
and in the step alike: ``episode_params`` is applied at the top of both.

The derived values come from ``params.alpha_derived``, the one function that states them.
"""

from __future__ import annotations

import jax
import jax.numpy as jnp

from alem_core.draws import DrawBlock
from alem_core.params import SCALED_BY_ALPHA, Params, alpha_derived

DRAWS = {"alpha": DrawBlock(lambda s: (), "α of the episode, when randomised")}
"""The reset's uniforms this rule reads (``alem_core/draws.py``)."""


def sample_alpha(u: jax.Array, params: Params) -> jax.Array:
    """() float32 α of a new episode from the uniform ``u``: U[alpha_min, alpha_max] if
    randomised, else params.alpha."""
    low = jnp.asarray(params.alpha_min, jnp.float32)
    high = jnp.asarray(params.alpha_max, jnp.float32)
    drawn = jnp.clip(low + u * (high - low), low, high)
    return jnp.where(params.randomize_alpha, drawn, jnp.asarray(params.alpha, jnp.float32))


def derived_values(alpha: jax.Array, params: Params) -> dict[str, jax.Array]:
    """Every α-derived ``Params`` field for this α (traced): ``params.alpha_derived``."""
    values = alpha_derived(jnp.asarray(alpha, jnp.float32), jnp)
    for name in SCALED_BY_ALPHA:
        values[name] = jnp.where(params.scale_base_difficulty, values[name], getattr(params, name))
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
