"""The tree keeps its architecture: no import cycles, nothing imported upward (core <- adapters
<- trainers <- benchmarks), at most 12 modules at ``alem_core``'s root and 8 at ``alem_pz``'s,
``alem_pz``'s rooms importing one way, and the layout map in ``docs/development.md`` naming every
package and root module of the first three. Imports inside functions and under
``TYPE_CHECKING`` count: a reader meets them all the same."""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
# bench/ is the top layer: it measures the other three, and none of them may need it.
LAYERS = {"alem_core": 0, "alem_pz": 1, "alem_train": 2, "bench": 3}


def _modules() -> dict[str, Path]:
    found = {}
    for package in LAYERS:
        for path in (ROOT / package).rglob("*.py"):
            parts = list(path.relative_to(ROOT).with_suffix("").parts)
            if parts[-1] == "__init__":
                parts.pop()
            found[".".join(parts)] = path
    return found


def _imported(name: str, node: ast.AST, is_package: bool) -> list[str]:
    """Dotted names an import statement in module ``name`` may refer to."""
    if isinstance(node, ast.Import):
        return [alias.name for alias in node.names]
    if not isinstance(node, ast.ImportFrom):
        return []
    base = node.module or ""
    if node.level:
        here = name.split(".") if is_package else name.split(".")[:-1]
        here = here[: len(here) - node.level + 1]
        base = ".".join([*here, base] if base else here)
    return [base] + [f"{base}.{alias.name}" for alias in node.names]


def import_graph() -> dict[str, set[str]]:
    """module -> the project modules it imports (the longest known prefix of each name)."""
    modules = _modules()
    graph: dict[str, set[str]] = {name: set() for name in modules}
    for name, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text())):
            for target in _imported(name, node, path.name == "__init__.py"):
                while target and target not in modules:
                    target = target.rpartition(".")[0]
                # A module importing its own package's __init__ is how Python loads it.
                if target and target != name and not name.startswith(target + "."):
                    graph[name].add(target)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """Strongly connected components of more than one module (iterative Tarjan)."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found = []
    for start in sorted(graph):
        if start in index:
            continue
        work = [(start, iter(sorted(graph[start])))]
        index[start] = low[start] = len(index)
        stack.append(start)
        on_stack.add(start)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is None:
                work.pop()
                if work:
                    low[work[-1][0]] = min(low[work[-1][0]], low[node])
                if low[node] == index[node]:
                    component = []
                    while True:
                        member = stack.pop()
                        on_stack.discard(member)
                        component.append(member)
                        if member == node:
                            break
                    if len(component) > 1:
                        found.append(sorted(component))
            elif child not in index:
                index[child] = low[child] = len(index)
                stack.append(child)
                on_stack.add(child)
                work.append((child, iter(sorted(graph[child]))))
            elif child in on_stack:
                low[node] = min(low[node], index[child])
    return found


def test_the_cycle_finder_finds_a_cycle():
    graph = {"a": {"b"}, "b": {"c"}, "c": {"a"}, "d": {"a"}}
    assert cycles(graph) == [["a", "b", "c"]]
    assert cycles({"a": {"b"}, "b": set()}) == []


def upward_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports in ``graph`` from a lower layer into a higher one."""
    return sorted(
        f"{source} -> {target}"
        for source, targets in graph.items()
        for target in targets
        if LAYERS[target.split(".")[0]] > LAYERS[source.split(".")[0]]
    )


def test_the_graph_holds_every_layer():
    graph = import_graph()
    assert {name.split(".")[0] for name in graph} == set(LAYERS)
    assert "bench.parity.protocol" in graph["bench.parity.floors"]


def test_no_import_cycles():
    assert cycles(import_graph()) == []


def test_no_upward_imports():
    assert upward_imports(import_graph()) == []


def test_bench_is_the_top_layer():
    graph = {
        "bench.common": {"alem_core.env", "alem_pz.envs", "alem_train.ppo"},
        "alem_train.ppo": {"bench.common"},
        "alem_core.env": {"bench.parity.ours"},
    }
    assert upward_imports(graph) == [
        "alem_core.env -> bench.parity.ours",
        "alem_train.ppo -> bench.common",
    ]


@pytest.mark.parametrize(("package", "most"), [("alem_core", 12), ("alem_pz", 8)])
def test_package_root_stays_small(package, most):
    root_modules = [p.name for p in (ROOT / package).glob("*.py") if p.name != "__init__.py"]
    assert len(root_modules) <= most, sorted(root_modules)


