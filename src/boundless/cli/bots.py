"""Bot seats at the terminal table: the core's bot policies behind the table's seat protocol.

A bot sees only what a player sees of its own seat: its bet offer, its hand, the dealer's up
card and its legal actions. The policies themselves (what to bet, what to decide) are
:mod:`boundless.core.bots`, shared with the live server and the benchmarks.
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
from boundless.core.bots import BASE_BET_IN_MINIMUMS, TRAITS, HandSight, Policy, decide, lineup
from boundless.core.round import Action


def _affordable(amount: int, offer: BetOffer, low: int, high: int, budget: int) -> int:
    """``amount`` clamped to ``low..high`` and the budget, rounded down to the table unit."""
    amount = min(amount, high, budget)
    amount -= amount % offer.unit_amount
    return amount if amount >= low else 0


class Bot:
    """A seat played by one of the core's bot policies (:mod:`boundless.core.bots`)."""

    def __init__(self, policy: Policy, seat_index: int = 0) -> None:
        self.policy = policy
        self.traits = TRAITS[policy]
        self.rejections: list[str] = []
        self.seat_index = seat_index  # spreads the bots over a table's spots

    @property
    def label(self) -> str:
        return self.traits.label

    def spots(self, offer: BetOffer) -> list[int]:
        """The spots this bot plays: its own first spot, then the next ones, up to the limit."""
        count = min(self.traits.spots_wanted, offer.max_spots, len(offer.spots))
        start = self.seat_index % len(offer.spots)
        return [offer.spots[(start + step) % len(offer.spots)] for step in range(count)]

    def main_amount(self, offer: BetOffer) -> int:
        wanted = offer.min_main_amount * BASE_BET_IN_MINIMUMS * self.traits.main_multiple
        if not wanted:
            return 0
        return _affordable(
            wanted, offer, offer.min_main_amount, offer.max_main_amount, offer.balance
        )

    def side_amounts(self, offer: BetOffer, budget: int) -> dict[str, int]:
        """The side-bets-only policy: twice the minimum on every side option still open."""
        if self.policy is not Policy.SIDE_BETS:
            return {}
        sides: dict[str, int] = {}
        for option in offer.side_options:
            amount = _affordable(
                option.min_amount * 2, offer, option.min_amount, option.max_amount, budget
            )
            if amount:
                sides[option.key] = amount
                budget -= amount
        return sides

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
        return self.traits.insures

    def choose_side_bets(self, choice: SideBetChoice) -> Sequence[str]:
        return choice.current  # a bot hosting a table keeps the offer in force

    def decide(self, view: SeatView) -> Action | None:
        return decide(self.policy, HandSight(view.cards, view.up_card, view.legal))

    def rejected(self, message: str) -> None:
        self.rejections.append(message)


@dataclass(frozen=True, slots=True)
class BotSpec:
    name: str
    policy: Policy


def bot_lineup(count: int, side_bets: bool = True) -> list[BotSpec]:
    """``count`` bots cycling through the policies, each with its own name."""
    return [BotSpec(name, policy) for name, policy in lineup(count, side_bets)]


def bot_seats(count: int, balance: int, side_bets: bool = True) -> list[Seat]:
    """Seats for ``count`` bots, each starting with ``balance``, spread over the spots."""
    seats = []
    for index, spec in enumerate(bot_lineup(count, side_bets)):
        decider: Decider = Bot(spec.policy, index)
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
