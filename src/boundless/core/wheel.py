"""The Bonus Spin Xtreme wheels (DECISIONS.md rule 29), pure and exact.

The inner wheel lands on a wedge with probability ``weight / total weight``. A wedge pays its
``multiplier`` times the wager (``None`` pays nothing) and, when it is a ``power_up`` wedge, also
spins the outer wheel once.

The outer wheel holds multiplier wedges and the fixed jackpots. At a wager of ``w`` minor units,
jackpot ``j`` is hit with probability ``q_j = c_j * w``, where ``c_j`` is its
``chance_per_wager_unit`` (a chance per minor unit) read exactly as the decimal number written in
the rule set, ``Fraction(repr(c))``. So a jackpot's expected payout per unit wagered,
``c_j * amount_j``, does not depend on the wager. The multiplier wedges share what is left,
``1 - sum(q)``, in proportion to their weights. Should the jackpot chances add up to more than 1
(a wager above :func:`jackpot_cap_wager_amount`), they are scaled down to add up to exactly 1 and
the multiplier wedges get nothing; below that wager (the only range a rule set should allow) the
cap never applies.

Every draw is one ``randbelow`` over exact integer weights, so a seeded source reproduces a spin.
Outer outcomes are laid out jackpots first (in rule-set order), then the wedges (in order).
The payout is the whole amount credited: ``multiplier * wager`` plus any jackpot ``amount``;
the wager itself is not returned on top.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from math import lcm

from boundless.core.errors import InvalidRuleSetError
from boundless.core.random_source import RandomSource
from boundless.core.rules import Jackpot, WheelRules, WheelWedge


@dataclass(frozen=True, slots=True)
class WheelResult:
    """One feature: the inner wedge, then the outer wedge or jackpot when the power-up hit."""

    inner: WheelWedge
    outer: WheelWedge | None
    jackpot: Jackpot | None
    payout_amount: int

    @property
    def labels(self) -> tuple[str, ...]:
        hit = [self.inner.label]
        if self.outer is not None:
            hit.append(self.outer.label)
        if self.jackpot is not None:
            hit.append(self.jackpot.label)
        return tuple(hit)


@dataclass(frozen=True, slots=True)
class OuterOutcome:
    """One outcome of the outer wheel and its exact probability at a given wager."""

    wedge: WheelWedge | None
    jackpot: Jackpot | None
    probability: Fraction


def check_wheel(wheel: WheelRules) -> None:
    """Raise :class:`InvalidRuleSetError` when the wheel cannot be spun as documented above."""
    if not wheel.inner:
        raise InvalidRuleSetError("wheel.inner needs at least one wedge")
    for wedge in wheel.outer:
        if wedge.power_up or wedge.multiplier is None:
            raise InvalidRuleSetError(
                f"outer wedge {wedge.label!r} must pay a multiplier and cannot power up again"
            )
    if any(wedge.power_up for wedge in wheel.inner) and not wheel.outer:
        raise InvalidRuleSetError("a power_up wedge needs outer wedges to land on")


def chance_per_unit(jackpot: Jackpot) -> Fraction:
    """The jackpot's chance per minor unit wagered, as the decimal written in the rule set."""
    return Fraction(repr(jackpot.chance_per_wager_unit))


def jackpot_cap_wager_amount(wheel: WheelRules) -> Fraction | None:
    """The wager above which the jackpot chances would add up to more than 1 (``None``: none)."""
    total = sum((chance_per_unit(jackpot) for jackpot in wheel.jackpots), Fraction(0))
    return 1 / total if total else None


