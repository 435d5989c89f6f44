"""Exact main-game figures of a rule set: returns, house edge, standard deviation, insurance.

Everything is computed over the finite shoe of the title (``rules.shoe.decks`` full decks,
freshly shuffled), with no infinite-deck shortcut:

* the dealer's final-outcome chances for every set of cards removed from the shoe (peek
  games: the outcomes are split off from a dealer blackjack, which play never sees);
* every player hand's values: stand, hit (and play on), double, split, surrender;
* the round's mean and mean square per initial unit, for two ways of playing.

**Optimal** (composition-dependent) play decides every hand by the exact cards it holds and
the dealer's up card. By default a split hand is played optimally knowing its own cards, the
up card and the *split cards so far*, but not the other cards of the other split hands
(``split_play="post-split"``); ``split_play="cdz"`` is CDZ-, deciding as the unsplit hand
would, with resplits valued exactly by :mod:`.split_cdz` (see docs/math.md for both). Split
once, both hands then have the same expected value, so a split is worth exactly twice one
split hand dealt from the shoe without the up card and both pair cards (exact for that
strategy, by the exchangeability of the shoe's order); post-split resplits
(``split.max_hands``, ``split.resplit_aces``) are valued level by level as
:mod:`boundless.math.exact.split_rounds` describes, with a known small approximation.

**Basic** strategy is a total-dependent chart (see
:mod:`boundless.math.exact.basic_strategy`) played exactly as the engine plays it
(:meth:`StrategyChart.choose`), its return computed through the same recursions.

**Standard deviation** is that of the round's net result per initial unit. The second
moment is exact except for one term: the product of split hands' results, which is
taken as if two split hands were independent given the dealer's final outcome (and a bust
is attributed to the dealer's chances before the busting card). Splits are about 2.5% of
rounds; the approximation moves the standard deviation in its fifth digit.

Insurance and even money are reported separately (:func:`insurance_return`); they are not
part of the main figure.
"""

from __future__ import annotations

import math
from collections.abc import Sequence
from dataclasses import dataclass
from fractions import Fraction
from typing import Literal

from boundless.core.rules import RuleSet
from boundless.core.strategy_chart import StrategyChart
from boundless.math.exact.basic_strategy import derive_basic_strategy
from boundless.math.exact.fast import FastAnalysis, Figures, SplitPlay
from boundless.math.exact.params import GameParams, check_shoe, standard_shoe, value_counts_of

Strategy = Literal["optimal", "basic"]
STRATEGIES: tuple[Strategy, ...] = ("optimal", "basic")


@dataclass(frozen=True, slots=True)
class MainGameReport:
    """The main bet's figures under one strategy, per initial unit staked."""

    title: str
    strategy: Strategy
    expected_value: float  # net result per initial unit (negative: the house wins)
    variance: float
    decks: int

    @property
    def return_to_player(self) -> float:
        """Everything staked comes back times this (0.99xx): 1 + expected value."""
        return 1.0 + self.expected_value

    @property
    def house_edge(self) -> float:
        return -self.expected_value

    @property
    def standard_deviation(self) -> float:
        return math.sqrt(self.variance)

    def to_json(self) -> dict[str, object]:
        return {
            "title": self.title,
            "strategy": self.strategy,
            "return": self.return_to_player,
            "house_edge": self.house_edge,
            "stdev": self.standard_deviation,
            "decks": self.decks,
        }


@dataclass(frozen=True, slots=True)
class MainGameAnalysis:
    """Both strategies' figures and the derived chart, from one pass."""

    optimal: MainGameReport
    basic: MainGameReport
    chart: StrategyChart


def _report(rules: RuleSet, strategy: Strategy, figures: Figures) -> MainGameReport:
    return MainGameReport(
        title=rules.key,
        strategy=strategy,
        expected_value=figures.mean,
        variance=figures.variance,
        decks=rules.shoe.decks,
    )


def analyse_main_game(
    rules: RuleSet,
    *,
    shoe: Sequence[int] | None = None,
    chart: StrategyChart | None = None,
    split_play: SplitPlay = "post-split",
) -> MainGameAnalysis:
    """Optimal and basic-strategy figures in one pass (the chart is derived unless given).

    ``shoe`` (13 rank counts, ace to king) replaces the title's full shoe, for checks on
    reduced shoes; ``split_play`` is how the optimal player decides split hands (the basic
    figures do not depend on it).
    """
    params = GameParams.from_rules(rules, shoe)
    result = FastAnalysis(params, rules.key, split_play).analyse(chart)
    assert result.basic is not None and result.chart is not None
    return MainGameAnalysis(
        optimal=_report(rules, "optimal", result.optimal),
        basic=_report(rules, "basic", result.basic),
        chart=result.chart,
    )


