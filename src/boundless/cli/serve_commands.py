"""``boundless serve``: the live table server (web client, REST, WebSocket, bots)."""

from __future__ import annotations

import logging
import os
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from boundless.ledger.database import DATABASE_URL_ENV
from boundless.server.config import ServerConfig, TimerSettings, default_web_dir, transport_options

Seconds = Annotated[float | None, typer.Option(min=0.0)]


def serve(
    host: Annotated[str, typer.Option(help="Address to listen on.")] = "127.0.0.1",
    port: Annotated[int, typer.Option(help="TCP port.")] = 8000,
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
    bots: Annotated[int, typer.Option(min=0, help="Bot players per shared table.")] = 0,
    admin_token: Annotated[
        str | None,
        typer.Option(help="Operator token; default $BOUNDLESS_ADMIN_TOKEN, else generated."),
    ] = None,
    starting_grant: Annotated[
        int, typer.Option(min=0, help="Coins (minor units) for each new player.")
    ] = 100_000,
    timer_scale: Annotated[
        float, typer.Option(min=0.0, help="Multiply every timer (0.1 = ten times faster).")
    ] = 1.0,
    betting_seconds: Seconds = None,
    insurance_seconds: Seconds = None,
    decision_seconds: Seconds = None,
    round_gap_seconds: Annotated[float, typer.Option(min=0.0)] = 3.0,
    web_dir: Annotated[Path | None, typer.Option(help="Static web client folder.")] = None,
    titles_dir: Annotated[
        Path | None,
        typer.Option(
            help="Folder of rule files (<key>.toml) that add titles or replace shipped ones."
        ),
    ] = None,
    log_level: Annotated[str, typer.Option(help="uvicorn log level.")] = "info",
) -> None:
    """Serve the live tables and the web client; prints the URL to open."""
    import uvicorn

    from boundless.cli.rule_files import titles_catalog
    from boundless.server.app import create_app

    catalog = titles_catalog(titles_dir)  # checked before anything is printed
    config = ServerConfig(
        host=host,
        port=port,
        data_dir=data_dir,
        database_url=database_url or os.environ.get(DATABASE_URL_ENV) or None,
        bots=bots,
        starting_grant=starting_grant,
        timers=TimerSettings(
            scale=timer_scale,
            betting_seconds=betting_seconds,
            insurance_seconds=insurance_seconds,
            decision_seconds=decision_seconds,
            round_gap_seconds=round_gap_seconds,
        ),
        web_dir=web_dir or default_web_dir(),
    )
    if admin_token:
        config = replace(config, admin_token=admin_token)
    config = config.with_admin_token()
    logging.basicConfig(level=log_level.upper(), format="%(levelname)s %(name)s: %(message)s")
    shown_host = "127.0.0.1" if host in ("0.0.0.0", "::") else host
    typer.echo(f"Boundless is serving at http://{shown_host}:{port}/")
    typer.echo(f"database: {config.resolved_database_url()}")
    if not admin_token and not os.environ.get("BOUNDLESS_ADMIN_TOKEN"):
        typer.echo(f"admin token (this run): {config.admin_token}")
    uvicorn.run(
        create_app(config, catalog),
        host=host,
        port=port,
        log_level=log_level,
        loop="uvloop",
        http="httptools",
        **transport_options(),
    )


def register(app: typer.Typer) -> None:
    app.command("serve")(serve)
