"""``boundless serve``: the live table server (web client, REST, WebSocket, bots).

Everything that can be wrong with the command line is checked before the server starts: the
data folder, the database (opened once, see :mod:`boundless.cli.database_probe`), the web
folder, and the address (the socket is bound here, then handed to uvicorn). The URL is printed
only once the app has started on that socket.
"""

from __future__ import annotations

import os
import socket
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from boundless.cli.cli_errors import check_admin_token, fail
from boundless.cli.jurisdiction_options import JurisdictionFile, JurisdictionKey, chosen_profile
from boundless.cli.timer_options import DEFAULT_TIMERS, timer_problem, with_timer_options
from boundless.cli.wallet_options import (
    CurrencyOption,
    WalletOption,
    WalletPoolOption,
    WalletUrlOption,
    wallet_choice,
)
from boundless.server.config import TimerSettings
from boundless.server.garbage_collection import tune_garbage_collector

if TYPE_CHECKING:
    from boundless.server.config import ServerConfig
    from boundless.server.titles import TitleCatalog

Seconds = Annotated[float | None, typer.Option(min=0.0)]
LOG_LEVELS = ("critical", "error", "warning", "info", "debug", "trace")
MAX_PORT = 65535
MAX_BOTS = 50
ForwardedAllowIps = Annotated[
    str | None,
    typer.Option(
        help="Reverse proxies (IP addresses or networks, comma-separated; '*' for any) "
        "whose X-Forwarded-For names the client. Default: none, the peer's address counts."
    ),
]
"""``--forwarded-allow-ips``: one option for ``serve`` and a cluster's gateways alike."""


def check_forwarded_allow_ips(allow_ips: str | None) -> None:
    """Refuse a ``--forwarded-allow-ips`` that is not addresses or networks (one line, exit 2)."""
    from boundless.server.config import forwarded_ips_problem

    if allow_ips is not None and (problem := forwarded_ips_problem(allow_ips)):
        fail(f"--forwarded-allow-ips: {problem}")


def bind_socket(host: str, port: int) -> socket.socket:
    """A listening-ready TCP socket on ``host:port``; a one-line error if it cannot be had."""
    try:
        infos = socket.getaddrinfo(host, port, type=socket.SOCK_STREAM, flags=socket.AI_PASSIVE)
    except socket.gaierror as error:
        fail(f"--host {host!r}: not an address this machine can listen on ({error.strerror})")
    family, kind, proto, _, address = infos[0]
    sock = socket.socket(family, kind, proto)
    sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    try:
        sock.bind(address)
    except OSError as error:
        sock.close()
        reason = error.strerror or str(error)
        if error.errno == 98:  # EADDRINUSE
            reason = "another program is already listening there"
        fail(f"cannot listen on {host}:{port}: {reason}")
    sock.set_inheritable(True)
    return sock


def _check_folder(option: str, folder: Path, *, create: bool) -> None:
    try:
        if create:
            folder.mkdir(parents=True, exist_ok=True)
        found = folder.is_dir()
    except OSError as error:
        doing = "cannot create it" if create else "cannot read it"
        fail(f"{option} {folder}: {doing} ({error.strerror or error})")
    if not found:
        fail(f"{option} {folder}: not a folder")


