"""Entry point: ``boundless <command>``.

Each command lives in its own module with a ``register(app)`` function. The modules are imported
only when their command runs (or its own ``--help`` is asked for): some of them load numpy,
numba, SQLAlchemy, FastAPI or matplotlib, and ``boundless --help`` should not wait for those.
The listing in ``boundless --help`` comes from :data:`COMMANDS`; a test checks that each line
there is the first line of the command's own help.
"""

from __future__ import annotations

import importlib
import sys
from dataclasses import dataclass
from typing import Any

import typer
import typer.rich_utils
from typer.core import TyperCommand, TyperGroup, TyperOption


@dataclass(frozen=True, slots=True)
class LazyCommand:
    module: str
    summary: str


COMMANDS: dict[str, LazyCommand] = {
    "titles": LazyCommand(
        "boundless.cli.titles_commands",
        "List the shipped titles with their decks, spots and return.",
    ),
    "play": LazyCommand(
        "boundless.cli.play_commands",
        "Play a title's table in the terminal: a shared table with bots, or a private one.",
    ),
    "serve": LazyCommand(
        "boundless.cli.serve_commands",
        "Serve the live tables and the web client; prints the URL to open.",
    ),
    "replay": LazyCommand(
        "boundless.cli.replay_commands",
        "Play one round from a stacked shoe and print the result as JSON; check a scenario pack.",
    ),
    "verify-shoe": LazyCommand(
        "boundless.cli.replay_commands",
        "Check a revealed shoe (salt and card order) against its published commitment.",
    ),
    "strategy": LazyCommand(
        "boundless.cli.math_commands",
        "The title's basic-strategy chart: hard and soft totals and pairs by dealer up card.",
    ),
    "rtp": LazyCommand(
        "boundless.cli.math_commands",
        "Exact return of the title's main game (optimal and basic strategy) and its side bets.",
    ),
    "warm-up": LazyCommand(
        "boundless.cli.math_commands",
        "Compile the exact-math kernels once, so the next rtp, strategy or report starts warm.",
    ),
    "report": LazyCommand(
        "boundless.cli.report.command",
        "Write a certification report of a title: rules, exact returns, chart, simulation, RNG.",
    ),
    "simulate": LazyCommand(
        "boundless.cli.simulate_commands",
        "Monte-Carlo play of a title: its shoe, cut card, burn, side-bet rounds and policy.",
    ),
    "rng-test": LazyCommand(
        "boundless.cli.rng_commands",
        "Run the statistical battery labs use on the production shuffle; exit 1 if a test fails.",
    ),
    "coordinator": LazyCommand(
        "boundless.cli.cluster_commands",
        "Run a table's coordinator (active while it holds the table's lease, else standby).",
    ),
    "gateway": LazyCommand(
        "boundless.cli.cluster_commands",
        "Run a gateway: serves players the table (web client, REST, WebSocket) with its bots.",
    ),
    "cluster": LazyCommand(
        "boundless.cli.cluster_commands",
        "Start and supervise a coordinator, its standbys and N gateways on this machine.",
    ),
    "ledger": LazyCommand(
        "boundless.cli.ledger_commands", "Coin ledger: reconciliation and inspection."
    ),
    "wallet": LazyCommand(
        "boundless.cli.wallet_commands",
        "The operator's wallet: a reference wallet, the day's reconciliation.",
    ),
    "admin": LazyCommand(
        "boundless.cli.admin_commands", "Operate a running server: pause, resume, cancel."
    ),
}


def _no_options() -> None:
    """Stands in for the real app's callback while a command module registers."""


def load_command(name: str) -> Any:
    """Import the module of command ``name`` and build its (click) command."""
    holder = typer.Typer()
    holder.callback()(_no_options)
    importlib.import_module(COMMANDS[name].module).register(holder)
    group: Any = typer.main.get_command(holder)
    return group.commands[name]


def _flag_type(option: TyperOption, ctx: Any) -> str | None:
    """A flag takes no value: show no type beside it (typer's help writes ``<bool>``)."""
    return None if option.is_flag else _option_type(option, ctx)


_option_type = TyperOption.display_type_rich
TyperOption.display_type_rich = _flag_type  # type: ignore[method-assign,assignment]


def _one_line_error(self: Any) -> None:  # a ClickException (typer bundles its own click)
    """A command line that typer refuses (an unknown option, a number out of range) gets the
    one ``error:`` line every other refusal gets (``cli_errors.fail``), not a drawn box."""
    where = getattr(self, "ctx", None)
    hint = f" (see {where.command_path if where is not None else 'boundless'} --help)"
    typer.echo(f"error: {' '.join(self.format_message().split())}{hint}", err=True)


typer.rich_utils.rich_format_error = _one_line_error


class LazyCommands(TyperGroup):
    """A command group that imports a command's module only when that command is used."""

    listing = False  # True while the top-level help is drawn: stand-ins are enough

    def list_commands(self, ctx: Any) -> list[str]:
        return [*super().list_commands(ctx), *COMMANDS]

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        command = super().get_command(ctx, cmd_name)
        if command is not None or cmd_name not in COMMANDS:
            return command
        if self.listing:
            summary = COMMANDS[cmd_name].summary
            return TyperCommand(cmd_name, help=summary, short_help=summary)
        return load_command(cmd_name)

    def format_help(self, ctx: Any, formatter: Any) -> None:
        self.listing = True
        try:
            super().format_help(ctx, formatter)
        finally:
            self.listing = False


app = typer.Typer(
    name="boundless",
    cls=LazyCommands,
    help="Boundless blackjack platform: play, replay, verify and analyse the titles.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
)


@app.callback()
def _boundless() -> None:
    """Boundless blackjack platform: play, replay, verify and analyse the titles."""


def main() -> None:
    """The ``boundless`` command: the app, then (when this command ran the shipped generic
    kernels) this machine's own compile started in the background for the next command."""
    try:
        app()
    finally:
        if "boundless.math.kernel_pack" in sys.modules:  # only commands that used kernels
            from boundless.math.kernel_pack import compile_in_background

            compile_in_background()


if __name__ == "__main__":
    main()
