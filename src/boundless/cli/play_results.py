"""How ``boundless play`` writes cards and a round's results: markup for the terminal."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Sequence

from rich.markup import escape
from rich.table import Table

from boundless.cli.table_events import RoundReport, SeatResult
from boundless.cli.title_words import place_word, words_of
from boundless.cli.words import side_bet_name
from boundless.core.cards import Card
from boundless.core.hands import hand_total, is_natural
from boundless.core.money import format_amount
from boundless.core.round.results import PositionResult
from boundless.core.rules import RuleSet

Row = tuple[str, str, str, str, str]


def card_markup(card: Card) -> str:
    style = "red" if card.is_red else "bold"
    return f"[{style}]{card.pretty()}[/{style}]"


def cards_markup(cards: Iterable[Card]) -> str:
    return " ".join(card_markup(card) for card in cards)


def total_text(cards: Sequence[Card], from_split: bool = False) -> str:
    total, soft = hand_total(cards)
    if len(cards) == 2 and is_natural(cards) and not from_split:
        return "BJ"
    if total > 21:
        return f"{total} bust"
    return f"soft {total}" if soft and total < 21 else str(total)


def pattern_name(pattern: str) -> str:
    return pattern.replace("_", " ")


def results_table(report: RoundReport, rules: RuleSet, name: Callable[[str], str]) -> Table:
    """Every seat's hands, insurance and side bets with stakes, payouts and the new balance."""
    words = words_of(rules)
    rows = ResultRows(rules)
    table = Table(show_header=True, header_style="bold", box=None, pad_edge=False)
    for column in ("player", "", "cards", "result"):
        table.add_column(column)
    for column in (words.bet, "paid", words.coins):
        table.add_column(column, justify="right")
    for seat in report.seats:
        lines = list(rows.seat_rows(seat))
        for index, (what, cards, result, stake, paid) in enumerate(lines):
            last = index == len(lines) - 1
            table.add_row(
                name(seat.name) if index == 0 else "",
                what,
                cards,
                result,
                stake,
                paid,
                rows.balance_text(seat) if last else "",
            )
    return table


class ResultRows:
    """The rows of one seat in the results table, in the title's words."""

    def __init__(self, rules: RuleSet) -> None:
        self.rules = rules
        self.words = words_of(rules)

    def amount(self, amount: int) -> str:
        return format_amount(amount)

    def _where(self, position: PositionResult) -> str:
        """``"seat 2 "`` on a table of several spots, else nothing."""
        if self.rules.table.spots == 1:
            return ""
        return f"{place_word(self.rules)} {position.spot} "

    def balance_text(self, seat: SeatResult) -> str:
        net = seat.net_amount
        sign = "+" if net > 0 else ""
        colour = "green" if net > 0 else "red" if net < 0 else "dim"
        return f"{self.amount(seat.balance_after)} [{colour}]({sign}{self.amount(net)})[/{colour}]"

    def seat_rows(self, seat: SeatResult) -> Iterable[Row]:
        words = self.words
        for position in seat.positions:
            yield from self.hand_rows(position)
            insurance = position.insurance
            # Even money is the hand's own outcome (its row says so); only insurance gets a row.
            if insurance is not None and insurance.kind != "even_money":
                outcome = insurance.outcome or ""
                yield (
                    self._where(position) + insurance.kind.replace("_", " "),
                    "",
                    words.side_win if outcome in ("win", "paid") else words.side_lose,
                    self.amount(insurance.stake),
                    self.amount(insurance.payout_amount or 0),
                )
            for side in position.side_bets:
                won = side.outcome == "win"
                result = (
                    f"{words.side_win}: {pattern_name(side.pattern or '')}"
                    if won
                    else words.side_lose
                )
                if side.wheel_labels:
                    result += " (wheel: " + escape(" → ".join(side.wheel_labels)) + ")"
                yield (
                    self._where(position) + side_bet_name(self.rules, side.key),
                    "",
                    result,
                    self.amount(side.stake),
                    self.amount(side.payout_amount or 0),
                )

    def hand_rows(self, position: PositionResult) -> Iterable[Row]:
        words = self.words
        count = len(position.hands)
        for index, hand in enumerate(position.hands):
            what = f"hand {index + 1}/{count}" if count > 1 else "hand"
            what = self._where(position) + what
            total = total_text(hand.cards, count > 1)
            if hand.bet_amount > position.main_amount:
                total += ", doubled"
            if hand.autoplayed:
                total += ", autoplay"
            outcome = words.outcomes.get(hand.outcome or "", hand.outcome or "")
            yield (
                what,
                f"{cards_markup(hand.cards)} ({total})",
                outcome,
                self.amount(hand.bet_amount),
                self.amount(hand.payout_amount or 0),
            )
