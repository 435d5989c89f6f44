"""The cluster's processes: ``boundless coordinator`` and ``boundless gateway`` run these.

The coordinator holds the table's lease (or stands by), shuffles and deals from its own shoes
(stored as ``boundless serve`` stores them: commitment at the shuffle, reveal at the end), runs
the rounds on the bus and opens and ends them in the ledger. Each gateway follows the table,
serves what ``boundless serve`` serves a player (REST, ``/ws``, the web client) for it, seats its
bots, writes its slices of each round to the ledger and reports (see docs/scale-out.md).
"""

from __future__ import annotations

import asyncio
import logging
import re
import signal
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Any, cast

from boundless.core.random_source import RandomSource
from boundless.core.round import events as ev
from boundless.core.round.dealer_table import TableDealer
from boundless.core.round.follower import FollowerRound
from boundless.core.rules import RuleSet
from boundless.core.shoe_cycle import ShoeCycle
from boundless.core.strategy_chart import StrategyChart
from boundless.entropy import CryptoSource
from boundless.jurisdictions import JurisdictionProfile, load_profile
from boundless.server.cluster.bot_slice import BotSlice, BotWallets
from boundless.server.cluster.bus import BusError, check_table_name
from boundless.server.cluster.control import TableControl
from boundless.server.cluster.coordinator import Coordinator, CoordinatorTimers
from boundless.server.cluster.gateway import Gateway, SliceMaker
from boundless.server.cluster.ledger_slice import ClusterLedger
from boundless.server.cluster.protocol import slice_owners
from boundless.server.cluster.slice_records import SliceRecords
from boundless.server.cluster.slices import PairSlice, SliceSide
from boundless.server.cluster.startup import ClusterSetupError, holder_name
from boundless.server.config import DEFAULT_STARTING_GRANT, TimerSettings, default_web_dir
from boundless.wallet import INTERNAL, WalletProvider, close_wallets, start_wallets

if TYPE_CHECKING:
    from boundless.server.players.operator_sessions import OperatorLaunches

if TYPE_CHECKING:
    import uvicorn
    from sqlalchemy.orm import Session, sessionmaker

    from boundless.server.cluster.jetstream_bus import JetStreamBus

log = logging.getLogger("boundless.cluster.processes")

DEFAULT_TABLE = "boundless-1"
BOT_GRANT = 100_000
"""Coins each bot gets once, when its gateway first starts."""


@dataclass(frozen=True, slots=True)
class GatewaySettings:
    """What a gateway serves its players beyond the table (the rest are ``serve``'s defaults)."""

    host: str = "127.0.0.1"
    starting_grant: int = DEFAULT_STARTING_GRANT
    web_dir: Path = field(default_factory=default_web_dir)
    signup_rate: str = "10/minute;100/day"
    jurisdiction: JurisdictionProfile = field(default_factory=lambda: load_profile("none"))
    """The player-protection profile (the same on every gateway)."""
    admin_token: str = ""
    """The operator's token (``serve``'s; the same on every gateway); empty: $BOUNDLESS_ADMIN_TOKEN,
    else the admin routes refuse every request."""
    forwarded_allow_ips: str | None = None
    """Proxies whose ``X-Forwarded-For`` is believed, as for ``serve``; None: nobody's."""


@dataclass(frozen=True, slots=True)
class ClusterSettings:
    database_url: str
    nats_url: str
    table: str = DEFAULT_TABLE
    title: str = "boundless"
    namespace: str = "boundless"
    timers: TimerSettings = field(default_factory=TimerSettings)
    replicas: int | None = None
    """Copies of each stream and of the lease bucket; ``None``: 3 on a NATS cluster of at least
    3 servers, else 1."""


DATABASE_SCHEMES = ("postgresql", "sqlite")
NAMESPACE_PATTERN = re.compile(r"[A-Za-z0-9_-]{1,32}")


def check_cluster_database(url: str, *, whole_cluster: bool = True) -> None:
    """PostgreSQL for a cluster (several processes write the ledger at once); SQLite only for a
    single process tried on its own. One line for anything else."""
    scheme = url.split(":", 1)[0].split("+", 1)[0].lower()
    if scheme not in DATABASE_SCHEMES:
        raise ClusterSetupError(
            f"bad database URL {url!r}: the cluster needs PostgreSQL (postgresql+psycopg://...)"
        )
    if whole_cluster and scheme == "sqlite":
        raise ClusterSetupError(
            "a whole cluster needs PostgreSQL: several processes write the ledger at once "
            "(sqlite: is for one process only)"
        )


def check_namespace(namespace: str) -> str:
    if not NAMESPACE_PATTERN.fullmatch(namespace):
        raise ClusterSetupError(f"namespace {namespace!r}: use 1 to 32 letters, digits, '_' or '-'")
    return namespace


