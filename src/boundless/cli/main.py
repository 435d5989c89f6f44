"""Entry point: ``boundless <command>``. Each command module registers its own commands."""

from __future__ import annotations

import typer

app = typer.Typer(
    name="boundless",
    help="Boundless blackjack platform: play, replay, verify and analyse the titles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


def main() -> None:
    app()


if __name__ == "__main__":
    main()
