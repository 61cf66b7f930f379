"""Where the batched step's time goes: each pipeline stage timed alone over N worlds.

Run from the repository root::

    python -m bench.stage_costs [--worlds 64] [--steps 50]
    python -m bench.stage_costs --compile          # where the cold start's compile goes

N worlds of the default map (nine floors, P = 3, "medium") are played 30 masked random steps
so mobs, items and handovers exist; then each stage of ``pipeline.PIPELINE``, and the
observation, the action mask and the end-of-step bookkeeping, is applied ``--steps`` times in a
jitted ``lax.scan`` (vmapped over the worlds, the state carried), and the whole step likewise.
Prints milliseconds per batched call and each part's share of the whole step. Parts run alone
cannot fuse with their neighbours, so the shares add up to roughly, not exactly, 100 %.
The observation is reduced here, never written out, and "whole step" keeps only the state, so
XLA skips most of the observation's cost: writing it out costs 2-3x more (about 0.65 ms at
N = 64; bench/records/HISTORY.md). For where the time goes inside the real jitted step, profile it:
``alem_core.step`` and ``alem_core.batch.step`` name their parts with ``jax.named_scope``.

``--compile`` answers the cold start's question instead: each part, the whole transition, the
step with its observation and the reset (world generation) are lowered and compiled alone for
one world, or ``--worlds N`` vmapped (nothing run, no persistent cache), and the table gives
seconds to lower (trace and MLIR), seconds of XLA compile, the kernels XLA emitted (fusions and
other ops that become a compiled function each, loop bodies included), the instructions inside
them (``fused_ops``) and the bytes one call reads and writes per world by XLA's cost analysis
(which counts a scatter or gather as touching its whole operand, and a conditional as its
costlier branch), largest compile first. A part compiled alone cannot fuse with its
neighbours, so the whole step's kernels are also given by the stage they come from
(``kernels_by_stage``). ``--quick`` compiles with the PettingZoo step's options. XLA:CPU's
compile time follows both the kernels (each an LLVM module of its own) and the instructions in
them, so this is the list to shorten.
"""

from __future__ import annotations

import argparse
import re
import time
from typing import NamedTuple

import jax

import alem_core
from alem_core.api import step
from alem_core.executables import quick_compile_options
from alem_core.observation.masking import action_mask
from alem_core.observation.vector import observation
from alem_core.pipeline import PIPELINE, step_draws
from alem_core.systems.lifecycle import end_step
from alem_core.testing.rollout import random_legal_actions, random_rollout
from bench.common import world


def _time(fn, states, actions, steps: int) -> float:
    """Seconds per call of ``fn`` (vmapped, in a scan of ``steps``), after one warm-up."""

    def body(carry, key):
        return fn(carry, actions, key), None

    run = jax.jit(lambda s, k: jax.lax.scan(body, s, jax.random.split(k, steps))[0])
    jax.block_until_ready(run(states, jax.random.key(0)))
    start = time.perf_counter()
    jax.block_until_ready(run(states, jax.random.key(1)))
    return (time.perf_counter() - start) / steps


def parts(params, static) -> dict:
    """name -> fn(states, actions, key) -> states, every part vmapped over the worlds."""

    def stage_fn(stage):
        def one(state, actions, key):
            return stage.fn(state, actions, step_draws(key, static), params, static)

        return lambda s, a, k: jax.vmap(one)(s, a, jax.random.split(k, a.shape[0]))

    table = {stage.name: stage_fn(stage) for stage in PIPELINE}

    def observe_only(s, a, k):
        obs = jax.vmap(lambda st: observation(st, params, static))(s)
        return s.replace(timestep=s.timestep + (obs.sum(axis=(1, 2)) > 0))

    def mask(s, a, k):
        masks = jax.vmap(lambda st: action_mask(st, params, static))(s)
        return s.replace(timestep=s.timestep + masks.sum(axis=(1, 2)))

    def bookkeeping(s, a, k):
        health = s.players.health
        return jax.vmap(lambda st, h: end_step(st, h, h, h, params, static))(s, health)

    def whole(s, a, k):
        keys = jax.random.split(k, a.shape[0])
        return jax.vmap(lambda kk, st, aa: step(kk, st, aa, params, static)[1])(keys, s, a)

    table |= {"observation": observe_only, "action_mask": mask, "end_step": bookkeeping}
    return table, whole


