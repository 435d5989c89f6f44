"""Fixtures: a live server (uvicorn in a thread) on a SQLite file, and its clients."""

from __future__ import annotations

from tests.server.live import served

server = served()
