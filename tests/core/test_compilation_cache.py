"""The persistent compilation cache: importing alem changes no JAX setting; the first env or
runner turns the cache on by default, and ALEM_COMPILATION_CACHE controls it."""

from __future__ import annotations

import os
import subprocess
import sys
import textwrap

SCRIPT = textwrap.dedent(
    """
    import os, jax
    before = dict(jax.config.values)
    import alem_core, alem_pz, alem_train
    changed = sorted(k for k, v in jax.config.values.items() if before.get(k) != v)
    print("import changed", changed)
    from alem_core.compilation_cache import enable_default_cache
    jax.jit(lambda x: x + 1)(1)  # JAX compiled before the cache was chosen
    enable_default_cache()
    print("default", jax.config.jax_compilation_cache_dir)
    from jax._src import compilation_cache as cc
    jax.jit(lambda x: x * 3)(1)
    print("used", cc._cache_used)
    for value in ("0", "off", "/tmp/elsewhere"):
        jax.config.update("jax_compilation_cache_dir", None)
        os.environ["ALEM_COMPILATION_CACHE"] = value
        enable_default_cache()
        print(value, jax.config.jax_compilation_cache_dir)
    jax.config.update("jax_compilation_cache_dir", "/tmp/mine")
    os.environ["ALEM_COMPILATION_CACHE"] = "/tmp/elsewhere"
    enable_default_cache()
    print("user", jax.config.jax_compilation_cache_dir)
    """
)


def test_cache_default_switch_off_move_and_user_choice_wins(tmp_path):
    root = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
    env = {k: v for k, v in os.environ.items() if k not in ("JAX_COMPILATION_CACHE_DIR",)}
    env.pop("ALEM_COMPILATION_CACHE", None)
    env.update(XDG_CACHE_HOME=str(tmp_path), PYTHONPATH=root, JAX_PLATFORMS="cpu")
    done = subprocess.run(
        [sys.executable, "-c", SCRIPT], env=env, capture_output=True, text=True, check=True
    )
    lines = done.stdout.splitlines()
    assert lines == [
        "import changed []",
        f"default {tmp_path / 'alem' / 'jax'}",
        "used True",
        "0 None",
        "off None",
        "/tmp/elsewhere /tmp/elsewhere",
        "user /tmp/mine",
    ]
