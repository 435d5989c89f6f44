"""Shared set-up for the terminal-play tests: a text console and a scripted game of a title."""

from __future__ import annotations

import io
import random
from collections.abc import Callable

import typer
from rich.console import Console

from boundless.cli import play_commands
from boundless.cli.table_driver import TableDriver
from boundless.cli.table_seats import BetOffer, InsuranceOffer, SeatView, SpotBet
from boundless.core.random_source import SeededSource
from boundless.core.round import Action
from boundless.core.rules import RuleSet
from boundless.titles import load_game

START = 100_000


class RandomPlayer:
    """A seeded random player: side bets on a spot each with chance ``side_chance``, random
    insurance, any legal action or, with chance ``silent``, none (left to the autoplay)."""

    def __init__(self, seed: int, side_chance: float, silent: float) -> None:
        self.random = random.Random(seed)
        self.rejections: list[str] = []
        self.side_chance = side_chance
        self.silent = silent

    def spot_bet(self, offer: BetOffer, spot: int, main: int) -> SpotBet:
        """``main`` on ``spot`` with random side bets; the table's minimum if both are none."""
        sides = {
            option.key: option.min_amount * self.random.randint(1, 3)
            for option in offer.side_options
            if self.random.random() < self.side_chance
        }
        if not main and not sides:
            main = offer.min_main_amount
        return SpotBet(spot, main, sides)

    def insurance(self, offer: InsuranceOffer) -> bool:
        return self.random.random() < 0.5

    def decide(self, view: SeatView) -> Action | None:
        if self.random.random() < self.silent:
            return None
        return self.random.choice(sorted(view.legal))

    def rejected(self, message: str) -> None:
        self.rejections.append(message)


def assert_said(text: str, *lines: str) -> None:
    """Each of ``lines`` appears in the console's ``text`` (the ones missing are named)."""
    missing = [line for line in lines if line not in text]
    assert not missing, missing


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
    rules: RuleSet | None = None,
    redraw: bool = False,
) -> TableDriver:
    """Run ``boundless play`` on ``title`` with a seeded shoe and scripted keyboard input.

    ``rules`` replaces the title's shipped rule set (a test variant of it).
    """
    shipped, chart = load_game(title)
    return play_commands.run_game(
        rules or shipped,
        chart,
        SeededSource(seed),
        balance=START,
        bots=bots,
        rounds=rounds,
        console=console,
        input_fn=input_fn,
        redraw=redraw,
    )


def play_app() -> typer.Typer:
    """The ``play`` command registered on an app of its own."""
    app = typer.Typer()
    play_commands.register(app)

    @app.command("noop")
    def noop() -> None:  # a second command keeps `play` a named subcommand
        return None

    return app


class Keys:
    """Answers prompts by kind from scripted queues, else with defaults (Enter, stand, no)."""

    def __init__(
        self,
        console: Console,
        end_after: int | None = None,
        end_with: str = "q",
        **queues: list[str],
    ) -> None:
        """``end_after`` prompts, answer ``end_with``: a key, or "ctrl-d" / "ctrl-c"."""
        self.console = console
        self.end_after = end_after
        self.end_with = end_with
        self.queues = {
            kind: list(queues.get(kind, []))
            for kind in ("offer", "spots", "bet", "decide", "insurance")
        }
        self.prompts: list[str] = []

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if self.end_after is not None and len(self.prompts) > self.end_after:
            if self.end_with == "ctrl-d":
                raise EOFError
            if self.end_with == "ctrl-c":
                raise KeyboardInterrupt
            answer = self.end_with
        elif "side bets to offer" in prompt:
            answer = self._next("offer", "")
        elif prompt.startswith(("Spots to play", "Seats to play")):
            answer = self._next("spots", "")
        elif any(f"={word}" in prompt for word in ("hit", "stand", "split", "surrender")):
            answer = self._next("decide", self._default_action(prompt))
        elif "[y/N]" in prompt:
            answer = self._next("insurance", "n")
        else:
            answer = self._next("bet", "")
        self.console.print(prompt + answer, highlight=False)
        return answer

    @staticmethod
    def _default_action(prompt: str) -> str:
        """Stand, or decline the split where only Split and Surrender 20% are offered."""
        return "s" if "=stand" in prompt else "u"

    def _next(self, kind: str, default: str) -> str:
        queue = self.queues[kind]
        return queue.pop(0) if queue else default
