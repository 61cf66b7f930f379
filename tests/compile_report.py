"""``pytest --compile-report[=PATH]``: what the suite compiles, and which tests ask for it.

The suite's time on a cold machine is mostly XLA compiles, and a program compiled twice under
shapes that differ only by accident costs twice. With the option, every program JAX lowers is
recorded with its name, its argument shapes and dtypes, the seconds its backend compile took
(a persistent-cache hit counts as a hit, with the seconds it took to load) and the tests that
lowered it; at the end the 20 costliest distinct programs are printed, with the totals, and
``PATH`` (if given) gets the whole list as JSON. Under pytest-xdist each worker reports to the
controller, which merges the lists.

How: JAX logs "Compiling <name> with global shapes and types <avals>" at DEBUG level on its
``pxla`` logger when it lowers a program, and records the backend compile's duration (and a
persistent-cache hit just before it) through ``jax.monitoring``; both are public hooks, and a
compile is matched to the latest lowering of the same name.
"""

from __future__ import annotations

import hashlib
import json
import logging
import threading
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path

import pytest

LOWERING_LOGGER = "jax._src.interpreters.pxla"
COMPILE_EVENT = "/jax/core/compile/backend_compile_duration"
CACHE_HIT_EVENT = "/jax/compilation_cache/cache_hits"
TOP = 20


@dataclass
class Program:
    """One distinct program: a name and its argument types."""

    name: str
    shapes: str
    compiles: int = 0
    cache_hits: int = 0
    compile_s: float = 0.0
    cache_load_s: float = 0.0
    tests: list[str] = field(default_factory=list)

    @property
    def key(self) -> str:
        return f"{self.name}:{digest(self.shapes)}"

    def merge(self, other: Program) -> None:
        self.compiles += other.compiles
        self.cache_hits += other.cache_hits
        self.compile_s += other.compile_s
        self.cache_load_s += other.cache_load_s
        self.tests += [t for t in other.tests if t not in self.tests]


def digest(text: str) -> str:
    return hashlib.sha1(text.encode()).hexdigest()[:8]


class Recorder(logging.Handler):
    """Collects lowerings (a logging handler) and compile durations (a monitoring listener)."""

    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.programs: dict[str, Program] = {}
        self.latest: dict[str, Program] = {}  # module name -> its latest lowering
        self.test = "(collection)"
        self.hit = threading.local()
        self.mutex = threading.Lock()

    def emit(self, record: logging.LogRecord) -> None:
        if not str(record.msg).startswith("Compiling %s with global shapes"):
            return
        name, avals = record.args[0], record.args[1]
        # weak types compile apart from strong ones (a Python int where an int32 array was
        # passed before), so they are marked
        shapes = ", ".join(
            str(a) + ("~weak" if getattr(a, "weak_type", False) else "") for a in avals
        )
        seen = Program(name=name, shapes=shapes)
        with self.mutex:
            program = self.programs.setdefault(seen.key, seen)
            if self.test not in program.tests:
                program.tests.append(self.test)
            self.latest[name] = program

    def event(self, event: str, **kwargs) -> None:
        if event == CACHE_HIT_EVENT:
            self.hit.value = True

    def duration(self, event: str, secs: float, **kwargs) -> None:
        if event != COMPILE_EVENT:
            return
        hit = getattr(self.hit, "value", False)
        self.hit.value = False
        with self.mutex:
            name = kwargs.get("fun_name", "?")
            program = self.latest.get(name) or self.programs.setdefault(
                f"{name}:?", Program(name=name, shapes="(not seen lowering)")
            )
            if hit:
                program.cache_hits += 1
                program.cache_load_s += secs
            else:
                program.compiles += 1
                program.compile_s += secs


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption(
        "--compile-report",
        nargs="?",
        const="",
        default=None,
        metavar="PATH",
        help="list the programs JAX compiled, their compile seconds and the tests that asked "
        "for them (top 20 printed; the whole list as JSON to PATH if given)",
    )


def pytest_configure(config: pytest.Config) -> None:
    if config.getoption("--compile-report") is None:
        return
    from jax import monitoring

    recorder = Recorder()
    logger = logging.getLogger(LOWERING_LOGGER)
    logger.addHandler(recorder)
    logger.setLevel(logging.DEBUG)
    monitoring.register_event_listener(recorder.event)
    monitoring.register_event_duration_secs_listener(recorder.duration)
    config._alem_compile_report = recorder  # type: ignore[attr-defined]
    config._alem_compile_merged = {}  # type: ignore[attr-defined]


def _recorder(config: pytest.Config) -> Recorder | None:
    return getattr(config, "_alem_compile_report", None)


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_protocol(item: pytest.Item, nextitem):
    recorder = _recorder(item.config)
    if recorder is not None:
        recorder.test = item.nodeid
    yield


def pytest_sessionfinish(session: pytest.Session) -> None:
    recorder = _recorder(session.config)
    if recorder is not None and hasattr(session.config, "workeroutput"):  # an xdist worker
        session.config.workeroutput["compile_report"] = json.dumps(
            [asdict(p) for p in recorder.programs.values()]
        )


@pytest.hookimpl(optionalhook=True)  # an xdist hook: pytest without xdist still loads this
def pytest_testnodedown(node, error) -> None:
    """xdist's controller: merge a finished worker's programs."""
    merged = getattr(node.config, "_alem_compile_merged", None)
    report = getattr(node, "workeroutput", {}).get("compile_report")
    if merged is None or report is None:
        return
    for row in json.loads(report):
        _merge(merged, Program(**row))


def _merge(into: dict[str, Program], program: Program) -> None:
    if program.key in into:
        into[program.key].merge(program)
    else:
        into[program.key] = program


def pytest_terminal_summary(terminalreporter, config: pytest.Config) -> None:
    recorder = _recorder(config)
    if recorder is None or hasattr(config, "workeroutput"):
        return
    programs: dict[str, Program] = dict(config._alem_compile_merged)  # type: ignore[attr-defined]
    for program in recorder.programs.values():
        _merge(programs, program)
    rows = sorted(programs.values(), key=lambda p: -p.compile_s)
    write = terminalreporter.write_line
    terminalreporter.section("compile report")
    write(
        f"{len(rows)} distinct programs: {sum(p.compiles for p in rows)} backend compiles in "
        f"{sum(p.compile_s for p in rows):.1f} s, {sum(p.cache_hits for p in rows)} loaded "
        f"from the persistent cache in {sum(p.cache_load_s for p in rows):.1f} s"
    )
    by_name = Counter(program.name for program in rows)
    write(f"{'compile s':>9} {'n':>3} {'hits':>4}  program [variants of its name]  tests")
    for program in rows[:TOP]:
        first = program.tests[0] if program.tests else "?"
        more = f" (+{len(program.tests) - 1} more)" if len(program.tests) > 1 else ""
        write(
            f"{program.compile_s:9.1f} {program.compiles:3d} {program.cache_hits:4d}  "
            f"{program.name} [{by_name[program.name]}] {_short(program.shapes)}  {first}{more}"
        )
    path = config.getoption("--compile-report")
    if path:
        Path(path).write_text(json.dumps([asdict(p) for p in rows], indent=1) + "\n")
        write(f"all {len(rows)} programs written to {path}")


def _short(shapes: str, width: int = 60) -> str:
    count = shapes.count("[") if shapes else 0
    text = shapes if len(shapes) <= width else shapes[: width - 3] + "..."
    return f"({count} args: {text})"
