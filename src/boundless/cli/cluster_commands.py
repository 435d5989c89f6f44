"""``boundless coordinator``, ``boundless gateway`` and ``boundless cluster``: one table over
many processes on NATS JetStream and PostgreSQL (needs the ``cluster`` extra)."""

from __future__ import annotations

import asyncio
import logging
import os
import sys
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from boundless.cli.cli_errors import check_admin_token, fail
from boundless.cli.jurisdiction_options import (
    JurisdictionFile,
    JurisdictionKey,
    chosen_profile,
    profile_arguments,
)
from boundless.cli.serve_commands import ForwardedAllowIps, check_forwarded_allow_ips
from boundless.cli.timer_options import (
    DEFAULT_TIMERS,
    timer_arguments,
    timer_problem,
    with_timer_options,
)
from boundless.cli.wallet_options import (
    CurrencyOption,
    WalletOption,
    WalletPoolOption,
    WalletUrlOption,
    wallet_arguments,
    wallet_choice,
)
from boundless.server.config import ADMIN_TOKEN_ENV, TimerSettings
from boundless.server.garbage_collection import tune_garbage_collector

if TYPE_CHECKING:
    from boundless.server.cluster.processes import ClusterSettings

DatabaseUrl = Annotated[
    str, typer.Option("--database-url", help="Ledger database (postgresql+psycopg://...).")
]
NatsUrl = Annotated[
    str, typer.Option("--nats-url", help="NATS server(s): nats://host:port[,nats://...].")
]
TableOption = Annotated[str, typer.Option(help="Table name (letters, digits, '-', '_').")]
TitleOption = Annotated[str, typer.Option(help="Title the table plays.")]
NamespaceOption = Annotated[
    str, typer.Option(help="Prefix of the streams and lease bucket (one per deployment).")
]
Replicas = Annotated[
    int | None,
    typer.Option(
        min=1,
        max=5,
        help="Copies of each stream and of the lease bucket; default 3 when the NATS servers "
        "form a cluster of at least 3, else 1. An existing stream is never downgraded.",
    ),
]
AdminToken = Annotated[
    str | None,
    typer.Option(
        help="Operator token (the same on every gateway); default "
        "$BOUNDLESS_ADMIN_TOKEN, else the admin routes refuse every request."
    ),
]


def _settings(
    database_url: str,
    nats_url: str,
    table: str,
    title: str,
    namespace: str,
    timers: TimerSettings,
    replicas: int | None = None,
) -> ClusterSettings:
    from boundless.server.cluster.processes import ClusterSettings

    return ClusterSettings(database_url, nats_url, table, title, namespace, timers, replicas)


def _run(main: Coroutine[Any, Any, None]) -> None:
    """Run a process until interrupted; a setup problem is one line on stderr and exit 2, a
    gateway whose name another process took one line and exit 1."""
    from boundless.server.cluster.gateway_name import NameLostError
    from boundless.server.cluster.startup import ClusterSetupError

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    import uvloop

    try:
        uvloop.run(main)  # the loop ``boundless serve`` runs on too
    except ClusterSetupError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
    except NameLostError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=1) from None
    except KeyboardInterrupt:
        pass


@with_timer_options
def coordinator(
    database_url: DatabaseUrl,
    nats_url: NatsUrl,
    table: TableOption = "boundless-1",
    title: TitleOption = "boundless",
    namespace: NamespaceOption = "boundless",
    name: Annotated[str | None, typer.Option(help="Lease holder name.")] = None,
    replicas: Replicas = None,
    timers: TimerSettings = DEFAULT_TIMERS,
) -> None:
    """Run a table's coordinator (active while it holds the table's lease, else standby)."""
    from boundless.server.cluster.processes import run_coordinator

    if (timer_error := timer_problem(timers)) is not None:
        fail(timer_error)
    settings = _settings(database_url, nats_url, table, title, namespace, timers, replicas)
    _run(run_coordinator(settings, name=name))