KERNEL = re.compile(r"^\s*(?:ROOT )?%\S+ = .*? (?:fusion|custom-call|sort|scatter|gather)\(", re.M)
"""A line of optimised HLO that XLA:CPU compiles into a kernel of its own (a gather or scatter
inside a fusion is counted with it, as the kernel goals in bench/records/HISTORY.md count
them)."""
_BOOKKEEPING = re.compile(r"= \S+ (?:parameter|constant|bitcast|tuple|get-tuple-element)\(")
_HEADER = re.compile(r"^(?:ENTRY )?%(\S+) .*\{$")
_CALLS = re.compile(r" fusion\(.*calls=%([\w.-]+)")


def fused_ops(hlo: str) -> int:
    """Instructions inside the fusions of optimised HLO (``compiled.as_text()``), nested fusions
    included and parameters, constants, bitcasts and tuples not: XLA copies a cheap producer
    into every fusion that reads it, and each copy is code to generate. Fitted over the stages
    with the PettingZoo step's options, a kernel costs about 4.2 ms of compile and an
    instruction about 0.19 ms, so the step's instructions weigh as much as its kernels
    (bench/records/HISTORY.md, "Compile options for one world")."""
    bodies: dict[str, list[str]] = {}
    lines: list[str] | None = None
    for line in hlo.splitlines():
        if header := _HEADER.match(line):
            lines = bodies.setdefault(header.group(1), [])
        elif line.startswith("}"):
            lines = None
        elif lines is not None:
            lines.append(line)

    def size(name: str) -> int:
        body = [line for line in bodies.get(name, []) if not _BOOKKEEPING.search(line)]
        return len(body) + sum(size(m.group(1)) for line in body if (m := _CALLS.search(line)))

    top = [n for n in bodies if not n.startswith(("fused", "wrapped")) and "_computation" not in n]
    return sum(size(m.group(1)) for n in top for line in bodies[n] if (m := _CALLS.search(line)))


def world_shapes(params, static, worlds: int = 1):
    """Abstract (states, actions) of a batch of ``worlds`` worlds: what ``parts`` take."""
    state = jax.eval_shape(lambda k: alem_core.reset(k, params, static)[1], jax.random.key(0))
    batch = jax.tree.map(lambda s: jax.ShapeDtypeStruct((worlds, *s.shape), s.dtype), state)
    return batch, jax.ShapeDtypeStruct((worlds, static.player_count), jax.numpy.int32)


class CompileCost(NamedTuple):
    """One part compiled alone: seconds to lower and to compile, the kernels XLA emitted, and
    the bytes XLA's cost analysis says one call reads and writes, per world, with the state
    donated (what a scan or ``BatchRunner`` does) and without (a fresh output state)."""

    lower_s: float
    compile_s: float
    kernels: int
    ops: int
    kb_per_world: float
    kb_per_world_fresh: float
    by_stage: dict[str, int]


def _bytes(compiled) -> float:
    analysis = compiled.cost_analysis()
    analysis = analysis[0] if isinstance(analysis, list) else analysis
    return float(analysis["bytes accessed"])


def compile_costs(
    params, static, names=None, worlds: int = 1, options: dict | None = None
) -> dict[str, CompileCost]:
    """name -> ``CompileCost`` of every part (or those in ``names``), the whole transition and
    the whole step with its observation, each compiled alone for ``worlds`` worlds from abstract
    shapes, with the XLA ``options`` given. The donated form is compiled only for its byte count
    (its kernels are the same)."""
    key = jax.random.key(0)
    states, actions = world_shapes(params, static, worlds)
    table, whole = parts(params, static)
    rows = {}
    programs = {"step": observed_step(params, static), "whole step": whole}
    programs |= {"reset": batched_reset(params, static), **table}
    for name, fn in programs.items():
        if names is not None and name not in names:
            continue
        start = time.perf_counter()
        lowered = jax.jit(fn).lower(states, actions, key)
        lowered_at = time.perf_counter()
        compiled = lowered.compile(options)
        done = time.perf_counter()
        donated = jax.jit(fn, donate_argnums=0).lower(states, actions, key).compile(options)
        hlo = compiled.as_text()
        rows[name] = CompileCost(
            lowered_at - start,
            done - lowered_at,
            len(KERNEL.findall(hlo)),
            fused_ops(hlo),
            _bytes(donated) / worlds / 1e3,
            _bytes(compiled) / worlds / 1e3,
            kernels_by_stage(hlo),
        )
    return rows


_OP_NAME = re.compile(r'op_name="([^"]*)"')


