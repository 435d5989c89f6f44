"""How hands, insurance and side bets are paid, as exact integer arithmetic on stakes.

A hand's payout is written as ``main * whole + (main * numerator) // denominator`` so that the
same few integers per path settle every position on it, and rounding down to the unit happens
once per hand (DECISIONS rule 1).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from fractions import Fraction

import numpy as np

from boundless.core.cards import Card
from boundless.core.hands import best_total, is_natural
from boundless.core.money import Odds, Ratio
from boundless.core.round.paths import SURRENDERED, HandState, HandStatus, PathState
from boundless.core.rules import RuleSet, SideBetRules
from boundless.core.side_bets import PENDING, SIDE_BET_KINDS, best_paying_pattern
from boundless.core.side_bets.boo_bucks_bets import WHEEL_TRIGGER_BY_TARGET


@dataclass(frozen=True, slots=True)
class DealerHand:
    cards: tuple[Card, ...]

    @property
    def total(self) -> int:
        return best_total(self.cards)

    @property
    def blackjack(self) -> bool:
        return is_natural(self.cards)

    @property
    def bust(self) -> bool:
        return self.total > 21


@dataclass(frozen=True, slots=True)
class PayTerm:
    """``payout(main) = main * whole + (main * numerator) // denominator``."""

    outcome: str
    whole: int = 0
    numerator: int = 0
    denominator: int = 1

    def payout(self, main_amount: int) -> int:
        return main_amount * self.whole + (main_amount * self.numerator) // self.denominator

    def rounded_off(self, main_amount: int) -> Fraction:
        """The fraction of a minor unit dropped by rounding this payout down (rule 1)."""
        return Fraction((main_amount * self.numerator) % self.denominator, self.denominator)


def _odds_term(outcome: str, units: int, odds: Odds) -> PayTerm:
    return PayTerm(outcome, whole=units, numerator=units * odds.win, denominator=odds.per)


def _ratio_term(outcome: str, units: int, ratio: Ratio) -> PayTerm:
    return PayTerm(outcome, numerator=units * ratio.numerator, denominator=ratio.denominator)


def surrender_term(hand: HandState, rules: RuleSet) -> PayTerm:
    if hand.status == HandStatus.SURRENDERED20:
        ratio = rules.split.decline_refund
        if ratio is None:
            raise AssertionError("surrender20 without split.decline_refund")
        return _ratio_term("surrender20", hand.stake_units, ratio)
    return _ratio_term("surrender", hand.stake_units, rules.surrender.refund)


def hand_term(hand: HandState, dealer: DealerHand, rules: RuleSet) -> PayTerm:
    """A finished hand against a finished dealer hand (no original-bets-only adjustment)."""
    units = hand.stake_units
    if hand.status in SURRENDERED:
        return surrender_term(hand, rules)
    if hand.status == HandStatus.BLACKJACK:
        if dealer.blackjack:
            return PayTerm("push", whole=units)
        return _odds_term("blackjack", units, rules.payouts.blackjack)
    if hand.status == HandStatus.BUST or dealer.blackjack:
        return PayTerm("lose")
    if dealer.bust or hand.total > dealer.total:
        return _odds_term("win", units, rules.payouts.win)
    if hand.total == dealer.total:
        return PayTerm("push", whole=units)
    return PayTerm("lose")


def path_terms(path: PathState, dealer: DealerHand, rules: RuleSet) -> list[PayTerm]:
    """One term per hand of a finished path.

    With no hole card, a dealer blackjack takes only the original bet: doubles and split stakes
    come back even on a bust hand (DECISIONS rule 18).
    """
    terms = [hand_term(hand, dealer, rules) for hand in path.hands]
    if rules.dealer.hole_card == "none" and dealer.blackjack:
        adjusted: list[PayTerm] = []
        for index, (hand, term) in enumerate(zip(path.hands, terms, strict=True)):
            if hand.status == HandStatus.BLACKJACK or hand.status in SURRENDERED:
                adjusted.append(term)
            else:
                # Each hand gets its stake back, less the original bet, which the first hand
                # carries (a resplit keeps the first hand first; ruling 32).
                adjusted.append(PayTerm("lose", whole=hand.stake_units - (index == 0)))
        return adjusted
    return terms


def main_payouts(
    nodes: Sequence[PathState],
    node_of: np.ndarray,
    main: np.ndarray,
    dealer: DealerHand,
    rules: RuleSet,
) -> np.ndarray:
    """Main-game payout of every position from its path, vectorised over positions."""
    payout = np.zeros(len(main), dtype=np.int64)
    if not len(main):
        return payout
    terms = {node: path_terms(nodes[node], dealer, rules) for node in np.unique(node_of).tolist()}
    width = max(len(hand_terms) for hand_terms in terms.values())  # up to split.max_hands
    for slot in range(width):
        in_slot = {node: row[slot] for node, row in terms.items() if slot < len(row)}
        payout += term_payouts(main, in_slot, node_of, len(nodes))
    return payout


def term_payouts(
    main: np.ndarray, terms: Mapping[int, PayTerm], rows: np.ndarray, size: int
) -> np.ndarray:
    """``terms[rows[i]].payout(main[i])`` for every position ``i`` (no term: nothing), as
    array arithmetic: one term per distinct row (a path node, a decision group)."""
    whole = np.zeros(size, dtype=np.int64)
    numerator = np.zeros(size, dtype=np.int64)
    denominator = np.ones(size, dtype=np.int64)
    for row, term in terms.items():
        whole[row], numerator[row], denominator[row] = (
            term.whole,
            term.numerator,
            term.denominator,
        )
    return np.asarray(
        main * whole[rows] + (main * numerator[rows]) // denominator[rows], dtype=np.int64
    )


def side_bet_pattern(
    bet: SideBetRules,
    player_cards: Sequence[Card],
    up_card: Card,
    dealer_cards: Sequence[Card] | None,
) -> str | object | None:
    """The pattern paid, ``None`` for a loss, or ``PENDING``."""
    kind = SIDE_BET_KINDS[bet.kind]
    matched = kind.evaluate(player_cards, up_card, dealer_cards, bet.variant)
    if matched is PENDING:
        return PENDING
    assert isinstance(matched, frozenset)
    if kind.uses_wheel:
        # A wheel bet has no pay table: its trigger starts the feature, played after the round.
        trigger = WHEEL_TRIGGER_BY_TARGET[bet.target]
        return trigger if trigger in matched else None
    return best_paying_pattern(matched, bet.pays)


def odds_payout(stakes: np.ndarray, odds: Odds | None) -> np.ndarray:
    """Stake plus winnings at ``odds`` (rounded down), or nothing when ``odds`` is None."""
    if odds is None:
        return np.zeros_like(stakes)
    return np.asarray(stakes + (stakes * odds.win) // odds.per, dtype=np.int64)