def gateway(
    database_url: DatabaseUrl,
    nats_url: NatsUrl,
    port: Annotated[int, typer.Option(min=1, max=65535, help="HTTP port.")],
    table: TableOption = "boundless-1",
    title: TitleOption = "boundless",
    namespace: NamespaceOption = "boundless",
    bots: Annotated[int, typer.Option(min=0, help="Bot positions on this gateway.")] = 0,
    name: Annotated[str | None, typer.Option(help="Gateway name (default gateway-PORT).")] = None,
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    starting_grant: Annotated[
        int, typer.Option(min=0, help="Coins (minor units) for each player signing up here.")
    ] = 100_000,
    web_dir: Annotated[Path | None, typer.Option(help="Static web client folder.")] = None,
    admin_token: AdminToken = None,
    signup_rate: Annotated[
        str, typer.Option(help="Sign-ups per client address across the cluster, as for serve.")
    ] = "10/minute;100/day",
    wallet: WalletOption = "internal",
    wallet_url: WalletUrlOption = None,
    currency: CurrencyOption = "EUR",
    wallet_connections: WalletPoolOption = 128,
    replicas: Replicas = None,
    forwarded_allow_ips: ForwardedAllowIps = None,
    jurisdiction: JurisdictionKey = "none",
    jurisdiction_file: JurisdictionFile = None,
) -> None:
    """Run a gateway: serves players the table (web client, REST, WebSocket) with its bots."""
    from boundless.server.cluster.processes import GatewaySettings, run_gateway
    from boundless.server.config import default_web_dir

    check_admin_token(admin_token)
    check_forwarded_allow_ips(forwarded_allow_ips)
    profile = chosen_profile(jurisdiction, jurisdiction_file)

    settings = _settings(database_url, nats_url, table, title, namespace, TimerSettings(), replicas)
    web = web_dir or default_web_dir()
    if not web.is_dir():
        typer.echo(f"error: --web-dir {web}: not a folder", err=True)
        raise typer.Exit(code=2)
    from boundless.server.players.signup_limit import SignUpLimit

    try:
        SignUpLimit(signup_rate)
    except ValueError as error:
        typer.echo(f"error: --signup-rate: {error}", err=True)
        raise typer.Exit(code=2) from None
    serving = GatewaySettings(
        host=host,
        starting_grant=starting_grant,
        web_dir=web,
        signup_rate=signup_rate,
        admin_token=admin_token or "",
        forwarded_allow_ips=forwarded_allow_ips or None,
        jurisdiction=profile,
    )
    wallets, launches = wallet_choice(wallet, wallet_url, currency, wallet_connections)
    tune_garbage_collector()
    _run(
        run_gateway(
            settings,
            port=port,
            bots=bots,
            name=name,
            serving=serving,
            wallets=wallets,
            operator=launches,
        )
    )


