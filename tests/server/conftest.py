"""Fixtures: a live server (uvicorn in a thread) on a SQLite file, and its clients."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.server.live import LiveServer, start_server


@pytest.fixture
def server(tmp_path: Path) -> Iterator[LiveServer]:
    live = start_server(tmp_path)
    yield live
    live.stop()
