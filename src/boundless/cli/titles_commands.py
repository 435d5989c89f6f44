"""``boundless titles``: the shipped titles at a glance, for someone choosing what to play."""

from __future__ import annotations

import json
from typing import Annotated

import typer

from boundless.core.rules import RuleSet


def plural(count: int, word: str) -> str:
    """``1 deck``, ``6 decks``."""
    return f"{count} {word}" if count == 1 else f"{count} {word}s"


def spots_text(rules: RuleSet) -> str:
    """How many places to play and who shares them, in the table's own words."""
    table = rules.table
    if not table.shared:
        return f"{table.spots} private {'seat' if table.spots == 1 else 'seats'}"
    return f"{table.spots} shared {'spot' if table.spots == 1 else 'spots'}"


def title_row(rules: RuleSet, exact: float) -> dict[str, object]:
    return {
        "key": rules.key,
        "name": rules.title.name,
        "decks": rules.shoe.decks,
        "spots": rules.table.spots,
        "shared": rules.table.shared,
        "documented_return": rules.title.documented_rtp,
        "exact_return": exact,
    }


def titles(
    as_json: Annotated[
        bool, typer.Option("--json", help="One JSON list on stdout instead of the table.")
    ] = False,
) -> None:
    """List the shipped titles with their decks, spots and return."""
    from rich import box
    from rich.console import Console
    from rich.markup import escape
    from rich.table import Table

    from boundless.cli.title_returns import exact_return, stored_returns
    from boundless.titles import load_title, shipped_title_keys

    stored = stored_returns()
    every = [load_title(key) for key in shipped_title_keys()]
    rows = [title_row(rules, exact_return(rules, stored)) for rules in every]
    if as_json:
        typer.echo(json.dumps(rows))
        return
    table = Table(box=box.SIMPLE_HEAD, pad_edge=False, show_lines=False)
    table.add_column("key and name", min_width=max(len(rules.key) for rules in every))
    table.add_column("decks", no_wrap=True)
    table.add_column("spots", no_wrap=True)
    table.add_column("documented", justify="right", no_wrap=True)
    table.add_column("exact", justify="right", no_wrap=True)
    for rules, row in zip(every, rows, strict=True):
        documented = rules.title.documented_rtp
        table.add_row(
            f"[bold]{rules.key}[/bold]\n{escape(rules.title.name)}",
            plural(rules.shoe.decks, "deck"),
            spots_text(rules),
            "-" if documented is None else f"{documented:.2%}",
            f"{row['exact_return']:.4%}",
        )
    console = Console()
    console.print(table)
    console.print(
        "Returns of the main game: documented by the title, and exact under optimal play "
        "(boundless rtp KEY shows more). Play one with: boundless play --title KEY",
        highlight=False,
    )


def register(app: typer.Typer) -> None:
    app.command("titles")(titles)