def main_game_return(
    rules: RuleSet,
    strategy: Strategy = "optimal",
    *,
    shoe: Sequence[int] | None = None,
    chart: StrategyChart | None = None,
    split_play: SplitPlay = "post-split",
) -> MainGameReport:
    """The main game's exact figures under ``strategy``.

    ``basic`` plays ``chart`` when given, else the chart derived for the rule set.
    """
    if strategy not in STRATEGIES:
        raise ValueError(f"strategy must be one of {STRATEGIES}, got {strategy!r}")
    if strategy == "basic":
        return analyse_main_game(rules, shoe=shoe, chart=chart).basic
    params = GameParams.from_rules(rules, shoe)
    result = FastAnalysis(params, rules.key, split_play).analyse(chart, want_basic=False)
    return _report(rules, "optimal", result.optimal)


def first_move_values(
    rules: RuleSet,
    up: int,
    first: int,
    second: int,
    *,
    shoe: Sequence[int] | None = None,
    split_play: SplitPlay = "post-split",
) -> dict[str, float]:
    """Expected net result per initial unit of each first move for a two-card hand.

    Card values 1 (ace) to 10. Moves: stand, hit, double, split (pairs), surrender; each
    played optimally afterwards (split hands as ``split_play`` says). Where the dealer peeks
    behind ``up`` the values are given no dealer blackjack (as published tables print them);
    otherwise they include it.
    """
    analysis = FastAnalysis(GameParams.from_rules(rules, shoe), rules.key, split_play)
    return analysis.first_move_values(up, (min(first, second), max(first, second)))


@dataclass(frozen=True, slots=True)
class InsuranceReport:
    """Insurance (and even money) against a dealer ace, from a freshly shuffled shoe.

    Returns are per unit put on insurance, stake included: a winning insurance returns
    ``1 + pays`` times its stake.
    """

    title: str
    offered: bool
    cost: Fraction  # share of the main bet an insurance stake is
    pays: Fraction
    blackjack_offer: Literal["insurance", "even_money"]
    insurance_return: Fraction  # averaged over the hands offered insurance
    natural_insurance_return: Fraction  # on a player blackjack
    natural_declined_value: Fraction  # a player blackjack left alone, per initial unit
    even_money_value: Fraction  # a player blackjack settled at 1:1 at once

    @property
    def insurance_house_edge(self) -> Fraction:
        return 1 - self.insurance_return

    def to_json(self) -> dict[str, object]:
        return {
            "offered": self.offered,
            "cost": float(self.cost),
            "pays": float(self.pays),
            "blackjack_offer": self.blackjack_offer,
            "insurance_return": float(self.insurance_return),
            "natural_insurance_return": float(self.natural_insurance_return),
            "natural_declined_value": float(self.natural_declined_value),
            "even_money_value": float(self.even_money_value),
        }


def insurance_return(rules: RuleSet, *, shoe: Sequence[int] | None = None) -> InsuranceReport:
    """Exact insurance figures at a fresh shoe (card removal of the up ace and the player's
    two cards included)."""
    counts = value_counts_of(check_shoe(standard_shoe(rules.shoe.decks) if shoe is None else shoe))
    insurance = rules.insurance
    pays = Fraction(insurance.pays.win, insurance.pays.per)
    blackjack_pays = Fraction(rules.payouts.blackjack.win, rules.payouts.blackjack.per)
    even_money = insurance.blackjack_offer == "even_money"
    left = list(counts)
    left[0] -= 1
    cards = sum(left)
    offered_weight = offered_tens = Fraction(0)
    natural_tens = Fraction(0)
    for first in range(1, 11):
        for second in range(first, 11):
            first_count = left[first - 1]
            second_count = left[second - 1] - (first == second)
            if first_count <= 0 or second_count <= 0:
                continue
            chance = Fraction(first_count * second_count * (1 if first == second else 2))
            chance /= cards * (cards - 1)
            tens_left = left[9] - (first == 10) - (second == 10)
            ten_chance = Fraction(tens_left, cards - 2)
            natural = (first, second) == (1, 10)
            if natural:
                natural_tens = ten_chance
            if natural and even_money:
                continue
            offered_weight += chance
            offered_tens += chance * ten_chance
    average_tens = offered_tens / offered_weight if offered_weight else Fraction(0)
    return InsuranceReport(
        title=rules.key,
        offered=insurance.offered,
        cost=Fraction(insurance.cost.numerator, insurance.cost.denominator),
        pays=pays,
        blackjack_offer=insurance.blackjack_offer,
        insurance_return=(1 + pays) * average_tens,
        natural_insurance_return=(1 + pays) * natural_tens,
        natural_declined_value=blackjack_pays * (1 - natural_tens),
        even_money_value=Fraction(1),
    )


__all__ = [
    "InsuranceReport",
    "MainGameAnalysis",
    "MainGameReport",
    "analyse_main_game",
    "derive_basic_strategy",
    "first_move_values",
    "insurance_return",
    "main_game_return",
]
