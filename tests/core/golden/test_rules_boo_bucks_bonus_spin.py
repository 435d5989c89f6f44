"""Golden rounds of Bonus Spin Xtreme: a wager on a seat or on the dealer's hand, seeded wheels.

Boo Bucks document: "BONUS SPIN XTREME IS AN OPTIONAL WAGER ..." through "JACKPOTS ARE NOT
MULTIPLIED BY THE WAGER AND AWARD AS DISPLAYED"; DECISIONS.md rules 27 (one offer group with a
seat key and a dealer key) and 29 (wheels are configuration; the shipped pair is an example).

The wheels spin from ``SeededSource(seed)``, the randomness ``boundless replay`` gives a round
(``wheel_seed``). :func:`reference_spin` restates the documented draw independently: one
``randrange`` over the inner weights; after the power-up wedge one more over the outer
outcomes, jackpots first (chance = per-unit chance x wager), then the wedges sharing the rest
by weight, as exact integer weights.
"""

from __future__ import annotations

import bisect
import itertools
import random
from fractions import Fraction
from math import lcm

import golden_helpers as golden
import pytest

from boundless.core.errors import InvalidBetError
from boundless.core.round import SharedRound
from boundless.core.round import events as ev
from boundless.core.rules import WheelRules
from boundless.core.wheel import outer_outcomes
from boundless.titles import load_game

OFFER = ("bonus_spin_xtreme", "trifecta")
SEAT_KEY = "bonus_spin_xtreme"
DEALER_KEY = "bonus_spin_xtreme_dealer"


def _wheel(key: str = SEAT_KEY) -> WheelRules:
    bet_rules = golden.rules_of(golden.BOO_BUCKS).side_bet(key)
    assert bet_rules is not None and bet_rules.wheel is not None
    return bet_rules.wheel


def _pick(rng: random.Random, weights: list[int]) -> int:
    """The wedge whose share of 0 .. sum(weights) - 1 the draw falls in (the wedges' running
    totals are their upper bounds)."""
    return bisect.bisect_right(list(itertools.accumulate(weights)), rng.randrange(sum(weights)))


def reference_spin(rng: random.Random, wager: int, wheel: WheelRules) -> tuple[list[str], int]:
    """(labels, amount credited) of one feature, restated from the documented draw."""
    inner = wheel.inner[_pick(rng, [wedge.weight for wedge in wheel.inner])]
    amount = (inner.multiplier or 0) * wager
    if not inner.power_up:
        return [inner.label], amount
    chances = [Fraction(repr(jackpot.chance_per_wager_unit)) * wager for jackpot in wheel.jackpots]
    rest = 1 - sum(chances)
    total_weight = sum(wedge.weight for wedge in wheel.outer)
    chances += [rest * wedge.weight / total_weight for wedge in wheel.outer]
    scale = lcm(*(chance.denominator for chance in chances))
    index = _pick(rng, [int(chance * scale) for chance in chances])
    if index < len(wheel.jackpots):
        jackpot = wheel.jackpots[index]
        return [inner.label, jackpot.label], amount + jackpot.amount
    outer = wheel.outer[index - len(wheel.jackpots)]
    return [inner.label, outer.label], amount + (outer.multiplier or 0) * wager


def _labels(round_: SharedRound, spot: int, key: str) -> tuple[str, ...]:
    for item in golden.result(round_, "p", spot).side_bets:
        if item.key == key:
            return item.wheel_labels
    raise AssertionError(key)


def test_a_seat_wager_starts_the_feature_on_a_player_blackjack() -> None:
    # Seat 1 AS KD against 9H (hole 8C). Seed 0: the inner wheel lands on 15x: 15.00 on 1.00.
    round_, _ = golden.new_round(golden.BOO_BUCKS, "AS 9H KD 8C", offered=OFFER, wheel_seed=0)
    golden.bet(round_, "p", 1, sides={SEAT_KEY: 100})
    round_.deal()
    assert golden.paid_by_stage(round_) == []  # known at the deal, but played after the round
    golden.play(round_)
    assert golden.side(round_, "p", 1, SEAT_KEY) == ("win", "player_blackjack", 1500)
    assert _labels(round_, 1, SEAT_KEY) == ("15x",)
    assert reference_spin(random.Random(0), 100, _wheel()) == (["15x"], 1500)
    assert golden.paid_by_stage(round_) == [
        ("side_bets", {"p@1": 1500}),
        ("settlement", {"p@1": 2500}),
    ]


def test_the_feature_is_played_after_the_blackjack_round_has_concluded() -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, "AS 9H KD 8C", offered=OFFER, wheel_seed=0)
    golden.bet(round_, "p", 1, sides={SEAT_KEY: 100})
    golden.play(round_)
    kinds = [type(event).__name__ for event in round_.events]
    assert kinds[-3:] == ["DealerCardsDrawn", "WheelSpun", "RoundSettled"]


