"""The docs stand on their own: no pointers to files a reader lacks, and every link resolves."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).parents[2]
DOCS = sorted(
    [ROOT / "README.md", *(ROOT / "docs").rglob("*.md"), *(ROOT / "docs").rglob("*.toml")]
)
LINK = re.compile(r"\]\(([^)#\s]+)(?:#[^)]*)?\)")


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_no_doc_points_outside_the_project(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for outside in ("shared/", "spec/", "DECISIONS"):
        assert outside not in text, f"{doc.name} mentions {outside!r}"


@pytest.mark.parametrize("doc", DOCS, ids=lambda path: str(path.relative_to(ROOT)))
def test_every_relative_link_resolves(doc: Path) -> None:
    text = doc.read_text(encoding="utf-8")
    for target in LINK.findall(text):
        if "://" in target:
            continue
        assert (doc.parent / target).exists(), f"{doc.name} links to missing {target}"


def test_the_readme_links_the_new_docs() -> None:
    readme = (ROOT / "README.md").read_text(encoding="utf-8")
    for name in ("docs/rulings.md", "docs/scenario-format.md", "docs/examples/"):
        assert f"]({name})" in readme


def test_rulings_are_numbered_one_to_thirty_eight_in_order() -> None:
    text = (ROOT / "docs" / "rulings.md").read_text(encoding="utf-8")
    numbers = [int(number) for number in re.findall(r"^(\d+)\. \*\*", text, flags=re.MULTILINE)]
    assert numbers == list(range(1, 39))
