"""A decider at ``boundless play`` sees what the core's player view shows, and nothing more."""

from __future__ import annotations

import random
from collections.abc import Sequence

from boundless.cli.table_driver import TableDriver
from boundless.cli.table_seats import BetOffer, InsuranceOffer, Seat, SeatView, SpotBet
from boundless.core.random_source import SeededSource
from boundless.core.round import Action
from boundless.core.round.views import player_view
from boundless.titles import load_game


class ViewChecker:
    """Bets on every spot and, at each decision, compares its view with the core's."""

    def __init__(self, player_id: str) -> None:
        self.player_id = player_id
        self.driver: TableDriver | None = None
        self.random = random.Random(7)
        self.checked = 0

    def bet(self, offer: BetOffer) -> Sequence[SpotBet]:
        return [SpotBet(spot, offer.min_main_amount * 5) for spot in offer.spots[: offer.max_spots]]

    def insurance(self, offer: InsuranceOffer) -> bool:
        return False

    def decide(self, view: SeatView) -> Action | None:
        assert self.driver is not None and self.driver.round is not None
        round_ = self.driver.round
        core = player_view(round_, self.player_id)
        position = next(p for p in core["player"]["positions"] if p["spot"] == view.spot)
        assert [[str(card) for card in hand.cards] for hand in view.hands] == [
            hand["cards"] for hand in position["hands"]
        ]
        assert sorted(action.word for action in view.legal) == position["legal_actions"]
        assert view.hand_index == position["current_hand"]
        assert [str(view.up_card)] == core["dealer"]["cards"][:1]
        assert view.free_amount == core["player"]["free_coins"]
        assert view.legal == round_.legal_actions(self.player_id, view.spot)
        self.checked += 1
        return self.random.choice(sorted(view.legal))

    def rejected(self, message: str) -> None:
        raise AssertionError(message)


def test_decisions_see_the_core_player_view() -> None:
    for title in ("boundless", "unlimited", "boo-bucks"):
        rules, chart = load_game(title)
        checker = ViewChecker("you")
        seat = Seat("you", "you", checker, 1_000_000, host=True)
        driver = TableDriver(rules, chart, SeededSource(11), [seat])
        checker.driver = driver
        for _ in range(12):
            driver.play_round()
        assert checker.checked > 10, title
