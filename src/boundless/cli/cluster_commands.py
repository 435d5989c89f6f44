"""``boundless coordinator``, ``boundless gateway`` and ``boundless cluster``: one table over
many processes on NATS JetStream and PostgreSQL (needs the ``cluster`` extra)."""

from __future__ import annotations

import asyncio
import contextlib
import logging
import os
import signal
import subprocess
import sys
import time
from collections.abc import Coroutine
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from boundless.cli.cli_errors import check_admin_token
from boundless.cli.timer_options import DEFAULT_TIMERS, timer_arguments, with_timer_options
from boundless.cli.wallet_options import (
    CurrencyOption,
    WalletOption,
    WalletPoolOption,
    WalletUrlOption,
    wallet_arguments,
    wallet_choice,
)
from boundless.server.config import ADMIN_TOKEN_ENV, TimerSettings

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
) -> ClusterSettings:
    from boundless.server.cluster.processes import ClusterSettings

    return ClusterSettings(database_url, nats_url, table, title, namespace, timers)


def _run(main: Coroutine[Any, Any, None]) -> None:
    """Run a process until interrupted; a setup problem is one line on stderr and exit 2."""
    from boundless.server.cluster.processes import ClusterSetupError

    logging.basicConfig(level=logging.INFO, format="%(levelname)s %(name)s: %(message)s")
    import uvloop

    try:
        uvloop.run(main)  # the loop ``boundless serve`` runs on too
    except ClusterSetupError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
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
    timers: TimerSettings = DEFAULT_TIMERS,
) -> None:
    """Run a table's coordinator (active while it holds the table's lease, else standby)."""
    from boundless.server.cluster.processes import run_coordinator

    settings = _settings(database_url, nats_url, table, title, namespace, timers)
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
) -> None:
    """Run a gateway: serves players the table (web client, REST, WebSocket) with its bots."""
    from boundless.server.cluster.processes import GatewaySettings, run_gateway
    from boundless.server.config import default_web_dir

    check_admin_token(admin_token)

    settings = _settings(database_url, nats_url, table, title, namespace, TimerSettings())
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
    )
    wallets, launches = wallet_choice(wallet, wallet_url, currency, wallet_connections)
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
    timers: TimerSettings = DEFAULT_TIMERS,
    wallet: WalletOption = "internal",
    wallet_url: WalletUrlOption = None,
    currency: CurrencyOption = "EUR",
) -> None:
    """Start one coordinator and N gateways on this machine (gateway i on port P+i-1)."""
    from boundless.server.cluster.processes import (
        ClusterSetupError,
        check_database,
        connect_bus,
        load_rules,
    )

    if port + gateways - 1 > 65535:
        typer.echo(f"error: ports {port}..{port + gateways - 1} run past 65535", err=True)
        raise typer.Exit(code=2)
    check_admin_token(admin_token)
    from boundless.wallet import close_wallets

    checked, _ = wallet_choice(wallet, wallet_url, currency)  # each gateway makes its own
    close_wallets(checked)
    settings = _settings(database_url, nats_url, table, title, namespace, timers)

    async def preflight() -> None:
        load_rules(title)
        check_database(database_url)
        bus = await connect_bus(settings)
        await bus.close()

    try:
        asyncio.run(preflight())
    except ClusterSetupError as error:
        typer.echo(f"error: {error}", err=True)
        raise typer.Exit(code=2) from None
    common = ["--database-url", database_url, "--nats-url", nats_url, "--table", table]
    common += ["--title", title, "--namespace", namespace]
    timer_args = []
    for option, value in timer_arguments(timers).items():
        if value is not None:  # None: the title's own timer
            timer_args += [option, str(value)]
    command = [sys.executable, "-m", "boundless.cli.main"]
    children: list[tuple[str, subprocess.Popen[bytes]]] = []
    # The coordinator serves no HTTP, so only the gateways need the token. It goes in their
    # environment, not their command line, where any user of the machine could read it.
    gateway_env = _with_admin_token(admin_token)
    child = subprocess.Popen([*command, "coordinator", *common, *timer_args])
    children.append(("coordinator", child))
    typer.echo(f"coordinator: pid {child.pid}")
    for index in range(1, gateways + 1):
        gateway_port = port + index - 1
        child = subprocess.Popen(
            [
                *command,
                "gateway",
                *common,
                *wallet_arguments(wallet, wallet_url, currency),
                "--port",
                str(gateway_port),
                "--bots",
                str(bots),
            ],
            env=gateway_env,
        )
        children.append((f"gateway {index}", child))
        typer.echo(f"gateway {index}: http://127.0.0.1:{gateway_port}/ pid {child.pid}")
    _watch(children)


def _with_admin_token(admin_token: str | None) -> dict[str, str] | None:
    """The gateways' environment: this one, with ``--admin-token`` as $BOUNDLESS_ADMIN_TOKEN
    when it was given (else they inherit $BOUNDLESS_ADMIN_TOKEN, or have no token at all)."""
    if not admin_token:
        return None
    return {**os.environ, ADMIN_TOKEN_ENV: admin_token}


def _watch(children: list[tuple[str, subprocess.Popen[bytes]]]) -> None:
    """Wait on the children; say when one exits (it is not restarted); stop them all on a
    signal or when none is left."""
    stopping = False

    def stop(_signum: int, _frame: object) -> None:
        nonlocal stopping
        stopping = True

    signal.signal(signal.SIGTERM, stop)
    signal.signal(signal.SIGINT, stop)
    alive = dict(children)
    while alive and not stopping:
        for label, child in list(alive.items()):
            code = child.poll()
            if code is not None:
                typer.echo(f"{label}: exited with code {code} (not restarted)", err=True)
                del alive[label]
        time.sleep(0.2)
    for child in alive.values():
        with contextlib.suppress(ProcessLookupError):
            child.terminate()
    for child in alive.values():
        try:
            child.wait(timeout=10)
        except subprocess.TimeoutExpired:
            child.kill()


def register(app: typer.Typer) -> None:
    app.command("coordinator")(coordinator)
    app.command("gateway")(gateway)
    app.command("cluster")(cluster)
