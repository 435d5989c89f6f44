"""Shared pieces of the simulator tests: stacked shoes, wheel numbers and record comparison."""

from __future__ import annotations

import random
from collections import Counter
from functools import cache
from typing import TypedDict

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.simulation.kernels import IP_BURN, IP_CUT, IP_RESHUFFLE
from boundless.math.simulation.record import record_shoe
from boundless.math.simulation.reference import (
    Policy,
    ReferenceGame,
    RoundRecord,
    WheelNumbers,
    play_shoe_reference,
)
from boundless.math.simulation.spec import SimSpec, build_spec
from boundless.titles import load_game, shipped_title_keys

TITLES = tuple(shipped_title_keys())
POLICIES: tuple[Policy, ...] = ("basic", "autoplay")
TWO_53 = 1 << 53
# As a wheel's inner draw this lands on the power-up wedge of the shipped wheels (the last two
# of 24 weight units); as an outer draw TINY lands on the first jackpot.
POWER_UP = TWO_53 - 1
TINY = 1


@cache
def game(key: str) -> tuple[RuleSet, StrategyChart | None]:
    return load_game(key)


@cache
def spec_of(key: str, policy: Policy) -> SimSpec:
    rules, chart = game(key)
    return build_spec(rules, chart, policy)


class ShoeOptions(TypedDict):
    burn: bool
    reshuffle: bool
    cut_index: int


def shoe_options(spec: SimSpec) -> ShoeOptions:
    return {
        "burn": bool(spec.ip[IP_BURN]),
        "reshuffle": bool(spec.ip[IP_RESHUFFLE]),
        "cut_index": int(spec.ip[IP_CUT]),
    }


def shuffled_deck(decks: int, seed: int) -> list[int]:
    deck = [code for _ in range(decks) for code in range(52)]
    random.Random(seed).shuffle(deck)
    return deck


def wheel_numbers(seed: int, count: int = 3000) -> list[int]:
    """Random 53-bit numbers; every fifth seed gives only jackpots (power-up, then TINY)."""
    if seed % 5 == 4:
        return [POWER_UP, TINY] * (count // 2)
    source = random.Random(seed)
    return [source.getrandbits(53) for _ in range(count)]


def _minor_units(values: list[float] | None) -> list[int] | None:
    """Results per unit as minor units of a 100-unit stake (the engine's integers)."""
    return None if values is None else [round(value * 100) for value in values]


def comparable(record: RoundRecord, keys: list[str] | None = None) -> tuple[object, ...]:
    side = record.side if keys is None else {key: record.side[key] for key in keys}
    return (
        record.round_in_shoe,
        record.cards_used,
        [[(hand.cards, hand.status, hand.units) for hand in spot] for spot in record.hands],
        record.dealer,
        _minor_units(record.main),
        {key: _minor_units(values) for key, values in side.items()},
        record.void,
    )


def kernel_and_reference_agree(
    spec: SimSpec, reference: ReferenceGame, deck: list[int], numbers: list[int], where: str
) -> list[RoundRecord]:
    """Play ``deck`` through the kernel and the plain reference; assert every round (and the
    burn) agrees and return the kernel's rounds."""
    burned, kernel = record_shoe(spec, deck, numbers)
    expected_burn, plain = play_shoe_reference(
        reference, deck, WheelNumbers(list(numbers)), 200, **shoe_options(spec)
    )
    assert burned == expected_burn, where
    assert [comparable(record) for record in kernel] == [comparable(record) for record in plain], (
        where
    )
    return kernel


def events(records: list[RoundRecord], rules: RuleSet) -> Counter[str]:
    """What the compared rounds exercised (so a test can insist on coverage)."""
    seen: Counter[str] = Counter()
    for record in records:
        dealer_values = sorted(card.value for card in record.dealer[:2])
        if len(record.dealer) == 2 and dealer_values == [1, 10]:
            seen["dealer blackjack"] += 1
        for spot in record.hands:
            if len(spot) >= 2:
                seen["split"] += 1
                if spot[0].cards[0].rank == 1:
                    seen["split aces"] += 1
            if len(spot) > 2:
                seen[f"{len(spot)} hands"] += 1
                if spot[0].cards[0].rank == 1:
                    seen["resplit aces"] += 1
            for hand in spot:
                seen[hand.status] += 1
                if hand.units == 2:
                    seen["double"] += 1
        for key, values in record.side.items():
            if values is None:
                seen["side bet not offered"] += 1
                continue
            bet = rules.side_bet(key)
            assert bet is not None
            for value in values:
                if value > 0:
                    seen[f"{bet.kind} win"] += 1
                if value >= 1_000_000:
                    seen["jackpot"] += 1
    return seen
