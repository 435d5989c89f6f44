"""Exact side-bet figures against a plain, seeded Monte Carlo of real cards.

Each round samples real cards from the full shoe (player's two, up card, hole card, then the
dealer's draws), plays the dealer by the rule set, and settles every side bet the way the table
does. Every mean must lie within 4 standard deviations (the exact ones) of the exact figure.
"""

from __future__ import annotations

import math
import random
from collections import Counter

import pytest
from side_bet_rules import boo_bucks

from boundless.core.cards import Card, fresh_decks
from boundless.core.hands import hand_total
from boundless.core.random_source import SeededSource
from boundless.core.rules import SideBetRules
from boundless.core.side_bets import PENDING, SIDE_BET_KINDS, best_paying_pattern
from boundless.core.side_bets.boo_bucks_bets import WHEEL_TRIGGER_BY_TARGET
from boundless.core.wheel import spin_bonus_wheel
from boundless.math.side_bets import side_bet_returns
from boundless.titles import load_title

ROUNDS = 40_000
SIGMAS = 4


def dealer_hand(cards: list[Card], hits_soft_17: bool) -> list[Card]:
    hand = cards[:2]
    while True:
        total, soft = hand_total(hand)
        if total > 17 or (total == 17 and not (soft and hits_soft_17)):
            return hand
        hand.append(cards[len(hand)])


def settle(bet: SideBetRules, player: list[Card], dealer: list[Card], source: SeededSource):
    """The bet's payout per unit staked and the pattern paid."""
    kind = SIDE_BET_KINDS[bet.kind]
    matched = kind.evaluate(player, dealer[0], None, bet.variant)
    if matched is PENDING:
        matched = kind.evaluate(player, dealer[0], dealer, bet.variant)
    assert matched is not PENDING
    if bet.wheel is not None:
        trigger = WHEEL_TRIGGER_BY_TARGET[bet.target]
        if trigger not in matched:
            return 0.0, None
        spin = spin_bonus_wheel(bet.wheel, bet.min_amount, source)
        return spin.payout_amount / bet.min_amount, trigger
    best = best_paying_pattern(matched, bet.pays)
    if best is None:
        return 0.0, None
    return 1 + bet.pays[best].as_float(), best


@pytest.mark.parametrize(
    ("name", "seed"),
    [("boundless", 1), ("boo-bucks-6-s17", 2), ("boo-bucks-1-h17", 3)],
)
def test_simulation_agrees_with_the_exact_figures(name: str, seed: int) -> None:
    rules = {
        "boundless": lambda: load_title("boundless"),
        "boo-bucks-6-s17": lambda: boo_bucks(6, False),
        "boo-bucks-1-h17": lambda: boo_bucks(1, True),
    }[name]()
    hits_soft_17 = rules.dealer.hits_soft_17
    shoe = fresh_decks(rules.shoe.decks)
    generator = random.Random(seed)
    wheel_source = SeededSource(seed)
    totals: Counter[str] = Counter()
    patterns: dict[str, Counter[str]] = {bet.key: Counter() for bet in rules.side_bets}
    for _ in range(ROUNDS):
        cards = generator.sample(shoe, 20)
        player, dealer = cards[:2], dealer_hand(cards[2:], hits_soft_17)
        for bet in rules.side_bets:
            payout, pattern = settle(bet, player, dealer, wheel_source)
            totals[bet.key] += payout
            if pattern is not None:
                patterns[bet.key][pattern] += 1
    for key, report in side_bet_returns(rules).items():
        sigma = report.standard_deviation / math.sqrt(ROUNDS)
        mean = totals[key] / ROUNDS
        assert abs(mean - float(report.rtp)) < SIGMAS * sigma, (key, mean, float(report.rtp))
        for pattern, chance in report.pattern_probabilities.items():
            expected = float(chance) * ROUNDS
            if expected >= 20:  # a normal approximation is fair from here
                spread = math.sqrt(expected * (1 - float(chance)))
                observed = patterns[key][pattern]
                assert abs(observed - expected) < SIGMAS * spread, (key, pattern, observed)
