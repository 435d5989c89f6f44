"""The coordinator's inbox: gateway reports gathered by round, kind and step."""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Set
from typing import cast

from boundless.core.round.follower import BetsReport, StepReport
from boundless.server.cluster.bus import GatewayReport, JsonBody, ReportKind

Key = tuple[int, ReportKind, int]


class ReportBox:
    """Reports as they arrive; the first report of a gateway for a key counts, resends do not.

    A gateway known to be gone from a round (its process is: ``gateway_presence``) is awaited
    no longer: a wait ends once every expected gateway reported or is gone."""

    def __init__(self) -> None:
        self._got: dict[Key, dict[str, JsonBody]] = {}
        self._changed = asyncio.Event()
        self._waiting: dict[int, tuple[Key, Set[str]]] = {}
        """The waits in progress (by a token): their key and expected gateways."""
        self._gone: dict[int, set[str]] = {}
        """Gateways gone from each round."""

    def add(self, report: GatewayReport) -> None:
        got = self._got.setdefault((report.round_number, report.kind, report.step), {})
        got.setdefault(report.gateway, report.body)
        self._poke()

    def _poke(self) -> None:
        self._changed.set()
        self._changed = asyncio.Event()

    def awaited(self) -> dict[int, set[str]]:
        """The gateways waits in progress still expect a report from, by round (not gone)."""
        out: dict[int, set[str]] = {}
        for key, expected in self._waiting.values():
            missing = set(expected) - self._got.get(key, {}).keys() - self.gone(key[0])
            if missing:
                out.setdefault(key[0], set()).update(missing)
        return out

    def gone(self, round_number: int) -> set[str]:
        return set(self._gone.get(round_number, ()))

    def mark_gone(self, round_number: int, gateway: str) -> None:
        """This gateway's process is gone: the round's waits stop expecting it (each then
        treats it as one that missed its deadline)."""
        self._gone.setdefault(round_number, set()).add(gateway)
        self._poke()

    def senders(self, round_number: int, kind: ReportKind, step: int) -> set[str]:
        """The gateways that sent this report so far (late ones included)."""
        return set(self._got.get((round_number, kind, step), {}))

    def forget_before(self, round_number: int) -> None:
        for key in [key for key in self._got if key[0] < round_number]:
            del self._got[key]
        for number in [number for number in self._gone if number < round_number]:
            del self._gone[number]

    async def wait(
        self,
        round_number: int,
        kind: ReportKind,
        step: int,
        *,
        expected: Set[str] | None,
        seconds: float,
        or_kind: ReportKind | None = None,
    ) -> dict[str, JsonBody]:
        """The reports for the key once every ``expected`` gateway sent one, or at the deadline.

        ``expected=None`` waits the whole time (the coordinator does not know who is there).
        ``or_kind``: a gateway that sent this report (same round and step) instead is awaited no
        longer either (it is not in the answer: ``settling`` for ``settled``).
        """
        loop = asyncio.get_running_loop()
        deadline = loop.time() + seconds
        key = (round_number, kind, step)
        token = object()
        if expected is not None:
            self._waiting[id(token)] = (key, expected)
        try:
            while True:
                got = self._got.get(key, {})
                instead = set() if or_kind is None else self.senders(round_number, or_kind, step)
                missing = set(expected or ()) - self.gone(round_number) - instead
                if expected is not None and missing <= got.keys():
                    return dict(got)
                remaining = deadline - loop.time()
                if remaining <= 0:
                    return dict(got)
                changed = self._changed
                # asyncio.timeout, not wait_for: on 3.11 wait_for can swallow a cancellation
                # that lands as the event fires, and a killed coordinator must stop at once.
                with contextlib.suppress(TimeoutError):
                    async with asyncio.timeout(remaining):
                        await changed.wait()
        finally:
            self._waiting.pop(id(token), None)


def bets_report_of(body: JsonBody) -> BetsReport:
    return BetsReport(
        spots=frozenset(_ints(body.get("spots"))),
        seated_spots=frozenset(_ints(body.get("seated_spots"))),
    )


def step_report_of(body: JsonBody) -> StepReport:
    return StepReport(
        spot=int(cast(int, body["spot"])),
        step=int(cast(int, body["step"])),
        takers=int(cast(int, body["takers"])),
        in_play_if=tuple(_ints(body.get("in_play_if"))),
    )


def _ints(value: object) -> list[int]:
    if not isinstance(value, list) or not all(isinstance(item, int) for item in value):
        raise ValueError(f"a report field must be a list of integers, got {value!r}")
    return cast(list[int], value)