@pytest.mark.parametrize("spot", [1, 2, 3])
def test_the_wager_may_be_placed_on_any_of_the_players_seats(spot: int) -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, "AS 9H KD 8C", offered=OFFER, wheel_seed=3)
    golden.bet(round_, "p", spot, sides={SEAT_KEY: 100})
    golden.play(round_)
    assert golden.side(round_, "p", spot, SEAT_KEY) == ("win", "player_blackjack", 1000)
    assert _labels(round_, spot, SEAT_KEY) == ("10x",)


@pytest.mark.parametrize(
    ("cards", "decisions"),
    [
        pytest.param("TS 9H 9D 8C", [], id="nineteen"),
        pytest.param("7S 9H 7D 8C 7C", ["hit"], id="three-card-21"),
        pytest.param("AS 9H 9D 8C", [], id="soft-20"),
    ],
)
def test_without_a_blackjack_the_seat_wager_loses(cards: str, decisions: list[str]) -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, cards, offered=OFFER, wheel_seed=0)
    golden.bet(round_, "p", 1, sides={SEAT_KEY: 100})
    golden.play(round_, {("p", 1): [*decisions, "stand"]})
    assert golden.side(round_, "p", 1, SEAT_KEY) == ("lose", None, 0)
    assert not any(isinstance(event, ev.WheelSpun) for event in round_.events)


@pytest.mark.parametrize(
    ("seed", "wager", "labels", "amount"),
    [
        pytest.param(1, 100, ["5x"], 500, id="5x"),
        pytest.param(5, 100, ["25x"], 2500, id="25x"),
        pytest.param(20, 100, ["POWER UP", "50x"], 5000, id="power-up-50x"),
        pytest.param(24, 100, ["POWER UP", "75x"], 7500, id="power-up-75x"),
        pytest.param(2002, 10_000, ["POWER UP", "◆◆"], 10_000_000, id="jackpot-2-diamonds"),
        pytest.param(50972, 10_000, ["POWER UP", "◆◆◆"], 100_000_000, id="jackpot-3-diamonds"),
    ],
)
def test_inner_multiples_the_power_up_outer_wheel_and_the_fixed_jackpots(
    seed: int, wager: int, labels: list[str], amount: int
) -> None:
    """A numbered wedge pays its multiple of the wager; the arrow (POWER UP) wedge spins the
    outer wheel, which pays its multiple or a jackpot, a fixed amount not multiplied by the
    wager. The amount credited is the whole prize."""
    assert reference_spin(random.Random(seed), wager, _wheel()) == (labels, amount)
    round_, _ = golden.new_round(golden.BOO_BUCKS, "AS 9H KD 8C", offered=OFFER, wheel_seed=seed)
    golden.bet(round_, "p", 1, sides={SEAT_KEY: wager})
    golden.play(round_)
    assert golden.side(round_, "p", 1, SEAT_KEY) == ("win", "player_blackjack", amount)
    assert list(_labels(round_, 1, SEAT_KEY)) == labels


def test_the_round_spins_exactly_as_the_documented_draw_for_many_seeds() -> None:
    for seed in range(60):
        round_, _ = golden.new_round(
            golden.BOO_BUCKS, "AS 9H KD 8C", offered=OFFER, wheel_seed=seed
        )
        golden.bet(round_, "p", 1, sides={SEAT_KEY: 700})
        golden.play(round_)
        labels, amount = reference_spin(random.Random(seed), 700, _wheel())
        assert golden.side(round_, "p", 1, SEAT_KEY)[2] == amount, seed
        assert list(_labels(round_, 1, SEAT_KEY)) == labels, seed


@pytest.mark.parametrize(
    ("up", "hole"),
    [("6H", "KD"), ("KD", "6H"), ("TS", "6C"), ("6S", "JC"), ("QH", "6D")],
)
def test_a_dealer_wager_starts_the_feature_on_an_xtreme_16(up: str, hole: str) -> None:
    # Seat 1 9S 9C = 18 stands; the dealer's 16 of a 6 and a ten-value card draws 5C: 21.
    round_, _ = golden.new_round(
        golden.BOO_BUCKS, f"9S {up} 9C {hole} 5C", offered=OFFER, wheel_seed=0
    )
    golden.bet(round_, "p", 1, sides={DEALER_KEY: 100})
    golden.play(round_, {("p", 1): ["stand"]})
    assert golden.dealer(round_) == f"{up} {hole} 5C"
    assert golden.side(round_, "p", 1, DEALER_KEY) == ("win", "xtreme_16", 1500)
    assert golden.hand(round_, "p", 1) == golden.Hand("9S 9C", 18, 1000, "lose", 0)


@pytest.mark.parametrize(
    ("cards", "dealer_cards"),
    [
        pytest.param("9S 6H 9C 6D 5C", "6H 6D 5C", id="six-six"),
        pytest.param("9S 6H 9C AD", "6H AD", id="six-ace"),
        pytest.param("9S 9H 9C 7D 2C", "9H 7D 2C", id="nine-seven"),
        pytest.param("9S TH 9C 2D 4C 5C", "TH 2D 4C 5C", id="three-card-16-then-21"),
        pytest.param("9S 6H 9C 5D 6C", "6H 5D 6C", id="six-five"),
    ],
)
def test_any_other_dealer_hand_loses_the_dealer_wager(cards: str, dealer_cards: str) -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, cards, offered=OFFER, wheel_seed=0)
    golden.bet(round_, "p", 1, sides={DEALER_KEY: 100})
    golden.play(round_, {("p", 1): ["stand"]})
    assert golden.dealer(round_) == dealer_cards
    assert golden.side(round_, "p", 1, DEALER_KEY) == ("lose", None, 0)


