"""uvicorn for ``boundless serve``: the tables stop before the sockets close.

uvicorn's own shutdown closes every connection first and only then runs the app's lifespan end;
a table stopped there would count its players as departed and autoplay their hands. Here the
tables are stopped first (``app.state.stop_tables``, set by the lifespan): each cancels and
refunds its round in flight and sends every player ``settled`` with the cancellation while the
sockets are still open, within a bound (a write waiting on the database is left to the next
start's recovery). Then uvicorn closes the sockets as usual.
"""

from __future__ import annotations

import socket
from typing import Any

import uvicorn


class TablesFirstServer(uvicorn.Server):
    def __init__(self, config: uvicorn.Config, front: Any) -> None:
        super().__init__(config)
        self.front = front
        """The app (its ``state.stop_tables`` exists once the lifespan has started)."""

    async def shutdown(self, sockets: list[socket.socket] | None = None) -> None:
        stop_tables = getattr(self.front.state, "stop_tables", None)
        if stop_tables is not None:
            await stop_tables()
        await super().shutdown(sockets)
