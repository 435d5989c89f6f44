"""Shared set-up for the terminal-play tests: a text console and a scripted game of a title."""

from __future__ import annotations

import io
from collections.abc import Callable

from rich.console import Console

from boundless.cli import play_commands
from boundless.cli.table_driver import TableDriver
from boundless.core.random_source import SeededSource
from boundless.titles import load_game

START = 100_000


def text_console(width: int) -> tuple[Console, io.StringIO]:
    """A plain-text console writing to a buffer (no colour, no terminal)."""
    out = io.StringIO()
    return Console(file=out, width=width, color_system=None, force_terminal=False), out


def play_title(
    title: str,
    input_fn: Callable[[str], str],
    console: Console,
    *,
    seed: int,
    rounds: int | None = None,
    bots: int = 4,
) -> TableDriver:
    """Run ``boundless play`` on ``title`` with a seeded shoe and scripted keyboard input."""
    rules, chart = load_game(title)
    return play_commands.run_game(
        rules,
        chart,
        SeededSource(seed),
        balance=START,
        bots=bots,
        rounds=rounds,
        console=console,
        input_fn=input_fn,
    )
