"""No import cycle anywhere in the package, imports made only for type checking included.

Every ``import`` and ``from ... import`` statement of every module under ``src/boundless``
(inside functions and ``if TYPE_CHECKING:`` blocks too) is an edge to the most specific
``boundless`` module it names; the graph must have no cycle.
"""

from __future__ import annotations

import ast
import sys
from pathlib import Path

import pytest

import boundless

PACKAGE = Path(boundless.__file__).parent


def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    return {_module_name(path): path for path in PACKAGE.rglob("*.py")}


def _resolve(name: str, modules: dict[str, Path]) -> str | None:
    """The most specific known module that ``name`` (dotted) falls in."""
    while name:
        if name in modules:
            return name
        name = name.rpartition(".")[0]
    return None


Graph = dict[str, set[str]]


def import_graph() -> Graph:
    modules = _modules()
    graph: Graph = {}
    for module, path in modules.items():
        edges = graph.setdefault(module, set())
        is_package = path.name == "__init__.py"
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [alias.name for alias in node.names]
            elif isinstance(node, ast.ImportFrom):
                base = node.module or ""
                if node.level:
                    anchor = module.split(".")
                    anchor = anchor[: len(anchor) - node.level + (1 if is_package else 0)]
                    base = ".".join([*anchor, base] if base else anchor)
                targets = [f"{base}.{alias.name}" for alias in node.names]
            for target in targets:
                resolved = _resolve(target, modules)
                if resolved is not None and resolved != module:
                    edges.add(resolved)
    return graph


def find_cycle(graph: Graph) -> list[str] | None:
    """One cycle of ``graph`` (its modules in import order, first repeated last), or None."""
    done: set[str] = set()
    for start in sorted(graph):
        if start in done:
            continue
        path = [start]
        stack = [iter(sorted(graph[start]))]
        while stack:
            target = next(stack[-1], None)
            if target is None:
                stack.pop()
                done.add(path.pop())
            elif target in path:
                return [*path[path.index(target) :], target]
            elif target not in done:
                path.append(target)
                stack.append(iter(sorted(graph.get(target, ()))))
    return None


def test_the_package_has_no_import_cycle() -> None:
    cycle = find_cycle(import_graph())
    assert cycle is None, "import cycle: " + " -> ".join(cycle or ())


def test_the_round_modules_import_downward() -> None:
    graph = import_graph()
    assert "boundless.core.round.players" in graph["boundless.core.round.round"]
    assert "boundless.core.round.state" in graph["boundless.core.round.apply"]


def test_the_check_finds_a_cycle_through_a_type_only_import() -> None:
    # The cycle the round had before issue 8: round.py imported apply.py, which imported
    # round.py under TYPE_CHECKING.
    graph = import_graph()
    graph["boundless.core.round.state"].add("boundless.core.round.round")
    cycle = find_cycle(graph)
    assert cycle is not None and cycle[0] == cycle[-1]
    assert "boundless.core.round.state" in cycle and "boundless.core.round.round" in cycle


@pytest.mark.parametrize(
    ("graph", "expected"),
    [({"a": {"b"}, "b": {"c"}, "c": set()}, None), ({"a": {"b"}, "b": {"a"}}, ["a", "b", "a"])],
)
def test_find_cycle_on_small_graphs(graph: Graph, expected: list[str] | None) -> None:
    assert find_cycle(graph) == expected


def test_a_type_only_import_closing_a_cycle_is_found(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    package = tmp_path / "boundless"
    (package / "core").mkdir(parents=True)
    (package / "__init__.py").write_text("")
    (package / "core" / "__init__.py").write_text("")
    (package / "core" / "a.py").write_text("from boundless.core import b\n")
    (package / "core" / "b.py").write_text(
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import Thing\n"
    )
    monkeypatch.setattr(sys.modules[__name__], "PACKAGE", package)
    assert find_cycle(import_graph()) == [
        "boundless.core.a",
        "boundless.core.b",
        "boundless.core.a",
    ]
