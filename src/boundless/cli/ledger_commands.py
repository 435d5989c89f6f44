"""``boundless ledger ...``: operator commands for the coin ledger."""

from __future__ import annotations

from typing import Annotated

import typer

from boundless.cli.cli_errors import fail

ledger_app = typer.Typer(help="Coin ledger: reconciliation and inspection.", no_args_is_help=True)

DatabaseUrl = Annotated[
    str | None,
    typer.Option(
        "--database-url",
        help="SQLAlchemy URL (sqlite:///path or postgresql+psycopg://...); "
        "default: $BOUNDLESS_DATABASE_URL or sqlite:///data/boundless.sqlite",
    ),
]


@ledger_app.command("check")
def check(database_url: DatabaseUrl = None) -> None:
    """Prove the books balance: exit 0 with a summary, 1 listing every problem, 2 if unreadable."""
    # Imported here so that ``boundless --help`` does not load SQLAlchemy.
    from sqlalchemy import inspect
    from sqlalchemy.exc import DBAPIError

    from boundless.cli.database_probe import DatabaseProblem, probe_database
    from boundless.ledger.database import (
        current_revision,
        default_database_url,
        head_revision,
        make_engine,
        make_session_factory,
    )
    from boundless.ledger.reconciliation import check_books

    url = database_url or default_database_url()
    try:
        parsed = probe_database(url, must_exist=True)
    except DatabaseProblem as problem:
        fail(str(problem))
    shown = parsed.render_as_string(hide_password=True)
    engine = make_engine(url, read_only=True)
    try:
        with engine.connect() as connection:
            if not inspect(connection).has_table("ledger_accounts"):
                fail(f"{shown} has no ledger tables: run the migrations (boundless serve does)")
            revision, head = current_revision(connection), head_revision()
        with make_session_factory(engine)() as session:
            report = check_books(session)
            session.rollback()
    except DBAPIError as error:
        fail(f"cannot read the ledger at {shown}: {error.orig}")
    finally:
        engine.dispose()
    typer.echo(f"ledger at {shown} (schema {revision}, latest {head})")
    typer.echo(report.summary())
    if not report.ok:
        raise typer.Exit(code=1)


def register(app: typer.Typer) -> None:
    """Add ``boundless ledger ...`` to the main CLI."""
    app.add_typer(ledger_app, name="ledger")
