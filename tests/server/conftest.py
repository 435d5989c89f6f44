"""Fixtures: a live server (uvicorn in a thread) on a SQLite file, and its clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live import LiveServer, serving


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    with serving(tmp_path) as live:
        yield live
