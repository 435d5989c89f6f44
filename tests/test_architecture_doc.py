"""docs/architecture.md names every folder of the package and every module of the folders it
lists module by module, so a new folder or module cannot go unmentioned there."""

from __future__ import annotations

from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "src" / "boundless"
DOC = (ROOT / "docs" / "architecture.md").read_text(encoding="utf-8")

# The folders whose modules the page describes one by one (its module tables and lists).
LISTED_MODULE_BY_MODULE = ("", "core", "core/round", "math", "server/tables")


def _folders() -> list[str]:
    return sorted(
        path.relative_to(PACKAGE).as_posix()
        for path in PACKAGE.rglob("*")
        if path.is_dir() and any(path.glob("*.py")) and "versions" not in path.parts
    )


@pytest.mark.parametrize("folder", _folders())
def test_every_folder_is_named(folder: str) -> None:
    assert f"{Path(folder).name}/" in DOC, f"docs/architecture.md does not name {folder}/"


@pytest.mark.parametrize("folder", LISTED_MODULE_BY_MODULE)
def test_every_module_of_a_listed_folder_is_named(folder: str) -> None:
    modules = sorted(path.name for path in (PACKAGE / folder).glob("*.py"))
    missing = [name for name in modules if name != "__init__.py" and name not in DOC]
    assert not missing, f"docs/architecture.md does not name {missing} of {folder or 'boundless'}/"
