"""A stand-in for the message handler in the bot tests: it keeps what the bot sends."""

from __future__ import annotations

from typing import Any

import orjson


class RecordingHandler:
    """Stands in for the message handler: keeps what the bot sends."""

    def __init__(self) -> None:
        self.sent: list[dict[str, Any]] = []

    async def handle_text(self, _connection: object, text: bytes) -> None:
        self.sent.append(orjson.loads(text))

    def forget(self, _connection: object) -> None:
        pass
