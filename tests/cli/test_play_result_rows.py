"""The terminal game: even money is the hand's own outcome, with no second row for it (an
insurance bet keeps its row); an error about an answer goes once the player answers again."""

from __future__ import annotations

import io

from rich.console import Console

from boundless.cli.play_results import ResultRows
from boundless.cli.play_screen import TableScreen
from boundless.cli.table_events import SeatResult
from boundless.core.cards import parse_cards
from boundless.core.round.results import HandResult, InsuranceResult, PositionResult
from boundless.titles import load_title


def _seat(kind: str) -> SeatResult:
    hand = HandResult(
        spot=1,
        cards=parse_cards(["AS", "KD"]),
        total=21,
        bet_amount=1000,
        status="stood",
        outcome="even_money" if kind == "even_money" else "lose",
        payout_amount=2000 if kind == "even_money" else 0,
        autoplayed=False,
        fallback=False,
        decisions=(),
    )
    stake = 0 if kind == "even_money" else 500
    insurance = InsuranceResult(kind, stake, "win" if stake else None, 1500 if stake else 0)
    position = PositionResult("p1", 1, 1000, (hand,), insurance, (), 1000 + stake, 2000)
    return SeatResult("p1", "Ana", (position,), 1000 + stake, 2000, 10_000, 11_000)


def test_even_money_has_no_row_of_its_own_and_insurance_keeps_one() -> None:
    rows = ResultRows(load_title("boundless"))
    even = list(rows.seat_rows(_seat("even_money")))
    assert len(even) == 1 and "even money" not in even[0][0]
    insured = list(rows.seat_rows(_seat("insurance")))
    assert len(insured) == 2 and insured[1][0] == "insurance"


def test_an_error_goes_once_the_player_answers_again() -> None:
    screen = TableScreen(Console(file=io.StringIO()), "Boo Bucks")
    screen.say("Round 1")
    screen.error("  ✗ '2' needs an amount")
    assert "  ✗ '2' needs an amount" in screen.log
    screen.answered()
    assert list(screen.log) == ["Round 1"]
