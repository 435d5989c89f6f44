"""The core stays pure: it imports nothing above it and performs no I/O (docs/architecture.md)."""

from __future__ import annotations

import ast
from pathlib import Path

import boundless.core

CORE = Path(boundless.core.__file__).parent
ALLOWED_TOP_LEVEL = {
    "__future__",
    "collections",
    "dataclasses",
    "enum",
    "functools",
    "hashlib",
    "itertools",
    "math",
    "fractions",
    "random",  # only random.Random instances, checked below
    "re",
    "tomllib",
    "typing",
    "numpy",
    "pydantic",
    "pydantic_core",
    "boundless",
}
FORBIDDEN_CALLS = {"open", "print", "input", "exec", "eval", "__import__"}
GLOBAL_RANDOM = {
    "random",
    "randint",
    "randrange",
    "choice",
    "choices",
    "shuffle",
    "sample",
    "seed",
    "getrandbits",
    "uniform",
}


def _modules() -> list[Path]:
    return sorted(CORE.rglob("*.py"))


def _imports(tree: ast.AST) -> list[str]:
    names: list[str] = []
    for node in ast.walk(tree):
        if isinstance(node, ast.Import):
            names.extend(alias.name for alias in node.names)
        elif isinstance(node, ast.ImportFrom) and node.module and node.level == 0:
            names.append(node.module)
    return names


def test_core_imports_only_stdlib_pure_modules_and_itself() -> None:
    problems = []
    for path in _modules():
        for name in _imports(ast.parse(path.read_text())):
            top = name.split(".")[0]
            if top not in ALLOWED_TOP_LEVEL:
                problems.append(f"{path.name} imports {name}")
            if top == "boundless" and not name.startswith("boundless.core"):
                problems.append(f"{path.name} imports {name}, a layer above core")
    assert problems == []


def test_core_makes_no_io_calls_and_no_global_randomness() -> None:
    problems = []
    for path in _modules():
        for node in ast.walk(ast.parse(path.read_text())):
            if not isinstance(node, ast.Call):
                continue
            func = node.func
            if isinstance(func, ast.Name) and func.id in FORBIDDEN_CALLS:
                problems.append(f"{path.name}:{node.lineno} calls {func.id}()")
            if (
                isinstance(func, ast.Attribute)
                and isinstance(func.value, ast.Name)
                and func.value.id == "random"
                and func.attr in GLOBAL_RANDOM
            ):
                problems.append(f"{path.name}:{node.lineno} uses global random.{func.attr}")
    assert problems == []


def test_the_checks_catch_a_violation(tmp_path: Path) -> None:
    """Guard against a checker that can never fail."""
    tree = ast.parse("import socket\nfrom boundless.server import app\nprint(open('x'))\n")
    assert "socket" in _imports(tree)
    assert "boundless.server" in _imports(tree)
    calls = {
        node.func.id
        for node in ast.walk(tree)
        if isinstance(node, ast.Call) and isinstance(node.func, ast.Name)
    }
    assert {"print", "open"} <= calls