def check_database(url: str) -> None:
    """Connect once, so a wrong or unreachable URL stops the process with one clear line."""
    from sqlalchemy import text
    from sqlalchemy.exc import ArgumentError, NoSuchModuleError, SQLAlchemyError

    from boundless.ledger.database import make_engine

    check_cluster_database(url, whole_cluster=False)
    try:
        engine = make_engine(url)
    except (ArgumentError, NoSuchModuleError, ValueError, ImportError) as error:
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


async def connect_bus(settings: ClusterSettings) -> JetStreamBus:
    """The JetStream bus (the ``cluster`` extra); one clear line when it cannot be had."""
    check_namespace(settings.namespace)
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
        bus = await JetStreamBus.connect(
            settings.nats_url, namespace=settings.namespace, replicas=settings.replicas
        )
    except BusError as error:
        raise ClusterSetupError(str(error)) from None
    for note in bus.notes:
        log.warning("%s", note)
    return bus


def coordinator_timers(settings: TimerSettings, rules: RuleSet) -> CoordinatorTimers:
    title = rules.timers
    return CoordinatorTimers(
        betting_seconds=settings.seconds("betting", title.betting_seconds),
        insurance_seconds=settings.seconds("insurance", title.insurance_seconds),
        decision_seconds=settings.seconds("decision", title.decision_seconds),
        round_gap_seconds=settings.round_gap(),
    )


class ShoeDealer:
    """Makes each round's table dealer from the table's shoe cycle (shuffles when finished)."""

    def __init__(self, rules: RuleSet, source: RandomSource | None = None) -> None:
        """``source``: the shuffles' randomness (the machine's cryptographic source; a seeded
        one only where a run must deal the same cards again, as a benchmark does)."""
        self.rules = rules
        self.cycle = ShoeCycle(rules, source or CryptoSource())
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


class StoredShoes:
    """The coordinator's shoes, kept as ``boundless serve`` keeps a table's: every shuffle stored
    (commitment public at once) and every finished shoe published, so the gateways' players can
    check them (``/api/v1/shoes/...``, the play record); numbered on from the database."""

    def __init__(self, table: str, rules: RuleSet, sessions: sessionmaker[Session]) -> None:
        from boundless.server.tables.shoes import TableShoes

        self.table, self.rules, self.sessions = table, rules, sessions
        self._notices: list[tuple[str, dict[str, Any]]] = []
        self._shoes = TableShoes(table, rules, CryptoSource(), sessions, self._note)
        self._started = False

    def _note(self, kind: str, detail: dict[str, Any]) -> None:
        self._notices.append((kind, detail))

    def lead(self) -> None:
        from boundless.server.tables.repository import TableRepository
        from boundless.server.tables.shoes import TableShoes

        with self.sessions.begin() as session:
            repository = TableRepository(session)
            repository.finish_shoes(self.table)  # a predecessor's shoe is never dealt on again
            last = repository.last_shoe_number(self.table)
        self._shoes = TableShoes(self.table, self.rules, CryptoSource(), self.sessions, self._note)
        self._shoes.load(last)
        self._started = False

    @property
    def shoe_number(self) -> int:
        return self._shoes.number

    def take_notices(self) -> list[tuple[str, dict[str, Any]]]:
        notices, self._notices = self._notices, []
        return notices

    def round_mark(self) -> dict[str, object]:
        """The shoe and the cards dealt from it before the round (recorded on its opening)."""
        shoe = self._shoes.cycle.shoe
        assert shoe is not None, "asked before the round's dealer was made"
        return {"shoe_number": self.shoe_number, "shoe_dealt": shoe.position}

    def resume(self, mark: Mapping[str, object]) -> TableDealer:
        """A dealer of the marked round (``mark``: its opening's body) from the stored shoe,
        its cards where they stood at the opening."""
        from boundless.core.shoe import Shoe
        from boundless.server.cluster.takeover import CannotContinue
        from boundless.server.tables.repository import TableRepository
        from boundless.server.tables.shoes import stored_reveal

        number, dealt = mark.get("shoe_number"), mark.get("shoe_dealt")
        if not isinstance(number, int) or not isinstance(dealt, int):
            raise CannotContinue("its shoe's position was not recorded")
        with self.sessions.begin() as session:
            row = TableRepository(session).shoe(self.table, number)
            if row is None:
                raise CannotContinue(f"shoe {number} is not stored")
            if row.finished:
                raise CannotContinue(f"shoe {number} was already revealed")
            reveal = stored_reveal(row)
        shoe = Shoe(reveal.cards, None, reveal.salt_hex)
        if shoe.commitment != reveal.commitment or not 0 <= dealt <= len(shoe):
            raise CannotContinue(f"shoe {number} does not match its commitment or position")
        shoe.position = dealt
        try:
            return TableDealer(
                self.rules,
                cards=shoe,
                round_in_shoe=int(cast(int, mark["round_in_shoe"])),
                offered_side_bets=[str(key) for key in cast(list[str], mark["offered_side_bets"])],
                shoe_commitment=cast(str | None, mark.get("shoe_commitment")),
            )
        except (KeyError, TypeError, ValueError) as error:  # RulesError is a ValueError
            raise CannotContinue(f"its opening cannot be dealt again: {error}") from None

    def __call__(self, round_number: int) -> TableDealer:
        if self._started:
            self._shoes.end_round(exhausted=False)
        start = self._shoes.start_round()
        self._started = True
        return TableDealer(
            self.rules,
            cards=self._shoes.cycle.shoe,  # type: ignore[arg-type]
            round_in_shoe=start.round_in_shoe,
            shoe_commitment=start.commitment,
        )


