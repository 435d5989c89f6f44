"""The house's own play: the dealer's hand after the decisions, and the bonus wheels."""

from __future__ import annotations

from collections.abc import Callable

from boundless.core.cards import Card
from boundless.core.errors import PhaseError
from boundless.core.hands import best_total, is_natural
from boundless.core.random_source import RandomSource
from boundless.core.round import events as ev
from boundless.core.round.settlement import side_bet_pattern
from boundless.core.round.state import RoundState
from boundless.core.rules import RuleSet
from boundless.core.side_bets import SIDE_BET_KINDS
from boundless.core.wheel import spin_bonus_wheel


def dealer_draws(cards: list[Card], rules: RuleSet) -> bool:
    """Whether the dealer takes another card on ``cards``."""
    total = best_total(cards)
    if is_natural(cards):
        return False
    soft = total <= 21 and sum(card.value for card in cards) + 10 == total
    return total < 17 or (total == 17 and soft and rules.dealer.hits_soft_17)


def play_dealer_hand(
    up_card: Card, hole_card: Card | None, draw: Callable[[], Card], rules: RuleSet
) -> tuple[Card, ...]:
    """The dealer's whole hand: up card, hole (or second) card, then draws to the rule."""
    cards = [up_card, hole_card if hole_card is not None else draw()]
    while dealer_draws(cards, rules):
        cards.append(draw())
    return tuple(cards)


def wheel_triggers(state: RoundState) -> list[tuple[str, list[int]]]:
    """Per wheel side bet: the positions whose bet triggered its feature, in order."""
    assert state.up_card is not None
    book = state.book
    found: list[tuple[str, list[int]]] = []
    for column, key in enumerate(book.side_keys):
        bet = state.rules.side_bet(key)
        assert bet is not None and (bet.wheel is None) != SIDE_BET_KINDS[bet.kind].uses_wheel
        if bet.wheel is None:
            continue
        triggered: list[int] = []
        for spot, cards in state.spot_cards.items():
            if side_bet_pattern(bet, cards, state.up_card, state.dealer_cards) is not None:
                on_spot = state.spot_positions[spot]
                triggered += on_spot[book.sides[on_spot, column] > 0].tolist()
        if triggered:
            found.append((key, triggered))
    return found


def spin_wheels(state: RoundState, randomness: RandomSource | None) -> list[ev.WheelSpun]:
    """Spin every triggered bonus wheel (one event per side bet)."""
    spins: list[ev.WheelSpun] = []
    for key, triggered in wheel_triggers(state):
        if randomness is None:
            raise PhaseError("a bonus wheel was triggered but the round has no random source")
        bet = state.rules.side_bet(key)
        assert bet is not None and bet.wheel is not None
        column = state.book.side_keys.index(key)
        results = [
            spin_bonus_wheel(bet.wheel, int(state.book.sides[p, column]), randomness)
            for p in triggered
        ]
        spins.append(
            ev.WheelSpun(
                key,
                ev.frozen_array(triggered),
                ev.frozen_array([result.payout_amount for result in results]),
                tuple(result.labels for result in results),
            )
        )
    return spins
