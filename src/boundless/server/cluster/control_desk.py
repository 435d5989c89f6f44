"""A gateway's side of the operator's pause and resume: the coordinator's ``table_paused`` and
``table_resumed`` become what ``boundless serve``'s pause and resume do at the table: bets and
decisions refused while paused (``table_paused``), the ``paused`` / ``resumed`` notice, the
window's clock shown frozen (its time left) and then running again, and a new ``state``."""

from __future__ import annotations

from typing import Any, Protocol, cast

from boundless.server.cluster.bus import JsonBody
from boundless.server.cluster.protocol import Public


class PausableDesk(Protocol):
    paused: bool
    pause_reason: str | None

    def timer(self) -> dict[str, Any] | None: ...

    def set_timer(self, timer: dict[str, Any] | None) -> None: ...

    def notify(self, kind: str, detail: Any) -> None: ...

    def broadcast_state(self) -> None: ...


def operator_event(desk: PausableDesk, kind: Public, body: JsonBody) -> None:
    reason = body.get("reason")
    timer = body.get("timer")
    if kind is Public.TABLE_PAUSED:
        if desk.paused:
            return  # a replayed stretch: already shown
        desk.paused, desk.pause_reason = True, reason if isinstance(reason, str) else None
        notice = "paused"
    else:
        if not desk.paused:
            return
        desk.paused, desk.pause_reason = False, None
        notice = "resumed"
    if isinstance(timer, dict):
        desk.set_timer({"remaining_ms": None, **cast(dict[str, Any], timer)})
    desk.notify(notice, reason)
    desk.broadcast_state()