async def run_coordinator(settings: ClusterSettings, *, name: str | None = None) -> None:
    from boundless.server.cluster.gateway_health import database_answers

    rules, _ = load_rules(settings.title)
    holder = name or holder_name("coordinator")
    ledger = open_ledger(settings.database_url, holder)
    bus = await connect_bus(settings)
    shoes = StoredShoes(settings.table, rules, ledger.sessions)
    records = SliceRecords(ledger.sessions)
    coordinator = Coordinator(
        bus,
        settings.table,
        holder,
        shoes,
        coordinator_timers(settings.timers, rules),
        ledger=ledger,
        records=records,
        shoes=shoes,
        control=TableControl(settings.table, lambda n: records.has_bets(settings.table, n)),
        resume=shoes,
        ledger_answers=lambda: database_answers(ledger.sessions),
    )
    loop = asyncio.get_running_loop()
    for stop_signal in (signal.SIGTERM, signal.SIGINT):  # an orderly stop ends the round
        loop.add_signal_handler(stop_signal, coordinator.stop)
    try:
        await coordinator.run()
    finally:
        await bus.close()


async def bot_slices(
    rules: RuleSet,
    chart: StrategyChart | None,
    gateway: str,
    bots: int,
    ledger: ClusterLedger,
    table: str,
) -> SliceMaker:
    """The bots' part of each round (``bot_slice``): their wallets opened and granted, and
    their first read started, in worker threads."""
    players = [f"bot-{gateway}-{index + 1}" for index in range(bots)]
    if players:
        await asyncio.to_thread(ledger.grant_once, players, BOT_GRANT)
    wallets = BotWallets(ledger, players)
    wallets.read_ahead()

    def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
        made = BotSlice(FollowerRound(rules, opened, chart=chart), ledger, table, wallets)
        made.round_no = round_number
        return made

    return new_slice


def open_ledger(url: str, owner: str) -> ClusterLedger:
    """The ledger at ``url``, migrated to the latest schema (the server's tables too: the
    players, the play record and the shoes live beside the ledger)."""
    from boundless.ledger.database import make_engine, make_session_factory, upgrade_database
    from boundless.server.storage.database import upgrade_server_database

    check_database(url)
    engine = make_engine(url)
    upgrade_database(engine)
    upgrade_server_database(engine)
    return ClusterLedger(make_session_factory(engine), owner)


def check_gateway_name(name: str) -> str:
    """A gateway's name names its ledger slices (``<name>`` and ``<name>:players``)."""
    from boundless.ledger.accounts import check_owner
    from boundless.ledger.errors import LedgerError

    try:
        for owner in slice_owners(name):
            check_owner(owner)
    except LedgerError:
        raise ClusterSetupError(
            f"gateway name {name!r}: use up to 40 letters, digits, '.', '_', '@' or '-'"
        ) from None
    return name


def gateway_server_config(app: Any, serving: GatewaySettings, port: int) -> uvicorn.Config:
    """uvicorn's settings for a gateway: ``serve``'s transport, and ``X-Forwarded-For`` believed
    only from the proxies the operator named (else a client could pick the address the sign-up
    limit counts)."""
    import uvicorn

    from boundless.server.config import forwarded_options, transport_options

    return uvicorn.Config(
        app,
        host=serving.host,
        port=port,
        log_level="warning",
        **transport_options(),
        **forwarded_options(serving.forwarded_allow_ips),
    )


