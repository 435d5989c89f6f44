"""Prometheus metrics of one server app: rounds, bets, money by kind, step latency, sockets, errors.

Each app owns a :class:`ServerMetrics` with its own ``CollectorRegistry`` (never the process-wide
default), so several apps in one test process count apart. The tables record money right after
the transaction that moved it has committed; errors are counted where they are mapped
(``boundless.server.errors``, through its ``ERROR_COUNTER``, set per call by the app).
"""

from __future__ import annotations

import time
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from typing import Any

from prometheus_client import CollectorRegistry, Counter, Gauge, Histogram, generate_latest
from prometheus_client.exposition import CONTENT_TYPE_LATEST

from boundless.ledger.records import StakeOrder

CONTENT_TYPE = CONTENT_TYPE_LATEST
STEP_BUCKETS = (0.001, 0.0025, 0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1.0, 2.5)
"""Seconds; a step close is a few milliseconds with one database write."""


def stake_kind(ledger_kind: str) -> str:
    """The metric label of a ledger stake kind: ``double:2`` -> ``double``, ``side:pair`` stays."""
    base, _, suffix = ledger_kind.partition(":")
    return ledger_kind if base == "side" and suffix else base


class ServerMetrics:
    def __init__(self) -> None:
        self.registry = CollectorRegistry(auto_describe=True)
        self.rounds = Counter(
            "boundless_rounds",
            "Rounds ended, by title and outcome (settled or cancelled)",
            ["title", "outcome"],
            registry=self.registry,
        )
        self.bets = Counter(
            "boundless_bets",
            "Bet messages accepted (each staked in the ledger), by title",
            ["title"],
            registry=self.registry,
        )
        self.stakes = Counter(
            "boundless_stakes_coins",
            "Coins staked (minor units), by title and kind: main, side:<key>, insurance, "
            "double, split",
            ["title", "kind"],
            registry=self.registry,
        )
        self.payouts = Counter(
            "boundless_payouts_coins",
            "Coins paid back to players in settled rounds (stake included, minor units), by "
            "title and kind: main (hands, doubles and splits included), side:<key>, insurance",
            ["title", "kind"],
            registry=self.registry,
        )
        self.refunds = Counter(
            "boundless_refunds_coins",
            "Coins returned by cancelled rounds (minor units), by title",
            ["title"],
            registry=self.registry,
        )
        self.step_close = Histogram(
            "boundless_step_close_seconds",
            "Time to close one decision step (execute, send the card, stake the extras)",
            ["title"],
            buckets=STEP_BUCKETS,
            registry=self.registry,
        )
        self.sockets = Gauge(
            "boundless_open_sockets",
            "WebSockets open (in-process bots excluded)",
            registry=self.registry,
        )
        self.errors = Counter(
            "boundless_errors",
            "Refusals and faults answered, by error code (REST and WebSocket)",
            ["code"],
            registry=self.registry,
        )

    # ---- recording ---------------------------------------------------------------------------
    def staked(self, title: str, orders: Iterable[StakeOrder]) -> None:
        """Stakes the ledger has just committed (summed by kind first: one counter update per
        kind, not per order, for a batch of thousands)."""
        by_kind: dict[str, int] = {}
        for order in orders:
            kind = stake_kind(order.kind)
            by_kind[kind] = by_kind.get(kind, 0) + order.amount
        for kind, amount in by_kind.items():
            self.stakes.labels(title, kind).inc(amount)

    def bets_accepted(self, title: str, requests: Sequence[Any]) -> None:
        """Accepted ``BetRequest``s (each has ``orders()``), after their batch committed."""
        if requests:
            self.bets.labels(title).inc(len(requests))
        self.staked(title, [order for request in requests for order in request.orders()])

    def settled(self, title: str, results: Mapping[str, Sequence[Mapping[str, Any]]]) -> None:
        """A settled round: ``results`` maps each player to their positions' results (the
        ``positions`` of the player view), whose ``paid`` is everything the position got back."""
        self.rounds.labels(title, "settled").inc()
        paid: dict[str, int] = {}
        for positions in results.values():
            for position in positions:
                for kind, amount in payouts_by_kind(position).items():
                    paid[kind] = paid.get(kind, 0) + amount
        for kind, amount in paid.items():
            if amount:
                self.payouts.labels(title, kind).inc(amount)

    def cancelled(self, title: str, refunds: Mapping[str, int]) -> None:
        self.rounds.labels(title, "cancelled").inc()
        # a void may take coins back from a wallet (an early payment, ruling 38): the counter
        # counts what went back to wallets, never below zero
        total = sum(amount for amount in refunds.values() if amount > 0)
        if total:
            self.refunds.labels(title).inc(total)

    @contextmanager
    def step_timer(self, title: str) -> Iterator[None]:
        started = time.perf_counter()
        try:
            yield
        finally:
            self.step_close.labels(title).observe(time.perf_counter() - started)

    def count_error(self, code: str) -> None:
        self.errors.labels(code).inc()

    def watch_sockets(self, count: Callable[[], int]) -> None:
        self.sockets.set_function(lambda: float(count()))

    def exposition(self) -> bytes:
        return bytes(generate_latest(self.registry))


def payouts_by_kind(position: Mapping[str, Any]) -> dict[str, int]:
    """One position's payout split by kind; whatever is not insurance or a side bet is main."""
    kinds: dict[str, int] = {}
    insurance = position.get("insurance")
    if insurance and insurance.get("kind") == "insurance" and insurance.get("payout"):
        kinds["insurance"] = int(insurance["payout"])
    for key, side in (position.get("side_bets") or {}).items():
        if side.get("payout"):
            kinds[f"side:{key}"] = int(side["payout"])
    kinds["main"] = int(position.get("paid") or 0) - sum(kinds.values())
    return kinds


UNEXPORTED = ServerMetrics()
"""What a table records into when no app gave it metrics (tables built directly in tests)."""