def kernels_by_stage(hlo: str) -> dict[str, int]:
    """Kernels of optimised HLO counted by the pipeline stage (or the observation) whose named
    scope their root instruction carries: where the whole step's kernels come from, each
    stage fused with its neighbours as in the real step. Kernels XLA adds itself (copies) and
    the step's own bookkeeping fall under "other"."""
    names = {stage.name for stage in PIPELINE} | {"observation"}
    counts: dict[str, int] = {}
    for line in hlo.splitlines():
        if not KERNEL.match(line):
            continue
        found = _OP_NAME.search(line)
        scopes = found.group(1).split("/") if found else []
        scopes = [re.sub(r"^vmap\((.*)\)$", r"\1", scope) for scope in scopes]
        stage = next((scope for scope in scopes if scope in names), "other")
        counts[stage] = counts.get(stage, 0) + 1
    return dict(sorted(counts.items(), key=lambda kv: -kv[1]))


def observed_step(params, static):
    """The whole step with its observation and mask written out, vmapped: what a user calls."""

    def run(s, a, k):
        keys = jax.random.split(k, a.shape[0])
        return jax.vmap(lambda kk, st, aa: step(kk, st, aa, params, static))(keys, s, a)

    return run


def batched_reset(params, static):
    """World generation and the first observation, vmapped (the states given are not read)."""

    def run(s, a, k):
        keys = jax.random.split(k, a.shape[0])
        return jax.vmap(lambda kk: alem_core.reset(kk, params, static))(keys)

    return run


WHOLE = ("step", "whole step", "reset")


def print_compile_costs(rows: dict[str, CompileCost], worlds: int) -> None:
    """The whole step first, then the parts by compile time."""
    parts_only = {k: v for k, v in rows.items() if k not in WHOLE}
    ordered = [(k, rows[k]) for k in WHOLE if k in rows]
    ordered += sorted(parts_only.items(), key=lambda kv: -kv[1].compile_s)
    print(
        f"# {worlds} world(s); KB per world-step from XLA's cost analysis, state donated "
        "(fresh output state in brackets); 'step' writes the observation, 'whole step' not"
    )
    for name, row in ordered:
        print(
            f"{name:<16} lower {row.lower_s:5.2f} s  compile {row.compile_s:6.2f} s  "
            f"{row.kernels:5d} kernels {row.ops:6d} ops  "
            f"{row.kb_per_world:8.1f} KB ({row.kb_per_world_fresh:.1f})"
        )
    for name in WHOLE[:2]:
        if name in rows:
            stages = ", ".join(f"{k} {v}" for k, v in rows[name].by_stage.items())
            print(f"# {name}, kernels by stage: {stages}")
    total = sum(r.compile_s for r in parts_only.values())
    kernels = sum(r.kernels for r in parts_only.values())
    ops = sum(r.ops for r in parts_only.values())
    print(f"sum of parts: compile {total:.2f} s, {kernels} kernels, {ops} ops (alone, each part "
          f"pays the per-program overhead); jax {jax.__version__}")  # fmt: skip


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--worlds", type=int, default=None, help="64 timed, 1 compiled")
    parser.add_argument("--steps", type=int, default=50)
    parser.add_argument("--compile", action="store_true", help="compile costs, not run times")
    parser.add_argument(
        "--quick", action="store_true", help="with --compile: the PettingZoo step's XLA options"
    )
    args = parser.parse_args()
    params, static = world()
    params = params.as_arrays()
    if args.compile:
        worlds = args.worlds or 1
        options = quick_compile_options("every_step") if args.quick else None
        print(f"# XLA options: {options or 'the defaults'}")
        print_compile_costs(compile_costs(params, static, worlds=worlds, options=options), worlds)
        return
    args.worlds = args.worlds or 64
    keys = jax.random.split(jax.random.key(3), args.worlds)
    _, states = jax.jit(jax.vmap(lambda k: alem_core.reset(k, params, static)))(keys)
    play = jax.jit(jax.vmap(lambda k, s: random_rollout(k, s, params, static, 30)[0]))
    states = play(keys, states)
    masks = jax.vmap(lambda s: action_mask(s, params, static))(states)
    actions = jax.vmap(random_legal_actions)(keys, masks)
    table, whole = parts(params, static)
    total = _time(whole, states, actions, args.steps)
    print(f"whole step       {total * 1e3:7.2f} ms per call of {args.worlds} worlds")
    rows = {name: _time(fn, states, actions, args.steps) for name, fn in table.items()}
    for name, seconds in sorted(rows.items(), key=lambda kv: -kv[1]):
        print(f"{name:<16} {seconds * 1e3:7.2f} ms  {100 * seconds / total:5.1f} %")
    print(f"sum of parts     {sum(rows.values()) * 1e3:7.2f} ms; jax {jax.__version__}")


if __name__ == "__main__":
    main()
