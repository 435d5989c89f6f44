"""``boundless ledger ...``: operator commands for the coin ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer
from sqlalchemy import inspect
from sqlalchemy.engine import make_url

from boundless.ledger.database import (
    current_revision,
    default_database_url,
    head_revision,
    make_engine,
    make_session_factory,
)
from boundless.ledger.reconciliation import check_books

ledger_app = typer.Typer(help="Coin ledger: reconciliation and inspection.", no_args_is_help=True)

DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="SQLAlchemy URL (sqlite:///path or postgresql+psycopg://...); "
        "default: $BOUNDLESS_DATABASE_URL or sqlite:///data/boundless.sqlite",
    ),
]


def _fail(message: str) -> None:
    typer.echo(message, err=True)
    raise typer.Exit(code=1)


@ledger_app.command("check")
def check(database_url: DatabaseUrl = None) -> None:
    """Prove the books balance: exit 0 with a summary, or exit 1 listing every problem."""
    url = database_url or default_database_url()
    parsed = make_url(url)
    database = parsed.database or ""
    is_file = parsed.get_backend_name() == "sqlite" and database not in ("", ":memory:")
    if is_file and not Path(database).exists():
        _fail(f"no ledger database at {database} (has the server run yet?)")
    engine = make_engine(url, read_only=True)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table("ledger_accounts"):
                _fail(f"{parsed.render_as_string()} has no ledger tables: run the migrations")
            revision, head = current_revision(connection), head_revision()
        with make_session_factory(engine)() as session:
            report = check_books(session)
            session.rollback()
    finally:
        engine.dispose()
    typer.echo(f"ledger at {parsed.render_as_string()} (schema {revision}, latest {head})")
    typer.echo(report.summary())
    if not report.ok:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    """Add ``boundless ledger ...`` to the main CLI."""
    app.add_typer(ledger_app, name="ledger")
