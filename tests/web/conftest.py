"""Fixtures for the browser tests (one server and one Chromium for the whole session), and each
test's outcome made visible to them (a failing test leaves its pages in the artifacts)."""

from __future__ import annotations

from collections.abc import Generator, Iterator
from typing import Any

import pytest

from tests.web.kit import CHROMIUM_ARGS, SCREENSHOTS, chromium, serve, shot


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(
    item: pytest.Item, call: pytest.CallInfo[None]
) -> Generator[None, Any, Any]:
    report = yield
    setattr(item, f"rep_{report.when}", report)
    return report


@pytest.fixture(scope="session")
def server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """A live server with short timers and two bots; yields its base URL."""
    yield from serve(tmp_path_factory.mktemp("serve-data"))


@pytest.fixture(scope="session")
def browser() -> Iterator[Any]:
    executable = chromium()
    playwright_api = pytest.importorskip("playwright.sync_api")
    with playwright_api.sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=executable, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


@pytest.fixture
def failure_shots(request: pytest.FixtureRequest) -> Iterator[list[Any]]:
    """Pages to photograph (with their text) when the test fails, for CI's artifacts."""
    pages: list[Any] = []
    yield pages
    report = getattr(request.node, "rep_call", None)
    if report is not None and report.failed:
        for index, page in enumerate(pages):
            name = f"failure-{request.node.name}-{index}"
            try:
                shot(page, name)
                (SCREENSHOTS / f"{name}.txt").write_text(page.inner_text("body"))
            except Exception as error:  # the page may be gone; the failure itself matters more
                print(f"could not save {name}: {error}")
