"""The Bonus Spin Xtreme wheels: exact probabilities, seeded draws, and simulation."""

from __future__ import annotations

import math
from collections import Counter
from fractions import Fraction

import pytest

from boundless.core.errors import InvalidRuleSetError
from boundless.core.random_source import SeededSource
from boundless.core.rules import Jackpot, WheelRules, WheelWedge
from boundless.core.wheel import (
    jackpot_cap_wager_amount,
    outer_outcomes,
    spin_bonus_wheel,
    wheel_outcomes,
    wheel_return,
    wheel_second_moment,
)

WHEEL = WheelRules(
    example=True,
    inner=(
        WheelWedge(label="5x", weight=5, multiplier=5),
        WheelWedge(label="10x", weight=7, multiplier=10),
        WheelWedge(label="blank", weight=2),
        WheelWedge(label="POWER UP", weight=6, power_up=True),
    ),
    outer=(
        WheelWedge(label="50x", weight=3, multiplier=50),
        WheelWedge(label="100x", weight=1, multiplier=100),
    ),
    jackpots=(
        Jackpot(label="◆◆◆", amount=1_000_000, chance_per_wager_unit=0.0002),
        Jackpot(label="◆◆", amount=50_000, chance_per_wager_unit=0.001),
    ),
)


class StackedSource:
    """Hands out prepared ``randbelow`` answers and records the bounds asked for."""

    def __init__(self, answers: list[int]) -> None:
        self.answers = answers
        self.bounds: list[int] = []

    def randbelow(self, bound: int) -> int:
        self.bounds.append(bound)
        answer = self.answers.pop(0)
        assert 0 <= answer < bound
        return answer

    def token_bytes(self, count: int) -> bytes:
        return bytes(count)


def test_jackpot_chances_grow_in_proportion_to_the_wager() -> None:
    for wager in (1, 7, 100, 400):
        outcomes = outer_outcomes(WHEEL, wager)
        assert outcomes[0].probability == Fraction(2, 10_000) * wager
        assert outcomes[1].probability == Fraction(1, 1000) * wager
        assert sum(item.probability for item in outcomes) == 1
        # The wedges share what the jackpots leave, by weight.
        assert outcomes[2].probability == 3 * outcomes[3].probability
        jackpot_value = sum(
            item.probability * item.jackpot.amount for item in outcomes if item.jackpot
        )
        assert jackpot_value / wager == Fraction(2, 10_000) * 1_000_000 + Fraction(50)


def test_jackpot_chances_are_capped_above_the_cap_wager() -> None:
    cap = jackpot_cap_wager_amount(WHEEL)
    assert cap == Fraction(10_000, 12)
    outcomes = outer_outcomes(WHEEL, 1000)
    assert [item.probability for item in outcomes] == [
        Fraction(1, 6),
        Fraction(5, 6),
        Fraction(0),
        Fraction(0),
    ]
    spun = spin_bonus_wheel(WHEEL, 1000, StackedSource([19, 3]))
    assert spun.jackpot is not None and spun.jackpot.label == "◆◆"


def test_payouts_are_multiplier_times_wager_plus_jackpot() -> None:
    assert spin_bonus_wheel(WHEEL, 300, StackedSource([0])).payout_amount == 1500
    assert spin_bonus_wheel(WHEEL, 300, StackedSource([5])).payout_amount == 3000
    blank = spin_bonus_wheel(WHEEL, 300, StackedSource([12]))
    assert blank.payout_amount == 0 and blank.labels == ("blank",)


def test_the_outer_draw_is_one_integer_draw_laid_out_jackpots_first() -> None:
    # Wager 100: jackpots 1/50 and 5/50, wedges 33/50 and 11/50: one draw below 50.
    source = StackedSource([14, 0])
    spun = spin_bonus_wheel(WHEEL, 100, source)
    assert source.bounds == [20, 50]
    assert spun.labels == ("POWER UP", "◆◆◆") and spun.payout_amount == 1_000_000
    assert spin_bonus_wheel(WHEEL, 100, StackedSource([14, 1])).labels == ("POWER UP", "◆◆")
    assert spin_bonus_wheel(WHEEL, 100, StackedSource([14, 5])).labels == ("POWER UP", "◆◆")
    fifty = spin_bonus_wheel(WHEEL, 100, StackedSource([19, 6]))
    assert fifty.labels == ("POWER UP", "50x") and fifty.payout_amount == 5000
    top = spin_bonus_wheel(WHEEL, 100, StackedSource([19, 49]))
    assert top.labels == ("POWER UP", "100x") and top.payout_amount == 10_000


