"""How every command refuses bad input: one line on stderr, exit status 2, nothing changed."""

from __future__ import annotations

from typing import NoReturn

import typer

EXIT_BAD_INPUT = 2


def fail(message: str, code: int = EXIT_BAD_INPUT) -> NoReturn:
    """Print ``error: <message>`` (whitespace folded to one line) and leave with ``code``."""
    typer.echo(f"error: {' '.join(message.split())}", err=True)
    raise typer.Exit(code)
