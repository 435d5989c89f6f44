"""docs/rules-coverage.md names only tests that exist, and every golden test file is mapped."""

from __future__ import annotations

import ast
import re
from pathlib import Path

HERE = Path(__file__).parent
DOC = HERE.parents[2] / "docs" / "rules-coverage.md"
ABBREVIATIONS = re.compile(r"`(\w+)` =\s+`(test_\w+\.py)`")
REFERENCE = re.compile(r"(?<![\w.])(\w+)::(test_\w+)")


def _test_names(path: Path) -> set[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"))
    return {
        node.name
        for node in tree.body
        if isinstance(node, ast.FunctionDef) and node.name.startswith("test_")
    }


def test_every_test_named_in_the_coverage_table_exists() -> None:
    text = DOC.read_text(encoding="utf-8")
    files = dict(ABBREVIATIONS.findall(text))
    assert len(files) >= 10
    missing = []
    references = REFERENCE.findall(text)
    assert len(references) > 150
    for prefix, name in references:
        filename = files.get(prefix)
        if filename is None:
            missing.append(f"{prefix}::{name} (unknown file abbreviation)")
        elif name not in _test_names(HERE / filename):
            missing.append(f"{prefix}::{name}")
    assert not missing, missing


def test_every_golden_test_is_mapped_to_a_rule() -> None:
    text = DOC.read_text(encoding="utf-8")
    files = {filename: prefix for prefix, filename in ABBREVIATIONS.findall(text)}
    mentioned = set(REFERENCE.findall(text))
    unmapped = [
        f"{path.name}::{name}"
        for path in sorted(HERE.glob("test_rules_*.py"))
        if path.name in files
        for name in sorted(_test_names(path))
        if (files[path.name], name) not in mentioned
    ]
    assert not unmapped, unmapped
