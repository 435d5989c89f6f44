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


def _register_commands() -> None:
    from boundless.cli import (
        admin_commands,
        cluster_commands,
        ledger_commands,
        math_commands,
        play_commands,
        replay_commands,
        serve_commands,
        simulate_commands,
    )

    for module in (
        serve_commands,
        play_commands,
        replay_commands,
        math_commands,
        simulate_commands,
        ledger_commands,
        admin_commands,
        cluster_commands,
    ):
        module.register(app)


_register_commands()


def main() -> None:
    app()


if __name__ == "__main__":
    main()