@with_timer_options
def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(min=1, max=MAX_PORT, help="TCP port (1-65535).")] = 8000,
    data_dir: Annotated[
        Path, typer.Option(help="Folder for the SQLite database (created if missing).")
    ] = Path("data"),
    database_url: Annotated[
        str | None,
        typer.Option(
            help="SQLAlchemy URL (postgresql+psycopg://...); default: $BOUNDLESS_DATABASE_URL, "
            "else a SQLite file in the data dir."
        ),
    ] = None,
    bots: Annotated[
        int, typer.Option(min=0, max=MAX_BOTS, help=f"Bot players per shared table (0-{MAX_BOTS}).")
    ] = 0,
    admin_token: Annotated[
        str | None,
        typer.Option(help="Operator token; default $BOUNDLESS_ADMIN_TOKEN, else generated."),
    ] = None,
    starting_grant: Annotated[
        int, typer.Option(min=0, help="Coins (minor units) for each new player.")
    ] = 100_000,
    timers: TimerSettings = DEFAULT_TIMERS,
    web_dir: Annotated[Path | None, typer.Option(help="Static web client folder.")] = None,
    titles_dir: Annotated[
        Path | None,
        typer.Option(
            help="Folder of rule files (<key>.toml) that add titles or replace shipped ones."
        ),
    ] = None,
    signup_rate: Annotated[
        str,
        typer.Option(help="Sign-ups allowed from one address, e.g. '10/minute;100/day'."),
    ] = "10/minute;100/day",
    log_level: Annotated[
        str, typer.Option(help=f"uvicorn log level: {', '.join(LOG_LEVELS)}.")
    ] = "info",
    forwarded_allow_ips: ForwardedAllowIps = None,
    wallet: WalletOption = "internal",
    wallet_url: WalletUrlOption = None,
    currency: CurrencyOption = "EUR",
    wallet_connections: WalletPoolOption = 128,
    jurisdiction: JurisdictionKey = "none",
    jurisdiction_file: JurisdictionFile = None,
) -> None:
    """Serve the live tables and the web client; prints the URL to open."""
    from boundless.server.config import ServerConfig, default_web_dir

    if (timer_error := timer_problem(timers)) is not None:
        fail(timer_error)
    level = log_level.lower()
    if level not in LOG_LEVELS:
        fail(f"--log-level {log_level!r}: choose one of {', '.join(LOG_LEVELS)}")
    from boundless.core.amount_limits import amount_problem

    if (problem := amount_problem(starting_grant)) is not None:
        fail(f"--starting-grant: {problem}")
    from boundless.server.players.signup_limit import SignUpLimit

    try:
        SignUpLimit(signup_rate)
    except ValueError as error:
        fail(f"--signup-rate: {error}")
    check_admin_token(admin_token)
    profile = chosen_profile(jurisdiction, jurisdiction_file)
    if wallet == "seamless" and bots:
        fail("--bots: bots play on coins we grant; use them with --wallet internal")
    wallets, launches = wallet_choice(wallet, wallet_url, currency, wallet_connections)
    check_forwarded_allow_ips(forwarded_allow_ips)
    from boundless.cli.rule_files import titles_catalog

    catalog = titles_catalog(titles_dir)  # checked before anything is printed or created
    web = web_dir or default_web_dir()
    _check_folder("--web-dir", web, create=False)
    _check_folder("--data-dir", data_dir, create=True)
    config = ServerConfig(
        host=host,
        port=port,
        data_dir=data_dir,
        database_url=database_url or os.environ.get("BOUNDLESS_DATABASE_URL") or None,
        bots=bots,
        starting_grant=starting_grant,
        timers=timers,
        web_dir=web,
        signup_rate=signup_rate,
        jurisdiction=profile,
        forwarded_allow_ips=forwarded_allow_ips or None,
    )
    if admin_token:
        config = replace(config, admin_token=admin_token)
    config = config.with_admin_token()

    from boundless.cli.database_probe import DatabaseProblem, probe_database

    try:
        probe_database(config.resolved_database_url(), must_exist=False)
    except DatabaseProblem as problem:
        fail(str(problem))
    sock = bind_socket(host, port)
    show_token = not admin_token and not os.environ.get("BOUNDLESS_ADMIN_TOKEN")
    _run(config, catalog, sock, level, show_token=show_token, wallets=wallets, launches=launches)


def _run(
    config: ServerConfig,
    catalog: TitleCatalog | None,
    sock: socket.socket,
    level: str,
    *,
    show_token: bool,
    wallets: Any,
    launches: Any,
) -> None:
    import logging

    import uvicorn

    from boundless.server.app import create_app
    from boundless.server.config import forwarded_options, transport_options
    from boundless.server.serving import TablesFirstServer

    # uvicorn's numbers: "trace" is its own level (5), unknown to logging by name
    logging.basicConfig(
        level=uvicorn.config.LOG_LEVELS[level], format="%(levelname)s %(name)s: %(message)s"
    )
    bound_port = sock.getsockname()[1]
    shown_host = "127.0.0.1" if config.host in ("0.0.0.0", "::") else config.host

    class AnnouncingServer(TablesFirstServer):
        """Prints the URL once the app has started and the socket is serving."""

        async def startup(self, sockets: list[socket.socket] | None = None) -> None:
            await super().startup(sockets)
            if self.started:
                typer.echo(f"Boundless is serving at http://{shown_host}:{bound_port}/")
                typer.echo(f"database: {config.resolved_database_url()}")
                if show_token:
                    typer.echo(f"admin token (this run): {config.admin_token}")

    front = create_app(config, catalog, wallets=wallets, operator=launches)
    tune_garbage_collector()
    server = AnnouncingServer(
        uvicorn.Config(
            front,
            log_level=level,
            loop="uvloop",
            http="httptools",
            **transport_options(),
            **forwarded_options(config.forwarded_allow_ips),
        ),
        front,
    )
    try:
        server.run(sockets=[sock])
    except SystemExit:
        # uvicorn exits this way when the app's start-up (migrations, recovery) failed; its log
        # above says why.
        fail("the server could not start: see the log above")
    finally:
        sock.close()


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
