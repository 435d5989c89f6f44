"""The coordinator's inbox: gateway reports gathered by round, kind and step."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Set

from boundless.server.cluster.bus import GatewayReport, JsonBody, ReportKind

Key = tuple[int, ReportKind, int]


class ReportBox:
    """Reports as they arrive; the first report of a gateway for a key counts, resends do not."""

    def __init__(self) -> None:
        self._got: dict[Key, dict[str, JsonBody]] = {}
        self._changed = asyncio.Event()

    def add(self, report: GatewayReport) -> None:
        got = self._got.setdefault((report.round_number, report.kind, report.step), {})
        got.setdefault(report.gateway, report.body)
        self._changed.set()
        self._changed = asyncio.Event()

    def senders(self, round_number: int, kind: ReportKind, step: int) -> set[str]:
        """The gateways that sent this report so far (late ones included)."""
        return set(self._got.get((round_number, kind, step), {}))

    def forget_before(self, round_number: int) -> None:
        for key in [key for key in self._got if key[0] < round_number]:
            del self._got[key]

    async def wait(
        self,
        round_number: int,
        kind: ReportKind,
        step: int,
        *,
        expected: Set[str] | None,
        seconds: float,
    ) -> dict[str, JsonBody]:
        """The reports for the key once every ``expected`` gateway sent one, or at the deadline.

        ``expected=None`` waits the whole time (the coordinator does not know who is there).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        key = (round_number, kind, step)
        while True:
            got = self._got.get(key, {})
            if expected is not None and expected <= got.keys():
                return dict(got)
            remaining = deadline - loop.time()
            if remaining <= 0:
                return dict(got)
            changed = self._changed
            # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation that
            # lands as the event fires, and a killed coordinator must stop at once.
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await changed.wait()
