"""The redrawn screen of ``boundless play`` in a terminal: the table in place, not a growing log.

:class:`TableScreen` keeps what the table shows now (the round's header, the cards, the bets,
the player's own hands, the last round's results) and the latest lines of what happened, and
redraws all of it before every question. Off a terminal (a pipe, a test) the game prints a plain
log instead; :class:`~boundless.cli.play_console.TerminalTable` chooses.
"""

from __future__ import annotations

from collections import deque

from rich.console import Console, Group, RenderableType
from rich.panel import Panel
from rich.rule import Rule
from rich.text import Text

LOG_LINES = 10
SECTIONS = ("dealer", "cards", "bets", "hands")


class TableScreen:
    def __init__(self, console: Console, title: str) -> None:
        self.console = console
        self.title = title
        self.header = ""
        self.sections: dict[str, list[str]] = {}
        self.results: RenderableType | None = None
        self.log: deque[str] = deque(maxlen=LOG_LINES)
        self.errors: list[str] = []
        """Error lines on show: they answer the last input and go with the next one."""

    def new_round(self, header: str) -> None:
        self.header = header
        self.sections.clear()

    def note(self, section: str, lines: list[str]) -> None:
        """Replace one part of the table (``dealer``, ``cards``, ``bets``, ``hands``)."""
        self.sections[section] = lines

    def say(self, text: str) -> None:
        self.log.extend(text.splitlines() or [""])

    def error(self, text: str) -> None:
        """An error about the last input, shown until the player answers again."""
        self.say(text)
        self.errors.append(text)

    def answered(self) -> None:
        """The player answered: the errors about the earlier answer are stale now."""
        for text in self.errors:
            if text in self.log:
                self.log.remove(text)
        self.errors.clear()

    def render(self) -> RenderableType:
        table = [line for name in SECTIONS for line in self.sections.get(name, [])]
        parts: list[RenderableType] = [Rule(f"[bold]{self.title}[/bold]")]
        if self.header:
            parts.append(Text.from_markup(f"[dim]{self.header}[/dim]", justify="center"))
        parts.append(
            Panel(
                Text.from_markup("\n".join(table) or "[dim]waiting for bets[/dim]"),
                title="the table",
                title_align="left",
            )
        )
        if self.results is not None:
            parts.append(Panel(self.results, title="last round", title_align="left"))
        parts.append(Text.from_markup("\n".join(self.log)))
        return Group(*parts)

    def redraw(self) -> None:
        self.console.clear()
        self.console.print(self.render(), highlight=False)
