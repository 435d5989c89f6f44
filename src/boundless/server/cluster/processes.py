"""The cluster's processes: ``boundless coordinator`` and ``boundless gateway`` run these.

What is built: the coordinator holds the table's lease (or stands by), shuffles and deals from
its own shoe, runs the rounds on the bus and opens and ends them in the ledger; each gateway
follows the table with a follower round per round, seats its bots, writes its slice of each
round to the ledger, reports, and serves a status page on its port. Not built yet: the
players' WebSockets on a gateway (see docs/scale-out.md).
"""

from __future__ import annotations

import asyncio
import os
import socket
from dataclasses import dataclass, field

from boundless.core.round import events as ev
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import FollowerRound
from boundless.core.rules import RuleSet
from boundless.core.shoe_cycle import ShoeCycle
from boundless.core.strategy_chart import StrategyChart
from boundless.entropy import CryptoSource
from boundless.server.cluster.bus import Bus, BusError, check_table_name
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway import Gateway, SliceMaker
from boundless.server.cluster.ledger_slice import ClusterLedger, LedgerSlice
from boundless.server.cluster.slices import SliceSide
from boundless.server.config import TimerSettings

DEFAULT_TABLE = "boundless-1"
BOT_STAKE = 100
BOT_GRANT = 100_000
"""Coins each bot gets once, when its gateway first starts."""


class ClusterSetupError(ValueError):
    """A setting the cluster cannot start with; the message is one line for the operator."""


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    database_url: str
    nats_url: str
    table: str = DEFAULT_TABLE
    title: str = "boundless"
    namespace: str = "boundless"
    timers: TimerSettings = field(default_factory=TimerSettings)


def check_database(url: str) -> None:
    """Connect once, so a wrong or unreachable URL stops the process with one clear line."""
    from sqlalchemy import text
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    from boundless.ledger.database import make_engine

    try:
        engine = make_engine(url)
    except (ArgumentError, NoSuchModuleError, ValueError) as error:
        raise ClusterSetupError(f"bad database URL {url!r}: {error}") from None
    try:
        with engine.connect() as connection:
            connection.execute(text("select 1"))
    except SQLAlchemyError as error:
        cause = getattr(error, "orig", None) or error
        reason = (str(cause).strip().splitlines() or [type(cause).__name__])[0]
        raise ClusterSetupError(f"cannot reach the database at {url}: {reason}") from None
    finally:
        engine.dispose()


def load_rules(title: str) -> tuple[RuleSet, StrategyChart | None]:
    from boundless.core.errors import RulesError
    from boundless.titles import load_game

    try:
        return load_game(title)
    except (RulesError, OSError, KeyError) as error:
        raise ClusterSetupError(f"unknown or invalid title {title!r}: {error}") from None


async def connect_bus(settings: ClusterSettings) -> Bus:
    """The JetStream bus (the ``cluster`` extra); one clear line when it cannot be had."""
    try:
        check_table_name(settings.table)
        from boundless.server.cluster.jetstream_bus import JetStreamBus
    except ImportError:
        raise ClusterSetupError(
            "the cluster needs the 'cluster' extra: pip install -e '.[cluster]'"
        ) from None
    except BusError as error:
        raise ClusterSetupError(str(error)) from None
    try:
        return await JetStreamBus.connect(settings.nats_url, namespace=settings.namespace)
    except BusError as error:
        raise ClusterSetupError(str(error)) from None


def coordinator_timers(settings: TimerSettings, rules: RuleSet) -> CoordinatorTimers:
    title = rules.timers
    return CoordinatorTimers(
        betting_seconds=settings.seconds("betting", title.betting_seconds),
        insurance_seconds=settings.seconds("insurance", title.insurance_seconds),
        decision_seconds=settings.seconds("decision", title.decision_seconds),
        round_gap_seconds=settings.round_gap(),
    )


def holder_name(role: str, detail: str = "") -> str:
    return f"{role}-{socket.gethostname()}-{detail or os.getpid()}"


class ShoeDealer:
    """Makes each round's table dealer from the table's shoe cycle (shuffles when finished)."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.cycle = ShoeCycle(rules, CryptoSource())
        self._started = False

    def __call__(self, round_number: int) -> TableDealer:
        if self._started:
            self.cycle.end_round()
        start = self.cycle.start_round()
        self._started = True
        return TableDealer(
            self.rules,
            cards=self.cycle.shoe,  # type: ignore[arg-type]
            round_in_shoe=start.round_in_shoe,
            shoe_commitment=start.commitment,
        )


async def run_coordinator(settings: ClusterSettings, *, name: str | None = None) -> None:
    rules, _ = load_rules(settings.title)
    holder = name or holder_name("coordinator")
    ledger = open_ledger(settings.database_url, holder)
    bus = await connect_bus(settings)
    coordinator = Coordinator(
        bus,
        settings.table,
        holder,
        ShoeDealer(rules),
        coordinator_timers(settings.timers, rules),
        ledger=ledger,
    )
    try:
        await coordinator.run()
    finally:
        await bus.close()


def bot_slices(
    rules: RuleSet,
    chart: StrategyChart | None,
    gateway: str,
    bots: int,
    ledger: ClusterLedger,
    table: str,
) -> SliceMaker:
    players = [f"bot-{gateway}-{index + 1}" for index in range(bots)]
    if players:
        ledger.grant_once(players, BOT_GRANT)

    def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
        follower = FollowerRound(rules, opened, chart=chart)
        if players:
            balances = ledger.balances(players)
            seated = [player for player in players if balances[player] >= BOT_STAKE]
            if seated:
                follower.place_bets(
                    seated,
                    [1] * len(seated),
                    [BOT_STAKE] * len(seated),
                    None,
                    [balances[player] for player in seated],
                )
        made = LedgerSlice(follower, ledger, table)
        made.round_no = round_number
        return made

    return new_slice


def open_ledger(url: str, owner: str) -> ClusterLedger:
    """The ledger at ``url``, migrated to the latest schema."""
    from boundless.ledger.database import make_engine, make_session_factory, upgrade_database

    check_database(url)
    upgrade_database(url)
    return ClusterLedger(make_session_factory(make_engine(url)), owner)


async def run_gateway(
    settings: ClusterSettings, *, port: int, bots: int = 0, name: str | None = None
) -> None:
    import uvicorn

    from boundless.server.cluster.status_app import create_status_app

    rules, chart = load_rules(settings.title)
    gateway_name = name or f"gateway-{port}"
    ledger = open_ledger(settings.database_url, gateway_name)
    bus = await connect_bus(settings)
    # Owner-scoped recovery: this gateway's slices left open by its previous life, nothing else.
    ledger.recover()
    gateway = Gateway(
        bus,
        settings.table,
        gateway_name,
        bot_slices(rules, chart, gateway_name, bots, ledger, settings.table),
    )
    server = uvicorn.Server(
        uvicorn.Config(
            create_status_app(gateway, bus), host="127.0.0.1", port=port, log_level="warning"
        )
    )
    following = asyncio.ensure_future(gateway.run())

    def stop_serving(_: asyncio.Future[None]) -> None:
        # A gateway that can no longer follow its table must not look alive to a balancer.
        server.should_exit = True

    following.add_done_callback(stop_serving)
    try:
        await server.serve()
    finally:
        failed = following.done() and not following.cancelled() and following.exception()
        following.cancel()
        await bus.close()
    if failed:
        raise failed