def test_a_seeded_source_reproduces_the_spins() -> None:
    first = [spin_bonus_wheel(WHEEL, 100, SeededSource(5)) for _ in range(3)]
    again = [spin_bonus_wheel(WHEEL, 100, SeededSource(5)) for _ in range(3)]
    assert first == again
    source_a, source_b = SeededSource(11), SeededSource(11)
    run_a = [spin_bonus_wheel(WHEEL, 250, source_a) for _ in range(500)]
    run_b = [spin_bonus_wheel(WHEEL, 250, source_b) for _ in range(500)]
    assert run_a == run_b
    assert len({result.labels for result in run_a}) > 3


def test_exact_outcomes_add_up() -> None:
    outcomes = wheel_outcomes(WHEEL, 100)
    assert sum(chance for chance, _ in outcomes) == 1
    expected = (
        Fraction(5, 20) * 5
        + Fraction(7, 20) * 10
        + Fraction(6, 20)
        * (
            Fraction(2, 100) * Fraction(1_000_000, 100)
            + Fraction(10, 100) * Fraction(50_000, 100)
            + Fraction(66, 100) * 50
            + Fraction(22, 100) * 100
        )
    )
    assert wheel_return(WHEEL, 100) == expected


def _chi_square_limit(degrees: int, z: float = 3.719) -> float:
    """Wilson-Hilferty upper quantile of chi-square (z = 3.719: one in 10,000)."""
    ratio = 2 / (9 * degrees)
    return float(degrees * (1 - ratio + z * math.sqrt(ratio)) ** 3)


def test_spin_frequencies_fit_the_exact_probabilities() -> None:
    source = SeededSource(2026)
    spins = 20_000
    counts = Counter(spin_bonus_wheel(WHEEL, 100, source).labels for _ in range(spins))
    expected = Counter[tuple[str, ...]]()
    for chance, result in wheel_outcomes(WHEEL, 100):
        expected[result.labels] += float(chance) * spins
    assert set(counts) <= set(expected)
    statistic = sum((counts[key] - mean) ** 2 / mean for key, mean in expected.items())
    assert statistic < _chi_square_limit(len(expected) - 1)


def test_simulated_return_matches_the_exact_return() -> None:
    source = SeededSource(7)
    spins, wager = 20_000, 40
    total = sum(spin_bonus_wheel(WHEEL, wager, source).payout_amount for _ in range(spins))
    exact = wheel_return(WHEEL, wager)
    sigma = math.sqrt(float(wheel_second_moment(WHEEL, wager) - exact**2) / spins)
    assert abs(total / wager / spins - float(exact)) < 4 * sigma


def test_simulated_jackpot_rate_grows_with_the_wager() -> None:
    power_only = WHEEL.model_copy(
        update={"inner": (WheelWedge(label="UP", weight=1, power_up=True),)}
    )
    spins = 20_000
    for wager, seed in ((50, 1), (400, 2)):
        source = SeededSource(seed)
        hits = sum(
            spin_bonus_wheel(power_only, wager, source).jackpot is not None for _ in range(spins)
        )
        chance = 0.0012 * wager
        sigma = math.sqrt(chance * (1 - chance) / spins)
        assert abs(hits / spins - chance) < 4 * sigma


@pytest.mark.parametrize(
    "wheel",
    [
        WHEEL.model_copy(update={"inner": ()}),
        WHEEL.model_copy(update={"outer": ()}),
        WHEEL.model_copy(update={"outer": (WheelWedge(label="again", weight=1, power_up=True),)}),
        WHEEL.model_copy(update={"outer": (WheelWedge(label="nothing", weight=1),)}),
    ],
)
def test_unspinnable_wheels_are_rejected(wheel: WheelRules) -> None:
    with pytest.raises(InvalidRuleSetError):
        spin_bonus_wheel(wheel, 100, SeededSource(1))