@pytest.mark.parametrize(
    ("package", "after"),
    [("alem_core", "alem_pz"), ("alem_pz", "alem_train"), ("alem_train", "bench")],
)
def test_layout_map_names_every_root_entry(package, after):
    text = (ROOT / "docs" / "development.md").read_text()
    section = text.split("## How the code is laid out", 1)[1].split("\n## ", 1)[0]
    block = section.split("```", 2)[1]
    mapped_block = block.split(f"{package}/\n", 1)[1].split(f"\n{after}/", 1)[0]
    mapped = set(re.findall(r"^  ([a-z_0-9]+(?:\.py|/))", mapped_block, re.M))
    entries = {
        p.name + ("/" if p.is_dir() else "")
        for p in (ROOT / package).iterdir()
        if (p.suffix == ".py" and p.name != "__init__.py") or (p / "__init__.py").exists()
    }
    assert entries - mapped == set(), "in the tree but not in docs/development.md's map"
    assert mapped - entries == set(), "in docs/development.md's map but not in the tree"


def test_module_names_are_not_repeated_within_alem_pz():
    names = [p.stem for p in (ROOT / "alem_pz").rglob("*.py") if p.stem != "__init__"]
    assert sorted({n for n in names if names.count(n) > 1}) == []


# alem_pz's rooms, lowest first. An env adapter imports no play, evaluation or text agent
# (only the text observation it can hand out, obs_type="text"); evaluation imports no text module
# (the text track registers its policy by name and its harness runs the protocol), save its
# command line, which starts the language-model harness; the browser server imports no
# command-line module of keyboard play.
TEXT_OBSERVATION = {"env", "observer", "observation", "actions", "ascii_map", "cues",
                    "disclosure", "inventory", "wording"}  # fmt: skip


def back_up_imports(graph: dict[str, set[str]]) -> list[str]:
    """Imports in ``graph`` that break alem_pz's rooms (see above)."""
    found = []
    for source, targets in graph.items():
        for target in targets:
            parts = target.split(".")
            if source.startswith("alem_pz.envs") and target.startswith("alem_pz."):
                room = parts[1]
                if room in ("play", "evaluation") or (
                    room == "text" and len(parts) > 2 and parts[2] not in TEXT_OBSERVATION
                ):
                    found.append(f"{source} -> {target}")
            evaluation_library = source.startswith("alem_pz.evaluation") and not source.endswith(
                ".cli"
            )
            if evaluation_library and target.startswith("alem_pz.text"):
                found.append(f"{source} -> {target}")
            if source.startswith("alem_pz.play.web") and target == "alem_pz.play.keyboard":
                found.append(f"{source} -> {target}")
    return sorted(found)


def test_alem_pz_rooms_import_one_way():
    assert back_up_imports(import_graph()) == []
    broken = {
        "alem_pz.envs.vector": {"alem_pz.evaluation.policies"},
        "alem_pz.evaluation.policies": {"alem_pz.text.rule_agent"},
        "alem_pz.evaluation.cli": {"alem_pz.text.harness"},
    }
    assert back_up_imports(broken) == [
        "alem_pz.envs.vector -> alem_pz.evaluation.policies",
        "alem_pz.evaluation.policies -> alem_pz.text.rule_agent",
    ]


@pytest.mark.parametrize("package", ["bench"])
def test_bench_scripts_do_not_edit_sys_path(package):
    offenders = [
        p.name for p in (ROOT / package).glob("*.py") if "sys.path.insert" in p.read_text()
    ]
    assert offenders == []


def test_no_test_module_imports_another():
    """Shared test helpers live in conftest or helper modules, not in test modules."""
    offenders = []
    for path in (ROOT / "tests").rglob("test_*.py"):
        for node in ast.walk(ast.parse(path.read_text())):
            module = node.module if isinstance(node, ast.ImportFrom) else None
            if module and module.rpartition(".")[2].startswith("test_"):
                offenders.append(f"{path.relative_to(ROOT)} -> {module}")
    assert offenders == []


# Underscore names on the object itself (self, cls, super()) are its own business, and a
# NamedTuple's public API is spelled with one underscore.
OWN = ("self", "cls")
NAMEDTUPLE_API = {"_replace", "_fields", "_asdict", "_make", "_field_defaults"}


def private_reaches(source: str) -> list[str]:
    """``obj._name`` in ``source`` where ``obj`` is another object: one face reading or writing
    another's private state instead of asking through a public accessor."""
    found = []
    for node in ast.walk(ast.parse(source)):
        if not isinstance(node, ast.Attribute) or not node.attr.startswith("_"):
            continue
        base = node.value
        own = isinstance(base, ast.Name) and base.id in OWN
        parent = isinstance(base, ast.Call) and getattr(base.func, "id", None) == "super"
        if node.attr.startswith("__") or node.attr in NAMEDTUPLE_API or own or parent:
            continue
        found.append(f"{node.lineno}: {ast.unparse(node)}")
    return found


def test_the_private_reach_finder_finds_one():
    source = "def render(env):\n    return env._state if self._ok else super()._x(t._replace())"
    assert private_reaches(source) == ["2: env._state"]


def test_no_alem_pz_module_reaches_into_another_objects_private_state():
    reaches = [
        f"{path.relative_to(ROOT)}:{line}"
        for path in sorted((ROOT / "alem_pz").rglob("*.py"))
        for line in private_reaches(path.read_text())
    ]
    assert reaches == []