@with_timer_options
def cluster(
    gateways: Annotated[int, typer.Option(min=1, max=64, help="Gateway processes to start.")],
    database_url: DatabaseUrl,
    nats_url: NatsUrl,
    port: Annotated[int, typer.Option(min=1, max=65535, help="Port of gateway 1.")] = 8000,
    bots: Annotated[int, typer.Option(min=0, help="Bot positions on each gateway.")] = 0,
    table: TableOption = "boundless-1",
    title: TitleOption = "boundless",
    namespace: NamespaceOption = "boundless",
    admin_token: AdminToken = None,
    replicas: Replicas = None,
    standbys: Annotated[
        int, typer.Option(min=0, max=8, help="Standby coordinators (take over the round).")
    ] = 1,
    restart: Annotated[
        bool, typer.Option(help="Restart a child that dies (with back-off); --no-restart: not.")
    ] = True,
    forwarded_allow_ips: ForwardedAllowIps = None,
    timers: TimerSettings = DEFAULT_TIMERS,
    wallet: WalletOption = "internal",
    wallet_url: WalletUrlOption = None,
    currency: CurrencyOption = "EUR",
    jurisdiction: JurisdictionKey = "none",
    jurisdiction_file: JurisdictionFile = None,
) -> None:
    """Start and supervise a coordinator, its standbys and N gateways on this machine.

    Gateway i listens on port P+i-1; a child that dies is restarted (unless --no-restart)."""
    from boundless.server.cluster.processes import (
        check_cluster_database,
        check_database,
        connect_bus,
        load_rules,
    )
    from boundless.server.cluster.startup import ClusterSetupError
    from boundless.server.cluster.supervisor import Child, port_in_use, supervise

    if port + gateways - 1 > 65535:
        typer.echo(f"error: ports {port}..{port + gateways - 1} run past 65535", err=True)
        raise typer.Exit(code=2)
    if (timer_error := timer_problem(timers)) is not None:
        fail(timer_error)
    check_admin_token(admin_token)
    check_forwarded_allow_ips(forwarded_allow_ips)
    chosen_profile(jurisdiction, jurisdiction_file)  # a bad profile fails before any child starts
    from boundless.wallet import close_wallets

    checked, _ = wallet_choice(wallet, wallet_url, currency)  # each gateway makes its own
    close_wallets(checked)
    settings = _settings(database_url, nats_url, table, title, namespace, timers, replicas)
    used: list[int] = []
    notes: list[str] = []

    async def preflight() -> None:
        check_cluster_database(database_url)
        busy = [p for p in range(port, port + gateways) if port_in_use("127.0.0.1", p)]
        if busy:
            raise ClusterSetupError(f"port {busy[0]} is already in use; choose another --port")
        load_rules(title)
        check_database(database_url)
        bus = await connect_bus(settings)
        used.append(bus.replicas)
        notes.extend(bus.notes)
        await bus.close()

    try:
        asyncio.run(preflight())
    except ClusterSetupError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
    for note in notes:
        typer.echo(f"note: {note}", err=True)
    how = "as asked" if replicas is not None else "default for this NATS"
    typer.echo(f"replicas: {used[0]} ({how})")
    common = ["--database-url", database_url, "--nats-url", nats_url, "--table", table]
    common += ["--title", title, "--namespace", namespace, "--replicas", str(used[0])]
    timer_args = []
    for option, value in timer_arguments(timers).items():
        if value is not None:  # None: the title's own timer
            timer_args += [option, str(value)]
    command = [sys.executable, "-m", "boundless.cli.main"]
    # The coordinator serves no HTTP, so only the gateways need the token. It goes in their
    # environment, not their command line, where any user of the machine could read it.
    gateway_env = _with_admin_token(admin_token)
    children = [Child("coordinator", [*command, "coordinator", *common, *timer_args], None)]
    for index in range(1, standbys + 1):
        children.append(
            Child(f"standby {index}", [*command, "coordinator", *common, *timer_args], None)
        )
    for index in range(1, gateways + 1):
        gateway_port = port + index - 1
        argv = [*command, "gateway", *common, *wallet_arguments(wallet, wallet_url, currency)]
        argv += profile_arguments(jurisdiction, jurisdiction_file)
        argv += ["--port", str(gateway_port), "--bots", str(bots)]
        if forwarded_allow_ips:
            argv += ["--forwarded-allow-ips", forwarded_allow_ips]
        child = Child(f"gateway {index}", argv, gateway_env)
        child.url = f"http://127.0.0.1:{gateway_port}/"
        children.append(child)
    supervise(children, restart=restart, say=typer.echo)


def _with_admin_token(admin_token: str | None) -> dict[str, str] | None:
    """The gateways' environment: this one, with ``--admin-token`` as $BOUNDLESS_ADMIN_TOKEN
    when it was given (else they inherit $BOUNDLESS_ADMIN_TOKEN, or have no token at all)."""
    if not admin_token:
        return None
    return {**os.environ, ADMIN_TOKEN_ENV: admin_token}


def register(app: typer.Typer) -> None:
    app.command("coordinator")(coordinator)
    app.command("gateway")(gateway)
    app.command("cluster")(cluster)