def outer_outcomes(wheel: WheelRules, wager_amount: int) -> list[OuterOutcome]:
    """Exact outer-wheel probabilities at this wager: jackpots first, then the wedges."""
    check_wheel(wheel)
    if wager_amount < 1:
        raise ValueError(f"wager_amount must be positive, got {wager_amount}")
    chances = [chance_per_unit(jackpot) * wager_amount for jackpot in wheel.jackpots]
    total_chance = sum(chances, Fraction(0))
    if total_chance > 1:
        chances = [chance / total_chance for chance in chances]
        total_chance = Fraction(1)
    outcomes = [
        OuterOutcome(None, jackpot, chance)
        for jackpot, chance in zip(wheel.jackpots, chances, strict=True)
    ]
    total_weight = sum(wedge.weight for wedge in wheel.outer)
    left = 1 - total_chance
    outcomes.extend(
        OuterOutcome(wedge, None, left * wedge.weight / total_weight) for wedge in wheel.outer
    )
    return outcomes


def _pick(weights: Sequence[int], source: RandomSource) -> int:
    draw = source.randbelow(sum(weights))
    for index, weight in enumerate(weights):
        if draw < weight:
            return index
        draw -= weight
    raise AssertionError("randbelow returned a value outside its bound")


def _integer_weights(probabilities: Sequence[Fraction]) -> list[int]:
    scale = lcm(*(probability.denominator for probability in probabilities))
    return [int(probability * scale) for probability in probabilities]


def _wedge_amount(wedge: WheelWedge, wager_amount: int) -> int:
    return (wedge.multiplier or 0) * wager_amount


def spin_bonus_wheel(wheel: WheelRules, wager_amount: int, source: RandomSource) -> WheelResult:
    """Spin the inner wheel, and the outer one after a power-up; pay in minor units."""
    check_wheel(wheel)
    inner = wheel.inner[_pick([wedge.weight for wedge in wheel.inner], source)]
    payout_amount = _wedge_amount(inner, wager_amount)
    if not inner.power_up:
        return WheelResult(inner, None, None, payout_amount)
    outcomes = outer_outcomes(wheel, wager_amount)
    hit = outcomes[_pick(_integer_weights([item.probability for item in outcomes]), source)]
    if hit.jackpot is not None:
        return WheelResult(inner, None, hit.jackpot, payout_amount + hit.jackpot.amount)
    assert hit.wedge is not None
    return WheelResult(
        inner, hit.wedge, None, payout_amount + _wedge_amount(hit.wedge, wager_amount)
    )


def wheel_outcomes(wheel: WheelRules, wager_amount: int) -> list[tuple[Fraction, WheelResult]]:
    """Every possible result of one feature with its exact probability."""
    check_wheel(wheel)
    total_weight = sum(wedge.weight for wedge in wheel.inner)
    results: list[tuple[Fraction, WheelResult]] = []
    for inner in wheel.inner:
        chance = Fraction(inner.weight, total_weight)
        base = _wedge_amount(inner, wager_amount)
        if not inner.power_up:
            results.append((chance, WheelResult(inner, None, None, base)))
            continue
        for item in outer_outcomes(wheel, wager_amount):
            if item.jackpot is not None:
                result = WheelResult(inner, None, item.jackpot, base + item.jackpot.amount)
            else:
                assert item.wedge is not None
                result = WheelResult(
                    inner, item.wedge, None, base + _wedge_amount(item.wedge, wager_amount)
                )
            results.append((chance * item.probability, result))
    return results


def wheel_return(wheel: WheelRules, wager_amount: int) -> Fraction:
    """Exact expected payout per unit wagered, given that the feature triggers."""
    return (
        sum(
            (
                chance * result.payout_amount
                for chance, result in wheel_outcomes(wheel, wager_amount)
            ),
            Fraction(0),
        )
        / wager_amount
    )


def wheel_second_moment(wheel: WheelRules, wager_amount: int) -> Fraction:
    """Exact ``E[(payout / wager)^2]`` given that the feature triggers (for variances)."""
    return sum(
        (
            chance * Fraction(result.payout_amount, wager_amount) ** 2
            for chance, result in wheel_outcomes(wheel, wager_amount)
        ),
        Fraction(0),
    )