def test_the_dealer_wager_rides_only_with_other_wagers_active_on_the_seat() -> None:
    round_, shoe = golden.new_round(golden.BOO_BUCKS, "9S 6H 9C KD 5C", offered=OFFER)
    with golden.refused(round_, shoe, InvalidBetError, "on the dealer's hand needs another wager"):
        golden.bet(round_, "p", 1, main=0, sides={DEALER_KEY: 100})
    golden.bet(round_, "p", 1, main=0, sides={DEALER_KEY: 100, "trifecta": 100})
    golden.bet(round_, "p", 2, main=0, sides={DEALER_KEY: 100, SEAT_KEY: 100}, balance=None)
    golden.bet(round_, "p", 3, main=100, sides={DEALER_KEY: 100}, balance=None)


def _three_features(wheel_seed: int) -> SharedRound:
    """Seats 1 (AS KD) and 2 (AH KH) are blackjacks with seat wagers of 1.00 and 3.00; seat 3
    (9S 9C, stands) has a dealer wager of 2.00, and the dealer's 6H KC draws 5C (an Xtreme 16).
    """
    round_, _ = golden.new_round(
        golden.BOO_BUCKS, "AS AH 9S 6H KD KH 9C KC 5C", offered=OFFER, wheel_seed=wheel_seed
    )
    golden.bet(round_, "p", 1, main=1000, sides={SEAT_KEY: 100})
    golden.bet(round_, "p", 2, main=1000, sides={SEAT_KEY: 300}, balance=None)
    golden.bet(round_, "p", 3, main=1000, sides={DEALER_KEY: 200}, balance=None)
    golden.play(round_, {("p", 3): ["stand"]})
    return round_


def test_several_features_spin_one_after_another_from_one_seeded_source() -> None:
    """Seats 1 (AS KD) and 2 (AH KH) are blackjacks with seat wagers; seat 3 (9S 9C) has the
    dealer wager, and the dealer's 6H KC is an Xtreme 16 that draws 5C. Three features spin in
    order: the seat wagers seat by seat, then the dealer wager."""
    round_ = _three_features(wheel_seed=20)
    rng = random.Random(20)
    expected = [
        reference_spin(rng, 100, _wheel(SEAT_KEY)),
        reference_spin(rng, 300, _wheel(SEAT_KEY)),
        reference_spin(rng, 200, _wheel(DEALER_KEY)),
    ]
    got = [
        (list(_labels(round_, 1, SEAT_KEY)), golden.side(round_, "p", 1, SEAT_KEY)[2]),
        (list(_labels(round_, 2, SEAT_KEY)), golden.side(round_, "p", 2, SEAT_KEY)[2]),
        (list(_labels(round_, 3, DEALER_KEY)), golden.side(round_, "p", 3, DEALER_KEY)[2]),
    ]
    assert got == expected


def test_a_blackjack_starts_the_feature_even_when_the_dealer_peeks_a_blackjack() -> None:
    round_, _ = golden.new_round(golden.BOO_BUCKS, "AS TD KD AC", offered=OFFER, wheel_seed=3)
    golden.bet(round_, "p", 1, sides={SEAT_KEY: 100})
    golden.play(round_)
    assert golden.hand(round_, "p", 1) == golden.Hand("AS KD", 21, 1000, "push", 1000)
    assert golden.side(round_, "p", 1, SEAT_KEY) == ("win", "player_blackjack", 1000)


def test_jackpot_chances_grow_in_proportion_to_the_wager() -> None:
    wheel = _wheel()
    low = [item.probability for item in outer_outcomes(wheel, 100) if item.jackpot is not None]
    high = [item.probability for item in outer_outcomes(wheel, 10_000) if item.jackpot is not None]
    assert [value * 100 for value in low] == high
    assert low == [Fraction(2, 10**8) * 100, Fraction(1, 10**7) * 100]


def test_the_shipped_wheels_are_labelled_examples_and_the_odds_differ_by_wedge() -> None:
    for key in (SEAT_KEY, DEALER_KEY):
        wheel = _wheel(key)
        assert wheel.example is True
        assert len({wedge.weight for wedge in wheel.inner}) > 1
        assert [jackpot.label for jackpot in wheel.jackpots] == ["◆◆◆", "◆◆"]


def test_the_event_log_rebuilds_the_wheel_results_without_randomness() -> None:
    round_ = _three_features(wheel_seed=24)
    rules, chart = load_game(golden.BOO_BUCKS)
    rebuilt = SharedRound.rebuild(rules, round_.events, chart)
    for spot in (1, 2, 3):
        assert golden.result(rebuilt, "p", spot) == golden.result(round_, "p", spot)
    assert rebuilt.paid().tolist() == round_.paid().tolist()