async def run_gateway(
    settings: ClusterSettings,
    *,
    port: int,
    bots: int = 0,
    name: str | None = None,
    serving: GatewaySettings = GatewaySettings(),
    wallets: WalletProvider = INTERNAL,
    operator: OperatorLaunches | None = None,
) -> None:
    """``wallets``: the wallet port the gateway's players' coins move through; ``operator``:
    the secret shared with an operator that launches its players here."""
    import uvicorn

    from boundless.ledger.database import make_engine, make_session_factory
    from boundless.server.cluster.gateway_app import create_gateway_app
    from boundless.server.cluster.gateway_health import database_answers
    from boundless.server.cluster.gateway_name import (
        NameLostError,
        bind_port,
        hold_gateway_name,
        quiet_after_serving,
    )
    from boundless.server.cluster.gateway_table import SHUTDOWN_REASON, GatewayTable
    from boundless.server.config import ServerConfig
    from boundless.server.gateway.hub import Hub
    from boundless.server.protection.limited_wallet import LimitedWallets

    rules, chart = load_rules(settings.title)
    gateway_name = check_gateway_name(name or f"gateway-{port}")
    check_database(settings.database_url)
    bus = await connect_bus(settings)
    # Its name and its port first: a second process with a held name, or on a taken port,
    # stops here having touched nothing (no recovery, which would cancel a live round).
    held = await hold_gateway_name(bus, settings.table, gateway_name)
    keeping = asyncio.ensure_future(held.keep())  # renewed from here on, start-up included
    listening = None
    try:
        listening = bind_port(serving.host, port)
        # The blocking start-up work (migrations, recovery, the bots' wallets) runs in threads
        # while the name is renewed: a name lapsed here could be taken by a second process.
        ledger = await asyncio.to_thread(open_ledger, settings.database_url, gateway_name)
        # Owner-scoped recovery: this gateway's slices left open by its previous life only.
        await asyncio.to_thread(ledger.recover)
        owner = slice_owners(gateway_name)[1]
        recovered = await asyncio.to_thread(SliceRecords(ledger.sessions).recover, owner)
        seat_bots = await bot_slices(rules, chart, gateway_name, bots, ledger, settings.table)
    except BaseException:
        keeping.cancel()
        if listening is not None:
            listening.close()
        await held.give_back()
        await bus.close()
        raise
    if recovered:
        log.warning("recovered: cancelled and refunded %s", ", ".join(recovered))
    sessions = ledger.sessions
    read_engine = make_engine(settings.database_url, read_only=True)
    table = GatewayTable(
        table_id=settings.table,
        gateway=gateway_name,
        rules=rules,
        chart=chart,
        hub=Hub(),
        sessions=sessions,
        wallets=LimitedWallets(wallets),  # the limits, then the wallet (as on serve)
    )

    def new_slice(round_number: int, opened: ev.RoundOpened) -> SliceSide:
        players = table.new_slice(round_number, opened)
        return PairSlice([players, seat_bots(round_number, opened)] if bots else [players])

    gateway = Gateway(
        bus,
        settings.table,
        gateway_name,
        new_slice,
        watcher=table,
        ledger_answers=lambda: database_answers(sessions),
    )
    table.gateway = gateway
    config = ServerConfig(
        host=serving.host,
        port=port,
        database_url=settings.database_url,
        starting_grant=serving.starting_grant,
        web_dir=serving.web_dir,
        signup_rate=serving.signup_rate,
        forwarded_allow_ips=serving.forwarded_allow_ips,
        jurisdiction=serving.jurisdiction,
    )
    if serving.admin_token:
        config = replace(config, admin_token=serving.admin_token)
    app = create_gateway_app(
        gateway, bus, table, config, sessions, make_session_factory(read_engine), operator
    )
    start_wallets(wallets, sessions, slice_owners(gateway_name))
    server = uvicorn.Server(gateway_server_config(app, serving, port))
    following = asyncio.ensure_future(gateway.run())

    def stop_serving(_: asyncio.Future[None]) -> None:
        # A gateway that can no longer follow its table, or whose name went to another process,
        # must not look alive to a balancer.
        server.should_exit = True

    following.add_done_callback(stop_serving)
    keeping.add_done_callback(stop_serving)
    quiet_after_serving()
    try:
        await server.serve(sockets=[listening])
    finally:
        failed = following.done() and not following.cancelled() and following.exception()
        lost = keeping.done() and not keeping.cancelled()
        following.cancel()
        keeping.cancel()
        try:
            await gateway.stop(SHUTDOWN_REASON)  # refund its slice of the round now
        finally:
            close_wallets(wallets)
            await held.give_back()
            await bus.close()
            read_engine.dispose()
            listening.close()
    if failed:
        raise failed
    if lost:
        raise NameLostError(
            f"gateway name {gateway_name!r} was taken by another process; this one stopped"
        )
