"""Simple bot players for the terminal table (and later load tests).

A bot sees only what a player sees of its own seat: its bet offer, its hand (cards, total),
the dealer's up card and its legal actions. Each policy decides differently, so the table
shows different players taking different step cards.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

from boundless.cli.table_seats import (
    BetOffer,
    Decider,
    InsuranceOffer,
    Seat,
    SeatView,
    SideBetChoice,
    SpotBet,
)
from boundless.core.round import Action

BOT_NAMES = ("Ana", "Ben", "Cleo", "Dan", "Eve", "Finn", "Gus", "Hana", "Ivo", "Jun")
BASE_BET_IN_MINIMUMS = 10
"""Bots bet this many table minimums on the main bet (within the limits and their balance)."""


def _affordable(amount: int, offer: BetOffer, low: int, high: int, budget: int) -> int:
    """``amount`` clamped to ``low..high`` and the budget, rounded down to the table unit."""
    amount = min(amount, high, budget)
    amount -= amount % offer.unit_amount
    return amount if amount >= low else 0


class Bot:
    """Shared bet sizing and spot choice; subclasses choose their actions."""

    label = "bot"
    main_multiple = 1
    spots_wanted = 1

    def __init__(self, seat_index: int = 0) -> None:
        self.rejections: list[str] = []
        self.seat_index = seat_index  # spreads the bots over a table's spots

    def spots(self, offer: BetOffer) -> list[int]:
        """The spots this bot plays: its own first spot, then the next ones, up to the limit."""
        count = min(self.spots_wanted, offer.max_spots, len(offer.spots))
        start = self.seat_index % len(offer.spots)
        return [offer.spots[(start + step) % len(offer.spots)] for step in range(count)]

    def main_amount(self, offer: BetOffer) -> int:
        wanted = offer.min_main_amount * BASE_BET_IN_MINIMUMS * self.main_multiple
        return _affordable(
            wanted, offer, offer.min_main_amount, offer.max_main_amount, offer.balance
        )

    def side_amounts(self, offer: BetOffer, budget: int) -> dict[str, int]:
        return {}

    def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
        chosen = self.spots(offer)
        for spots in (chosen, chosen[:1]):
            share = offer.balance // len(spots)
            main = _affordable(
                self.main_amount(offer), offer, offer.min_main_amount, offer.max_main_amount, share
            )
            sides = self.side_amounts(offer, share - main)
            for candidate in (
                [SpotBet(spot, main, sides) for spot in spots],
                [SpotBet(spot, main, {}) for spot in spots],
            ):
                if candidate[0].total_amount > 0 and offer.check(candidate) is None:
                    return candidate
        return []

    def insurance(self, offer: InsuranceOffer) -> bool:
        return False

    def choose_side_bets(self, choice: SideBetChoice) -> Sequence[str]:
        return choice.current  # a bot hosting a table keeps the offer in force

    def decide(self, view: SeatView) -> Action | None:
        return None

    def rejected(self, message: str) -> None:
        self.rejections.append(message)


def _legal_or_autoplay(choice: Action, view: SeatView) -> Action | None:
    """The choice when legal; otherwise leave the hand to the title's autoplay."""
    return choice if choice in view.legal else None


class HitTo17Bot(Bot):
    """Hits below 17 and stands from 17 on: never doubles, splits or insures."""

    label = "hits to 17"

    def decide(self, view: SeatView) -> Action | None:
        return _legal_or_autoplay(Action.HIT if view.total < 17 else Action.STAND, view)


class AutoplayBot(Bot):
    """Never answers: every hand is played by the title's own autoplay rule."""

    label = "autoplay rule"


class DoublerBot(Bot):
    """Aggressive: splits every pair, doubles on 9-11 and soft 13-18, insures, bets double."""

    label = "doubles & splits"
    main_multiple = 2
    spots_wanted = 2

    def insurance(self, offer: InsuranceOffer) -> bool:
        return True

    def decide(self, view: SeatView) -> Action | None:
        if Action.SPLIT in view.legal:
            return Action.SPLIT
        good_double = 9 <= view.total <= 11 or (view.soft and 13 <= view.total <= 18)
        if Action.DOUBLE in view.legal and len(view.cards) == 2 and good_double:
            return Action.DOUBLE
        return _legal_or_autoplay(Action.HIT if view.total < 15 else Action.STAND, view)


class CautiousBot(Bot):
    """Stands on 12 or more, surrenders 15-16 against 9 or 10 when allowed."""

    label = "cautious"

    def decide(self, view: SeatView) -> Action | None:
        if (
            Action.SURRENDER in view.legal
            and view.total in (15, 16)
            and view.up_card.value in (9, 10)
        ):
            return Action.SURRENDER
        return _legal_or_autoplay(Action.HIT if view.total < 12 else Action.STAND, view)


class SideBetsOnlyBot(Bot):
    """No main bet: the minimum on every side option still open in this shoe."""

    label = "side options only"

    def main_amount(self, offer: BetOffer) -> int:
        return 0

    def side_amounts(self, offer: BetOffer, budget: int) -> dict[str, int]:
        sides: dict[str, int] = {}
        for option in offer.side_options:
            amount = _affordable(
                option.min_amount * 2, offer, option.min_amount, option.max_amount, budget
            )
            if amount:
                sides[option.key] = amount
                budget -= amount
        return sides


POLICIES: tuple[type[Bot], ...] = (
    HitTo17Bot,
    AutoplayBot,
    DoublerBot,
    SideBetsOnlyBot,
    CautiousBot,
)


@dataclass(frozen=True, slots=True)
class BotSpec:
    name: str
    policy: type[Bot]


def bot_lineup(count: int, side_bets: bool = True) -> list[BotSpec]:
    """``count`` bots cycling through the policies, each with its own name.

    Without side bets at the table the side-bets-only policy would never play: it is left out.
    """
    policies = [p for p in POLICIES if side_bets or p is not SideBetsOnlyBot]
    specs = []
    for index in range(count):
        base = BOT_NAMES[index % len(BOT_NAMES)]
        name = base if index < len(BOT_NAMES) else f"{base} {index // len(BOT_NAMES) + 1}"
        specs.append(BotSpec(name, policies[index % len(policies)]))
    return specs


def bot_seats(count: int, balance: int, side_bets: bool = True) -> list[Seat]:
    """Seats for ``count`` bots, each starting with ``balance``, spread over the spots."""
    seats = []
    for index, spec in enumerate(bot_lineup(count, side_bets)):
        decider: Decider = spec.policy(index)
        seats.append(
            Seat(
                player_id=f"bot-{spec.name.lower().replace(' ', '-')}",
                name=f"Bot {spec.name}",
                decider=decider,
                balance=balance,
            )
        )
    return seats


def policy_label(seat: Seat) -> str:
    decider = seat.decider
    return decider.label if isinstance(decider, Bot) else ""
