"""How every command refuses bad input: one line on stderr, exit status 2, nothing changed."""

from __future__ import annotations

from typing import NoReturn

import typer

EXIT_BAD_INPUT = 2


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: <message>`` (whitespace folded to one line) and leave with ``code``."""
    typer.echo(f"error: {' '.join(message.split())}", err=True)
    raise typer.Exit(code)


def check_admin_token(admin_token: str | None) -> None:
    """Refuse an admin token (given, or from the environment) that no client could present:
    ``serve`` and a cluster's gateways alike."""
    import os

    from boundless.server.config import ADMIN_TOKEN_ENV, admin_token_problem

    if problem := admin_token_problem(admin_token or os.environ.get(ADMIN_TOKEN_ENV, "")):
        fail(f"--admin-token / ${ADMIN_TOKEN_ENV}: {problem}")
