"""``boundless play``: a bet in one line, ``?`` for help, insurance naming the spot, the redrawn
screen."""

from __future__ import annotations

import io

import pytest
from play_helpers import play_title, text_console
from rich.console import Console

from boundless.cli.play_input import parse_bet_line

BOUNDLESS_SIDES = ["pair", "bust_bonus", "lucky_trio", "poker_trio"]


class Answers:
    """Answers prompts from a list (then Enter, stand, no); records every prompt."""

    def __init__(self, console: Console, bets: list[str], *, quit_after: int = 60) -> None:
        self.console = console
        self.bets = list(bets)
        self.prompts: list[str] = []
        self.quit_after = quit_after

    def __call__(self, prompt: str) -> str:
        self.prompts.append(prompt)
        if len(self.prompts) > self.quit_after:
            return "q"
        if "=stand" in prompt:
            answer = "s"
        elif "[y/N]" in prompt:
            answer = "n"
        else:
            answer = self.bets.pop(0) if self.bets else ""
        self.console.print(prompt + answer, highlight=False)
        return answer


def test_parse_bet_line_reads_main_and_side_bets_together() -> None:
    assert parse_bet_line("10", BOUNDLESS_SIDES) == (1000, {})
    assert parse_bet_line("10 pair 1 bust=2.50", BOUNDLESS_SIDES) == (
        1000,
        {"pair": 100, "bust_bonus": 250},
    )
    assert parse_bet_line("0 poker 1", BOUNDLESS_SIDES) == (0, {"poker_trio": 100})
    for bad, words in [
        ("10 pair", "needs an amount"),
        ("10 p 1", "could be pair or poker_trio"),
        ("10 wheel 1", "not a side bet open now"),
        ("10 pair 1 pair 2", "named twice"),
        ("ten", "not an amount"),
    ]:
        with pytest.raises(ValueError, match=words):
            parse_bet_line(bad, BOUNDLESS_SIDES)


def test_one_line_bet_skips_the_side_bet_questions() -> None:
    console, out = text_console(120)
    keyboard = Answers(console, ["10 pair 1 poker 2"], quit_after=3)
    play_title("boundless", keyboard, console, seed=4, bots=0, rounds=1)
    text = out.getvalue()
    assert "you: main play 10.00 + Pair 1.00 + Poker Trio 2.00" in text
    side_questions = [p for p in keyboard.prompts if p.startswith(("Pair", "Bust", "Lucky"))]
    assert side_questions == []


def test_question_mark_shows_help_and_asks_again() -> None:
    console, out = text_console(120)
    keyboard = Answers(console, ["?", "0"], quit_after=3)
    play_title("boundless", keyboard, console, seed=4, bots=0, rounds=1)
    text = out.getvalue()
    assert "Help · Enter takes the value in [brackets]" in text
    assert "Side options (a name's start is enough): Pair (pair)" in text
    assert keyboard.prompts[0] == keyboard.prompts[1]  # the same question again


def test_insurance_question_names_the_spot_at_a_several_spot_table() -> None:
    for seed in range(60):
        console, _out = text_console(160)
        keyboard = Answers(console, ["1 3", "10", "10"] * 8, quit_after=40)
        play_title("unlimited", keyboard, console, seed=seed, bots=0, rounds=6)
        asked = [p for p in keyboard.prompts if "[y/N]" in p]
        if asked:
            break
    else:
        pytest.fail("no insurance or even money offered in 60 seeded games")
    for prompt in asked:
        assert "hand on spot 1," in prompt or "hand on spot 3," in prompt, prompt


def test_the_terminal_screen_redraws_the_table_before_each_question() -> None:
    out = io.StringIO()
    console = Console(file=out, width=100, force_terminal=True, color_system=None)
    keyboard = Answers(console, ["10", "", "", "", ""], quit_after=12)
    play_title("boundless", keyboard, console, seed=4, bots=2, rounds=2, redraw=True)
    text = out.getvalue()
    clears = text.count("\x1b[2J")
    assert clears >= len(keyboard.prompts)  # one redraw per question (and one at the end)
    last_screen = text.rsplit("\x1b[2J", 1)[1]
    assert "the table" in last_screen and "last round" in last_screen
    assert "Facilitator:" in last_screen


def test_off_a_terminal_the_game_prints_a_log() -> None:
    console, out = text_console(100)
    play_title("boundless", Answers(console, [], quit_after=2), console, seed=4, rounds=1)
    assert "\x1b[2J" not in out.getvalue()
